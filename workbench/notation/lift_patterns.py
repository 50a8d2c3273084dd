"""Lift's patterns that the reader builds from other primitives, and those it refuses:
``Unzip`` (a tuple of ``Map(Get(i))``), ``ReduceWhileSeq`` (a ``ReduceSeq`` that carries
whether it goes on), ``CheckedArrayAccess`` and ``ArrayAccess``/``UnsafeArrayAccess`` (``at``),
``ArrayFromValue`` (``replicate``), ``Vectorize(n)``, ``PadND`` and ``SlideND`` (the 1- to
3-D patterns), Lift's debugging patterns (the identity), and ``NOT_READ``: the names refused,
each with its reason."""

from __future__ import annotations

from ..expr import Apply, BinOp, Compose, Expr, Lambda, Lit, Prim, TupleExpr, Var, compose
from ..types import ArrayType
from .lift_values import Callable_, CapacityArray, fresh_names
from .lift_values import expect_arguments as _expect


def unzip(reader, args, node) -> Expr:
    """Lift's ``Unzip()``: an array of pairs as the pair of its components' arrays,
    ``λxs. (Map(Get(0)) $ xs, Map(Get(1)) $ xs)``. Lift's own evaluation unzips pairs and
    triples; ``Unzip(3)`` (no Lift spelling) unzips triples."""
    _expect(reader, node, args, (0, 1), "Unzip")
    width = reader.index(args, 0, node, "Unzip(n)") if args else 2
    if width < 2:
        raise reader.error(node, f"Unzip({width}): an array of tuples of {width} components "
                                 f"is no array of tuples", "2 or more")
    return Lambda(("xs",), _unzipped(Var("xs"), width))


def _unzipped(xs: Expr, width: int) -> TupleExpr:
    return TupleExpr(tuple(Apply(Prim("map", (Prim("get", (i,)),)), (xs,))
                           for i in range(width)))


def is_unzipped(t: TupleExpr) -> bool:
    item = t.items[0]
    return isinstance(item, Apply) and len(item.args) == 1 and \
        t == _unzipped(item.args[0], len(t.items))


def _is_unzip(fn: Expr) -> bool:
    return isinstance(fn, Lambda) and isinstance(fn.body, TupleExpr) and \
        fn == Lambda(("xs",), _unzipped(Var("xs"), len(fn.body.items)))


def unzip_applied(fn: Expr, arg: Expr) -> Expr | None:
    """``Unzip() $ xs`` as the tuple ``(Map(Get(0)) $ xs, Map(Get(1)) $ xs)`` itself, so
    that ``Get(Unzip() $ xs, 0)`` is a component, of as many components as xs's tuples have
    where its writing shows it (``Unzip() $ Zip(a, b, c)``); so too ``(Unzip() o f) $ xs``,
    each component reading ``f $ xs``. None when fn is no Unzip."""
    if isinstance(fn, Compose) and _is_unzip(fn.fns[0]):  # (Unzip() o f) $ xs
        inner = Apply(compose(*fn.fns[1:]), (arg,))
        return _unzipped(inner, len(fn.fns[0].body.items))
    if not _is_unzip(fn):
        return None
    return _unzipped(arg, tuple_width(arg) or len(fn.body.items))


def unzip_composed(fn: Expr, after: Expr) -> Expr:
    """``Unzip() o f``: Unzip of as many components as f's result's tuples have where its
    writing shows it (``Unzip() o MapLcl(0)(fun(p => Tuple(a, b, c)))``); fn otherwise."""
    width = tuple_width(after) if _is_unzip(fn) else None
    return Lambda(("xs",), _unzipped(Var("xs"), width)) if width else fn


_ELEMENTWISE = ("map", "mapGlobal", "mapWorkgroup", "mapLocal", "mapSeq", "mapSeqUnroll",
                "mapWarp", "mapLane")


def tuple_width(e: Expr) -> int | None:
    """How many components the tuples have that an array (or a function's resulting array)
    holds, where the expression's writing shows it: a Zip of k arrays, a map whose function
    builds a k-tuple; else None."""
    if isinstance(e, Apply) and e.fn == Prim("zip"):
        return len(e.args)
    if isinstance(e, Apply):
        return tuple_width(e.fn)
    if isinstance(e, Compose):
        return tuple_width(e.fns[0])
    if isinstance(e, Lambda):
        return tuple_width(e.body)
    if isinstance(e, Prim) and e.name in _ELEMENTWISE and e.args:
        f = e.args[-1]
        body = f.body if isinstance(f, Lambda) else None
        return len(body.items) if isinstance(body, TupleExpr) else None
    if isinstance(e, Prim) and e.name in ("toGlobal", "toLocal", "toPrivate") and e.args:
        return tuple_width(e.args[0])
    return None


