"""The scalar language: user functions (``mul3``, ``compCallPut``) and the scalar bodies of
lambdas become functions of the kernel IR (``ir.Function``); tuples become structs.

Typing comes from ``annotate``: every node's type is known, so a literal is written as
``3.0f`` where the context is float, ``min`` becomes ``fmin`` on floats, ``abs`` of a float
clears its sign bit, and a tuple type ``(float, float)`` becomes a struct.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..expr import (
    Apply,
    BinOp,
    Compose,
    Expr,
    Lambda,
    Lit,
    Path,
    Prim,
    Section,
    TupleExpr,
    UnOp,
    UserFun,
    Var,
    walk,
)
from ..primitives.families import STORES_AND_PREFETCH
from ..sizes import Size
from ..typecheck import Typing, annotate
from ..types import ScalarType, TupleType, Type, VectorType, function_parts
from . import ir
from .c_functions import function_text
from .c_names import CNames, parameter, user_function
from .c_types import ScalarCodegenError, c_type, components_struct

_FLOAT_FUNCS = {"min": "fmin", "max": "fmax"}
_INT_FUNCS = {"abs": "abs", "min": "min", "max": "max"}


@dataclass
class CProgram:
    """The declarations a program's kernels need: tuple structs and scalar functions, in the
    order they must be declared."""

    structs: set = field(default_factory=set)
    # (user function, form, argument types) -> C name
    functions: dict[tuple, str] = field(default_factory=dict)
    by_expression: dict[tuple, str] = field(default_factory=dict)  # (fn, types) -> C name
    order: list = field(default_factory=list)  # ir.StructDecl / ir.Function / ir.NativeFunction
    names: CNames = field(default_factory=CNames)  # the C names of its functions
    # the parameters of the lane-wise versions of user functions written in C
    lane_params: dict[tuple, tuple] = field(default_factory=dict)

    def struct(self, t: TupleType) -> str:
        if t not in self.structs:
            for item in t.items:
                c_type(item, self)
            self.structs.add(t)
            self.order.append(ir.StructDecl(t))
        return c_type(t)

    def declarations(self) -> tuple:
        return tuple(self.order)

    def source(self) -> str:
        """The declarations as OpenCL C."""
        from .emit import declarations_source

        return declarations_source(self.declarations())


def literal(value, t: Type) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(t, VectorType):  # a vector accumulator's start: the value in every lane
        return f"({c_type(t)})({literal(value, t.elem)})"
    if isinstance(t, ScalarType) and t.name == "float":
        text = repr(float(value))
        return (text if "e" in text or "." in text else text + ".0") + "f"
    if isinstance(t, ScalarType) and t.name == "double":
        text = repr(float(value))
        return text if "e" in text or "." in text else text + ".0"
    return str(int(value))


def float_abs(arg: ir.Value, precision: str, width: int | None = None) -> ir.Value:
    """|x| of a float or double (or a vector of them) by clearing the sign bit: the same
    value as ``fabs`` for every input (NaN, -0.0 and infinities included), and about ten
    times faster than ``fabs`` on PoCL's CPU device."""
    n = str(width or "")
    if precision == "double":
        bits = ir.Binary("&", ir.Call(f"as_ulong{n}", (arg,)), ir.Literal("0x7fffffffffffffffUL"))
        return ir.Call(f"as_double{n}", (bits,))
    bits = ir.Binary("&", ir.Call(f"as_uint{n}", (arg,)), ir.Literal("0x7fffffffu"))
    return ir.Call(f"as_float{n}", (bits,))


