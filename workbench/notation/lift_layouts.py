"""Lift's patterns of data layout that are macros or index functions there: the boundaries
of ``Pad``, ``Pad2D``, ``PadConstant2D``/``3D`` and ``Pad3D``, ``Slide2D``/``3D``,
``MapSeqSlide``, ``Tile`` and ``Untile2D``, ``Zip2D``/``3D``, ``Filter``, and the index
functions of ``Gather``/``Scatter`` (``reverse``, ``ReorderWithStride(s)``, ``Shift(k)``,
``transposeFunction(m, n)``), each as the composition of workbench primitives that Lift
defines it as (``ir/ast/Pad.scala``, ``PadConstant.scala``, ``Slide.scala``, ``Zip.scala``,
``ir/ast/package.scala``)."""

from __future__ import annotations

from ..expr import Apply, BinOp, Expr, Lambda, Lit, Prim, Var, compose
from ..sizes import Size
from .lift_values import Boundary, Callable_, IndexFunction, Namespace, fresh_names, show_node
from .lift_values import expect_arguments as _expect

_REVERSE = Lambda(("i", "n"), BinOp("-", BinOp("-", Var("n"), Lit(1)), Var("i")))


def _index_function(reader, value, node, scatter: bool) -> Expr:
    if isinstance(value, Prim) and value.name == "reorderStride":
        # Lift's lowercase reorderStride(s), the function ReorderWithStride(s) is made of
        # (the workbench's reorderStride pattern by the same name)
        value = IndexFunction("reorderStride", value.args)
    if isinstance(value, IndexFunction):
        if value.kind == "reverse":
            return Prim("scatter" if scatter else "gather", (_REVERSE,))
        if value.kind == "reorderStride":
            s = value.args[0]
            if not scatter:
                return Prim("reorderStride", (s,))
            if not s.is_integer_constant:
                raise reader.error(node, "Scatter(ReorderWithStride(s)) needs a number s")
            k = int(s.value)
            chunk = BinOp("/", Var("n"), Lit(k))
            return Prim("scatter", (Lambda(("i", "n"), BinOp(
                "+", BinOp("/", Var("i"), chunk), BinOp("*", Lit(k), BinOp("%", Var("i"),
                                                                             chunk)))),))
        if value.kind == "shift":
            # Lift's shiftRightGeneric: (i + k) - n * (i / (n - 1))
            k = value.args[0]
            if k != Size.const(1):
                raise reader.error(node, _shift_refusal(k))
            shifted = BinOp("-", BinOp("+", Var("i"), Lit(int(k.value))), BinOp(
                "*", Var("n"), BinOp("/", Var("i"), BinOp("-", Var("n"), Lit(1)))))
            return Prim("scatter" if scatter else "gather", (Lambda(("i", "n"), shifted),))
        if value.kind == "transpose":
            m, n = value.args
            if not (m.is_integer_constant and n.is_integer_constant):
                return _transposition(m, n, scatter)
            f = Lambda(("i",), BinOp("+", BinOp("*", BinOp("%", Var("i"), Lit(int(n))),
                                                Lit(int(m))), BinOp("/", Var("i"), Lit(int(n)))))
            return Prim("scatter" if scatter else "gather", (f,))
    if isinstance(value, Lambda):
        return Prim("scatter" if scatter else "gather", (value,))
    if isinstance(value, Callable_) and value.name == "transpose":
        raise reader.error(node, "Lift's transpose index function takes its sizes from the "
                                 "array's type, which the reader does not know here; write "
                                 "transposeFunction(m, n) with the sizes")
    raise reader.error(node, f"{show_node(value)} is not an index function (reverse, "
                             f"ReorderWithStride(s), Shift(k), transposeFunction(m, n))")


def _transposition(outer: Size, inner: Size, scatter: bool) -> Expr:
    """``Gather(transposeFunction(m, n))`` of symbolic sizes: element i of the result is
    element (i % n) * m + i / n, the flat array of m × n read as n rows of m and transposed,
    ``Join() o Transpose() o Split(m)``; its inverse, ``Scatter``, is the transposition of
    the other reading, ``Join() o Transpose() o Split(n)``. (With numbers the index
    function itself is kept.)"""
    return compose(Prim("join"), Prim("transpose"), Prim("split", (inner if scatter else outer,)))


