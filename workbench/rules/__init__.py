"""The rule catalogue (SPEC 5), and the public surface of rewriting with it.

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
blocking, tiling, tiling of the innermost loop), ``outputs`` (more outputs per work-item: any
map of reductions over a shared array blocked), ``constant`` (small read-only inputs in
constant memory), ``zips`` (fusion through zips: computations side by side as one), ``turns`` (a C
function's sine and cosine of 2π·t as sinpi and cospi),
``vectors`` (vector accumulators),
``reductions`` (work-group and two-stage reductions, unrolling), ``extraction`` (Futhark's
kernel extraction, G1–G7; ``flattening``, its moderate-flattening strategy), ``scans`` (scan
lowering, blocks), ``skeletons`` (P2CL's operation map and pattern fusion, SkelCL's
allpairs), ``pact`` (PACT's inner split/join, reduce as iterate, reduceSeq where PACT allows
it), ``pads`` (a stencil's result's clamp pads moved onto its input, as Lift's PPCG stencils
need), ``lambdas`` (β and η), ``normalisation`` (the spellings of a matrix product),
``lowering`` (the default lowering, and the copy of a view on the way out: copy-view) and
``renaming`` (the rules that only rename a primitive, from one factory); ``rule`` names what
they are written with, ``builders`` the building blocks of right-hand sides they share.

The engine that applies them is ``workbench.rewriting``: what a rule is (``rewriting.rule``)
and the catalogue that holds them by name (``rewriting.registry``) are the engine's, a
rule's left-hand side is a pattern of ``rewriting.match``, a macro a strategy of
``rewriting.strategies`` (run by ``rewriting.macro``), and ``rewrites``, ``apply`` and
``refusals`` come from ``rewriting.application``.
"""

from __future__ import annotations

from ..rewriting.application import Rewrite, RewriteRefused, apply, lookup_rule, refusals, rewrites
from ..rewriting.registry import CATALOGUE, register, rules, unregister
from ..rewriting.step import Step
from . import (
    algorithmic,
    blocking,
    constant,
    copies,
    extraction,
    identity,
    interchange,
    lowering,
    macros,
    normalisation,
    opencl,
    outputs,
    pact,
    pads,
    reductions,
    scans,
    sharing,
    skeletons,
    turns,
    vectors,
    zips,
)
from .rule import BLOCKING, OTHER_SEED, Refused, Rule, RuleParam, Site, tagged

# The modules whose every rule has a tag (``rule.NOT_WALKED``: random walks leave them to
# the cases exploration, or keep to ICFP's space)
_MODULE_TAGS = {interchange: (BLOCKING,), copies: (BLOCKING,), blocking: (BLOCKING,),
                extraction: (OTHER_SEED,), scans: (OTHER_SEED,), skeletons: (OTHER_SEED,),
                pact: (OTHER_SEED,), normalisation: (OTHER_SEED,), outputs: (BLOCKING,),
                constant: (OTHER_SEED,), zips: (OTHER_SEED,),
                turns: (OTHER_SEED,)}

for _module in (algorithmic, interchange, opencl, copies, identity, macros, blocking, vectors,
                reductions, extraction, scans, skeletons, pact, normalisation, pads, lowering,
                sharing, outputs, constant, zips, turns):
    for _rule in _module.RULES:
        # a second rule of the same name is refused
        register(tagged(_rule, *_MODULE_TAGS.get(_module, ())))


__all__ = ["rules", "CATALOGUE", "register", "unregister", "Rule", "RuleParam", "Refused",
           "Site", "Step", "Rewrite", "RewriteRefused", "rewrites", "apply", "refusals",
           "lookup_rule"]