class _Emitter:
    def __init__(self, program: CProgram, typings: dict[Path, Typing],
                 width: int | None = None):
        self.program = program
        self.typings = typings
        self.width = width  # lanes, when a scalar function is generated for mapVec

    def type_at(self, path: Path) -> Type:
        return self.typings[path].result

    def value(self, e: Expr, path: Path, env: dict[str, ir.Value]) -> ir.Value:
        if isinstance(e, Var):
            return env[e.name]
        if isinstance(e, Lit):
            return ir.Literal(literal(e.value, self.type_at(path)))
        if isinstance(e, UnOp):
            if isinstance(e.operand, Lit):
                return ir.Literal(literal(-e.operand.value, self.type_at(path)))
            return ir.Unary(e.op, self.value(e.operand, path + (0,), env))
        if isinstance(e, BinOp):
            return ir.Binary(e.op, self.value(e.left, path + (0,), env),
                             self.value(e.right, path + (1,), env))
        if isinstance(e, TupleExpr):
            t = self.type_at(path)
            if self.width is not None:  # the tuple of a function applied to vectors
                t = _widened_type(t, self.width)
            c_type(t, self.program)
            return ir.MakeTuple(t, tuple(self.value(x, path + (i,), env)
                                         for i, x in enumerate(e.items)))
        if isinstance(e, Apply):
            args = [self.value(a, path + (i + 1,), env) for i, a in enumerate(e.args)]
            return self.call(e.fn, args, path + (0,), env)
        raise ScalarCodegenError(f"{e} is not a scalar expression")

    def call(self, fn: Expr, args: list[ir.Value], path: Path, env: dict) -> ir.Value:
        typing = self.typings[path]
        if isinstance(fn, Prim) and fn.name == "mapVec" and self.width is not None:
            # in lanes already: f of each float4 component by component (lanes of float4s
            # are the struct of the vectors of their components)
            return self.components(fn.args[-1], args, typing, path, env)
        if isinstance(fn, Prim) and fn.name == "mapVec":  # the lane-wise function of f
            f = fn.args[-1]
            name = define_function(f, list(typing.args), self.program,
                                   name=None if isinstance(f, UserFun) else "lanes")
            return ir.Call(name, tuple(args))
        if isinstance(fn, Prim) and fn.name in STORES_AND_PREFETCH:
            # a scalar function's value is a C value: where it is stored is its caller's
            return self.call(fn.args[0], args, path + (0,), env)
        if isinstance(fn, Prim):
            return self.primitive(fn, args, typing)
        if isinstance(fn, Section):
            fixed = [self.value(x, path + (0,), env) for x in fn.children()]
            if len(args) == 1 and isinstance(typing.args[0], TupleType) and not fixed:
                args = [ir.Field(args[0], 0), ir.Field(args[0], 1)]
            left, right = (fixed[0], args[0]) if fn.left is not None else \
                (args[0], fixed[0]) if fixed else (args[0], args[1])
            return ir.Binary(fn.op, left, right)
        if isinstance(fn, UserFun) and self.width is not None:
            return self.lanewise(fn, args, typing)
        if isinstance(fn, UserFun):
            name = define_function(fn, list(typing.args), self.program)
            return ir.Call(name, tuple(args))
        if isinstance(fn, Lambda):
            inner = dict(env)
            params = fn.params
            if len(args) == 1 and len(params) > 1:
                args = [ir.Field(args[0], i) for i in range(len(params))]
            for pattern, arg in zip(params, args):
                self.bind(pattern, arg, inner)
            return self.value(fn.body, path + (0,), inner)
        if isinstance(fn, Compose):  # (f o g) x, as Lift writes it in a reduction's operator
            for i in range(len(fn.fns) - 1, -1, -1):
                args = [self.call(fn.fns[i], args, path + (i,), env)]
            return args[0]
        raise ScalarCodegenError(f"cannot call {fn} in a scalar function")

    def components(self, f: Expr, args: list[ir.Value], typing: Typing, path: Path,
                   env: dict) -> ir.Value:
        """``mapVec f`` applied to float4s in lanes: f on the lanes of each component."""
        vectors = [v for t in typing.args for v in _vectors(t)]
        if not vectors or len({int(v.size.value) for v in vectors}) != 1:
            raise ScalarCodegenError(f"mapVec {f} in lanes takes float2/3/4 of one width")
        k = int(vectors[0].size.value)
        items = [self.call(f, [_component(a, t, c, self.width, self.program) for a, t in
                               zip(args, typing.args)], path + (0,), env) for c in range(k)]
        lanes = VectorType(ScalarType("float"), Size.const(self.width))
        result = typing.result
        if isinstance(result, VectorType) and isinstance(result.elem, ScalarType):
            lanes = VectorType(result.elem, Size.const(self.width))
        t = TupleType((lanes,) * k)
        c_type(t, self.program)
        return ir.MakeTuple(t, tuple(items))

    def lanewise(self, fn: UserFun, args: list[ir.Value], typing: Typing) -> ir.Value:
        """A user function called inside a function applied to vectors (``mapVec (λx. mul x
        a)``): its scalar version cannot take the vectors, and which arguments are vectors
        (x) and which scalars (a) is not known here, so its body is generated in place, on
        the arguments as they are (OpenCL C widens a scalar in arithmetic with a vector)."""
        if fn.body is None:  # its C body rewritten for vectors (``c_lanes``)
            name, params = _lanes_native(fn, self.width, self.program)
            # the values here hold float4s in lanes as structs (``_parameters``)
            return ir.Call(name, tuple(widened(a, t) for a, (t, _) in zip(args, params)))
        note = annotate(fn.body, *typing.args)
        inner = _Emitter(self.program, note.typings, self.width)
        return inner.call(fn.body, args, (), {})

    def bind(self, pattern, arg: ir.Value, env: dict) -> None:
        if isinstance(pattern, str):
            env[pattern] = arg
        else:
            for i, p in enumerate(pattern):
                self.bind(p, ir.Field(arg, i), env)

    def primitive(self, fn: Prim, args: list[ir.Value], typing: Typing) -> ir.Value:
        name = fn.name
        result = typing.result
        if name == "get":
            return ir.Field(args[0], fn.args[0])
        if name == "select":
            return ir.Select(args[0], args[1], args[2])
        if name in ("float", "int", "double", "bool"):
            return ir.Cast(name, args[0])
        if name == "id":
            return args[0]
        decl = fn.decl
        if decl.category != "scalar":
            raise ScalarCodegenError(f"{name} is not a scalar operation")
        if len(args) == 1 and (decl.arity or 0) > 1 and isinstance(typing.args[0], TupleType) \
                and len(typing.args[0].items) == decl.arity:
            # applied to a pair, as reduceSeq applies its operator (Lift's max(Float))
            args = [ir.Field(args[0], i) for i in range(decl.arity)]
        floating = isinstance(result, ScalarType) and result.name in ("float", "double")
        if floating and name == "abs":
            return float_abs(args[0], result.name, self.width)
        c_name = (_FLOAT_FUNCS if floating else _INT_FUNCS).get(name, decl.c_name or name)
        return ir.Call(c_name, tuple(args))


