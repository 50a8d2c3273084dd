"""Rules that rename a primitive and keep its arguments (``reduce f z → reduceSeq f z``, ``scan
f z → scanSeq f z``, the unrolled loops), made by one factory: the left-hand side is the
source primitive, the refusal names it, and a condition on the site (where it is, how long
its input is) may refuse it."""

from __future__ import annotations

from collections.abc import Callable

from ..expr import Expr, Prim
from ..rewriting.match import matches, prim
from .rule import Refused, Rule, Site


def renaming(source: str, target: str, args: str, category: str, figure: str, *,
             name: str | None = None, note: str = "",
             condition: Callable[[Site], Refused | None] | None = None, **fields) -> Rule:
    """The rule ``source args → target args`` (named ``source→target`` unless ``name``
    says otherwise; ``note`` follows the equation). ``condition(site)`` returns the
    refusal where the renaming does not hold; ``fields`` are the Rule's other fields (doc,
    tags, …)."""

    @matches(prim(source, name="node", why=f"it rewrites {source} {args}".rstrip()))
    def rewrite(m, site: Site, p) -> Expr | Refused:
        refused = condition(site) if condition is not None else None
        return refused or Prim(target, m.node.args)

    return Rule(name or f"{source}→{target}", f"{source} {args} → {target} {args}{note}",
                category, figure, rewrite, **fields)
