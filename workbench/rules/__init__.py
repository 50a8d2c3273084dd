"""The rule catalogue (SPEC 5) and rewriting.

``rules`` lists every rule; ``rewrites(expr, *input_types)`` lists every applicable
(path, rule, parameters, result); ``apply(expr, rule, path, *input_types, **params)``
performs one rewrite or raises ``RewriteRefused`` naming the failed condition.

Where to find a rule: ``algorithmic`` (ICFP Fig. 6: split-join, the reduce rules,
cancellation, fusion), ``opencl`` (ICFP Fig. 7: map lowering, reduceSeq, reorderStride,
vectorisation, toLocal/toGlobal/toPrivate), ``identity`` (PACT: id introduction and
elimination, id as a copy), ``macros`` (map-reduce fusion), ``strategies`` (combinators).
"""

from __future__ import annotations

from . import algorithmic, identity, macros, opencl
from .rewriting import Rewrite, RewriteRefused, apply, lookup_rule, refusals, rewrites
from .rule import Refused, Rule, RuleParam, Site

rules: list[Rule] = [*algorithmic.RULES, *opencl.RULES, *identity.RULES, *macros.RULES]
CATALOGUE: dict[str, Rule] = {r.name: r for r in rules}
assert len(CATALOGUE) == len(rules), "rule names must be unique"

__all__ = ["rules", "CATALOGUE", "Rule", "RuleParam", "Refused", "Site", "Rewrite",
           "RewriteRefused", "rewrites", "apply", "refusals", "lookup_rule"]
