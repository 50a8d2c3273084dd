"""Phase 4's choice of candidates to measure: in random order, a program first
(``random_order``); those a model fitted to the measured ones ranks fastest (``modelled``,
``search.surrogate``); the fastest programs' parameters refined by hill climbing
(``refine``). What they read of the measured records is in the few functions at the end."""

from __future__ import annotations

import random
import re
from dataclasses import replace

from .. import surrogate
from ..log import Record
from .options import Options
from .parameters import roles
from .resources import Limits, Resources, check, resources, usage
from .variants import ONE_PER_GROUP, ONE_PER_GROUP_DOWN, Variant


def candidate_features(v: Variant, env: dict[str, int], r: Resources, limits: Limits
                       ) -> dict[str, float]:
    """What the model of ``search.surrogate`` knows of a candidate: the work-items of its
    groups, its work-groups per compute unit, the local memory of a group, the private
    memory of a work-item and the product of its sizes of each role (blocks, tiles, chunks;
    log2, and squared), and each part of its program's description."""
    work_group, groups, local, private = usage(r, env)
    sized: dict[str, float] = {}
    for name, role in roles(v).items():  # the product of the sizes of each role
        sized[role + " sizes"] = sized.get(role + " sizes", 1.0) * env.get(name, 1)
    out = surrogate.log2_features(**{
        "work-items per group": work_group,
        "work-groups per compute unit": groups / max(1, limits.compute_units),
        "local memory": local, "private memory": private, **sized})
    out.update({"program: " + part: 1.0 for part in _parts(v.label)})
    return out


def _parts(label: str) -> list[str]:
    """The choices a program's description names (split at its commas and semicolons)."""
    return [p.strip() for p in re.split(r"[;,]", label) if p.strip()]


# each pick of a program makes the model's ranking count its other candidates this much
# slower: the picks spread over the programs predicted fast (greedy picks of one program,
# fitted to a few random candidates, can stay in a slow part of the space), and ``refine``
# then tunes the parameters of the fastest
SPREAD = 1.25


def modelled(ctx, candidates: list[tuple[Variant, dict]], programs: list[Variant],
             limits: Limits, until: int, job) -> None:
    """Measures, until ``until`` candidates are measured, those the model fitted to the
    measured ones ranks fastest (``SPREAD``), a batch at a time (fitted again after each);
    with too few measured to fit, the next in random order."""
    used: dict[int, Resources] = {}
    features = []
    for v, env in candidates:
        if id(v) not in used:
            used[id(v)] = resources(v, ctx.types)
        features.append(candidate_features(v, env, used[id(v)], limits))
    left = list(range(len(candidates)))
    chosen = 0
    model = None
    picks: dict[int, int] = {}  # the model's picks of each program
    while ctx.left() > 0 and len(ctx.records) < until and left:
        rows = [(_features_of(r, programs, used, limits, ctx.types), _ms(r))
                for r in ctx.records if _timed(r)]
        model = surrogate.fit((f, ms) for f, ms in rows if f)
        take = min(ctx.batch, ctx.left(), until - len(ctx.records))
        if model is not None:  # fastest first, a program's time raised by each of its picks
            left.sort(key=lambda k: model.predict(features[k])
                      * SPREAD ** picks.get(id(candidates[k][0]), 0))
        batch, left = left[:take], left[take:]
        for k in batch:
            picks[id(candidates[k][0])] = picks.get(id(candidates[k][0]), 0) + 1
        chosen += len(batch)
        ctx.measure([job(*candidates[k], "model" if model else "random") for k in batch])
    ctx.details["model"] = {
        "chosen": chosen, "fitted_on": model.fitted_on if model else 0,
        "strongest": model.strongest() if model else [],
        "what": "log time as a ridge regression on the work-group's size, the work-groups, "
                "local and private memory (log2 and squared) and the program's choices"}


def _features_of(record: dict, programs: list[Variant], used: dict, limits: Limits,
                 types: tuple) -> dict[str, float]:
    """A measured record's features (one measured before: a resumed search's log, or a
    candidate of the random share)."""
    i, env = _key(record)
    if not isinstance(i, int) or not 0 <= i < len(programs):
        return {}  # not a candidate of this exploration
    v = programs[i]
    if id(v) not in used:
        used[id(v)] = resources(v, types)
    return candidate_features(v, dict(env), used[id(v)], limits)


def within_device(found: dict, widths: tuple[int, ...] | None) -> None:
    """Leaves out the candidates whose vectors have a width the device's probe refused
    (PoCL 3.0 runs no float16 on some CPUs), counted."""
    from ..space import fits_device

    fits = {id(v): fits_device(v.expr, widths) for v in found["programs"]}
    kept = [(v, env) for v, env in found["candidates"] if fits.get(id(v), True)]
    if len(kept) < len(found["candidates"]):
        found["pruned"][UNRUN_WIDTHS] = len(found["candidates"]) - len(kept)
        found["candidates"] = kept


