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
blocking, tiling, tiling of the innermost loop), ``vectors`` (vector accumulators),
``reductions`` (work-group and two-stage reductions, unrolling), ``extraction`` (Futhark's
kernel extraction, G1–G7; ``flattening``, its moderate-flattening strategy), ``scans`` (scan
lowering, blocks), ``skeletons`` (P2CL's operation map and pattern fusion, SkelCL's
allpairs), ``pact`` (PACT's inner split/join, reduce as iterate, reduceSeq where PACT allows
it), ``strategies`` (combinators).
"""

from __future__ import annotations

from . import (
    algorithmic,
    blocking,
    copies,
    extraction,
    identity,
    interchange,
    macros,
    opencl,
    pact,
    reductions,
    scans,
    skeletons,
    vectors,
)
from .catalogue import CATALOGUE, register, rules, unregister
from .rewriting import Rewrite, RewriteRefused, apply, lookup_rule, refusals, rewrites
from .rule import Refused, Rule, RuleParam, Site
from .step import Step

for _rule in [*algorithmic.RULES, *interchange.RULES, *opencl.RULES, *copies.RULES,
              *identity.RULES, *macros.RULES, *blocking.RULES, *vectors.RULES,
              *reductions.RULES, *extraction.RULES, *scans.RULES, *skeletons.RULES,
              *pact.RULES]:
    register(_rule)  # a second rule of the same name is refused


__all__ = ["rules", "CATALOGUE", "register", "unregister", "Rule", "RuleParam", "Refused",
           "Site", "Step", "Rewrite", "RewriteRefused", "rewrites", "apply", "refusals",
           "lookup_rule"]