def _reordering(lift_name: str, scatter: bool):
    def call(reader, args, node):
        _expect(reader, node, args, (1,), lift_name)
        return _index_function(reader, args[0], node, scatter)
    return call


def _pad_by(boundary: Boundary, left: Size, right: Size) -> Prim:
    name = {"Clamp": "padClamp", "Wrap": "padWrap", "WrapUnsafe": "padWrap",
            "Mirror": "padMirror", "MirrorUnsafe": "padMirror"}[boundary.kind]
    return Prim(name, (left, right))


def _pad(reader, args, node):
    _expect(reader, node, args, (3,), "Pad")
    left, right = (reader.natural(args, i, node, f"the {side} width of Pad")
                   for i, side in enumerate(("left", "right")))
    if isinstance(args[2], Boundary):
        return _pad_by(args[2], left, right)
    return Prim("pad", (left, right, reader.as_expr(args[2], node)))


def _pad2d(reader, args, node):
    _expect(reader, node, args, (3, 5), "Pad2D")
    *sizes, boundary = args
    sizes = [reader.natural(args, i, node, "a width of Pad2D") for i in range(len(sizes))]
    top, bottom, left, right = sizes if len(sizes) == 4 else sizes * 2
    if not isinstance(boundary, Boundary):
        return _pad_value2d(top, bottom, left, right, reader.as_expr(boundary, node))
    return compose(Prim("map", (_pad_by(boundary, left, right),)), _pad_by(boundary, top, bottom))


def _slide2d(reader, args, node):
    _expect(reader, node, args, (2, 4), "Slide2D")
    sizes = [reader.natural(args, i, node, "a size of Slide2D") for i in range(len(args))]
    if len(sizes) == 2:
        return Prim("slide2D", tuple(sizes))
    rows, row_step, cols, col_step = sizes
    return compose(Prim("map", (Prim("transpose"),)), Prim("slide", (rows, row_step)),
                   Prim("map", (Prim("slide", (cols, col_step)),)))


def _pad_value2d(top: Size, bottom: Size, left: Size, right: Size, value: Expr) -> Expr:
    """Lift's ``Map(PadConstant(left, right, c)) o PadConstant(top, bottom, c)``. Lift pads
    the rows with the number c itself; here a padding value has the element type, so the
    columns are padded each with c between transposes (as Lift's own comment suggests)."""
    if top == left and bottom == right:
        return Prim("pad2D", (top, bottom, value))
    return compose(Prim("transpose"), Prim("map", (Prim("pad", (top, bottom, value)),)),
                   Prim("transpose"), Prim("map", (Prim("pad", (left, right, value)),)))


def _pad_constant2d(reader, args, node):
    _expect(reader, node, args, (3, 5), "PadConstant2D")
    *sizes, value = args
    sizes = [reader.natural(args, i, node, "a width of PadConstant2D")
             for i in range(len(sizes))]
    top, bottom, left, right = sizes if len(sizes) == 4 else sizes * 2
    return _pad_value2d(top, bottom, left, right, reader.as_expr(value, node))


def _pad3d(reader, args, node):
    """Lift's ``Pad3D(x, y, z, boundary)``: ``Map(Map(Pad(x, x)) o Pad(y, y)) o Pad(z, z)``
    (x pads the innermost dimension)."""
    _expect(reader, node, args, (4,), "Pad3D")
    x, y, z = (reader.natural(args, i, node, "a width of Pad3D") for i in range(3))
    boundary = args[3]
    if not isinstance(boundary, Boundary):
        return _pad_constant3d(reader, args, node)
    inner = compose(Prim("map", (_pad_by(boundary, x, x),)), _pad_by(boundary, y, y))
    return compose(Prim("map", (inner,)), _pad_by(boundary, z, z))


def _pad_constant3d(reader, args, node):
    """Lift's ``PadConstant3D(x, y, z, c)``, ``Map(Map(PadConstant(x, x, c)) o
    PadConstant(y, y, c)) o PadConstant(z, z, c)``: each dimension is padded with the
    number c where it is innermost (between transposes), as a padding value here has the
    element type."""
    _expect(reader, node, args, (4,), "PadConstant3D")
    x, y, z = (reader.natural(args, i, node, "a width of PadConstant3D") for i in range(3))
    value = reader.as_expr(args[3], node)
    transpose, inner_transpose = Prim("transpose"), Prim("map", (Prim("transpose"),))
    rows = Prim("map", (_pad_value2d(y, y, x, x, value),))  # each 2-D slice: y and x
    # [o][n][m] -> [n][m][o]: the outermost dimension innermost, padded, and back
    outer = compose(transpose, inner_transpose,
                    Prim("map", (Prim("map", (Prim("pad", (z, z, value)),)),)),
                    inner_transpose, transpose)
    return compose(outer, rows)