UNRUN_WIDTHS = "vectors of a width the device does not run"


def random_order(candidates: list[tuple[Variant, dict]], seed: int
                 ) -> list[tuple[Variant, dict]]:
    """The candidates in random order, a program drawn first and then one of its parameter
    choices: every program has the same chance to come early, however many parameter
    choices it has (drawing candidates alike would favour the programs with many)."""
    rng = random.Random(seed)
    by_program: dict[int, list] = {}
    for v, env in candidates:
        by_program.setdefault(id(v), []).append((v, env))
    groups = list(by_program.values())
    for group in groups:
        rng.shuffle(group)
    out = []
    while groups:
        rng.shuffle(groups)
        for group in groups:
            out.append(group.pop())
        groups = [g for g in groups if g]
    return out


def _neighbours(v: Variant, env: dict, options: Options, r: Resources, limits: Limits):
    kinds = roles(v)
    for name, value in env.items():
        allowed = options.values.get(kinds.get(name, "tile"), ())
        for other in (value * 2, value // 2):
            if other in allowed and other != value:
                nearby = {**env, name: other}
                if check(r, nearby, limits) is None:
                    yield nearby


def siblings_of(programs: list[Variant]) -> dict[int, list[int]]:
    """For each program, the programs one choice apart with the same sizes (so the same
    parameters fit both): its tiles prefetched or not (of a program whose inputs are not
    packed); its groups in the other order."""
    by_label = {v.label: i for i, v in enumerate(programs)}
    other_order = {ONE_PER_GROUP: ONE_PER_GROUP_DOWN, ONE_PER_GROUP_DOWN: ONE_PER_GROUP}
    out: dict[int, list[int]] = {}
    for i, v in enumerate(programs):
        near = [replace(v.choices, mapping=other_order.get(v.choices.mapping, v.choices.mapping))]
        if v.choices.packed is None:
            near.insert(0, replace(v.choices, prefetched=not v.choices.prefetched))
        found = [by_label[c.label] for c in near if c.label != v.label and c.label in by_label]
        if found:
            out[i] = found
    return out


def refine(ctx, programs: list[Variant], types: tuple, options: Options, limits: Limits,
           job) -> None:
    """Hill climbing from the fastest candidates measured so far: the best one's neighbours
    (a parameter doubled or halved; the same parameters in the program with its tiles
    prefetched, or not, or with its groups in the other order) are measured, the best of
    them taken if it is faster, until none is or the budget is spent."""
    tried: set = set()
    siblings = siblings_of(programs)
    found: dict[int, Resources] = {}

    def used(i: int) -> Resources:
        if i not in found:
            found[i] = resources(programs[i], types)
        return found[i]

    while ctx.left() > 0:
        ranked = sorted((r for r in ctx.records if _timed(r) and _program(r) is not None),
                        key=_ms)
        start = next((r for r in ranked if _key(r) not in tried), None)
        if start is None:
            return
        tried.add(_key(start))
        i, env = _program(start), _parameters(start)
        while ctx.left() > 0:
            around = [(j, env) for j in siblings.get(i, ())
                      if check(used(j), env, limits) is None]
            around += [(i, e) for e in _neighbours(programs[i], env, options, used(i), limits)]
            seen = {_key(x) for x in ctx.records}
            around = [(j, e) for j, e in around
                      if (j, tuple(sorted(e.items()))) not in seen]
            if not around:
                break
            records = ctx.measure([job(programs[j], e) for j, e in around[:ctx.left()]])
            best = min(filter(_timed, records), key=_ms, default=None)
            here = (i, tuple(sorted(env.items())))
            current = min((_ms(x) for x in ctx.records if _key(x) == here and _ms(x)),
                          default=None)
            if best is None or current is None or _ms(best) >= current:
                break
            i, env = _program(best), _parameters(best)
            tried.add(_key(best))


# --- what the choice of candidates reads of a measured record ---------------------------------

def _timed(record: Record) -> bool:
    """Whether a record ran correctly and was timed."""
    return bool(record.correct and record.kernel_ms)


def _ms(record: Record) -> float | None:
    return record.kernel_ms


def details_of(record: Record | dict) -> dict:
    """What the exploration wrote into a record (its program, parameters, limits); a line of
    a replayed log is read as the record it stands for."""
    details = record.details if isinstance(record, Record) else record.get("details")
    return details if isinstance(details, dict) else {}


def _program(record: Record) -> int | None:
    """The index of a record's phase-2 program (None: not a candidate of an exploration)."""
    return details_of(record).get("program")


def _parameters(record: Record) -> dict[str, int]:
    return dict(details_of(record).get("parameters") or {})


def _key(record: Record) -> tuple:
    """A record's program and parameters (the same candidate measured again has the same)."""
    return _program(record), tuple(sorted(_parameters(record).items()))
