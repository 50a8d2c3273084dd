"""The lane-wise version of a user function written in OpenCL C: its body rewritten to
compute n lanes at once (PACT's vectorisation applied to a C body), for ``mapVec f``.

Every scalar becomes a vector of n lanes (``float`` → ``float8``, ``int`` → ``int8``), a
tuple a struct of vectors, and control flow that may differ from lane to lane becomes data
flow (if-conversion):

- a comparison gives a mask (``intN``, -1 where true), ``&&``/``||``/``!`` combine masks
  (``&``, ``|``, ``~``), and a mask used as a number is 1 or 0 again (``-m``);
- ``c ? a : b`` is ``select(b, a, c)``;
- ``if``/``else`` runs both branches, each under its mask: an assignment in a branch keeps
  the old value in the other lanes (``x = select(x, e, m)``), a ``return`` under a mask
  sets the lanes of the result it decides and marks them done, so that later statements
  leave them alone;
- a loop whose condition is the same in every lane (a counter from a constant to a
  constant) stays a loop, its counter a scalar.

A vector value of the body (N-body's ``float4``) is its components' vectors, one per
component (structure of arrays: ``c_components``).

Where the body cannot be applied lane by lane (``break``, a loop whose condition differs
between lanes, an operation on vectors with no component-wise form, a built-in with no
lane-wise form, ``double``) the
translation is refused with a ``CBodyError`` that names the construct and where it is in
the body. The interpreter needs no such version: it evaluates the C body on arrays of
lanes (``c_evaluation``), which is what the vector version computes lane by lane.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, reduce

from ..types import ScalarType, TupleType, Type, VectorType, function_parts
from . import c_syntax as S
from .c_components import COMPONENT_WIDTHS, Components
from .c_syntax import CBodyError, read_c

LANE_SCALARS = ("float", "int", "uint")

_FLOAT_1 = {"sqrt", "rsqrt", "cbrt", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10",
            "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
            "asinh", "acosh", "atanh", "fabs", "floor", "ceil", "round", "trunc", "rint",
            "erf", "erfc", "tgamma", "lgamma", "sign", "degrees", "radians", "logb",
            "sinpi", "cospi", "tanpi", "asinpi", "acospi", "atanpi"}
_FLOAT_1 |= {f"native_{f}" for f in ("sqrt", "rsqrt", "exp", "exp2", "exp10", "log", "log2",
                                      "log10", "sin", "cos", "tan", "recip")}
_FLOAT_1 |= {f"half_{f}" for f in ("sqrt", "rsqrt", "exp", "exp2", "exp10", "log", "log2",
                                    "log10", "sin", "cos", "tan", "recip")}
_FLOAT_N = {"pow", "powr", "fmin", "fmax", "fma", "mad", "atan2", "atan2pi", "fmod", "hypot",
            "copysign", "mix", "step", "smoothstep", "fdim", "maxmag", "minmag", "remainder",
            "native_divide", "native_powr", "half_divide", "half_powr"}
_EITHER = {"min", "max", "clamp"}  # float or int, as their arguments are
_TESTS = {"isnan", "isinf", "isfinite", "isnormal", "signbit"}  # a mask on vectors


@dataclass(frozen=True)
class Lanes:
    """A type in the lane-wise body: ``kind`` "vector" (n lanes of ``elem``), "uniform"
    (one scalar for all lanes: a literal, a loop counter), "mask" (intN, -1 where true),
    "tuple" (a struct of vectors, ``items``) or "components" (a float4's n lanes: a struct
    of the vectors of its components, ``items``)."""

    kind: str
    elem: str = ""
    items: tuple = ()


MASK = Lanes("mask")


@dataclass(frozen=True)
class LaneFunction:
    """A user function's lane-wise version: its parameters (type, name), its result type
    and the text of its body."""

    params: tuple[tuple[Type, str], ...]
    result: Type
    text: str


def lane_type(t: Type, width: int, what: str, function: str, inside: bool = False) -> Type:
    """The type of n lanes of a scalar (a vector), of a float4 (a tuple of the vectors of
    its components) or of a tuple of those (a tuple of their lane types); refused for
    anything else."""
    if isinstance(t, ScalarType) and t.name in LANE_SCALARS:
        return VectorType(t, _size(width))
    if isinstance(t, VectorType) and isinstance(t.elem, ScalarType) and \
            t.elem.name in LANE_SCALARS and t.size.is_integer_constant and \
            int(t.size.value) in COMPONENT_WIDTHS:
        return TupleType((VectorType(t.elem, _size(width)),) * int(t.size.value))
    if isinstance(t, TupleType) and not inside:
        return TupleType(tuple(lane_type(i, width, what, function, True) for i in t.items))
    raise CBodyError(function, f"{what} of type {t}: lanes hold float, int or uint, vectors "
                               f"of 2, 3 or 4 of them, or tuples of those")


def _size(width: int):
    from ..sizes import Size

    return Size.const(width)


def lanewise(function: str, body: str, params: tuple[str, ...], fn_type: Type, width: int,
             struct_name: Callable[[TupleType], str]) -> LaneFunction:
    """The body of ``function`` rewritten for ``width`` lanes; ``struct_name`` spells the
    C struct of a tuple of vectors."""
    if width not in S.VECTOR_WIDTHS or width == 3:
        raise CBodyError(function, f"vectors of {width} lanes (OpenCL has 2, 4, 8 and 16)")
    args, result = function_parts(fn_type)
    lane_params = tuple((lane_type(t, width, f"the parameter {p}", function), p)
                        for t, p in zip(args, params))
    lane_result = lane_type(result, width, "the result", function)
    tree = read_c(function, body)
    writer = _Writer(function, width, struct_name, args, result)
    for t, p in zip(args, params):
        writer.scopes[-1][p] = writer.lanes_of(t)
    text = writer.body_text(tree.body)
    return LaneFunction(lane_params, lane_result, text)


class _Writer(Components):
    def __init__(self, function: str, width: int, struct_name, args: list[Type], result: Type):
        self.function = function
        self.n = width
        self.struct_name = struct_name
        self.args = args
        self.result = result
        self.scopes: list[dict[str, Lanes]] = [{}]
        self.lines: list[str] = []
        self.depth = 1
        self.active: str | None = None  # the mask of the lanes a statement runs for
        self.returned = False  # a return under a mask happened: lanes may be done
        self.counter = 0
        self.uniform_targets: set[str] = set()  # loop counters, assigned by their loop only

    # --- errors and names -----------------------------------------------------------------
    def error(self, node: S.Node, reason: str) -> CBodyError:
        return CBodyError(self.function, reason, node.line, node.column)

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"{base}{self.counter}_"

    def emit(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    # --- types --------------------------------------------------------------------------
    def lanes_of(self, t: Type) -> Lanes:
        if isinstance(t, ScalarType):
            return Lanes("vector", t.name)
        if isinstance(t, VectorType):
            return self.components_of(t.elem.name, int(t.size.value))
        return Lanes("tuple", items=tuple(self.lanes_of(i) for i in t.items))

    def c_name(self, t: Lanes) -> str:
        if t.kind == "vector":
            return f"{t.elem}{self.n}"
        if t.kind == "mask":
            return f"int{self.n}"
        if t.kind == "uniform":
            return t.elem
        return self.struct_name(self.workbench_type(t))

    def common_elem(self, types: list[Lanes]) -> str:
        """The element type numbers of ``types`` are computed in together."""
        return reduce(_common, (_elem(t) for t in types))

    def components_of(self, elem: str, width: int) -> Lanes:
        """The type of a vector of ``width`` components of ``elem`` in lanes."""
        return Lanes("components", elem, (Lanes("vector", elem),) * width)

    def workbench_type(self, t: Lanes) -> Type:
        if t.kind in ("tuple", "components"):
            return TupleType(tuple(self.workbench_type(i) for i in t.items))
        return VectorType(ScalarType("int" if t.kind == "mask" else t.elem), _size(self.n))

    def declared(self, ctype: S.CType, node: S.Node) -> Lanes:
        """The lane-wise type of a type the body names."""
        if ctype.width:
            if ctype.width not in COMPONENT_WIDTHS or ctype.name not in LANE_SCALARS:
                raise self.error(node, f"the vector type {ctype.name}{ctype.width}: its "
                                       f"components go in lanes for vectors of 2, 3 or 4 "
                                       f"float, int or uint only")
            return self.components_of(ctype.name, ctype.width)
        if ctype.name == "Tuple":
            if ctype.items:
                for item in ctype.items:
                    if item.name not in LANE_SCALARS or (
                            item.width and item.width not in COMPONENT_WIDTHS):
                        raise self.error(node, "a tuple of other items than float, int "
                                               "and uint and vectors of them")
                return Lanes("tuple", items=tuple(self.declared(i, node)
                                                  for i in ctype.items))
            own = self.result if isinstance(self.result, TupleType) else next(
                (a for a in self.args if isinstance(a, TupleType)), None)
            if own is None:
                raise self.error(node, "Tuple, in a function that neither takes nor returns "
                                       "a tuple")
            return self.lanes_of(own)
        if ctype.name == "bool":
            return MASK
        if ctype.name not in LANE_SCALARS:
            raise self.error(node, f"the type {ctype.name}: lanes hold float, int or uint")
        return Lanes("vector", ctype.name)

    def lookup(self, name: str, node: S.Node) -> Lanes:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        raise self.error(node, f"the name {name}, which is not declared")

    # --- conversions ----------------------------------------------------------------------
    def as_vector(self, text: str, t: Lanes, elem: str, node: S.Node) -> str:
        """A value as n lanes of ``elem``."""
        if t.kind in ("tuple", "components"):
            raise self.error(node, f"a {'tuple' if t.kind == 'tuple' else 'vector'} where a "
                                   f"number was expected")
        if t.kind == "mask":  # true is 1 again, as in C
            return f"(-({text}))" if elem == "int" else f"convert_{elem}{self.n}(-({text}))"
        if t.kind == "uniform":
            return f"(({elem}{self.n})({text}))"
        if t.elem == elem:
            return text
        return f"convert_{elem}{self.n}({text})"

    def as_mask(self, text: str, t: Lanes, node: S.Node) -> str:
        if t.kind == "mask":
            return text
        if t.kind == "uniform":
            return f"((int{self.n})(-(int)(({text}) != 0)))"
        if t.kind in ("tuple", "components"):
            raise self.error(node, "a tuple or vector where a condition was expected")
        return f"(({text}) != ({t.elem}{self.n})(0))" if t.elem != "int" else f"(({text}) != 0)"

    def convert(self, text: str, t: Lanes, to: Lanes, node: S.Node) -> str:
        if to.kind == "mask":
            return self.as_mask(text, t, node)
        if to.kind in ("tuple", "components"):
            if t != to:
                what = "a tuple" if to.kind == "tuple" else "a vector"
                raise self.error(node, f"a value of another type where {what} of "
                                       f"{len(to.items)} items was expected")
            return text
        if to.kind == "uniform":
            if t.kind != "uniform":
                raise self.error(node, "a value that may differ between lanes assigned to a "
                                       "loop counter")
            return text
        return self.as_vector(text, t, to.elem, node)

    # --- expressions ----------------------------------------------------------------------
    def expr(self, node: S.Node, expected: Lanes | None = None) -> tuple[str, Lanes]:
        if isinstance(node, S.Num):
            if node.type not in ("int", "float", "uint", "double"):
                raise self.error(node, f"a literal of type {node.type}: lanes hold float, "
                                       f"int or uint")
            if node.type in ("float", "double"):
                # 0.1 without f is a double in C; a vector of floats takes no double scalar,
                # so it is the float nearest it (the interpreter's double arithmetic for that
                # step rounds differently, within the tolerance of the kernel's check)
                return f"{float(node.value)!r}f", Lanes("uniform", "float")
            return f"{int(node.value)}{'u' if node.type == 'uint' else ''}", \
                Lanes("uniform", node.type)
        if isinstance(node, S.Name):
            return node.name, self.lookup(node.name, node)
        if isinstance(node, S.Field):
            base, t = self.expr(node.base)
            if t.kind == "components":
                return self.component_field(node, base, t)
            if t.kind != "tuple":
                raise self.error(node, f"the field .{node.name} of a value that is not a "
                                       f"tuple (a function applied lane by lane works on "
                                       f"scalars)")
            k = _tuple_index(node.name)
            if k is None or k >= len(t.items):
                raise self.error(node, f"the field .{node.name} of a tuple of "
                                       f"{len(t.items)} items")
            return f"{base}._{k}", t.items[k]
        if isinstance(node, S.Unary):
            text, t = self.expr(node.operand)
            if node.op == "!":
                return f"(~{self.as_mask(text, t, node)})", MASK
            if node.op == "+":
                return text, t
            if t.kind in ("tuple",):
                raise self.error(node, f"'{node.op}' on a tuple")
            if t.kind == "components":
                return self.component_unary(node, text, t)
            if t.kind == "mask":
                text, t = self.as_vector(text, t, "int", node), Lanes("vector", "int")
            return f"({node.op}{text})", t
        if isinstance(node, S.Binary):
            return self.binary(node)
        if isinstance(node, S.Conditional):
            cond, ct = self.expr(node.condition)
            a, at = self.expr(node.then, expected)
            b, bt = self.expr(node.other, expected)
            if ct.kind == "uniform" and at.kind == bt.kind == "uniform" and at.elem == bt.elem:
                return f"(({cond}) ? {a} : {b})", at
            if {"tuple", "components"} & {at.kind, bt.kind}:
                raise self.error(node, "'?:' choosing between tuples or vectors")
            elem = _common(_elem(at), _elem(bt))
            return (f"select({self.as_vector(b, bt, elem, node)}, "
                    f"{self.as_vector(a, at, elem, node)}, {self.as_mask(cond, ct, node)})",
                    Lanes("vector", elem))
        if isinstance(node, S.Cast):
            text, t = self.expr(node.operand)
            to = self.declared(node.type, node)
            if to.kind in ("tuple", "components"):
                raise self.error(node, f"a cast to a {to.kind[:5].replace('compo', 'vector')}")
            if t.kind == "uniform" and to.kind == "vector":
                return f"(({to.elem})({text}))", Lanes("uniform", to.elem)
            return self.convert(text, t, to, node), to
        if isinstance(node, S.Call):
            return self.call(node)
        if isinstance(node, S.Braces):
            if expected is None or expected.kind != "tuple":
                raise self.error(node, "{...} where no tuple is expected (write it as the "
                                       "value of a Tuple variable or of return)")
            if len(node.items) != len(expected.items):
                raise self.error(node, f"{len(node.items)} items for a tuple of "
                                       f"{len(expected.items)}")
            items = [self.convert(*self.expr(i, t), t, i)
                     for i, t in zip(node.items, expected.items)]
            return f"(({self.c_name(expected)}){{{', '.join(items)}}})", expected
        if isinstance(node, S.VectorLiteral):
            return self.vector_literal(node)
        raise self.error(node, f"the expression {type(node).__name__}")

    def binary(self, node: S.Binary) -> tuple[str, Lanes]:
        a, at = self.expr(node.left)
        b, bt = self.expr(node.right)
        if "tuple" in (at.kind, bt.kind):
            raise self.error(node, f"'{node.op}' on a tuple")
        if "components" in (at.kind, bt.kind):
            return self.component_binary(node, a, at, b, bt)
        return self.combine(node.op, a, at, b, bt, node)

    def combine(self, op: str, a: str, at: Lanes, b: str, bt: Lanes,
                node: S.Node) -> tuple[str, Lanes]:
        """``a op b`` of two numbers (vectors, masks or uniform scalars)."""
        if at.kind == bt.kind == "uniform":  # the same in every lane: C's own operator
            kind = "int" if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||") \
                else _common(at.elem, bt.elem)
            return f"({a} {op} {b})", Lanes("uniform", kind)
        if op in ("&&", "||"):
            return (f"({self.as_mask(a, at, node.left)} {op[0]} "
                    f"{self.as_mask(b, bt, node.right)})", MASK)
        elem = _common(_elem(at), _elem(bt))
        if op in ("%", "&", "|", "^", "<<", ">>") and elem == "float":
            raise self.error(node, f"'{op}' on floats")
        left = self.as_vector(a, at, elem, node) if at.kind != "uniform" or \
            _common(at.elem, elem) != elem else a
        right = self.as_vector(b, bt, elem, node) if bt.kind != "uniform" or \
            _common(bt.elem, elem) != elem else b
        if op in ("<", "<=", ">", ">=", "==", "!="):
            return f"({left} {op} {right})", MASK
        return f"({left} {op} {right})", Lanes("vector", elem)

    def call(self, node: S.Call) -> tuple[str, Lanes]:
        args = [self.expr(a) for a in node.args]
        if any(t.kind == "tuple" for _, t in args):
            raise self.error(node, f"{node.name} of a tuple")
        if any(t.kind == "components" for _, t in args):
            return self.component_call(node, args)
        return self.lane_call(node, node.name, args)

    def lane_call(self, node: S.Call, name: str, args: list) -> tuple[str, Lanes]:
        """The built-in ``name`` of numbers (vectors, masks or uniform scalars)."""
        if all(t.kind == "uniform" for _, t in args) and name not in _TESTS:
            floating = name in _FLOAT_1 | _FLOAT_N
            elem = "float" if floating else \
                reduce(_common, (t.elem for _, t in args)) if args else "float"
            # the same in every lane; an int given to a function of floats converted (the
            # built-ins are overloaded: fabs(2) would be ambiguous)
            texts = [f"(({elem})({a}))" if t.elem != elem else a for a, t in args]
            return f"{name}({', '.join(texts)})", Lanes("uniform", elem)
        if name in _FLOAT_1 or name in _FLOAT_N:
            elem = "float"
        elif name in _EITHER:
            elem = "float" if any(_elem(t) == "float" for _, t in args) else "int"
        elif name == "abs":
            elem = _elem(args[0][1]) if args else "int"
            if elem == "float":
                name = "fabs"
        elif name in _TESTS:
            (a, t), = args
            return f"{name}({self.as_vector(a, t, 'float', node)})", MASK
        else:
            raise self.error(node, f"the built-in {name}, which has no lane-wise form here "
                                   f"(the math functions of floats, min, max, clamp and abs "
                                   f"have)")
        texts = [self.as_vector(a, t, elem, node) for a, t in args]
        text = f"{name}({', '.join(texts)})"
        if name == "abs":  # abs of intN is a uintN in OpenCL C
            text = f"as_int{self.n}({text})" if elem == "int" else text
        return text, Lanes("vector", elem)

    # --- statements -----------------------------------------------------------------------
    def live(self) -> str | None:
        """The mask of the lanes the current statement runs for (None: all of them)."""
        parts = [m for m in (self.active, "(~done_)" if self.returned else None) if m]
        return " & ".join(parts) if parts else None

    def body_text(self, body: S.Block) -> str:
        r = self.lanes_of(self.result)
        self.result_lanes = r
        self.result_used = False
        start = len(self.lines)
        self.block(body.body)
        if self.result_used:
            head = [f"  {self.c_name(r)} result_;"]
            head += [f"  {field} = 0;" for field in _fields("result_", r)]
            head.append(f"  int{self.n} done_ = 0;")
            self.lines[start:start] = head
            self.emit("return result_;")
        return "\n".join(self.lines)

    def block(self, items) -> bool:
        """The statements of a block; True when it ends in a return every lane takes."""
        self.scopes.append({})
        try:
            for s in items:
                if self.statement(s):
                    return True
            return False
        finally:
            self.scopes.pop()

    def nested(self, s: S.Node) -> bool:
        self.emit("{")
        self.depth += 1
        try:
            return self.block(s.body if isinstance(s, S.Block) else (s,))
        finally:
            self.depth -= 1
            self.emit("}")

    def statement(self, s: S.Node) -> bool:
        if isinstance(s, S.Block):
            return self.nested(s)
        if isinstance(s, S.Declare):
            t = self.declared(s.type, s)
            if s.value is None and t.kind == "components":
                # zeros where C leaves them undefined, as the interpreter does: N-body's
                # calcAcc sets r.xyz only, and its result's w is summed all the same
                self.emit(f"{self.c_name(t)} {s.name} = {{{', '.join(['0'] * len(t.items))}}};")
            elif s.value is None:
                self.emit(f"{self.c_name(t)} {s.name};")
            else:
                text, vt = self.expr(s.value, t)
                self.emit(f"{self.c_name(t)} {s.name} = {self.convert(text, vt, t, s.value)};")
            self.scopes[-1][s.name] = t
            return False
        if isinstance(s, S.Assign):
            self.assign(s)
            return False
        if isinstance(s, S.Evaluate):
            text, _ = self.expr(s.value)
            self.emit(f"{text};")
            return False
        if isinstance(s, S.Return):
            return self.ret(s)
        if isinstance(s, S.If):
            return self.branch(s)
        if isinstance(s, S.Loop):
            self.loop(s)
            return False
        if isinstance(s, S.Jump):
            raise self.error(s, f"{s.kind}: lanes that leave a loop early cannot be run "
                                f"together")
        raise self.error(s, f"the statement {type(s).__name__}")

    def target(self, node: S.Node) -> tuple[str, Lanes]:
        if isinstance(node, S.Name):
            return node.name, self.lookup(node.name, node)
        if isinstance(node, S.Field):
            return self.expr(node)
        raise self.error(node, "an assignment to something other than a variable or a "
                               "tuple field")

    def assign(self, s: S.Assign) -> None:
        if isinstance(s.target, S.Field):
            base, bt = self.expr(s.target.base)
            if bt.kind == "components":
                self.assign_components(s, base, bt)
                return
        name, t = self.target(s.target)
        if t.kind == "uniform":
            raise self.error(s, f"{name}, a loop counter, assigned in the loop's body")
        value: S.Node = s.value
        if s.op != "=":
            value = S.Binary(s.line, s.column, s.op[:-1], s.target, s.value)
        text, vt = self.expr(value, t)
        text = self.convert(text, vt, t, value)
        self.store(name, t, text)

    def store(self, name: str, t: Lanes, text: str) -> None:
        mask = self.live()
        if mask is None:
            self.emit(f"{name} = {text};")
            return
        if t.kind in ("tuple", "components"):
            tmp = self.fresh("new")
            self.emit(f"{self.c_name(t)} {tmp} = {text};")
            for k, item in enumerate(t.items):
                self.store(f"{name}._{k}", item, f"{tmp}._{k}")
            return
        self.emit(f"{name} = select({name}, {text}, {mask});")

    def ret(self, s: S.Return) -> bool:
        if s.value is None:
            raise self.error(s, "return without a value")
        r = self.result_lanes
        text, t = self.expr(s.value, r)
        text = self.convert(text, t, r, s.value)
        mask = self.live()
        if mask is None:
            if self.result_used:
                self.emit(f"result_ = {text};")
                self.emit("return result_;")
            else:
                self.emit(f"return {text};")
            return True
        self.result_used = True
        self.store("result_", r, text)
        self.emit(f"done_ = done_ | ({mask});")
        self.returned = True
        return False

    def branch(self, s: S.If) -> bool:
        cond, ct = self.expr(s.condition)
        if ct.kind == "uniform":  # every lane takes the same branch: C's own if
            self.emit(f"if ({cond})")
            ends = self.nested(s.then)
            if s.other is not None:
                self.emit("else")
                ends = self.nested(s.other) and ends
                return ends
            return False
        m = self.fresh("m")
        self.emit(f"int{self.n} {m} = {self.as_mask(cond, ct, s.condition)};")
        outer = self.active
        try:
            self.active = m if outer is None else f"({outer} & {m})"
            self.nested(s.then)
            if s.other is not None:
                self.active = f"(~{m})" if outer is None else f"({outer} & ~{m})"
                self.nested(s.other)
        finally:
            self.active = outer
        return False

    def loop(self, s: S.Loop) -> None:
        """A loop whose condition is the same in every lane (a counter)."""
        self.scopes.append({})
        try:
            init = ""
            if isinstance(s.init, S.Declare):
                if s.init.type.width or s.init.type.name not in ("int", "uint"):
                    raise self.error(s.init, "a loop counter that is not an int")
                value, vt = self.expr(s.init.value) if s.init.value is not None else \
                    ("0", Lanes("uniform", "int"))
                if vt.kind != "uniform":
                    raise self.error(s.init, "a loop counter that starts at a value that "
                                             "may differ between lanes")
                self.scopes[-1][s.init.name] = Lanes("uniform", s.init.type.name)
                init = f"{s.init.type.name} {s.init.name} = {value}"
            elif s.init is not None:
                raise self.error(s.init, "a loop whose counter is not declared in it "
                                         "(for (int k = 0; ...))")
            cond = ""
            if s.condition is not None:
                cond, ct = self.expr(s.condition)
                if ct.kind != "uniform":
                    raise self.error(s.condition, "a loop whose condition may differ "
                                                  "between lanes")
            step = ""
            if s.step is not None:
                if not (isinstance(s.step, S.Assign) and isinstance(s.step.target, S.Name)):
                    raise self.error(s.step, "a loop step other than an assignment to its "
                                             "counter")
                t = self.lookup(s.step.target.name, s.step)
                value = s.step.value if s.step.op == "=" else S.Binary(
                    s.step.line, s.step.column, s.step.op[:-1], s.step.target, s.step.value)
                text, vt = self.expr(value)
                if t.kind != "uniform" or vt.kind != "uniform":
                    raise self.error(s.step, "a loop step that may differ between lanes")
                step = f"{s.step.target.name} = {text}"
            if not s.test_first:
                raise self.error(s, "a do-while loop")
            self.emit(f"for ({init}; {cond}; {step})")
            self.nested(s.body)
        finally:
            self.scopes.pop()


def _fields(name: str, t: Lanes) -> list[str]:
    """The vectors a value of type ``t`` named ``name`` is made of, each as an lvalue."""
    if t.kind in ("tuple", "components"):
        return [f for k, item in enumerate(t.items) for f in _fields(f"{name}._{k}", item)]
    return [name]


def _tuple_index(name: str) -> int | None:
    if name.startswith("_") and name[1:].isdigit():
        return int(name[1:])
    return None


def _elem(t: Lanes) -> str:
    return "int" if t.kind == "mask" else t.elem


def _common(a: str, b: str) -> str:
    if "float" in (a, b):
        return "float"
    if "uint" in (a, b):
        return "uint"
    return "int"


@lru_cache(maxsize=256)
def lanewise_problem(function: str, body: str, params: tuple[str, ...], fn_type: Type,
                     width: int = 4) -> str | None:
    """Why a user function written in C cannot be applied lane by lane (None if it can);
    remembered per function, as the rules ask at every map that calls it."""
    try:
        lanewise(function, body, params, fn_type, width, lambda t: "struct lanes")
    except CBodyError as err:
        return str(err)
    return None
