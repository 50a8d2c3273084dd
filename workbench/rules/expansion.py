"""A macro step as the basic steps it is made of: ``expand(expr, rule, path, …)`` lists them,
each with the expression after it, at paths of the whole expression, so that a derivation
can show them (``Derivation.expansion``) or take them instead of the macro step
(``Derivation.expand``). Replaying them gives exactly the macro's result."""

from __future__ import annotations

from ..errors import WorkbenchError, as_path
from ..expr import Compose, Expr, Path, subterm
from ..types import Type
from . import blocking, macros, reductions, vectors
from .rewriting import (
    RewriteRefused,
    annotation_of,
    apply,
    coerce_params,
    lookup_rule,
    site_at,
)
from .rule import Refused
from .step import Step

# the macros of ICFP Sect. 6.1, PACT's vectorised reduction and the work-group and two-stage
# reductions: each builds its basic steps as a State
MACROS = {**macros.MACROS, **vectors.MACROS, **reductions.MACROS}


def is_macro(rule: str) -> bool:
    """Whether a rule of the catalogue is a macro with an expansion."""
    return rule in blocking.BUILDERS or rule in MACROS


def expand(expr: Expr, rule: str, path: Path | str | int, *input_types: Type | str,
           **params) -> list[Step]:
    """The basic steps of the macro ``rule`` at ``path`` (with ``params``), each with its
    result; raises ``RewriteRefused`` where the macro does not apply."""
    found = lookup_rule(rule)
    if not is_macro(found.name):
        raise WorkbenchError(f"{found.name} is a basic rule, not a macro: it has no expansion")
    path = as_path(path)
    note = annotation_of(expr, input_types)
    site = site_at(expr, path, note)
    values = coerce_params(found, params)
    if found.name in blocking.BUILDERS:
        expansion = blocking.expand(site, found, values)
        if isinstance(expansion, Refused):
            raise RewriteRefused(found.name, path, str(site.node), expansion.reason)
        steps = expansion.steps_at(path, expr)
    else:
        state = MACROS[found.name](site, values)
        if isinstance(state, Refused):
            raise RewriteRefused(found.name, path, str(site.node), state.reason)
        steps = _placed(state, site, found.pair)
    out, current = [], expr
    for s in steps:
        current = apply(current, s.rule, s.path, *input_types, **s.params)
        out.append(Step(s.rule, s.path, dict(s.params), current))
    return out


def _placed(state, site, pair: bool) -> list[Step]:
    """The steps of a macro of ``macros`` (recorded on the node, or on the pair of
    functions it rewrites, alone) at their places in the whole expression."""
    local_types = (site.next_typing if pair else site.typing).args
    local = Compose((site.node, site.next)) if pair else site.node
    parent = subterm(site.root, site.path[:-1]) if site.path else None
    spliced = isinstance(parent, Compose)
    out = []
    for s in state.steps:
        if spliced and isinstance(local, Compose) and s.path:
            path = site.path[:-1] + (site.path[-1] + s.path[0],) + tuple(s.path[1:])
        else:
            path = site.path + tuple(s.path)
        out.append(Step(s.rule, path, dict(s.params)))
        local = apply(local, s.rule, s.path, *local_types, **s.params)
    return out


__all__ = ["expand", "is_macro"]