def _parameters(params, types, program: CProgram, emitter: _Emitter, env: dict,
                lanes: int | None = None) -> tuple:
    """The C parameters of a function (a tuple pattern becomes one struct parameter ``p0``;
    a named one is spelled as ``c_names.parameter`` says: ``x`` is ``x_``). With ``lanes``
    (float4s in lanes among them), a float4 given to every lane is bound as lanes too (the
    struct of its components widened), so that the body sees one form of float4."""
    out = []
    taken = CNames()
    for i, (pattern, t) in enumerate(zip(params, types)):
        c_name = taken.unique(parameter(pattern) if isinstance(pattern, str) else f"p{i}")
        c_type(t, program)
        out.append((t, c_name))
        value: ir.Value = ir.Name(c_name)
        if lanes is not None and _given_to_every_lane(t, lanes):
            wide = _as_lanes(t, lanes)
            c_type(wide, program)
            value = widened(value, wide, t)
        emitter.bind(pattern, value, env)
    return tuple(out)


def _component(v: ir.Value, t: Type, k: int, width: int, program: CProgram) -> ir.Value:
    """Component k of a value holding float4s in lanes (each a struct of its components'
    vectors); scalars as they are."""
    if isinstance(t, VectorType):
        return ir.Field(v, k)
    if isinstance(t, TupleType):
        items = tuple(_component(ir.Field(v, i), item, k, width, program)
                      for i, item in enumerate(t.items))
        types = tuple(VectorType(item.elem, Size.const(width)) if isinstance(item, VectorType)
                      else item for item in t.items)
        c_type(TupleType(types), program)
        return ir.MakeTuple(TupleType(types), items)
    return v


def _given_to_every_lane(t: Type, lanes: int) -> bool:
    """Whether ``t`` holds a float2/3/4 of a width other than ``lanes``."""
    if isinstance(t, VectorType):
        return isinstance(t.elem, ScalarType) and int(t.size.value) != lanes
    return isinstance(t, TupleType) and any(_given_to_every_lane(i, lanes) for i in t.items)


def _as_lanes(t: Type, lanes: int) -> Type:
    """``t`` with each float2/3/4 given to every lane as the struct of its lanes."""
    if isinstance(t, VectorType) and isinstance(t.elem, ScalarType) and \
            int(t.size.value) != lanes:
        return components_struct(VectorType(t, Size.const(lanes)))
    if isinstance(t, VectorType) and isinstance(t.elem, VectorType):
        return components_struct(t)
    if isinstance(t, TupleType):
        return TupleType(tuple(_as_lanes(i, lanes) for i in t.items))
    return t