def reduce_while(lift_name: str):
    """Lift's ``ReduceWhileSeq(f, p, init)``: a sequential reduction that stops before the
    first element x where ``p(acc, x)`` is 0 (its code breaks out of the loop), as a
    ``ReduceSeq`` whose accumulator also holds whether it still goes on:
    ``Map(Get(0)) o ReduceSeq(λ(s, x). let go = s._1 && p(s._0, x) != 0 in
    (select(go, f(s._0, x), s._0), go), (init, true))``. Lift unrolls ReduceWhileSeqUnroll
    the same way it does not unroll it: it means the same."""
    def call(reader, args, node):
        _expect(reader, node, args, (3,), lift_name)
        f, p, init = (reader.as_expr(a, node) for a in args)
        s, x = fresh_names(("s", "x"), f, p, init)
        acc, going = Apply(Prim("get", (0,)), (Var(s),)), Apply(Prim("get", (1,)), (Var(s),))
        go = BinOp("&&", going, BinOp("!=", Apply(p, (acc, Var(x))), Lit(0)))
        step = Lambda((s, x), TupleExpr((
            Apply(Prim("select"), (go, Apply(f, (acc, Var(x))), acc)), go)))
        return compose(Prim("map", (Prim("get", (0,)),)),
                       Prim("reduceSeq", (step, TupleExpr((init, Lit(True))))))
    return call


def checked_array_access(reader, args, node) -> Expr:
    """Lift's ``CheckedArrayAccess(i, default) $ xs``: element i of xs, or default where i
    is outside the array (its code tests the bounds). Without the length as a value, the
    element is found by a sequential pass over the indexed elements:
    ``Get(ReduceSeq(λ(acc, (k, x)). select(k == i, x, acc), default) $ enumerate(xs), 0)``."""
    _expect(reader, node, args, (2,), "CheckedArrayAccess")
    index, default = (reader.as_expr(a, node) for a in args)
    acc, kx, xs = fresh_names(("acc", "kx", "xs"), index, default)
    k, x = Apply(Prim("get", (0,)), (Var(kx),)), Apply(Prim("get", (1,)), (Var(kx),))
    step = Lambda((acc, kx), Apply(Prim("select"), (BinOp("==", k, index), x, Var(acc))))
    found = Apply(Prim("reduceSeq", (step, default)), (Apply(Prim("enumerate"), (Var(xs),)),))
    return Lambda((xs,), Apply(Prim("at"), (Lit(0), found)))


def array_access(lift_name: str):
    """Lift's ``UnsafeArrayAccess(i) $ xs`` (an index computed in the program) and
    ``ArrayAccess(i) $ xs`` (a number): element i of xs, unchecked (the workbench's ``at``,
    as ``xs.at(i)``)."""
    def call(reader, args, node) -> Expr:
        _expect(reader, node, args, (1,), lift_name)
        index = reader.as_expr(args[0], node)
        (xs,) = fresh_names(("xs",), index)
        return Lambda((xs,), Apply(Prim("at"), (index, Var(xs))))
    return call


def array_from_value(reader, args, node) -> Expr:
    """Lift's ``ArrayFromValue(v, ArrayType(T, n))``: n copies of the value."""
    _expect(reader, node, args, (2,), "ArrayFromValue")
    t = reader.as_type(args[1], node)
    if not isinstance(t, ArrayType):
        raise reader.error(node, f"ArrayFromValue's second argument is an array type, not {t}",
                           "an ArrayType")
    return Apply(Prim("replicate", (t.size,)), (reader.as_expr(args[0], node),))


def vectorize(reader, args, node):
    """Lift's ``Vectorize(n)(f)``: ``f.vectorize(n)``."""
    _expect(reader, node, args, (1,), "Vectorize")
    def call(r, more, n):
        _expect(r, n, more, (1,), f"Vectorize({args[0]})")
        return reader.vectorize(r.as_expr(more[0], n), args, node)
    return Callable_(f"Vectorize({args[0]})", call)


