"""The exploration of CASES 2016 (Sect. 5) as a search strategy, ``strategy="cases"``:

1. **algorithmic**: the four macro rules (1-D and 2-D blocking, tiling, tiling of the
   innermost loop) at every place where they apply, in any order (each at most twice, up to
   ``depth`` of them), their sizes left symbolic (``v1``, ``v2``, …); then two heuristics,
   each a named predicate: the **nesting depth** of maps and reductions (at most
   ``max_depth``) and the **distance between the addition and the multiplication** (the
   smallest found: the fewer maps and reductions between them, the more likely they fuse);
2. **OpenCL**: a fixed mapping onto the thread hierarchy — the two outermost maps over
   work-groups (dimensions 1, 0), the next two over the work-items of a group, the rest
   sequential (unrolled or not where they update a register block) — and, for a
   work-group's reduction, its memory: the accumulator in private memory (or local), and
   none, one or both of its element's tiles copied into local memory (each as it is,
   transposed, each row transposed, or interleaved: the work-items' parts woven so that
   neighbouring work-items read neighbouring words; at most two copies); with register
   blocks unrolled and the accumulator private, also the operands each step of a
   work-item's reduction reads copied into private memory as vectors of 4 (the tiles then
   also interleaved by vectors). A second mapping, one work-item per work-group (the maps
   below the work-groups sequential), is explored too: it is what CPUs want; and a third,
   the same with the outer map's work-groups on dimension 0, so that consecutive groups walk
   down the outer map and share the inner map's operand (a CPU's core keeps a panel of ``B``
   in its cache while it computes a column of blocks);
3. **parameters**: every size a power of two in a range, kept when the types check (the
   sizes divide) and the kernel fits the device: local memory, private memory (a register
   budget), the register file of a work-group, work-items per group, work-groups; and the
   programs whose vectors lie contiguous in memory (code generation decides, once per
   program) — counted by what pruned them;
4. **code generation and runs**: candidates drawn in random order (the slides' "performance
   evolution for randomised search") — a program at random, then one of its parameter
   choices — each built, checked and timed as in every strategy; optionally (``model``)
   then those a model fitted to the measured ones ranks fastest (``search.surrogate``: the
   work-group's size, the work-groups, local and private memory, the program's choices),
   and (``refine``) the parameters of the fastest programs refined by hill climbing.

The counts after each phase are in ``ctx.details["phases"]`` (and the search result's
``details``); every candidate's record names its phase-2 program and parameters.

One module per subject: ``variants`` (a program and its typed choices), ``algorithmic``
(phase 1 and its heuristics), ``mappings`` (phase 2, as named strategies), ``resources``
(the device's limits and a program's use of them), ``parameters`` (phase 3), ``options``
(the options and their defaults, ``search/cases_defaults.json``) and ``sampling`` (the
random, modelled and refined choice of candidates).
"""

from __future__ import annotations

import math

from ...errors import WorkbenchError
from ...expr import Apply, Compose, Expr
from ...rewriting.step import Step
from ...rules.normalisation import normalise
from .algorithmic import (
    PAPER,
    add_multiply_distance,
    canonical,
    nesting_depth,
    phase1,
    repetitions,
    size_names,
)
from .mappings import phase2
from .options import DEFAULTS, PROVENANCE, Options, check_names, options_of, read_options
from .parameters import (
    NOT_CONTIGUOUS,
    ROLES,
    assign,
    assignments,
    assignments_at_once,
    concrete,
    phase3,
    roles,
)
from .resources import Limits, Resources, check, resources, usage
from .sampling import (
    UNRUN_WIDTHS,
    candidate_features,
    details_of,
    modelled,
    random_order,
    refine,
    siblings_of,
    within_device,
)
from .variants import (
    GROUPS_AND_ITEMS,
    MACROS,
    MAPPINGS,
    ONE_PER_GROUP,
    ONE_PER_GROUP_DOWN,
    PREFETCHED,
    Choices,
    Variant,
    description_of,
    holds,
)


def device_limits(ctx) -> Limits:
    """The device's limits; when a log is replayed, the limits it was recorded with."""
    recorded = getattr(ctx.evaluator, "records", None)
    if isinstance(recorded, dict):
        for r in recorded.values():
            if details_of(r).get("limits"):
                return Limits(**details_of(r)["limits"])
    from ...device.opencl import find_device

    try:
        return Limits.of(find_device(ctx.device)[0])
    except WorkbenchError:
        return Limits()


