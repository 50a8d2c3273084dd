"""The OpenCL C names of the workbench's types: scalars, vectors (``float4``) and tuples
(a struct per tuple type, registered with the program that declares it)."""

from __future__ import annotations

from typing import Protocol

from ..types import ScalarType, TupleType, Type, VectorType


class StructRegistry(Protocol):
    def struct(self, t: TupleType) -> str: ...


class ScalarCodegenError(Exception):
    pass


def c_type(t: Type, program: StructRegistry | None = None) -> str:
    """The OpenCL C name of a scalar, vector or tuple type (registering the struct of a
    tuple with ``program``)."""
    if isinstance(t, ScalarType):
        return t.name
    if isinstance(t, VectorType) and isinstance(t.elem, ScalarType):
        return f"{t.elem.name}{int(t.size.value)}"
    if isinstance(t, VectorType) and isinstance(t.elem, VectorType):
        return c_type(components_struct(t), program)
    if isinstance(t, TupleType):
        t = _structs_only(t)  # one struct for lanes of float4 and its components' tuple
        if program is not None:
            program.struct(t)
        fields = [c_type(item, program).replace("struct ", "").replace(" ", "")
                  for item in t.items]
        return "struct Tuple_" + "_".join(fields)
    raise ScalarCodegenError(f"no C type for {t} in a scalar function")


def components_struct(t: VectorType) -> TupleType:
    """n lanes of a float2/3/4 (``<float4>_n``) as C holds them: a struct of one floatN per
    component (as ``notation.c_lanes`` passes them to a C body's lane-wise version)."""
    inner = t.elem
    return TupleType((VectorType(inner.elem, t.size),) * int(inner.size.value))


def _structs_only(t: Type) -> Type:
    if isinstance(t, VectorType) and isinstance(t.elem, VectorType):
        return components_struct(t)
    if isinstance(t, TupleType):
        return TupleType(tuple(_structs_only(i) for i in t.items))
    return t
