"""The vocabulary of Lift programs: the library its names refer to: Lift's patterns as
workbench primitives (its layout macros such as ``Tile``, ``Pad2D`` and ``Slide3D`` in
``lift_layouts``, the patterns built from other primitives and those refused in
``lift_patterns``), ``Value``, ``fun`` and ``UserFun``, its types and sizes, and the predefined
user functions of its library and test utilities (``lift_functions.lift``). The Scala-level
values are in ``lift_values``."""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from pathlib import Path

from ..expr import (
    Apply,
    BinOp,
    Expr,
    Lambda,
    Lit,
    Prim,
    Section,
    TupleExpr,
    UserFun,
    Var,
)
from ..sizes import Size
from ..types import (
    BOOL,
    DOUBLE,
    FLOAT,
    INT,
    ArrayType,
    ScalarType,
    TupleType,
    Type,
    VectorType,
    free_size_vars,
)
from .c_body import CBodyError, user_function
from .lift_layouts import layouts
from .lift_patterns import (
    NOT_READ,
    array_access,
    array_from_value,
    checked_array_access,
    identity_pattern,
    is_unzipped,
    pad_nd,
    print_view,
    reduce_while,
    refused,
    slide_nd,
    unzip,
    vectorize,
)
from .lift_values import Callable_, CapacityArray, Namespace, show_node
from .lift_values import expect_arguments as _expect

# --- the library: Lift's patterns, types and user functions ---------------------------------

def _pattern(name: str, kinds: str, lift_name: str):
    """A Lift pattern whose arguments are the static arguments of a primitive, in order:
    ``s`` a size, ``f`` a function, ``v`` a value."""
    def call(reader, args, node):
        _expect(reader, node, args, (len(kinds),), lift_name)
        static = []
        for i, (k, a) in enumerate(zip(kinds, args)):
            static.append(reader.natural(args, i, node, f"the size argument {i + 1} of "
                                                        f"{lift_name}")
                          if k == "s" else reader.as_expr(a, node))
        return Prim(name, tuple(static))
    return Callable_(lift_name, call)


def _map(name: str, lift_name: str, has_dim: bool):
    def call(reader, args, node):
        _expect(reader, node, args, (1,), lift_name)
        (a,) = args
        if has_dim and isinstance(a, int) and not isinstance(a, bool) and a not in (0, 1, 2):
            raise reader.error(reader.argument_node(node, args, 0),
                               f"{lift_name}({a}): OpenCL dimensions are 0, 1 and 2",
                               "a dimension")
        if has_dim and isinstance(a, int) and not isinstance(a, bool) and a in (0, 1, 2):
            return Callable_(f"{lift_name}({a})", lambda r, more, n: Prim(
                name, (a, _single(r, more, n, f"{lift_name}({a})"))))
        f = reader.as_expr(a, node)
        return Prim(name, (0, f) if has_dim else (f,))
    return Callable_(lift_name, call)


def _single(reader, args, node, what):
    _expect(reader, node, args, (1,), what)
    return reader.as_expr(args[0], node)


def _nullary(lift_name: str, make: Callable[[], Expr]):
    def call(reader, args, node):
        _expect(reader, node, args, (0,), lift_name)
        return make()
    return Callable_(lift_name, call)


def _unsupported(message: str):
    def call(reader, args, node):
        raise reader.error(node, message)
    return call


def _iterate(reader, args, node):
    # Iterate(0)(f) is the identity (f applied no times): a count of 0 is meaningful.
    what = "the number of iterations of Iterate"
    if len(args) == 2:
        return Prim("iterate", (reader.natural(args, 0, node, what),
                                reader.as_expr(args[1], node)))
    _expect(reader, node, args, (1,), "Iterate")
    n = reader.natural(args, 0, node, what)
    return Callable_(f"Iterate({n})", lambda r, more, m: Prim(
        "iterate", (n, _single(r, more, m, f"Iterate({n})"))))


