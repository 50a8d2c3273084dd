"""The meaning of a user function written in OpenCL C (``c_syntax``), on the interpreter's
batched NumPy values, with OpenCL C's arithmetic: ``float`` is float32, an unsuffixed
``0.1`` is a double, ``int`` is int32 and wraps, integer division truncates, the usual
arithmetic conversions decide each operation's type, and a comparison of vectors gives -1
for true. So the interpreter computes what the kernels compute, to the rounding of the
device's math library.

The body runs once for all elements of the batch: control flow is followed lane by lane
with masks (``if`` runs both branches, each for its own lanes; a loop runs while any lane
is still in it; ``return``, ``break`` and ``continue`` retire lanes). A variable declared
without a value starts at zero here (C leaves it undefined).
"""

from __future__ import annotations

import numpy as np

from ..types import FunctionType, ScalarType, TupleType, Type, VectorType, function_parts
from . import c_syntax as S
from .c_builtins import call
from .c_syntax import CBodyError, CType
from .c_values import (
    DTYPES,
    RANK,
    CValue,
    boolean,
    cast,
    promoted,
    spell,
    truth_type,
)

_LANES = {"x": 0, "y": 1, "z": 2, "w": 3}
LOOP_LIMIT = 1 << 20


def c_type_of(t: Type) -> CType:
    """The C type of a workbench type (``float``, ``float4``, a tuple)."""
    if isinstance(t, ScalarType):
        return CType(t.name)
    if isinstance(t, VectorType) and isinstance(t.elem, ScalarType):
        return CType(t.elem.name, int(t.size.value))
    if isinstance(t, TupleType):
        return CType("Tuple", items=tuple(c_type_of(i) for i in t.items))
    raise ValueError(f"{t} has no C type for a user function")


def zero(t: CType) -> CValue:
    if t.name == "Tuple":
        return CValue(t, tuple(zero(i) for i in t.items))
    shape = (t.width,) if t.width else ()
    return CValue(t, np.zeros(shape, DTYPES[t.name]))


def from_python(value, t: CType) -> CValue:
    """An interpreter value as a ``CValue`` of type ``t``."""
    if t.name == "Tuple":
        if not isinstance(value, tuple) or len(value) != len(t.items):
            raise ValueError(f"expected a tuple of {len(t.items)} items, given {value!r}")
        return CValue(t, tuple(from_python(v, i) for v, i in zip(value, t.items)))
    data = np.asarray(value).astype(DTYPES[t.name], copy=False)
    if t.width and (data.ndim == 0 or data.shape[-1] != t.width):
        data = np.broadcast_to(data[..., None], data.shape + (t.width,))  # a vector's
        # number in every lane (Lift's Value(0.0f, Float4))
    return CValue(t, data)


def to_python(value: CValue, shape: tuple):
    """A ``CValue`` as the interpreter's value, broadcast to the batch ``shape``."""
    if value.type.name == "Tuple":
        return tuple(to_python(v, shape) for v in value.data)
    lanes = (value.type.width,) if value.type.width else ()
    data = np.asarray(value.data)
    return np.broadcast_to(data, np.broadcast_shapes(shape + lanes, data.shape)).copy()


def batch_shape(value: CValue) -> tuple:
    if value.type.name == "Tuple":
        return np.broadcast_shapes(*[batch_shape(v) for v in value.data]) \
            if value.data else ()
    shape = np.shape(value.data)
    return shape[:-1] if value.type.width else shape


class CFunctionValue:
    """A user function in C as the interpreter's NumPy callable."""

    def __init__(self, function: S.CFunction, params: list[str], t: FunctionType):
        self.function = function
        self.params = list(params)
        types, result = function_parts(t)
        self.types = [c_type_of(p) for p in types]
        self.result = c_type_of(result)

    def __call__(self, *args):
        values = [from_python(a, t) for a, t in zip(args, self.types)]
        shape = np.broadcast_shapes(*[batch_shape(v) for v in values]) if values else ()
        with np.errstate(all="ignore"):
            result = _Run(self, check=False).call(values)
        return to_python(result, shape)

    def check(self) -> None:
        """Run the body once on zeros of its parameters' types, loops at most twice round,
        so that a name, field, call or type the body gets wrong is refused when it is read."""
        with np.errstate(all="ignore"):
            _Run(self, check=True).call([zero(t) for t in self.types])


