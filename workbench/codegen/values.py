"""What an expression denotes while it is translated into the kernel IR, and where values
of a type are stored.

A ``Value`` is an array readable through a view, a scalar (or vector, or struct) IR value,
or a tuple of values. Arrays of tuples are stored as one buffer per component (structure
of arrays); arrays of vectors as consecutive scalars, read and written with vloadN/vstoreN.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..sizes import Size
from ..types import ArrayType, ScalarType, TupleType, Type, VectorType, replace_leaf
from . import CodegenError, ir
from .arith import Index
from .views import (
    BufferView,
    InnerVecView,
    Prefix,
    SplitVecView,
    StoredLanesView,
    View,
    ZipView,
    project,
    read,
)


@dataclass(frozen=True)
class Value:
    type: Type
    view: View | None = None
    scalar: ir.Value | None = None
    parts: tuple = ()

    def element(self, i: Index) -> Value:
        """Element i of an array value."""
        t = self.type
        elem = t.elem
        if isinstance(elem, ArrayType):
            return Value(elem, view=Prefix((i,), self.view))
        if isinstance(elem, TupleType) and any(isinstance(item, ArrayType)
                                               for item in elem.items):
            # zip of arrays whose elements are themselves arrays: element i of each part
            return Value(elem, parts=tuple(
                Value(ArrayType(item, t.size), view=project(self.view, k)).element(i)
                for k, item in enumerate(elem.items)))
        return leaf(elem, self.view.access([i]))  # a scalar, a vector (vload) or a tuple


def bind(pattern, value: Value, env: dict) -> None:
    """A lambda's parameter pattern (a name or a tuple of patterns) bound to a value."""
    if isinstance(pattern, str):
        env[pattern] = value
        return
    parts = value.parts
    if not parts and value.scalar is not None and isinstance(value.type, TupleType):
        parts = tuple(Value(t, scalar=ir.Field(value.scalar, i))
                      for i, t in enumerate(value.type.items))
    if len(parts) != len(pattern):
        raise CodegenError(f"the parameters ({', '.join(map(str, pattern))}) cannot be bound "
                           f"to a value of type {value.type}")
    for p, part in zip(pattern, parts):
        bind(p, part, env)


def leaf(t: Type, loc) -> Value:
    """The value at a location (a tuple of locations: a tuple of values)."""
    if isinstance(loc, tuple):
        return Value(t, parts=tuple(leaf(item, part) for item, part in zip(t.items, loc)))
    return Value(t, scalar=read(loc))


def component_buffers(name: str, t: Type, role: str, space: str = "global"
                      ) -> tuple[list[ir.Buffer], View]:
    """The buffers holding a value of type ``t``: one, or for an array of tuples one per
    tuple component (structure of arrays: ``in0_0``, ``in0_1``, …), and the view that reads
    the value from them (a tuple of locations per element)."""
    leaf_type = ir.element_type(t)
    if isinstance(leaf_type, TupleType) and \
            (leaf_type is not t or role == "input" and numbers_only(t)):
        # an array of tuples, or an input that is a tuple of numbers (a buffer of one number
        # each, read once)
        buffers: list[ir.Buffer] = []
        views = []
        for k, item in enumerate(leaf_type.items):
            parts, view = component_buffers(f"{name}_{k}", replace_leaf(t, item), role, space)
            buffers += parts
            views.append(view)
        return buffers, ZipView(tuple(views))
    if isinstance(leaf_type, VectorType) and isinstance(leaf_type.elem, VectorType):
        if not (isinstance(t, ArrayType) and t.elem is leaf_type):
            raise CodegenError(f"{role} {name}: float4s in lanes ({leaf_type}) are stored in "
                               f"an array of them, not in {t}")
        buf = ir.Buffer(name, space, t, role)
        k, n = int(leaf_type.elem.size.value), int(leaf_type.size.value)
        return [buf], StoredLanesView(k, n, BufferView(name, (buf.length,)),
                                      leaf_type.elem.elem.name)
    if isinstance(leaf_type, VectorType):
        if not isinstance(t, ArrayType):
            raise CodegenError(f"{role} {name}: a vector ({t}) is stored in an array")
        buf = ir.Buffer(name, space, t, role)
        width = int(leaf_type.size.value)
        if t.elem is leaf_type:
            return [buf], SplitVecView(width, BufferView(name, (buf.length,)))
        # arrays of arrays of vectors (the vector partial results of work-groups, one array
        # per group): the vectors of the innermost arrays, consecutive scalars each
        return [buf], InnerVecView(width, BufferView(name, buf.shape))
    buf = ir.Buffer(name, space, t, role)
    return [buf], BufferView(name, buf.shape or (1,))


def numbers_only(t: Type) -> bool:
    """A number, or a tuple of numbers (of tuples of numbers)."""
    if isinstance(t, TupleType):
        return all(numbers_only(item) for item in t.items)
    return isinstance(t, ScalarType)


def count(t: Type) -> int:
    """Elements of (nested) arrays of type t."""
    n = 1
    while isinstance(t, ArrayType):
        n, t = n * int(t.size.value), t.elem
    return n


def shape(t: Type) -> tuple[int, ...]:
    out = []
    while isinstance(t, ArrayType):
        out.append(int(t.size.value))
        t = t.elem
    return tuple(out)


def pingpong(results: list[Type], allocate) -> list:
    """The two buffers that the iterations of ``iterate`` write in turn (all but the last
    iteration's results), each large enough for the largest result it holds."""
    buffers = []
    for parity in (0, 1):
        mine = results[parity::2]
        if not mine:
            break
        largest = max(mine, key=count)
        buffers.append(allocate(ArrayType(ir.element_type(largest),
                                          Size.const(count(largest)))))
    return buffers
