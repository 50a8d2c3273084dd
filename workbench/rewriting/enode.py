"""What an e-graph (``rewriting.egraph``) is made of: e-nodes — a node's head, its children's
e-classes and its context — and the origins that say which rewrite created one, which
derivations (``rewriting.routes``) follow back to the start."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import WorkbenchError
from ..expr import Expr, Lambda, Prim, Section, UserFun
from .step import Step

Head = tuple


def head_of(node: Expr) -> Head:
    """What a node is without its children (``map``, ``split 4``, ``λx.``, ``+``)."""
    kind = type(node).__name__
    if isinstance(node, Prim):
        return kind, node.name, tuple(None if isinstance(a, Expr) else a for a in node.args)
    if isinstance(node, UserFun) or not node.children():
        return kind, node.key()
    if isinstance(node, Lambda):
        return kind, node.params
    if isinstance(node, Section):
        return kind, node.op, node.left is None, node.right is None
    return kind, getattr(node, "op", None), len(node.children())


@dataclass(frozen=True)
class ENode:
    head: Head
    children: tuple[int, ...]
    context: tuple


@dataclass(frozen=True)
class Origin:
    """Where a rewrite created an e-node: the term it rewrote (``source``, of the same
    e-class) and the step there, its path relative to that term."""

    source: Expr
    step: Step


class NoDerivation(WorkbenchError):
    """A term of the graph that no list of recorded steps reaches from the start."""