def _slide3d(reader, args, node):
    _expect(reader, node, args, (2, 6), "Slide3D")
    sizes = [reader.natural(args, i, node, "a size of Slide3D") for i in range(len(args))]
    size_x, step_x, size_y, step_y, size_z, step_z = sizes if len(sizes) == 6 else sizes * 3
    # Lift: Map(Map(Transpose()) o Transpose()) o Slide(sizeZ, stepZ) o
    #       Map(Map(Transpose()) o Slide(sizeY, stepY) o Map(Slide(sizeX, stepX)))
    # (its symmetric Slide3D(size, step), SlideND(3), is the same neighbourhoods)
    transpose_inner = Prim("map", (Prim("transpose"),))
    rows = compose(transpose_inner, Prim("slide", (size_y, step_y)),
                   Prim("map", (Prim("slide", (size_x, step_x)),)))
    return compose(Prim("map", (compose(transpose_inner, Prim("transpose")),)),
                   Prim("slide", (size_z, step_z)), Prim("map", (rows,)))


def _map_seq_slide(reader, args, node):
    """Lift's ``MapSeqSlide(f, size, step)``: f on each window of ``Slide(size, step)``,
    sequentially (Lift keeps the window in registers as it slides; the meaning is
    ``MapSeq(f) o Slide(size, step)``)."""
    _expect(reader, node, args, (3,), "MapSeqSlide")
    size, step = (reader.natural(args, i, node, f"the {what} of MapSeqSlide")
                  for i, what in ((1, "size"), (2, "step")))
    return compose(Prim("mapSeq", (reader.as_expr(args[0], node),)), Prim("slide", (size, step)))


def _fresh(name: str, *exprs: Expr) -> str:
    """A variable name free in none of exprs (the bound variable of a helper's lambda)."""
    return fresh_names((name,), *exprs)[0]


def _zip_nd(lift_name: str, depth: int):
    """Lift's ``Zip2D(a, b, ...)`` and ``Zip3D(...)``: arrays of two or three dimensions
    zipped element by element, ``Map(λt. Zip(Get(t, 0), Get(t, 1))) $ Zip(a, b)`` (Zip3D
    once more inside)."""
    def call(reader, args, node):
        if len(args) < 2:
            raise reader.error(node, f"{lift_name} takes two or more arrays")
        arrays = tuple(reader.as_expr(a, node) for a in args)
        t = _fresh("t", *arrays)
        rezip = Lambda((t,), Apply(Prim("zip"), tuple(Apply(Prim("get", (i,)), (Var(t),))
                                                      for i in range(len(arrays)))))
        result: Expr = Apply(Prim("zip"), arrays)
        level: Expr = rezip
        for _ in range(depth - 1):
            result = Apply(Prim("map", (level,)), (result,))
            level = Prim("map", (level,))
        return result
    return call


def _filter(reader, args, node):
    """Lift's ``Filter(xs, ids)``: the elements of xs at the indices ids, a gather by an
    index array: ``Map(λi. xs.at(i)) $ ids``."""
    if not args:
        return Callable_("Filter()", _filter)
    _expect(reader, node, args, (2,), "Filter")
    xs, ids = (reader.as_expr(a, node) for a in args)
    i = _fresh("i", xs)
    return Apply(Prim("map", (Lambda((i,), Apply(Prim("at"), (Var(i), xs))),)), (ids,))


def _shift(reader, args, node) -> IndexFunction:
    _expect(reader, node, args, (1,), "Shift")
    k = reader.natural(args, 0, node, "the amount of Shift")
    if k != Size.const(1):
        raise reader.error(reader.argument_node(node, args, 0), _shift_refusal(k), "1")
    return IndexFunction("shift", (k,))


def _shift_refusal(k: Size) -> str:
    return (f"Shift({k}): Lift's shift (i + k) - n * (i / (n - 1)) moves an element past the "
            f"end of the array (or before its start) unless k is 1, where it is a rotation; "
            f"only Shift(1) (shiftRight) is read")


