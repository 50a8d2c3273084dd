"""The typed values of user functions written in OpenCL C (``c_evaluation``): a value with
its C type, and C's conversions, promotions and truth values on NumPy arrays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .c_syntax import CType

DTYPES = {"bool": np.bool_, "char": np.int8, "uchar": np.uint8, "short": np.int16,
          "ushort": np.uint16, "int": np.int32, "uint": np.uint32, "long": np.int64,
          "ulong": np.uint64, "float": np.float32, "double": np.float64}
RANK = {"int": 1, "uint": 2, "long": 3, "ulong": 4, "float": 5, "double": 6}
_SIGNED_OF_WIDTH = {np.dtype(np.float32): "int", np.dtype(np.float64): "long",
                    np.dtype(np.int32): "int", np.dtype(np.uint32): "int",
                    np.dtype(np.int64): "long", np.dtype(np.uint64): "long",
                    np.dtype(np.int8): "char", np.dtype(np.uint8): "char",
                    np.dtype(np.int16): "short", np.dtype(np.uint16): "short"}


@dataclass(frozen=True)
class CValue:
    """A typed value: ``data`` an ndarray (a vector's lanes on its last axis) or, for a
    tuple, a tuple of ``CValue``s."""

    type: CType
    data: object


def promoted(t: CType) -> CType:
    """C's integer promotion: bool, char and short compute as int."""
    if t.name in ("bool", "char", "uchar", "short", "ushort"):
        return CType("int", t.width)
    return t


def truth_type(t: CType) -> CType:
    """The type of a comparison: int for scalars, a signed vector of the lanes' width."""
    if not t.width:
        return CType("int")
    return CType(_SIGNED_OF_WIDTH[np.dtype(DTYPES[t.name])], t.width)


def boolean(test, t: CType):
    """A comparison's result: 1 for true on scalars, -1 (all bits set) on vectors."""
    return np.where(test, -1 if t.width else 1, 0).astype(DTYPES[t.name])


def cast(data, source: str, target: str):
    """Convert as C does: to bool by testing for zero, to an integer by truncating."""
    data = np.asarray(data)
    if target == "bool":
        return data != 0
    if source == target:
        return data
    if target not in ("float", "double") and source in ("float", "double"):
        data = np.trunc(data)
    return data.astype(DTYPES[target])


def spell(t: CType) -> str:
    if t.name == "Tuple":
        return "Tuple(" + ", ".join(spell(i) for i in t.items) + ")" if t.items else "Tuple"
    return f"{t.name}{t.width}" if t.width else t.name
