"""Types of the language (ICFP 2015, Sect. 3 and Fig. 8).

Scalars (``int``, ``float``, ``double``, ``bool``), tuples ``(A, B)``, arrays ``[A]_I`` whose
length ``I`` is a symbolic ``Size``, SIMD vectors ``<A>_n`` and (curried) functions ``A -> B``.
Types are immutable values; they are computed by ``typecheck`` and never stored on nodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .sizes import Size


class Type:
    """Base class of all types."""

    __slots__ = ()

    def __str__(self) -> str:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class ScalarType(Type):
    name: str  # "int", "float", "double" or "bool"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class TupleType(Type):
    items: tuple[Type, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(str(t) for t in self.items) + ")"


@dataclass(frozen=True, slots=True)
class ArrayType(Type):
    elem: Type
    size: Size

    def __str__(self) -> str:
        return f"[{self.elem}]_{size_text(self.size)}"


@dataclass(frozen=True, slots=True)
class VectorType(Type):
    """A SIMD vector ``<A>_n`` (ICFP Fig. 5): an array at the high level, ``float4`` in OpenCL."""

    elem: Type
    size: Size

    def __str__(self) -> str:
        return f"<{self.elem}>_{size_text(self.size)}"


@dataclass(frozen=True, slots=True)
class FunctionType(Type):
    arg: Type
    result: Type

    def __str__(self) -> str:
        left = f"({self.arg})" if isinstance(self.arg, FunctionType) else str(self.arg)
        return f"{left} -> {self.result}"


INT = ScalarType("int")
FLOAT = ScalarType("float")
DOUBLE = ScalarType("double")
BOOL = ScalarType("bool")
SCALARS = {"int": INT, "float": FLOAT, "double": DOUBLE, "bool": BOOL}

# Numeric promotion order used by scalar operators (C's usual arithmetic conversions).
_RANK = {"bool": 0, "int": 1, "float": 2, "double": 3}

_DTYPES = {"int": np.dtype(np.int32), "float": np.dtype(np.float32),
           "double": np.dtype(np.float64), "bool": np.dtype(np.bool_)}


def size_text(size: Size) -> str:
    """A size as written after ``_``: bare when it is a name or a number, else in braces."""
    text = str(size)
    return text if text.isidentifier() or text.isdigit() else "{" + text + "}"


def promote(a: ScalarType, b: ScalarType) -> ScalarType:
    return a if _RANK[a.name] >= _RANK[b.name] else b


def is_numeric(t: Type) -> bool:
    return isinstance(t, ScalarType) and t.name != "bool"


def dtype_of(t: Type) -> np.dtype:
    """NumPy dtype of a scalar type, or of the innermost scalar of an array/vector type."""
    while isinstance(t, ArrayType | VectorType):
        t = t.elem
    if not isinstance(t, ScalarType):
        raise ValueError(f"type {t} has no single dtype")
    return _DTYPES[t.name]


def scalar_of_dtype(dtype: np.dtype) -> ScalarType:
    kind = np.dtype(dtype)
    if kind == np.float64:
        return DOUBLE
    if np.issubdtype(kind, np.floating):
        return FLOAT
    if np.issubdtype(kind, np.bool_):
        return BOOL
    if np.issubdtype(kind, np.integer):
        return INT
    raise ValueError(f"no workbench type for NumPy dtype {kind}")


def type_of_value(value) -> Type:
    """The concrete type of an input value: NumPy arrays, Python/NumPy scalars, tuples."""
    if isinstance(value, tuple):
        return TupleType(tuple(type_of_value(v) for v in value))
    if isinstance(value, bool | np.bool_):
        return BOOL
    if isinstance(value, int | np.integer):
        return INT
    if isinstance(value, float):
        return FLOAT
    arr = np.asarray(value)
    t: Type = scalar_of_dtype(arr.dtype)
    for n in reversed(arr.shape):
        t = ArrayType(t, Size.const(n))
    return t


def free_size_vars(t: Type) -> frozenset[str]:
    if isinstance(t, ArrayType | VectorType):
        return t.size.free_vars | free_size_vars(t.elem)
    if isinstance(t, TupleType):
        return frozenset().union(*(free_size_vars(i) for i in t.items))
    if isinstance(t, FunctionType):
        return free_size_vars(t.arg) | free_size_vars(t.result)
    return frozenset()


def substitute_sizes(t: Type, mapping: Mapping[str, Size | int]) -> Type:
    if not mapping:
        return t
    if isinstance(t, ArrayType):
        return ArrayType(substitute_sizes(t.elem, mapping), t.size.substitute(mapping))
    if isinstance(t, VectorType):
        return VectorType(substitute_sizes(t.elem, mapping), t.size.substitute(mapping))
    if isinstance(t, TupleType):
        return TupleType(tuple(substitute_sizes(i, mapping) for i in t.items))
    if isinstance(t, FunctionType):
        return FunctionType(substitute_sizes(t.arg, mapping), substitute_sizes(t.result, mapping))
    return t


def function_parts(t: Type) -> tuple[list[Type], Type]:
    """Split a curried function type ``A -> B -> C`` into ``([A, B], C)``."""
    args = []
    while isinstance(t, FunctionType):
        args.append(t.arg)
        t = t.result
    return args, t


def replace_leaf(t: Type, leaf: Type) -> Type:
    """``t`` with the element type below all its array levels replaced by ``leaf``."""
    if isinstance(t, ArrayType):
        return ArrayType(replace_leaf(t.elem, leaf), t.size)
    if isinstance(t, VectorType):
        return VectorType(replace_leaf(t.elem, leaf), t.size)
    return leaf


def match_sizes(pattern: Type, actual: Type, bindings: dict[str, Size]) -> bool:
    """Match a declared type (with size variables) against an actual type, binding variables.

    A size that is a single variable binds to the actual size; any other size must equal the
    actual one once the variables bound so far are substituted. Returns False on mismatch.
    """
    if isinstance(pattern, ArrayType | VectorType):
        if type(pattern) is not type(actual):
            return False
        if not match_sizes(pattern.elem, actual.elem, bindings):
            return False
        return _match_size(pattern.size, actual.size, bindings)
    if isinstance(pattern, TupleType):
        return (isinstance(actual, TupleType) and len(pattern.items) == len(actual.items)
                and all(match_sizes(p, a, bindings) for p, a in zip(pattern.items, actual.items)))
    if isinstance(pattern, FunctionType):
        return (isinstance(actual, FunctionType) and match_sizes(pattern.arg, actual.arg, bindings)
                and match_sizes(pattern.result, actual.result, bindings))
    return pattern == actual


def _match_size(pattern: Size, actual: Size, bindings: dict[str, Size]) -> bool:
    names = pattern.free_vars
    if len(names) == 1 and pattern == Size.var(next(iter(names))):
        name = next(iter(names))
        if name in bindings:
            return bindings[name] == actual
        bindings[name] = actual
        return True
    unbound = [n for n in names if n not in bindings]
    if len(unbound) == 1:
        # Solve the common linear case  c * n == actual  (e.g. a declared [float]_{4*N}).
        name = unbound[0]
        probe = pattern.substitute(bindings)
        # c * n + d == actual: a [float]_{4*N}, or Lift's 2 + SizeVar("N") (two longer than
        # N); n is a natural number where the actual size is a number
        try:
            offset = probe.substitute({name: 0})
        except ZeroDivisionError:  # n divides (4096 / N): not of that form
            offset = Size.var(name)
        slope = (probe - offset) / Size.var(name)
        if not offset.free_vars and not slope.free_vars and slope != Size.const(0):
            value = (actual - offset) / slope
            if value.free_vars or value.is_integer_constant and value.value >= 0:
                bindings[name] = value
                return True
            return False
    return pattern.substitute(bindings) == actual


# The parser of type text (``[float]_N``), installed by ``notation.parser`` (which builds
# on this module): functions of the core accept types as text without importing it.
_TYPE_PARSER: list = []


def use_type_parser(parse) -> None:
    """Read types given as text with ``parse`` (``notation.parse_type``)."""
    _TYPE_PARSER[:] = [parse]


def as_type(t: Type | str) -> Type:
    """``t`` itself, or the type its text writes."""
    if isinstance(t, Type):
        return t
    if isinstance(t, str) and _TYPE_PARSER:
        return _TYPE_PARSER[0](t)
    from .errors import WorkbenchError

    raise WorkbenchError(f"not a type: {t!r} (give a Type or its text, e.g. '[float]_N')")