def define_function(fn: UserFun | Lambda, arg_types: list[Type], program: CProgram,
                    name: str | None = None) -> str:
    """Declare a function of the program for a user function (or lambda) applied to
    ``arg_types``; its C name (a user function's as ``c_names.user_function`` says, a
    lambda's ``name``, each made unique in the program)."""
    types = list(arg_types)
    if isinstance(fn, UserFun):
        base = user_function(fn.name)
        if fn.body is None:  # the escape hatch: given directly as C
            return _native(fn, types, program, base)
        body = fn.body
    else:
        base = name or "f"
        body = fn
    if not isinstance(body, Lambda):
        raise ScalarCodegenError(f"{getattr(fn, 'name', fn)} is not a function of its "
                                 f"arguments")
    params = body.params
    form = ""
    if len(types) == 1 and len(params) > 1 and isinstance(types[0], TupleType) and \
            len(types[0].items) == len(params):
        # applied to a pair, as reduceSeq applies its operator: one struct parameter whose
        # fields are the parameters (a version of its own, beside one taking them apart)
        params = (tuple(params),)
        form = "_tuple" if isinstance(fn, UserFun) else ""
    key = (fn.name, form, tuple(types)) if isinstance(fn, UserFun) else None
    if key in program.functions:
        return program.functions[key]
    same = (body, tuple(types))  # one function per (function, argument types)
    if same in program.by_expression:
        return program.by_expression[same]
    widths = _lane_widths(types)
    width = widths.pop() if widths else None
    components = any(isinstance(v.elem, VectorType) for t in types for v in _vectors(t))
    if width is not None and not components and _calls_vector_c(body):
        width = None  # it calls OpenCL C written for vectors (Lift's dot(l, r)): not lane-wise
    if width is not None:
        # mapVec: the scalar function applied lane-wise (to vectors, or to tuples of
        # vectors: a vector accumulator and an element); OpenCL C has no overloading, so
        # the vector version gets its own name.
        note = annotate(body, *[_lane(t, width) for t in types])
        form += f"_v{width}"
        result = _widened_type(note.result, width)
    else:
        note = annotate(body, *types)
        result = note.result
    c_name = program.names.unique(base + form)
    emitter = _Emitter(program, note.typings, width)
    env: dict = {}
    decls = _parameters(params, types, program, emitter, env, width if components else None)
    value = emitter.value(body.body, (0,), env)
    c_type(result, program)
    if key is not None:
        program.functions[key] = c_name
    program.by_expression[same] = c_name
    program.order.append(ir.Function(c_name, result, decls, value))
    return c_name


def _native(fn: UserFun, types: list[Type], program: CProgram, base: str) -> str:
    """A user function given as OpenCL C: its body is the user's code, so its parameters
    keep their names, which must be C identifiers."""
    params, result = function_parts(fn.type)
    widths = _lane_widths(types)
    components = any(isinstance(v.elem, VectorType) for t in types for v in _vectors(t))
    if widths and len(widths) == 1 and (components or not any(
            _vectors(t) for t in (*params, result))):
        # written for scalars, applied to vectors (mapVec): its body rewritten lane-wise
        return _lanes_call(fn, types, widths.pop(), program, base)
    if any(_vectors(t) for t in types) and list(types) != list(params) and \
            not (len(types) == 1 and types[0] == TupleType(tuple(params))):
        raise ScalarCodegenError(f"{fn.name} is given as OpenCL C for its declared types "
                                 f"({', '.join(map(str, params))}): it cannot be applied "
                                 f"lane by lane to {', '.join(map(str, types))}")
    key = (fn.name, "native", ())
    if key in program.functions:
        return program.functions[key]
    bad = [p for p in fn.params if not (p.isidentifier() and p.isascii())]
    if bad:
        raise ScalarCodegenError(f"{fn.name} is given as OpenCL C, and its parameter "
                                 f"{bad[0]!r} is not a C identifier")
    for t in (*params, result):
        c_type(t, program)
    text = function_text(fn.name, fn.c_body, fn.type, program, tuple(fn.params))
    c_name = program.names.unique(base)
    program.functions[key] = c_name
    program.order.append(ir.NativeFunction(c_name, result, tuple(zip(params, fn.params)),
                                           text))
    return c_name


def _lanes_native(fn: UserFun, width: int, program: CProgram
                  ) -> tuple[str, tuple[tuple[Type, str], ...]]:
    """The lane-wise version of a user function written in C for scalars (``c_lanes``):
    its C name and its parameters (vectors, and tuples of vectors)."""
    from ..notation.c_lanes import lanewise  # notation reads programs that codegen runs
    from ..notation.c_syntax import CBodyError

    key = (fn.name, f"lanes{width}", ())
    if key in program.functions:
        return program.functions[key], program.lane_params[key]
    try:
        lanes = lanewise(fn.name, fn.c_body, fn.params, fn.type, width,
                         lambda t: c_type(t, program))
    except CBodyError as err:
        raise ScalarCodegenError(f"{fn.name} cannot be applied to vectors of {width} lanes: "
                                 f"{err}") from None
    for t, _ in lanes.params:
        c_type(t, program)
    c_type(lanes.result, program)
    c_name = program.names.unique(f"{user_function(fn.name)}_v{width}")
    params = tuple((t, parameter_name) for t, parameter_name in lanes.params)
    program.functions[key] = c_name
    program.lane_params[key] = params
    program.order.append(ir.NativeFunction(c_name, lanes.result, params, lanes.text))
    return c_name, params


