"""A macro step as the basic steps it is made of: ``expand(expr, rule, path, …)`` lists them,
each with the expression after it, at paths of the whole expression, so that a derivation
can show them (``Derivation.expansion``) or take them instead of the macro step
(``Derivation.expand``). Replaying them gives exactly the macro's result. A macro is a rule
with a strategy (``Rule.expand``, ``rewriting.macro``)."""

from __future__ import annotations

from ..errors import WorkbenchError, as_path
from ..expr import Expr, Path
from ..types import Type
from . import macro
from .application import (
    RewriteRefused,
    annotation_of,
    apply,
    coerce_params,
    lookup_rule,
    site_at,
)
from .registry import CATALOGUE
from .site import Refused
from .step import Step


def is_macro(rule: str) -> bool:
    """Whether a rule of the catalogue is a macro with an expansion."""
    found = CATALOGUE.get(rule)
    return found is not None and found.expand is not None


def expand(expr: Expr, rule: str, path: Path | str | int, *input_types: Type | str,
           **params) -> list[Step]:
    """The basic steps of the macro ``rule`` at ``path`` (with ``params``), each with its
    result; raises ``RewriteRefused`` where the macro does not apply."""
    found = lookup_rule(rule)
    if found.expand is None:
        raise WorkbenchError(f"{found.name} is a basic rule, not a macro: it has no expansion")
    path = as_path(path)
    note = annotation_of(expr, input_types)
    site = site_at(expr, path, note)
    ran = macro.run(site, found, coerce_params(found, params))
    if isinstance(ran, Refused):
        raise RewriteRefused(found.name, path, str(site.node), ran.reason)
    expansion, copy = ran
    out, current = [], expr
    for s in expansion.steps_at(path, expr, copy):
        current = apply(current, s.rule, s.path, *input_types, **s.params)
        out.append(Step(s.rule, s.path, dict(s.params), current))
    return out


__all__ = ["expand", "is_macro"]
