"""The values a Lift program computes with at the Scala level, besides expressions, types and
sizes: pattern constructors and other Scala functions, names inside names
(``Pad.Boundary.Clamp``), index functions and boundaries."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..expr import BinOp, Expr, Lit
from ..sizes import Size
from ..types import Type
from .scala import Node


@dataclass(frozen=True)
class Callable_:
    """A Scala-level function: a Lift pattern constructor, ``fun``, ``UserFun``, …"""

    name: str
    call: Callable  # (reader, args: list of values, node) -> value


@dataclass(frozen=True)
class Namespace:
    """``Pad.Boundary.Clamp``: names inside a name (which may itself be called: ``Pad(...)``)."""

    name: str
    members: dict
    call: Callable | None = None


@dataclass(frozen=True)
class IndexFunction:
    """Lift's index functions for Gather/Scatter: ``reverse``, ``ReorderWithStride(s)``,
    ``Shift(k)``, ``transposeFunction(m, n)``."""

    kind: str
    args: tuple = ()


@dataclass(frozen=True)
class CapacityArray:
    """``ArrayTypeWC(Float, 1024)``: Lift's array of a capacity whose length is known only
    when the program runs. As a program's input (the outermost type of a parameter of its
    ``fun``) it is an array of a length of its own, which the input gives; anywhere else
    it is refused (``Reader.as_type``)."""

    elem: object  # the element type
    capacity: object  # the capacity, a size


@dataclass(frozen=True)
class Boundary:
    """``Pad.Boundary.Clamp`` and friends."""

    kind: str


def fresh_names(names, *exprs: Expr) -> list[str]:
    """Variable names free in none of exprs and each other (the bound variables of the
    lambdas a pattern is built of)."""
    taken = set().union(*(e.free_vars() for e in exprs))
    out = []
    for name in names:
        k, fresh = 0, name
        while fresh in taken:
            k, fresh = k + 1, f"{name}{k}"
        taken.add(fresh)
        out.append(fresh)
    return out


def numbers(op: str, a, b):
    if op == "/":
        return a // b if isinstance(a, int) and isinstance(b, int) else a / b
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "%": lambda: a % b}.get(op, lambda: BinOp(op, Lit(a), Lit(b)))()


def show_node(value) -> str:
    if isinstance(value, Callable_):
        return value.name
    if isinstance(value, Expr | Type | Size):
        return f"`{value}`"
    return repr(value)


def expect_arguments(reader, node: Node, args: list, counts: tuple[int, ...], what: str):
    if len(args) not in counts:
        wanted = " or ".join(str(c) for c in counts)
        raise reader.error(node, f"{what} takes {wanted} argument{'s' if counts != (1,) else ''}"
                                 f", got {len(args)}")