def _tile(reader, args, node):
    _expect(reader, node, args, (1, 2), "Tile")
    sizes = [reader.natural(args, i, node, "a size of Tile") for i in range(len(args))]
    x, y = sizes if len(sizes) == 2 else sizes * 2
    # Lift: Map(Map(Transpose()) o Split(y) o Transpose()) o Split(x)
    inner = compose(Prim("map", (Prim("transpose"),)), Prim("split", (y,)), Prim("transpose"))
    return compose(Prim("map", (inner,)), Prim("split", (x,)))


def _untile2d() -> Expr:
    # Lift: Join() o Map(Map(Join()) o TransposeW())
    return compose(Prim("join"), Prim("map", (compose(Prim("map", (Prim("join"),)),
                                                      Prim("transpose")),)))


def _reorder_with_stride(reader, args, node) -> IndexFunction:
    _expect(reader, node, args, (1,), "ReorderWithStride")
    return IndexFunction("reorderStride", (reader.natural(args, 0, node, "the stride"),))


def _transpose_function(reader, args, node) -> IndexFunction:
    _expect(reader, node, args, (2,), "transposeFunction")
    return IndexFunction("transpose", tuple(
        reader.natural(args, i, node, "a size of transposeFunction") for i in range(2)))


def _get_length(reader, args, node) -> Expr:
    """``Type.getLength(t)`` in an index function written in Scala, ``(i, t) => ...``: Lift
    passes the array's type t, the workbench's index functions ``λi n.`` its length n, so
    the parameter t stands for the length."""
    _expect(reader, node, args, (1,), "Type.getLength")
    if not isinstance(args[0], Var):
        raise reader.error(reader.argument_node(node, args, 0),
                           f"Type.getLength({show_node(args[0])}): only the length of an "
                           f"index function's array is read, as in (i, t) => "
                           f"Type.getLength(t) - 1 - i", "a parameter")
    return args[0]


BOUNDARIES = ("Clamp", "Wrap", "WrapUnsafe", "Mirror", "MirrorUnsafe")


def layouts() -> dict:
    """The library's names of these patterns and index functions. The boundaries are also
    read unqualified (``Pad(1, 1, Clamp)``), as Lift's tests write them after ``import
    ir.ast.Pad.Boundary._``; a program's own definition of such a name hides it."""
    return {
        "Gather": Callable_("Gather", _reordering("Gather", scatter=False)),
        "Scatter": Callable_("Scatter", _reordering("Scatter", scatter=True)),
        "Pad": Namespace("Pad", {"Boundary": Namespace("Pad.Boundary", {
            k: Boundary(k) for k in BOUNDARIES})}, _pad),
        **{k: Boundary(k) for k in BOUNDARIES},
        "Pad2D": Callable_("Pad2D", _pad2d),
        "PadConstant2D": Callable_("PadConstant2D", _pad_constant2d),
        "PadConstant3D": Callable_("PadConstant3D", _pad_constant3d),
        "Pad3D": Callable_("Pad3D", _pad3d),
        "Slide2D": Callable_("Slide2D", _slide2d),
        "Slide3D": Callable_("Slide3D", _slide3d),
        "MapSeqSlide": Callable_("MapSeqSlide", _map_seq_slide),
        "Tile": Callable_("Tile", _tile),
        "Untile2D": Callable_("Untile2D", _untile2d_call),
        "Zip2D": Callable_("Zip2D", _zip_nd("Zip2D", 2)),
        "Zip3D": Callable_("Zip3D", _zip_nd("Zip3D", 3)),
        "Filter": Callable_("Filter", _filter),
        "reverse": IndexFunction("reverse"),
        "Shift": Callable_("Shift", _shift),
        "shiftRightGeneric": Callable_("shiftRightGeneric", _shift),  # what Shift(k) is
        "shiftRight": IndexFunction("shift", (Size.const(1),)),
        "shift2Right": IndexFunction("shift", (Size.const(2),)),
        "ReorderWithStride": Callable_("ReorderWithStride", _reorder_with_stride),
        "transposeFunction": Callable_("transposeFunction", _transpose_function),
        "Type": Namespace("Type", {"getLength": Callable_("Type.getLength", _get_length)}),
    }


def _untile2d_call(reader, args, node) -> Expr:
    _expect(reader, node, args, (0,), "Untile2D")
    return _untile2d()