def _lanes_call(fn: UserFun, types: list[Type], width: int, program: CProgram,
                base: str) -> str:
    """A function taking ``types`` (vectors, or scalars widened to every lane; one tuple
    of all the arguments is taken item by item) that calls the lane-wise version."""
    name, params = _lanes_native(fn, width, program)
    key = (fn.name, f"lanes{width}", tuple(types))
    if key in program.functions:
        return program.functions[key]
    if [t for t, _ in params] == list(types):
        program.functions[key] = name
        return name
    if len(types) == 1 and len(params) > 1 and isinstance(types[0], TupleType):
        # one tuple of the arguments: the kernel passes its items one by one
        # (``KernelBuilder.scalar_call``), each a vector or a scalar for every lane
        types = list(types[0].items)
    args = tuple(ir.Name(f"p{k}") for k in range(len(types)))
    decls = tuple((t, f"p{k}") for k, t in enumerate(types))
    for t, _ in decls:
        c_type(t, program)
    result = next(d.result for d in program.order
                  if isinstance(d, ir.NativeFunction) and d.name == name)
    c_name = program.names.unique(f"{base}_v{width}")
    program.functions[key] = c_name
    program.order.append(ir.Function(c_name, result, decls, ir.Call(name, tuple(
        widened(a, t, g) for a, (t, _), g in zip(args, params, types)))))
    return c_name


def widened(v: ir.Value, t: Type, given: Type | None = None) -> ir.Value:
    """A value (of type ``given`` where known) passed where the lane-wise function takes
    ``t``: a scalar widened to every lane (a vector passes as it is), a tuple rebuilt from
    its widened items, a float2/3/4 given to every lane component by component."""
    if isinstance(t, TupleType) and isinstance(given, VectorType) and \
            isinstance(given.elem, ScalarType):
        return ir.MakeTuple(t, tuple(ir.Cast(c_type(item), ir.Field(v, k, f"s{k:x}"))
                                     for k, item in enumerate(t.items)))
    if isinstance(t, TupleType):
        items = given.items if isinstance(given, TupleType) else (None,) * len(t.items)
        return ir.MakeTuple(t, tuple(widened(ir.Field(v, k), item, g)
                                     for k, (item, g) in enumerate(zip(t.items, items))))
    return ir.Cast(c_type(t), v)


def _calls_vector_c(fn: Expr) -> bool:
    """Whether a function calls a user function written in OpenCL C that takes or returns
    vectors."""
    for _, node in walk(fn):
        if isinstance(node, UserFun) and node.body is None and node.type is not None:
            params, result = function_parts(node.type)
            if any(_vectors(t) for t in (*params, result)):
                return True
    return False


def _vectors(t: Type) -> list[VectorType]:
    """The vector types in an argument type (itself, or the items of a tuple)."""
    if isinstance(t, VectorType):
        return [t]
    if isinstance(t, TupleType):
        return [v for item in t.items for v in _vectors(item)]
    return []


def _widened_type(t: Type, width: int) -> Type:
    """The result of a function applied to ``width`` lanes: a vector, or a tuple of
    vectors when the function returns a tuple (a struct of vectors)."""
    if isinstance(t, TupleType):
        return TupleType(tuple(_widened_type(item, width) for item in t.items))
    return VectorType(t, Size.const(width))


def _lane(t: Type, width: int | None = None) -> Type:
    """One lane of a vector argument (of each vector in a tuple); a float2/3/4 whose width
    is not the lanes' is the same in every lane."""
    if isinstance(t, VectorType):
        return t if width is not None and isinstance(t.elem, ScalarType) and \
            int(t.size.value) != width else t.elem
    if isinstance(t, TupleType):
        return TupleType(tuple(_lane(item, width) for item in t.items))
    return t


def _lane_widths(types: list[Type]) -> set[int]:
    """The widths of the lanes among argument types: those of lanes of float2/3/4
    (``<float4>_n``) where there are some (a float4 beside them is given to every lane),
    else those of all vectors."""
    vectors = [v for t in types for v in _vectors(t)]
    lanes = {int(v.size.value) for v in vectors if isinstance(v.elem, VectorType)}
    return lanes or {int(v.size.value) for v in vectors}