def _zip(reader, args, node):
    if len(args) == 1 and isinstance(args[0], int):
        return Prim("zip")  # Zip(2): the pattern, applied later (FunCall(Zip(2), a, b))
    if len(args) < 2:
        raise reader.error(node, "Zip takes two or more arrays")
    return Apply(Prim("zip"), tuple(reader.as_expr(a, node) for a in args))


def _get(reader, args, node):
    if len(args) == 1:
        return Prim("get", (reader.index(args, 0, node, "Get(i)"),))
    _expect(reader, node, args, (2,), "Get")
    index = reader.index(args, 1, node, "Get(x, i)")
    if isinstance(args[0], TupleExpr) and is_unzipped(args[0]) and \
            index < len(args[0].items):
        return args[0].items[index]  # Get(Unzip() $ xs, i): that component
    return Apply(Prim("get", (index,)), (reader.as_expr(args[0], node),))


def _more_patterns() -> dict:
    """Lift's patterns read as others (MapAtomLcl, Vectorize, PadND, the debugging ones),
    the constructors ArrayFromValue, and those refused with their reason."""
    lib: dict[str, object] = {name: refused(name) for name in NOT_READ}
    lib["MapAtomLcl"] = _map("mapLocal", "MapAtomLcl", True)  # atomic scheduling: a choice
    lib["MapAtomWrg"] = _map("mapWorkgroup", "MapAtomWrg", True)  # of code, same meaning
    lib["ArrayFromValue"] = Callable_("ArrayFromValue", array_from_value)
    lib["Vectorize"] = Callable_("Vectorize", vectorize)
    lib["PadND"] = Callable_("PadND", pad_nd)
    lib["SlideND"] = Callable_("SlideND", slide_nd)
    for name in ("AssertType", "PrintComment", "PrintTypeInConsole"):
        lib[name] = identity_pattern(name)
    lib["PrintView"] = Callable_("PrintView", print_view)
    lib["ArrayTypeWS"] = Callable_("ArrayTypeWS", _array_type)
    lib["ArrayTypeWC"] = Callable_("ArrayTypeWC", _capacity_array_type)
    return lib


def _tuple(reader, args, node):
    """``Tuple(a, b)``, and Lift's pattern ``Tuple(n)`` applied later (``FunCall(Tuple(2),
    a, b)``, as Lift prints expressions): a number alone is no tuple of one."""
    if len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool):
        n = args[0]
        return Callable_(f"Tuple({n})", lambda r, more, m: _tuple_of(r, more, m, n))
    return TupleExpr(tuple(reader.as_expr(a, node) for a in args))


def _tuple_of(reader, args, node, n: int) -> TupleExpr:
    _expect(reader, node, args, (n,), f"Tuple({n})")
    return TupleExpr(tuple(reader.as_expr(a, node) for a in args))


def _fun_call(reader, args, node):
    if not args:
        raise reader.error(node, "FunCall takes the function and its arguments")
    return reader.call(args[0], args[1:], node)


def _vectorize_user_fun(reader, args, node):
    _expect(reader, node, args, (2,), "VectorizeUserFun")
    reader.natural(args, 0, node, "the width of VectorizeUserFun")
    return Prim("mapVec", (reader.as_expr(args[1], node),))


def _value(reader, args, node):
    _expect(reader, node, args, (1, 2), "Value")
    v = args[0]
    t = args[1] if len(args) == 2 else None
    if t is not None and not isinstance(t, Type):
        raise reader.error(node, f"the second argument of Value is its type, not "
                                 f"{show_node(t)}", "a Lift type")
    if isinstance(v, str):
        return _value_text(reader, v, t, node)
    if isinstance(t, ArrayType) and isinstance(t.elem, VectorType):
        return _vectors(t, _value(reader, [v, t.elem.elem], node))
    if isinstance(t, ArrayType):
        return Apply(Prim("replicate", (t.size,)), (_value(reader, [v, t.elem], node),))
    if isinstance(v, tuple):
        return TupleExpr(tuple(reader.as_expr(x, node) for x in v))
    return Lit(v) if isinstance(v, int | float) else reader.as_expr(v, node)


