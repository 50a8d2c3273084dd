"""Default completion: a simple, documented lowering of whatever is still high-level, so
that every step of a derivation can be compiled and run (SPEC 6).

It applies ordinary rules, outermost node first, and returns the steps it took:
- ``map`` → ``mapGlobal`` outside any OpenCL map, ``mapLocal`` directly inside a
  ``mapWorkgroup``, ``mapSeq`` anywhere else;
- ``reduce`` → ``reduceSeq``;
- ``reducePart f z n`` → ``join ∘ map (reducePart f z 1) ∘ split (I)`` → ... ``reduceSeq``;
- ``reorder`` → ``id``.
"""

from __future__ import annotations

from ..expr import Expr, Prim, walk
from ..nesting import context
from ..rules import apply
from ..rules.strategies import Step
from ..types import Type
from . import CodegenError


def _choice(expr: Expr, path, node: Prim) -> tuple[str, dict] | None:
    if node.name == "map":
        levels = [lvl for lvl, _ in context(expr, path)]
        if not levels:
            return "map→mapGlobal", {"dim": 0}
        if levels[-1] == "workgroup":
            return "map→mapLocal", {"dim": 0}
        return "map→mapSeq", {}
    if node.name == "reduce":
        return "reduce→reduceSeq", {}
    if node.name == "reducePart":
        if node.args[2] == 1:
            return "partial-reduce", {}
        return "partial-split", {"j": 1}
    if node.name == "reorder":
        return "reorder→id", {}
    return None


def complete(expr: Expr, *input_types: Type | str) -> tuple[Expr, list[Step]]:
    """The expression with its high-level nodes lowered, and the steps that did it."""
    steps: list[Step] = []
    for _ in range(10_000):
        target = next(((path, node) for path, node in walk(expr)
                       if isinstance(node, Prim) and node.decl.high_level), None)
        if target is None:
            return expr, steps
        path, node = target
        choice = _choice(expr, path, node)
        if choice is None:
            raise CodegenError(f"{node.name} has no default lowering yet")
        rule, params = choice
        expr = apply(expr, rule, path, *input_types, **params)
        steps.append(Step(rule, path, params))
    raise CodegenError("default completion did not finish")
