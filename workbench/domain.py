"""Input ranges: the values a program's random inputs are drawn from.

A program file may declare, next to a definition's signature, a range for each input, so
that random inputs respect the program's domain (no logarithm of a negative price in
BlackScholes):

    blackScholes : [float]_N -> [(float, float)]_N
    blackScholes ranges : [0, 1]

One item per input, separated by commas, in the order of the signature:

- ``[low, high]``: every number of that input (every element, every tuple component) lies
  between ``low`` and ``high``; for ints both ends are included;
- ``_``: the default, floats in [-1, 1) and ints that index the arrays among the inputs;
- ``(item, item, ...)``: for an input whose elements are tuples, one item per component.

The notation reads the line (``notation.program``); ``inputs.random_inputs`` draws from it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .expr import Signature, signature_of, with_signature
from .types import ArrayType, ScalarType, TupleType, Type, VectorType


@dataclass(frozen=True)
class Interval:
    """Numbers between ``low`` and ``high`` (both included for ints)."""

    low: int | float
    high: int | float

    def __str__(self) -> str:
        return f"[{_number(self.low)}, {_number(self.high)}]"


# One input's range: an Interval, None (the default) or a tuple of ranges (tuple components).
Range = Interval | None | tuple


def range_text(item: Range) -> str:
    if item is None:
        return "_"
    if isinstance(item, tuple):
        return "(" + ", ".join(range_text(i) for i in item) + ")"
    return str(item)


def ranges_text(ranges: tuple[Range, ...]) -> str:
    """The ranges as a program file writes them (``[0, 10], _, [4, 16]``)."""
    return ", ".join(range_text(r) for r in ranges)


def ranges_of(expr) -> tuple[Range, ...] | None:
    """The input ranges a program file declared for a definition (None when it declared
    none)."""
    signature = signature_of(expr)
    return signature.ranges if signature is not None else None


def with_ranges(expr, ranges: tuple[Range, ...] | None):
    """``expr`` carrying ``ranges`` in its signature (the expression itself for None)."""
    if ranges is None:
        return expr
    signature = signature_of(expr) or Signature()
    return with_signature(expr, replace(signature, ranges=tuple(ranges)))


def ranges_problem(ranges: tuple[Range, ...], inputs: list[Type]) -> str | None:
    """Why ``ranges`` do not fit inputs of these types, or None when they do."""
    if len(ranges) != len(inputs):
        return (f"{len(ranges)} range{'s' if len(ranges) != 1 else ''} for "
                f"{len(inputs)} input{'s' if len(inputs) != 1 else ''} (one per input; "
                f"'_' keeps an input's default)")
    for i, (item, t) in enumerate(zip(ranges, inputs), start=1):
        problem = _item_problem(item, _element(t))
        if problem is not None:
            return f"input {i} ({t}): {problem}"
    return None


def _element(t: Type) -> Type:
    while isinstance(t, ArrayType | VectorType):
        t = t.elem
    return t


def _item_problem(item: Range, t: Type) -> str | None:
    if item is None:
        return None
    if isinstance(item, tuple):
        if not isinstance(t, TupleType):
            return f"a tuple of ranges {range_text(item)} for elements of type {t}"
        if len(item) != len(t.items):
            return (f"{len(item)} ranges for the {len(t.items)} components of {t}")
        for sub, component in zip(item, t.items):
            problem = _item_problem(sub, _element(component))
            if problem is not None:
                return problem
        return None
    if isinstance(t, TupleType):  # one interval for every component
        for component in t.items:
            problem = _item_problem(item, _element(component))
            if problem is not None:
                return problem
        return None
    if not isinstance(t, ScalarType) or t.name == "bool":
        return f"a range {item} for values of type {t} (ranges are for numbers)"
    if t.name == "int":
        if not all(isinstance(v, int) for v in (item.low, item.high)):
            return f"the range {item} of an int input needs whole numbers"
        if item.low < -2 ** 31 or item.high >= 2 ** 31:
            return f"the range {item} of an int input leaves the 32 bits of an int"
    if t.name == "float" and max(abs(item.low), abs(item.high)) > _FLOAT_MAX:
        return f"the range {item} of a float input is past the largest float (3.4e38)"
    return None


_FLOAT_MAX = 3.4028234663852886e38


def _number(value: int | float) -> str:
    return str(value) if isinstance(value, int) else repr(float(value))