def _value_text(reader, text: str, t: Type | None, node) -> Expr:
    """The C text of a Lift ``Value``: a number (``"0.0f"``), a tuple literal
    (``"{0.0f, 0}"`` of a ``TupleType``), an array of copies of one (``ArrayType(T, n)``),
    or a vector's number in every lane (``Float4``: the literal, which takes the vector type
    its context expects)."""
    text = text.strip()
    if isinstance(t, ArrayType) and isinstance(t.elem, VectorType):
        return _vectors(t, _value_text(reader, text, t.elem, node))
    if isinstance(t, ArrayType):
        return Apply(Prim("replicate", (t.size,)), (_value_text(reader, text, t.elem, node),))
    if text.startswith("{") and text.endswith("}"):
        items = _brace_items(text[1:-1])
        if isinstance(t, VectorType):
            if len(set(items)) != 1:
                raise reader.error(node, f"Value({text!r}, {t}): a vector value is read when "
                                         f"every lane holds the same number")
            return _value_text(reader, items[0], t.elem, node)
        if t is not None and not isinstance(t, TupleType):
            raise reader.error(node, f"Value({text!r}, {t}): a {{...}} value is a tuple, and "
                                     f"{t} is not a tuple type", "a TupleType")
        if isinstance(t, TupleType) and len(t.items) != len(items):
            raise reader.error(node, f"Value({text!r}, {t}): {len(items)} components for a "
                                     f"tuple of {len(t.items)}")
        kinds = t.items if isinstance(t, TupleType) else [None] * len(items)
        return TupleExpr(tuple(_value_text(reader, item, k, node)
                               for item, k in zip(items, kinds)))
    cast = _VECTOR_CAST.match(text)
    if cast is not None:  # OpenCL C's vector literal: "(float4) 0.0f", "(float4)(1, 1, 1, 1)"
        return _vector_literal(reader, text, cast, t, node)
    if isinstance(t, VectorType):
        t = t.elem
    if text in ("true", "false"):
        return Lit(text == "true")
    number = text[:-1] if text[-1:] in ("f", "F") and not text.lower().startswith("0x") \
        else text
    try:
        value: int | float = int(number) if number.lstrip("+-").isdigit() else float(number)
    except ValueError:
        raise reader.error(node, f"Value({text!r}): not a number, a tuple {{...}} of numbers "
                                 f"or true/false") from None
    if t == FLOAT or t == DOUBLE or text[-1:] in ("f", "F"):
        value = float(value)
    elif t == INT and isinstance(value, float):
        raise reader.error(node, f"Value({text!r}, Int): {text} is not a whole number")
    return Lit(value)


def _vectors(t: ArrayType, lane: Expr) -> Expr:
    """An array of vectors of one number in every lane (``Value("0.0f",
    ArrayType(Float4, n))``): the n × w numbers read as n vectors, ``asVector(w) $
    Value(..., ArrayType(Float, n × w))``, so that the array has the vector type its
    elements are written with (a vector accumulator of N-body as NVIDIA writes it)."""
    width = t.elem.size
    return Apply(Prim("splitVec", (width,)), (Apply(Prim("replicate", (t.size * width,)),
                                                    (lane,)),))


_VECTOR_CAST = re.compile(r"\(\s*(float|int|double)(2|3|4|8|16)\s*\)\s*(.*)$", re.S)


