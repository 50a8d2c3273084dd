"""The rule catalogue (SPEC 5) and rewriting.

``rules`` lists every rule; ``rewrites(expr, *input_types)`` lists every applicable
(path, rule, parameters, result); ``apply(expr, rule, path, *input_types, **params)``
performs one rewrite or raises ``RewriteRefused`` naming the failed condition.

Where to find a rule: ``algorithmic`` (ICFP Fig. 6: split-join, the reduce rules,
cancellation, fusion), ``opencl`` (ICFP Fig. 7: map lowering, reduceSeq, reorderStride,
vectorisation, toLocal/toGlobal/toPrivate), ``identity`` (PACT: id introduction and
elimination, id as a copy), ``interchange`` (the basic rules of register blocking and
tiling: map interchange and fission, reduce–map interchange, transpositions, tile/untile),
``copies`` (a work-group reduction's copies into local, private and global memory),
``macros`` (map-reduce fusion), ``blocking`` (the four CASES 2016 macros: 1-D and 2-D
blocking, tiling, tiling of the innermost loop), ``strategies`` (combinators).
"""

from __future__ import annotations

from . import algorithmic, blocking, copies, identity, interchange, macros, opencl
from .rewriting import Rewrite, RewriteRefused, apply, lookup_rule, refusals, rewrites
from .rule import Refused, Rule, RuleParam, Site
from .step import Step

rules: list[Rule] = [*algorithmic.RULES, *interchange.RULES, *opencl.RULES, *copies.RULES,
                     *identity.RULES, *macros.RULES, *blocking.RULES]
CATALOGUE: dict[str, Rule] = {r.name: r for r in rules}
assert len(CATALOGUE) == len(rules), "rule names must be unique"



def register(rule: Rule, *, replace: bool = False) -> None:
    """Add a rule of your own to the catalogue, so that ``rewrites``, ``apply`` and saved
    ``Derivation``s find it by name (SPEC 5; the own-rule notebook shows one)."""
    if not isinstance(rule, Rule):
        raise TypeError(f"register takes a Rule, not a {type(rule).__name__}")
    if rule.name in CATALOGUE:
        if not replace:
            raise ValueError(f"a rule named {rule.name!r} exists: pass replace=True to "
                             f"replace it")
        rules[:] = [r for r in rules if r.name != rule.name]
    rules.append(rule)
    CATALOGUE[rule.name] = rule


def unregister(name: str) -> None:
    """Remove a rule added with ``register``."""
    rules[:] = [r for r in rules if r.name != name]
    CATALOGUE.pop(name, None)


__all__ = ["rules", "CATALOGUE", "register", "unregister", "Rule", "RuleParam", "Refused",
           "Site", "Step", "Rewrite", "RewriteRefused", "rewrites", "apply", "refusals",
           "lookup_rule"]