def explore(start: Expr, types: tuple, options: Options, limits: Limits) -> dict:
    """Phases 1 to 3: the candidates and the counts after each phase."""
    normal = normalise(start, *types)
    algorithmic = phase1(normal.expr, types, options, normal.steps)
    shallow = [v for v in algorithmic if nesting_depth(v.expr) <= options.max_depth]
    distances = {id(v): add_multiply_distance(v.expr) for v in shallow}
    least = min(distances.values(), default=math.inf)
    close = [v for v in shallow if distances[id(v)] <= least]
    once = [v for v in close if repetitions(v)]
    mapped = phase2(once, types, options)
    programs, described = _sampled(mapped, options)
    candidates, pruned = phase3(programs, types, options, limits)
    phases = [
        {"phase": "algorithmic", "count": len(algorithmic), "paper": PAPER["algorithmic"],
         "what": f"macro rules at every place, in any order (up to {options.depth})"},
        {"phase": "nesting depth", "count": len(shallow), "paper": PAPER["nesting depth"],
         "what": f"maps nested at most {options.max_depth} deep"},
        {"phase": "add/multiply distance", "count": len(close),
         "paper": PAPER["add/multiply distance"],
         "what": f"at most {least} maps or reductions between + and *"},
        {"phase": "rule repetitions", "count": len(once), "paper": None,
         "what": "each macro once, one kind of blocking"},
        {"phase": "OpenCL", "count": len(mapped), "paper": PAPER["OpenCL"],
         "what": "the fixed mapping (and one work-item per group), memory choices"},
        *([{"phase": "sampled", "count": len(programs), "paper": None, "what": described}]
          if options.keep or options.drop else []),
        {"phase": "parameters", "count": len(candidates), "paper": PAPER["parameters"],
         "what": f"powers of two that fit the device ({sum(pruned.values())} pruned)"},
    ]
    return {"phases": phases, "pruned": pruned, "limits": limits.as_json(),
            "normalised": [step.describe() for step in normal.steps],
            "candidates": candidates, "programs": programs, "algorithmic": once}


def _sampled(programs: list[Variant], options: Options) -> tuple[list[Variant], str]:
    """The programs the options ``keep`` and ``drop`` describe (all where none is), and
    what they describe."""
    what = ", ".join(description_of(c) for c in options.keep) + \
        "".join(f", not {description_of(c)}" for c in options.drop)
    kept = [v for v in programs if all(holds(c, v.choices) for c in options.keep)
            and not any(holds(c, v.choices) for c in options.drop)]
    if (options.keep or options.drop) and not kept:  # no such part (a scal has no blocks)
        return programs, f"no program is described by {what}: all kept"
    return kept, f"programs described by {what}"


def cases(ctx, **given) -> None:
    """Phases 1–3, then the candidates measured in random order until the budget is spent;
    ``given``: the options (``Options``) over the defaults for the device's kind."""
    check_names(given)
    limits = None if given.get("limits") else device_limits(ctx)
    options = read_options(dict(given), limits.kind if limits else None)
    limits = options.limits or limits
    # every candidate computes what the start does: its output, computed once, is the check
    # (interpreting a register-blocked kernel of a large matrix would take minutes)
    found = explore(ctx.start, ctx.types, options, limits)
    within_device(found, ctx.vector_widths)
    ctx.details = {k: v for k, v in found.items()
                   if k in ("phases", "pruned", "limits", "normalised")}
    candidates = random_order(found["candidates"], ctx.seed)
    programs = found["programs"]
    index = {id(v): i for i, v in enumerate(programs)}

    def job(v: Variant, env: dict, chosen: str = "random") -> tuple:
        expr, steps = concrete(v, env)
        return (expr, steps, {"details": {"program": index.get(id(v)), "label": v.label,
                                          "parameters": dict(env), "chosen": chosen,
                                          "limits": limits.as_json()}})

    refined = int(ctx.budget * options.refine)
    random_budget = ctx.budget - refined - int(ctx.budget * options.model)
    i = 0
    while ctx.left() > 0 and len(ctx.records) < random_budget and i < len(candidates):
        take = min(ctx.batch, ctx.left(), random_budget - len(ctx.records))
        batch = [job(v, env) for v, env in candidates[i:i + take]]
        i += len(batch)
        ctx.measure(batch)
    if options.model:
        modelled(ctx, candidates[i:], programs, limits, ctx.budget - refined, job)
    if options.refine:
        refine(ctx, programs, types=ctx.types, options=options, limits=limits,
               job=lambda v, env: job(v, env, "refine"))




__all__ = ["cases", "explore", "phase1", "phase2", "phase3", "nesting_depth", "assign",
           "add_multiply_distance", "repetitions", "size_names", "canonical", "assignments",
           "concrete", "resources", "check", "usage", "roles", "random_order", "refine",
           "modelled", "candidate_features", "options_of", "read_options", "device_limits",
           "Limits", "Options", "Variant", "Choices", "Resources", "PAPER", "DEFAULTS",
           "PROVENANCE", "MACROS", "MAPPINGS", "GROUPS_AND_ITEMS", "ONE_PER_GROUP",
           "ONE_PER_GROUP_DOWN", "PREFETCHED", "NOT_CONTIGUOUS", "UNRUN_WIDTHS", "ROLES",
           "Step", "Apply", "Compose", "assignments_at_once", "siblings_of", "within_device"]
