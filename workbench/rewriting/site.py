"""Where a rule is tried (``Site``: the node, its types, the OpenCL maps around it, its right
neighbour in a composition) and what a rule, a pattern or a strategy gives where it does not
apply (``Refused``, with the reason: ELEVATE's Failure; failure is a value, not an
exception)."""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import Expr, Path
from ..nesting import Context
from ..typecheck import Typing
from ..types import Type


@dataclass(frozen=True)
class Refused:
    """Why a rule does not apply here (the widget shows this next to the rule)."""

    reason: str


@dataclass(frozen=True)
class Site:
    """Everything a rule may look at where it is tried."""

    root: Expr
    path: Path
    node: Expr
    typing: Typing | None
    context: Context  # enclosing OpenCL maps, outermost first
    next: Expr | None = None  # right neighbour in a composition (pair rules)
    next_typing: Typing | None = None

    @property
    def input(self) -> Type | None:
        """The (first) argument type the node is applied to, if it is a function."""
        t = self.next_typing if self.next is not None else self.typing
        return t.args[0] if t is not None and t.args else None