def pad_nd(reader, args, node):
    """Lift's ``PadND(d)(l, r, b)``: ``Pad(l, r, b)`` in each of the d outer dimensions,
    ``Map(...Map(Pad) ...) o ... o Pad``."""
    _expect(reader, node, args, (1,), "PadND")
    dims = reader.natural(args, 0, node, "the dimensions of PadND")
    if not dims.is_integer_constant or int(dims.value) < 1:
        raise reader.error(node, "PadND(d) takes a number of dimensions, 1 or more")

    def call(r, more, n):
        pad = r.env["Pad"].call(r, more, n)
        stages, level = [], pad
        for _ in range(int(dims.value)):
            stages.append(level)
            level = Prim("map", (level,))
        return compose(*reversed(stages))
    return Callable_(f"PadND({dims})", call)


def slide_nd(reader, args, node):
    """Lift's ``SlideND(d)(size, step)``: Slide, Slide2D or Slide3D of equal sizes."""
    _expect(reader, node, args, (1,), "SlideND")
    dims = reader.natural(args, 0, node, "the dimensions of SlideND")
    names = {1: "Slide", 2: "Slide2D", 3: "Slide3D"}
    if not dims.is_integer_constant or int(dims.value) not in names:
        raise reader.error(node, f"SlideND({dims}): windows of 1, 2 or 3 dimensions are read "
                                 f"(Slide, Slide2D, Slide3D)", "1, 2 or 3")
    name = names[int(dims.value)]
    return Callable_(f"SlideND({dims})", lambda r, more, n: r.env[name].call(r, more, n))


def identity_pattern(lift_name: str):
    """A debugging pattern of Lift that passes its argument on (its effect is on Lift's
    compiler: a printed type or comment, a type assertion)."""
    return Callable_(lift_name, lambda r, args, n: Prim("id"))


def print_view(reader, args, node):
    _expect(reader, node, args, (2,), "PrintView")
    return reader.as_expr(args[1], node)  # PrintView(message, f) is f


NOT_READ = {
    "ArrayFromGenerator": "its generator is a Scala function of each index and the length, run "
                          "by Lift's compiler; pass the array as an input of the program",
    "PartRed": "a partial reduction leaves the length of its result open, for rewriting to "
               "choose; write Reduce, ReduceSeq or ReducePart with the length",
    "Search": "a search stops at the element it finds, and no workbench primitive stops early",
    "BSearch": "a binary search stops at the element it finds, and no workbench primitive "
               "stops early",
    "LSearch": "a linear search stops at the element it finds, and no workbench primitive "
               "stops early",
    "FilterSeq": "the length of its result depends on the data, and every array here has a "
                 "length known from the types",
    "InsertionSortSeq": "no workbench primitive sorts",
    "TiledSlidedND": "its tiling of overlapping windows is a rewrite of SlideND; write "
                     "SlideND, Slide2D or Slide3D and tile by rewriting",
    "TypeOperator": "it is the abstract base of Lift's debugging patterns, not written in "
                    "programs",
    "Long": "the workbench's scalar types are float, int, double and bool: no 64-bit integer",
    "UndefType": "it is the type Lift's checker gives before checking, not written in "
                 "programs",
    "NoType": "it is the type of Lift's nodes without a value, not written in programs",
}


CAPACITY_REFUSED = ("ArrayTypeWC is not supported here: an array of a capacity and no size "
                    "has its length known only when the program runs; a program's input has "
                    "it (the outermost type of a parameter of its fun), but inside another "
                    "type, or as a value's type, arrays of one type would differ in length, "
                    "and every array here has one length")


def refusal_of(value) -> str | None:
    """The reason a name of Lift that the reader refuses is refused (a type such as
    ``Long`` used where a type is expected), or None."""
    if isinstance(value, Callable_) and value.name in NOT_READ:
        return f"{value.name} is not supported: {NOT_READ[value.name]}"
    if isinstance(value, CapacityArray):
        return CAPACITY_REFUSED
    return None


def refused(lift_name: str) -> Callable_:
    """A name of Lift that the reader refuses, with its reason (``NOT_READ``)."""
    def call(reader, args, node):
        raise reader.error(node, f"{lift_name} is not supported: {NOT_READ[lift_name]}")
    return Callable_(lift_name, call)