def _vector_literal(reader, text: str, cast: re.Match, t: Type | None, node) -> Expr:
    """``(float4) 0.0f`` or ``(float4)(a, b, c, d)`` of equal lanes: the lanes' number (a
    literal takes the vector type its context expects)."""
    scalar, width, rest = cast.group(1), int(cast.group(2)), cast.group(3).strip()
    if isinstance(t, VectorType) and (t.elem.name, t.size) != (scalar, Size.const(width)):
        raise reader.error(node, f"Value({text!r}, {t}): the literal is a {scalar}{width}, "
                                 f"the type {t}")
    if t is not None and not isinstance(t, VectorType):
        raise reader.error(node, f"Value({text!r}, {t}): the literal is a {scalar}{width}, "
                                 f"the type {t} no vector", "a vector type such as Float4")
    if rest.startswith("(") and rest.endswith(")"):
        items = _brace_items(rest[1:-1])
        if len(items) not in (1, width):
            raise reader.error(node, f"Value({text!r}): a {scalar}{width} of {len(items)} "
                                     f"lanes")
        if len(set(items)) != 1:
            raise reader.error(node, f"Value({text!r}): a vector value is read when every "
                                     f"lane holds the same number")
        rest = items[0]
    return _value_text(reader, rest, ScalarType(scalar), node)