class _Loop:
    def __init__(self):
        self.broken = np.False_
        self.continued = np.False_


class _Run:
    def __init__(self, fn: CFunctionValue, check: bool):
        self.fn = fn
        self.name = fn.function.name
        self.check = check
        self.scopes: list[dict[str, CValue]] = []
        self.returned = np.False_
        self.result = zero(fn.result)
        self.loops: list[_Loop] = []

    def error(self, node: S.Node, reason: str) -> CBodyError:
        return CBodyError(self.name, reason, node.line, node.column)

    def call(self, args: list[CValue]) -> CValue:
        self.scopes.append(dict(zip(self.fn.params, args)))
        self.block(self.fn.function.body.body, np.True_)
        return self.result

    # --- statements ------------------------------------------------------------------------
    def stopped(self):
        out = self.returned
        if self.loops:
            out = out | self.loops[-1].broken | self.loops[-1].continued
        return out

    def block(self, body, mask) -> None:
        self.scopes.append({})
        try:
            for stmt in body:
                live = mask & ~self.stopped()
                if not self.check and not np.any(live):
                    return
                self.stmt(stmt, live)
        finally:
            self.scopes.pop()

    def stmt(self, s: S.Node, mask) -> None:
        if isinstance(s, S.Block):
            self.block(s.body, mask)
        elif isinstance(s, S.Declare):
            t = self.resolve(s.type, s)
            if s.value is None:
                value = zero(t)
            else:
                value = self.convert(self.initial(s.value, t), t, s)
            self.scopes[-1][s.name] = value
        elif isinstance(s, S.Assign):
            self.assign(s, mask)
        elif isinstance(s, S.If):
            condition = self.truth(self.expr(s.condition), s.condition)
            self.stmt_in_block(s.then, mask & condition)
            if s.other is not None:
                self.stmt_in_block(s.other, mask & ~condition)
        elif isinstance(s, S.Loop):
            self.loop(s, mask)
        elif isinstance(s, S.Return):
            if s.value is None:
                raise self.error(s, "a return without a value")
            value = self.convert(self.initial(s.value, self.fn.result), self.fn.result, s)
            self.result = merge(mask, value, self.result)
            self.returned = self.returned | mask
        elif isinstance(s, S.Jump):
            if not self.loops:
                raise self.error(s, f"'{s.kind}' outside a loop")
            loop = self.loops[-1]
            if s.kind == "break":
                loop.broken = loop.broken | mask
            else:
                loop.continued = loop.continued | mask
        elif isinstance(s, S.Evaluate):
            self.expr(s.value)
        else:  # pragma: no cover - the parser makes no other statement
            raise self.error(s, f"the statement {type(s).__name__}")

    def stmt_in_block(self, s: S.Node, mask) -> None:
        if self.check or np.any(mask):
            self.block((s,), mask)

    def loop(self, s: S.Loop, mask) -> None:
        self.scopes.append({})
        loop = _Loop()
        try:
            if s.init is not None:
                self.stmt(s.init, mask)
            rounds = 0
            while True:
                live = mask & ~self.returned & ~loop.broken
                if s.test_first or rounds:
                    if s.condition is not None:
                        live = live & self.truth(self.expr(s.condition), s.condition)
                if not np.any(live) or (self.check and rounds == 2):
                    return
                rounds += 1
                if rounds > LOOP_LIMIT:
                    raise self.error(s, f"a loop that runs more than {LOOP_LIMIT} times")
                self.loops.append(loop)
                loop.continued = np.False_
                try:
                    self.block((s.body,), live)
                finally:
                    self.loops.pop()
                if s.step is not None:
                    self.stmt(s.step, live & ~self.returned & ~loop.broken)
                if not s.test_first and s.condition is None:
                    raise self.error(s, "a do loop without a condition")
        finally:
            self.scopes.pop()

    def assign(self, s: S.Assign, mask) -> None:
        path: list[str] = []
        target = s.target
        while isinstance(target, S.Field):
            path.append(target.name)
            target = target.base
        path.reverse()
        scope = self.scope_of(target)
        old = scope[target.name]
        if s.op == "=":
            current = self.read_path(old, path, s.target)
            value = self.convert(self.initial(s.value, current.type), current.type, s)
        else:
            current = self.read_path(old, path, s.target)
            value = self.binary(s.op[:-1], current, self.expr(s.value), s)
            value = self.convert(value, current.type, s)
        scope[target.name] = self.write_path(old, path, merge(mask, value, current), s.target)

    def scope_of(self, name: S.Name) -> dict:
        for scope in reversed(self.scopes):
            if name.name in scope:
                return scope
        raise self.error(name, f"the name '{name.name}' (not a parameter or variable)")

    def read_path(self, value: CValue, path: list[str], node: S.Node) -> CValue:
        for name in path:
            value = self.field(value, name, node)
        return value

    def write_path(self, value: CValue, path: list[str], new: CValue, node) -> CValue:
        if not path:
            return new
        head, rest = path[0], path[1:]
        if value.type.name == "Tuple":
            k = self.tuple_index(value, head, node)
            items = list(value.data)
            items[k] = self.write_path(items[k], rest, new, node)
            return CValue(value.type, tuple(items))
        if rest:
            raise self.error(node, f"a field of the vector component '{head}'")
        lanes = self.lanes(value.type, head, node)
        if len(set(lanes)) != len(lanes):
            raise self.error(node, f"an assignment to '{head}', which names a component "
                             f"twice")
        data = np.array(np.broadcast_to(value.data, np.broadcast_shapes(
            np.shape(value.data), np.shape(new.data)[:-1] + (value.type.width,)
            if new.type.width else np.shape(new.data) + (value.type.width,))))
        part = new.data if new.type.width else np.asarray(new.data)[..., None]
        data[..., lanes] = part
        return CValue(value.type, data)

    # --- types -----------------------------------------------------------------------------
    def resolve(self, t: CType, node: S.Node) -> CType:
        if t.name != "Tuple" or t.items:
            return t
        if self.fn.result.name == "Tuple":
            return self.fn.result
        found = {p for p in self.fn.types if p.name == "Tuple"}
        if len(found) == 1:
            return found.pop()
        raise self.error(node, "a Tuple variable in a function whose result is not a tuple "
                         "(name its type: Tuple2_float_int)")

    def initial(self, node: S.Node, t: CType) -> CValue:
        """A value for a variable of type ``t``: braces are its items or lanes."""
        if isinstance(node, S.Braces):
            if t.name == "Tuple":
                if len(node.items) != len(t.items):
                    raise self.error(node, f"{len(node.items)} values for a tuple of "
                                     f"{len(t.items)}")
                return CValue(t, tuple(self.convert(self.initial(n, i), i, n)
                                       for n, i in zip(node.items, t.items)))
            if t.width:
                return self.vector_literal(S.VectorLiteral(node.line, node.column, t,
                                                           node.items))
            if len(node.items) == 1:
                return self.expr(node.items[0])
            raise self.error(node, f"{len(node.items)} values for a {t.name}")
        return self.expr(node)

    def convert(self, value: CValue, t: CType, node: S.Node) -> CValue:
        """``value`` as type ``t``, converted as C's assignment converts."""
        if value.type == t:
            return value
        if t.name == "Tuple" or value.type.name == "Tuple":
            if t.name == value.type.name == "Tuple" and len(t.items) == len(value.type.items):
                return CValue(t, tuple(self.convert(v, i, node)
                                       for v, i in zip(value.data, t.items)))
            raise self.error(node, f"a {spell(value.type)} where a {spell(t)} is needed")
        if t.width:
            if value.type.width and value.type.width != t.width:
                raise self.error(node, f"a {spell(value.type)} where a {spell(t)} is "
                                 f"needed")
            data = np.asarray(value.data) if value.type.width else \
                np.asarray(value.data)[..., None]
            return CValue(t, cast(data, value.type.name, t.name) *
                          np.ones(t.width, DTYPES[t.name]))
        if value.type.width:
            raise self.error(node, f"a {spell(value.type)} where a {spell(t)} is needed")
        return CValue(t, cast(value.data, value.type.name, t.name))

    def truth(self, value: CValue, node: S.Node):
        if value.type.width or value.type.name == "Tuple":
            raise self.error(node, f"a {spell(value.type)} as a condition")
        return np.asarray(value.data) != 0

    # --- expressions -----------------------------------------------------------------------
    def expr(self, node: S.Node) -> CValue:
        if isinstance(node, S.Num):
            t = CType(node.type)
            return CValue(t, np.asarray(node.value, DTYPES[node.type]))
        if isinstance(node, S.Name):
            return self.scope_of(node)[node.name]
        if isinstance(node, S.Binary):
            return self.binary(node.op, self.expr(node.left), self.expr(node.right), node)
        if isinstance(node, S.Unary):
            return self.unary(node)
        if isinstance(node, S.Conditional):
            condition = self.truth(self.expr(node.condition), node.condition)
            then, other = self.expr(node.then), self.expr(node.other)
            t = then.type if then.type == other.type else \
                self.common(then.type, other.type, node)
            return merge(condition, self.convert(then, t, node), self.convert(other, t, node))
        if isinstance(node, S.Cast):
            t = self.resolve(node.type, node)
            value = self.expr(node.operand)
            if t.width and value.type.width:
                raise self.error(node, f"a cast of a {spell(value.type)} to {spell(t)} "
                                 f"(OpenCL converts vectors with convert_{spell(t)})")
            return self.convert(value, t, node)
        if isinstance(node, S.VectorLiteral):
            return self.vector_literal(node)
        if isinstance(node, S.Field):
            return self.field(self.expr(node.base), node.name, node)
        if isinstance(node, S.Call):
            return call(self, node, [self.expr(a) for a in node.args])
        if isinstance(node, S.Braces):  # a tuple of its items' own types
            items = tuple(self.expr(i) for i in node.items)
            return CValue(CType("Tuple", items=tuple(i.type for i in items)), items)
        raise self.error(node, f"the expression {type(node).__name__}")  # pragma: no cover

    def vector_literal(self, node: S.VectorLiteral) -> CValue:
        t = node.type
        parts = []
        for item in node.items:
            value = self.expr(item)
            if value.type.name == "Tuple":
                raise self.error(item, "a tuple inside a vector")
            data = np.asarray(value.data)
            parts.append(cast(data if value.type.width else data[..., None],
                              value.type.name, t.name))
        lanes = sum(p.shape[-1] for p in parts)
        if lanes == 1 and len(parts) == 1:
            return CValue(t, parts[0] * np.ones(t.width, DTYPES[t.name]))
        if lanes != t.width:
            raise self.error(node, f"{lanes} components for a {spell(t)}")
        shape = np.broadcast_shapes(*[p.shape[:-1] for p in parts])
        return CValue(t, np.concatenate([np.broadcast_to(p, shape + p.shape[-1:])
                                         for p in parts], axis=-1))

    def tuple_index(self, value: CValue, name: str, node) -> int:
        if name.startswith("_") and name[1:].isdigit():
            k = int(name[1:])
            if k < len(value.data):
                return k
            raise self.error(node, f"the field {name} of a tuple of {len(value.data)} "
                             f"(_0 to _{len(value.data) - 1})")
        raise self.error(node, f"the field '{name}' of a tuple (its fields are _0, _1, …)")

    def lanes(self, t: CType, name: str, node) -> list[int]:
        n = t.width
        if name in ("lo", "hi", "even", "odd"):
            half = (n + 1) // 2
            picked = {"lo": range(half), "hi": range(half, 2 * half),
                      "even": range(0, 2 * half, 2), "odd": range(1, 2 * half, 2)}[name]
            out = list(picked)
        elif name[0] in "sS" and len(name) > 1 and all(c in "0123456789abcdefABCDEF"
                                                        for c in name[1:]):
            out = [int(c, 16) for c in name[1:]]
        elif all(c in _LANES for c in name):
            out = [_LANES[c] for c in name]
        else:
            raise self.error(node, f"the component '{name}' of a {spell(t)}")
        if any(k >= n for k in out):
            raise self.error(node, f"the component '{name}' of a {spell(t)}, which has "
                             f"{n} lanes")
        if len(out) not in (1, 2, 3, 4, 8, 16):
            raise self.error(node, f"the component '{name}': {len(out)} lanes")
        return out

    def field(self, value: CValue, name: str, node) -> CValue:
        if value.type.name == "Tuple":
            return value.data[self.tuple_index(value, name, node)]
        if not value.type.width:
            raise self.error(node, f"the field '{name}' of a {spell(value.type)}")
        lanes = self.lanes(value.type, name, node)
        data = np.asarray(value.data)[..., lanes]
        if len(lanes) == 1:
            return CValue(CType(value.type.name), data[..., 0])
        return CValue(CType(value.type.name, len(lanes)), data)

    def unary(self, node: S.Unary) -> CValue:
        value = self.expr(node.operand)
        if value.type.name == "Tuple":
            raise self.error(node, f"'{node.op}' on a tuple")
        t = promoted(value.type)
        data = cast(value.data, value.type.name, t.name)
        if node.op == "+":
            return CValue(t, data)
        if node.op == "-":
            return CValue(t, -data)
        if node.op == "~":
            if t.name in ("float", "double"):
                raise self.error(node, "'~' on a floating-point value")
            return CValue(t, ~data)
        result = truth_type(t)  # "!"
        return CValue(result, boolean(data == 0, result))

    def common(self, a: CType, b: CType, node) -> CType:
        if a.name == "Tuple" or b.name == "Tuple":
            raise self.error(node, f"an operation on a {spell(a)} and a {spell(b)}")
        if a.width and b.width and a.width != b.width:
            raise self.error(node, f"an operation on a {spell(a)} and a {spell(b)}")
        if a.width or b.width:
            vector = a if a.width else b
            if a.width and b.width and a.name != b.name:
                raise self.error(node, f"an operation on a {spell(a)} and a {spell(b)} "
                                 f"(OpenCL converts vectors explicitly)")
            return vector
        pa, pb = promoted(a), promoted(b)
        return pa if RANK[pa.name] >= RANK[pb.name] else pb

    def binary(self, op: str, a: CValue, b: CValue, node) -> CValue:
        if op in ("&&", "||"):
            x, y = self.truth(a, node), self.truth(b, node)
            data = (x & y) if op == "&&" else (x | y)
            return CValue(CType("int"), data.astype(np.int32))
        t = self.common(a.type, b.type, node)
        x, y = self.convert(a, t, node).data, self.convert(b, t, node).data
        floating = t.name in ("float", "double")
        if op in ("<", "<=", ">", ">=", "==", "!="):
            test = {"<": np.less, "<=": np.less_equal, ">": np.greater,
                    ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}[op](x, y)
            result = truth_type(t)
            return CValue(result, boolean(test, result))
        if op in ("+", "-", "*"):
            data = {"+": np.add, "-": np.subtract, "*": np.multiply}[op](x, y)
        elif op == "/":
            if floating:
                data = np.divide(x, y)
            else:
                safe = np.where(y == 0, 1, y).astype(y.dtype)
                data = (np.trunc(np.asarray(x, np.float64) / safe)).astype(x.dtype) \
                    if np.dtype(x.dtype).itemsize < 8 else _int_div(x, safe)
        elif op == "%":
            if floating:
                raise self.error(node, "'%' on floating-point values (fmod computes it)")
            data = np.fmod(x, np.where(y == 0, 1, y).astype(y.dtype))
        elif floating:
            raise self.error(node, f"'{op}' on floating-point values")
        elif op in ("<<", ">>"):
            bits = np.dtype(DTYPES[t.name]).itemsize * 8
            shift = np.asarray(y) & (bits - 1)  # OpenCL takes the shift modulo the width
            data = np.left_shift(x, shift) if op == "<<" else np.right_shift(x, shift)
        else:
            data = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op](x, y)
        return CValue(t, np.asarray(data).astype(DTYPES[t.name], copy=False))


def _int_div(x, y):
    q = np.floor_divide(x, y)
    return q + ((np.remainder(x, y) != 0) & ((x < 0) ^ (y < 0)))


def merge(mask, new: CValue, old: CValue) -> CValue:
    """``new`` in the lanes of ``mask``, ``old`` in the others."""
    if new.type.name == "Tuple":
        return CValue(new.type, tuple(merge(mask, n, o) for n, o in zip(new.data, old.data)))
    m = np.asarray(mask)
    if new.type.width:
        m = m[..., None]
    return CValue(new.type, np.where(m, new.data, old.data).astype(DTYPES[new.type.name],
                                                                   copy=False))