def _brace_items(text: str) -> list[str]:
    """The comma-separated items of ``{a, {b, c}}``'s inside, braces kept together."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return items


def _let(reader, args, node) -> Expr:
    """Lift's ``Let(x => body)``: the function of the one value it binds (Lift's generator
    keeps that value in a variable; here applying the function binds it)."""
    _expect(reader, node, args, (1,), "Let")
    fn = args[0]
    if not isinstance(fn, Lambda) or len(fn.params) != 1:
        raise reader.error(reader.argument_node(node, args, 0),
                           f"Let takes a function of the one value it binds (Let(x => ...)), "
                           f"not {show_node(fn)}", "a lambda of one parameter")
    return fn


def _fun(reader, args, node) -> Expr:
    if not args or not isinstance(args[-1], Lambda):
        raise reader.error(node, "fun takes parameter types (optional) and a lambda, as in "
                                 "fun(ArrayTypeWSWC(Float, N), in => ...)")
    *types, body = args
    if types and len(types) != len(body.params):
        raise reader.error(node, f"fun has {len(types)} parameter types for "
                                 f"{len(body.params)} parameters")
    types = _input_types(reader, types, body, node)
    result: Expr = copy.copy(_eta(body))
    if types:
        object.__setattr__(result, "lift_types", tuple(types))
    return result


def _input_types(reader, types: list, body: Lambda, node) -> list[Type]:
    """A ``fun``'s parameter types; an input given as ``ArrayTypeWC(T, capacity)`` is an
    array of T of a length of its own (named after the parameter), known when the program
    runs, as the input gives it (its capacity bounds it in Lift)."""
    taken = set().union(*(free_size_vars(t) for t in types if isinstance(t, Type)))
    out = []
    for t, param in zip(types, body.params):
        if isinstance(t, CapacityArray):
            name = f"{param}_length" if isinstance(param, str) and \
                Size.is_name(f"{param}_length") else "length"
            k, fresh = 0, name
            while fresh in taken:
                k, fresh = k + 1, f"{name}{k}"
            taken.add(fresh)
            t = ArrayType(reader.as_type(t.elem, node), Size.var(fresh))
        out.append(reader.as_type(t, node))
    return out


def _capacity_array_type(reader, args, node) -> CapacityArray:
    _expect(reader, node, args, (2,), "ArrayTypeWC")
    return CapacityArray(args[0], reader.natural(args, 1, node, "the capacity of an array"))


def _eta(fn: Lambda) -> Expr:
    """``λx. f x`` with x not in f is f (Lift's ``in => f $ in``)."""
    if len(fn.params) == 1 and isinstance(fn.params[0], str) and isinstance(fn.body, Apply) \
            and len(fn.body.args) == 1 and fn.body.args[0] == Var(fn.params[0]) \
            and fn.params[0] not in fn.body.fn.free_vars():
        return fn.body.fn
    return fn


def _userfun(reader, args, node) -> UserFun:
    _expect(reader, node, args, (5,), "UserFun")
    name, params, body, ins, out = args
    params = [params] if isinstance(params, str) else list(params)
    ins = list(ins) if isinstance(ins, list | tuple) else [ins]
    ins = [reader.as_type(t, node) for t in ins]
    out = reader.as_type(out, node)
    if len(params) != len(ins):
        raise reader.error(node, f"UserFun {name}: {len(params)} parameters, {len(ins)} types")
    try:
        return user_function(str(name), params, ins, out, str(body))
    except CBodyError as err:
        raise reader.error(node, str(err)) from None


def _array_type(reader, args, node) -> ArrayType:
    _expect(reader, node, args, (2, 3), "ArrayType")
    return ArrayType(reader.as_type(args[0], node),
                     reader.natural(args, 1, node, "the length of an array"))


def _tuple_type(reader, args, node) -> TupleType:
    return TupleType(tuple(reader.as_type(a, node) for a in args))


def _vector_type(reader, args, node) -> VectorType:
    _expect(reader, node, args, (2,), "VectorType")
    return VectorType(reader.as_type(args[0], node),
                      reader.natural(args, 1, node, "the width of a vector"))


def _cst(reader, args, node) -> Size:
    _expect(reader, node, args, (1,), "Cst")
    return reader.as_size(args[0], node)


def _size_var(reader, args, node) -> Size:
    if not args or not isinstance(args[0], str):
        raise reader.error(node, "SizeVar takes the size's name, as in SizeVar(\"N\")")
    if not Size.is_name(args[0]):
        raise reader.error(reader.argument_node(node, args, 0),
                           f"SizeVar({args[0]!r}): {args[0]!r} cannot name a size: size names "
                           f"are ASCII letters, digits and '_', not starting with a digit",
                           "a size name")
    return Size.var(args[0])


def library() -> dict:
    """Every name a Lift program may use without defining it."""
    lib: dict[str, object] = {}
    for name, lift in (("map", "Map"), ("mapGlobal", "MapGlb"), ("mapWorkgroup", "MapWrg"),
                       ("mapLocal", "MapLcl")):
        lib[lift] = _map(name, lift, name != "map")
    for name, lift in (("mapSeq", "MapSeq"), ("mapSeqUnroll", "MapSeqUnroll"),
                       ("mapWarp", "MapWarp"), ("mapLane", "MapLane"), ("mapVec", "MapVec")):
        lib[lift] = _map(name, lift, False)
    for name, lift in (("reduce", "Reduce"), ("reduceSeq", "ReduceSeq"),
                       ("reduceSeqUnroll", "ReduceSeqUnroll"), ("scanSeq", "ScanSeq"),
                       ("scan", "Scan")):
        lib[lift] = _pattern(name, "fv", lift)
    lib["ReducePart"] = _pattern("reducePart", "fvs", "ReducePart")
    for name, lift in (("toGlobal", "toGlobal"), ("toLocal", "toLocal"),
                       ("toPrivate", "toPrivate"), ("gather", "GatherFn"),
                       ("allPairs", "AllPairs")):
        lib[lift] = _pattern(name, "f", lift)
    for name, lift in (("split", "Split"), ("asVector", "asVector"), ("take", "Take"),
                       ("drop", "Drop")):
        lib[lift] = _pattern(name if name != "asVector" else "splitVec", "s", lift)
    lib["Slide"] = _pattern("slide", "ss", "Slide")
    lib["PadConstant"] = _pattern("pad", "ssv", "PadConstant")
    lib["ReorderStride"] = _pattern("reorderStride", "s", "ReorderStride")
    for lift, prim in (("Join", "join"), ("Transpose", "transpose"), ("TransposeW", "transpose"),
                       ("asScalar", "joinVec"), ("Head", "head"), ("Tail", "tail"),
                       ("Id", "id"), ("PrintType", "id"), ("Reorder", "reorder")):
        lib[lift] = _nullary(lift, lambda p=prim: Prim(p))
    lib.update(_more_patterns())
    lib["Unzip"] = Callable_("Unzip", unzip)
    lib["ReduceWhileSeq"] = Callable_("ReduceWhileSeq", reduce_while("ReduceWhileSeq"))
    lib["ReduceWhileSeqUnroll"] = Callable_("ReduceWhileSeqUnroll",
                                            reduce_while("ReduceWhileSeqUnroll"))
    lib["CheckedArrayAccess"] = Callable_("CheckedArrayAccess", checked_array_access)
    lib["UnsafeArrayAccess"] = Callable_("UnsafeArrayAccess",
                                         array_access("UnsafeArrayAccess"))
    lib["ArrayAccess"] = Callable_("ArrayAccess", array_access("ArrayAccess"))
    for generator in ("ArrayFromUserFunGenerator", "Array2DFromUserFunGenerator",
                      "Array3DFromUserFunGenerator"):
        lib[generator] = Callable_(generator, _unsupported(
            f"{generator} is not supported: its user function takes each element's indices "
            f"and the array's lengths as values, and a symbolic size has no value inside an "
            f"expression here; pass the array as an input of the program instead"))
    lib["Iterate"] = Callable_("Iterate", _iterate)
    lib["Zip"] = Callable_("Zip", _zip)
    lib["Get"] = Callable_("Get", _get)
    lib["Tuple"] = Callable_("Tuple", _tuple)
    lib["FunCall"] = Callable_("FunCall", _fun_call)
    lib["VectorizeUserFun"] = Callable_("VectorizeUserFun", _vectorize_user_fun)
    lib["Value"] = Callable_("Value", _value)
    lib["fun"] = Callable_("fun", _fun)
    lib["Let"] = Callable_("Let", _let)
    lib["UserFun"] = Callable_("UserFun", _userfun)
    lib["select"] = Callable_("select", lambda r, args, n: Apply(Prim("select"), tuple(
        r.as_expr(a, n) for a in args)))
    lib.update(layouts())  # Gather, Scatter, Pad, Slide2D, Tile, Zip2D, Filter, ...
    # types and sizes
    lib.update({"Float": FLOAT, "Int": INT, "Double": DOUBLE, "Bool": BOOL})
    lib.update({"true": True, "false": False})  # Scala's booleans
    for width in (2, 3, 4, 8, 16):
        lib[f"Float{width}"] = VectorType(FLOAT, Size.const(width))
        lib[f"Int{width}"] = VectorType(INT, Size.const(width))
        lib[f"Double{width}"] = VectorType(DOUBLE, Size.const(width))
    lib["ArrayType"] = lib["ArrayTypeWSWC"] = Callable_("ArrayType", _array_type)
    lib["TupleType"] = Callable_("TupleType", _tuple_type)
    lib["VectorType"] = Callable_("VectorType", _vector_type)
    lib["SizeVar"] = lib["Var"] = Callable_("SizeVar", _size_var)
    lib["StartFromRange"] = Callable_("StartFromRange", lambda r, args, n: None)
    lib["Cst"] = Callable_("Cst", _cst)
    for seq in ("Array", "Seq", "List"):
        lib[seq] = Callable_(seq, lambda r, args, n: list(args))
    lib["Math"] = lib["math"] = Namespace("Math", {
        name: Callable_(f"Math.{name}", _scala_math(name, fn)) for name, fn in _MATH.items()})
    lib.update(_user_functions())
    return lib


_MATH = {"sqrt": math.sqrt, "pow": math.pow, "exp": math.exp, "log": math.log,
         "abs": abs, "min": min, "max": max, "floor": math.floor, "ceil": math.ceil,
         "sin": math.sin, "cos": math.cos}


def _scala_math(name: str, fn):
    """Scala's ``Math.sqrt(3.0f)``: a number computed while the program is built (the
    constants of Lift's acoustic stencil)."""
    def call(reader, args, node):
        if not args or not all(isinstance(a, int | float) and not isinstance(a, bool)
                               for a in args):
            raise reader.error(node, f"Math.{name} computes with numbers while the program is "
                                     f"built; inside an expression write {name}(...)",
                               "numbers")
        try:
            return fn(*args)
        except (ValueError, TypeError, OverflowError) as err:
            shown = ", ".join(str(a) for a in args)
            raise reader.error(node, f"Math.{name}({shown}): {err}") from None
    return call


def _user_functions() -> dict:
    from .program import parse_program

    program = parse_program((Path(__file__).parent / "lift_functions.lift").read_text(
        encoding="utf-8"))
    out: dict[str, object] = dict(program.items())
    ident = Prim("id")
    for name in ("idI", "idB", "idF4", "idFF", "idFI", "idfloat", "iddouble", "i_id",
                 "t_id", "tf_id"):
        out[name] = ident
    out["addF4"] = Prim("mapVec", (Section("+"),))  # float4 + float4, lane by lane
    for name, op in (("add", "+"), ("addI", "+"), ("int_add", "+"), ("adddouble", "+"),
                     ("mult", "*"), ("multI", "*"), ("multdouble", "*"), ("subtract", "-")):
        out[name] = Generic(Section(op))
    out["Linear"] = ident  # Lift's NN activations (nn.Linear, nn.ReLU)
    out["ReLU"] = Generic(Lambda(("x",), Apply(Prim("max"), (Lit(0.0), Var("x")))))
    out["abs"] = Generic(Prim("abs"))
    out["max"] = Generic(Prim("max"))
    out["min"] = Generic(Prim("min"))
    out["id"] = Generic(ident)  # also id(Float), Lift's generic id of a type
    out["or"], out["not"] = out["userOr"], out["userNot"]
    # Lift's generic user functions of a type: equality(T), first(S, T)
    out["equality"] = Generic(Lambda(("x", "y"), BinOp("==", Var("x"), Var("y"))))
    out["first"] = Generic(Lambda(("x", "y"), Var("x")))
    return out


class Generic(Callable_):
    """A user function of Lift's library that is also a generic constructor (``add(Float)``
    is ``add`` on floats): called with a type it is itself, with values it is applied."""

    def __init__(self, fn: Expr):
        def call(reader, args, node):
            # add(Float) or add(Float, "name"): the function itself
            if args and isinstance(args[0], Type) and \
                    all(isinstance(a, Type | str) for a in args):
                return fn
            if not args:
                raise reader.error(node, f"{show_node(fn)} is called with no arguments")
            return reader.apply(fn, [reader.as_expr(a, node) for a in args])
        super().__init__(str(fn), call)
        object.__setattr__(self, "fn", fn)



def declared_pattern(word: str):
    """A primitive that Lift has no name for, by one of its spellings, called in Lift's
    syntax with its static arguments in order (``Loop(3, f)``, ``GatherOffsets(0, m)``,
    ``Rearrange(1, 0)``); a scalar primitive applied to values (``float(i)``, ``sqrt(x)``)."""
    from ..primitives import lookup

    decl = lookup(word)
    if decl is None:
        return None
    if decl.category == "scalar":
        return Generic(Prim(decl.name))

    def call(reader, args, node):
        static, rest = [], list(args)
        for param in decl.params:
            if param.kind == "dim":
                first = rest[0] if rest else None
                if isinstance(first, int) and not isinstance(first, bool) and first in (0, 1, 2) \
                        and len(rest) > 1:
                    static.append(rest.pop(0))
                else:
                    static.append(0)
            elif not rest:
                raise reader.error(node, f"{word} takes its "
                                         f"{', '.join(p.name for p in decl.params)}")
            elif param.kind == "sizes":
                first = len(args) - len(rest)
                static.append(tuple(reader.natural(args, first + i, node,
                                                   f"the {param.name} of {word}")
                                    for i in range(len(rest))))
                rest = []
            elif param.kind == "size":
                static.append(reader.natural(args, len(args) - len(rest), node,
                                             f"the {param.name} of {word}"))
                rest.pop(0)
            elif param.kind == "index":
                static.append(reader.index(args, len(args) - len(rest), node, word))
                rest.pop(0)
            else:
                static.append(reader.as_expr(rest.pop(0), node))
        prim = Prim(decl.name, tuple(static))
        return reader.apply(prim, [reader.as_expr(a, node) for a in rest]) if rest else prim

    return Callable_(word, call)
