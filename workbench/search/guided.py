"""The ICFP descent guided by a calibrated cost model (``guided``).

ICFP 2015 Sect. 6.1 measures a random walk below each candidate next rule and fixes the
rule whose walk was fastest. Here the walks are many, cheap and not run: below each next
move, walks that take at every step the move the cost model (``cost.CostModel``, the
device's prior fitted to what the search has measured so far) predicts fastest among a
sample — every expression they pass, completed by the default lowering, is a candidate with
a predicted time. Only the candidates predicted fastest, one per next move, are measured
(below each move the best not measured before: a later descent, or a search resumed from its
log, goes on to the next best below the same moves); the model is fitted again to the
measurements; the move with the fastest candidate measured below it is fixed; and so on down
to a kernel, then again from the start while budget is left. So the
first candidates measured are the ones the model trusts most, and the model learns the
device as the search goes (a log carries every candidate's features, so any log calibrates
the model again).

Moves to vectors of widths the device does not run (its probed ``vector_widths``) are left
out, as in every strategy.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from functools import partial

from ..codegen.program import OpenCLProgram, opencl
from ..errors import WorkbenchError
from ..expr import Expr, subterm
from ..layout import mapped_layout
from ..rewriting.application import lookup_rule, rewrites
from ..rules.lowering import lower
from ..run import private_arrays_refused
from . import cost
from .evaluation import KERNEL_NAME, program_travels
from .fusion import fused_mappings
from .grids import grid_mappings, group_mappings, pads_moved
from .internal import InternalError
from .log import Record
from .processes import Processes, process_count
from .proposals import (
    blocked_mappings,
    constant_inputs,
    vector_blocked_mappings,
    vector_reductions,
    with_constant_inputs,
)
from .rows import row_groups
from .space import Step, by_rule, moves, terminal
from .turns import in_turns
from .zip_fusion import fused_proposals, lane_sums_unrolled

# programs a guided search keeps for its next candidates (the kernels compiled last: the
# candidates measured at a step are those found below its moves)
PROGRAMS_KEPT = 512
OPTIONS_KEPT = 256  # expressions whose moves a guided search keeps listed


@dataclass(frozen=True)
class Candidate:
    """What the guided search may measure: an expression completed by the default lowering
    (fully low-level), the steps from the start to it, its cost-model features, the time
    the model predicted when it was found, and the program its features were counted on
    (None where the worker compiles it again: ``evaluation.program_travels``)."""

    expr: Expr
    steps: list[Step]
    features: dict
    predicted_ms: float
    program: OpenCLProgram | None = field(default=None, compare=False, repr=False)

    def job(self) -> tuple:
        """The candidate as ``Context.measure`` takes it (its record keeps the features and
        the prediction; its program goes to the worker, which does not compile it again)."""
        fields = {"features": self.features, "predicted_ms": self.predicted_ms}
        return self.expr, self.steps, fields | ({"program": self.program}
                                                 if self.program is not None else {})


@dataclass(frozen=True)
class Completion:
    """An expression's default completion: the lowered expression, the steps that lowered
    it and its features (None: not a candidate)."""

    low: Expr | None = None
    completed: list = field(default_factory=list)
    features: dict | None = None


NOT_A_CANDIDATE = Completion()


@dataclass
class GuidedState:
    """What the guided search keeps: the device's prior cost model and the model fitted to
    the measurements so far, each candidate's features (by key: a replayed log's records
    may have none) and the default completions of the expressions met, computed once per
    search (``completions``: expression text -> its ``Completion``; ``compiled``: each
    completed kernel's features, compiled once; the features do not depend on the model's
    weights), and the programs of the kernels compiled last (``programs``, at most
    ``PROGRAMS_KEPT``), which travel to the worker with the candidates measured."""

    prior: cost.CostModel
    model: cost.CostModel
    features: dict[str, dict] = field(default_factory=dict)
    completions: dict[str, Completion] = field(default_factory=dict)
    # a completed expression's text -> its features (None: not a candidate)
    compiled: dict[str, dict | None] = field(default_factory=dict)
    programs: dict[str, OpenCLProgram] = field(default_factory=dict)
    # an expression's text -> its moves (``_options``), for the expressions met last
    options: dict[str, list] = field(default_factory=dict)
    # bugs met completing an expression ahead of the search (``Lookahead``, the completing
    # processes), by its text: reported when the search itself completes it
    bugs: dict[str, InternalError] = field(default_factory=dict)
    processes: Processes | None = None  # completing processes of the search's own
    # the records the model was first fitted to (a resumed log's, the seeds'): fitted again
    # to the calibration a search measures after its first candidates (``calibrated``)
    earlier: list = field(default_factory=list)

    def keep(self, text: str, program: OpenCLProgram) -> None:
        """A completed kernel's program kept for the worker; the one used least recently is
        let go past ``PROGRAMS_KEPT`` (a candidate without one is compiled by the
        worker)."""
        self.programs[text] = program
        while len(self.programs) > PROGRAMS_KEPT:
            del self.programs[next(iter(self.programs))]

    def program(self, text: str) -> OpenCLProgram | None:
        """The kept program of a completed kernel, now the one used last."""
        program = self.programs.pop(text, None)
        if program is not None:
            self.programs[text] = program
        return program

    def options_of(self, ctx, expr: Expr) -> list:
        """The moves from ``expr`` (``_options``), listed once for the ``OPTIONS_KEPT``
        expressions met last."""
        text = str(expr)
        if text not in self.options:
            self.options[text] = _options(ctx, expr)
            while len(self.options) > OPTIONS_KEPT:
                del self.options[next(iter(self.options))]
        return self.options[text]

    @staticmethod
    def of(ctx) -> GuidedState:
        """The device's calibrated cost model (the one the search was given to start from,
        ``SearchSpec.calibration``; else the shipped prior of the device, or of the device a
        replayed log was recorded on), fitted to what the log already holds."""
        given = ctx.spec.calibration
        prior = cost.CostModel.from_json(given) if given else prior_model(ctx)
        earlier = [r for r in ctx.cache.values() if r.features]
        return GuidedState(prior, prior.fit(earlier, strength=2.0) if earlier else prior,
                           earlier=earlier)

    def calibrated(self, ctx) -> None:
        """The models as ``of`` makes them from the calibration a search on a device that
        had none measures after its first candidates (``Context.calibrate``; nothing
        changes where it had one, or none could be measured): the search then takes the
        choices a search that started from that calibration takes, as its replay does
        (the log's last header keeps it; the first candidates' choices need no model)."""
        if not ctx.spec.calibrate_later or ctx.time_up():
            return
        given = ctx.calibrate()
        if given:
            self.prior = cost.CostModel.from_json(given)
            self.model = self.prior.fit(self.earlier, strength=2.0) if self.earlier \
                else self.prior

    def refit(self, ctx, strength: float) -> None:
        """The model fitted to everything measured so far (features from the records, or
        from this search where a replayed log has none)."""
        self.model = self.prior.fitted(
            ((r.features or self.features.get(r.key), r.kernel_ms) for r in ctx.records
             if r.correct and r.kernel_ms), strength=strength)

    def candidate(self, ctx, candidate: Candidate) -> tuple:
        """A candidate as ``Context.measure`` takes it, its features kept by its key."""
        self.features[ctx.key_of(candidate.expr)] = candidate.features
        return candidate.job()


def prior_model(ctx) -> cost.CostModel:
    """The prior of the device the search runs on, or of the device a replayed log was
    recorded on."""
    if ctx.replayed is None:
        return cost.model_for_device(ctx.device)
    names = sorted({r.device_name for r in map(Record.of, ctx.replayed) if r.device_name})
    name = names[0] if names else ""
    return cost.prior_for(name, cost.kind_of_name(name))


class Candidates:
    """Completed expressions with their features (``GuidedState.completions``), and
    predicted times under the model the search had when the pool was made."""

    def __init__(self, ctx, state: GuidedState, ahead: bool = False):
        self.ctx = ctx
        self.state = state
        self.model = state.model
        self.known: dict[str, Completion] = state.completions
        # a program kept for the worker (a replay runs nothing)
        self.travels = program_travels(ctx.types) and ctx.replayed is None
        self.ahead = ahead  # completing ahead of the search (``Lookahead``)

    def complete(self, expr: Expr, steps: list[Step]) -> Candidate | None:
        """The expression completed by the default lowering, with its steps, features and
        predicted time (None when it cannot be generated)."""
        text = str(expr)
        if text not in self.known:
            self.known[text] = self._complete(expr)
        if not self.ahead and text in self.state.bugs:
            self.ctx.internal_errors.append(self.state.bugs.pop(text))
        done = self.known[text]
        if done.features is None:
            return None
        return Candidate(done.low, steps + [s.bare() for s in done.completed],
                         done.features, self.predict(done.features),
                         self.state.program(str(done.low)))

    def _bug(self, expr: Expr, err: BaseException) -> None:
        """A bug met completing ``expr``: reported, or kept until the search itself
        completes it (met ahead of the search, it may never be)."""
        error = InternalError.of("completion (guided)", expr, err)
        if self.ahead:
            self.state.bugs[str(expr)] = error
        else:
            self.ctx.internal_errors.append(error)

    def prefetch(self, exprs: list[Expr]) -> None:
        """The completions of ``exprs`` computed in the search's completing processes
        (``GuidedState.processes``), where it has them and there are enough to share: what
        ``complete`` then finds done. The same completions as ``complete`` computes, bugs
        kept until the search completes their expression."""
        processes = self.state.processes
        missing = list({str(e): e for e in exprs if str(e) not in self.known}.values())
        if processes is None or len(missing) < 2 * processes.count:
            return
        try:
            results = processes.map(_complete_remote, missing, self.model)
        except Exception:  # noqa: BLE001 - a process died: complete here, as without them
            self.state.processes = None
            processes.close()
            return
        for expr, (done, program, bug) in zip(missing, results):
            self.known.setdefault(str(expr), done)
            if done.low is not None:
                self.state.compiled.setdefault(str(done.low), done.features)
                if program is not None and self.travels:
                    self.state.keep(str(done.low), program)
            if bug is not None:
                self.state.bugs[str(expr)] = bug

    def _complete(self, expr: Expr) -> Completion:
        try:
            low, completed = lower(expr, *self.ctx.types, explain=False) \
                if not terminal(expr) else (expr, [])
        except WorkbenchError:  # cannot be lowered: not a candidate (why is not asked)
            return NOT_A_CANDIDATE
        except Exception as err:  # a bug: reported in the result, and not a candidate
            self._bug(expr, err)
            return NOT_A_CANDIDATE
        text = str(low)  # expressions that complete to the same kernel compile it once
        if text not in self.state.compiled:
            self.state.compiled[text] = self._compile(expr, low, text)
        features = self.state.compiled[text]
        if features is None:
            return NOT_A_CANDIDATE
        return Completion(low, completed, features)

    def _compile(self, expr: Expr, low: Expr, text: str) -> dict | None:
        """The features of a completion, compiled as ``run`` compiles it in the worker (a
        copy after a layout that cannot be written through, such as the pad on PPCG's
        stencils' way out), its program kept for the worker; None for one that cannot be
        generated or that the device would refuse."""
        try:
            program = opencl(low, *self.ctx.types, sizes=self.ctx.sizes, complete=True,
                             name=KERNEL_NAME)
        except WorkbenchError:  # cannot be generated: not a candidate
            return None
        except Exception as err:  # a bug: reported in the result, and not a candidate
            self._bug(expr, err)
            return None
        if self.ctx.replayed is None and \
                private_arrays_refused(program, self.ctx.device, self.ctx.device_info):
            return None  # the device would refuse it: not a candidate either
        if self.travels:
            self.state.keep(text, program)
        return self.model.features(program)

    def predict(self, features: dict) -> float:
        return self.model.predict(features)


class Lookahead:
    """What the guided search does while its candidates run (``Context.measure``'s
    ``idle``): the moves from the expressions it will rank next, listed and each completed,
    one completion per call, so that ranking them later finds them done. Only the caches of
    the state are filled (moves, completions and features do not depend on the model or on
    the measurements): the search takes the same choices with or without it."""

    def __init__(self, ctx, state: GuidedState, exprs):
        self.pool = Candidates(ctx, state, ahead=True)
        self.work = self._completions(ctx, state, exprs)

    def _completions(self, ctx, state: GuidedState, exprs):
        for expr in exprs:
            if terminal(expr):
                continue
            yield  # listing the moves is one piece of work
            for option in state.options_of(ctx, expr):
                self.pool.complete(option.result, [])
                yield

    def __call__(self) -> bool:
        """One piece of work done; False when none is left."""
        return next(self.work, StopIteration) is not StopIteration


def ahead_of(ctx, state: GuidedState, ranked: list[tuple], batch: list[Candidate]
             ) -> Lookahead:
    """The work ahead of a step whose ``batch`` is measured: the moves below each move of
    the step, those with a candidate in the batch first (the fastest of them is likely
    fixed next), then the others in their order (``moves_below``'s)."""
    measured = {str(c.expr) for c in batch}
    first = [option.result for option, _, found in ranked
             if any(str(c.expr) in measured for c in found)]
    rest = [option.result for option, _, found in ranked
            if not any(str(c.expr) in measured for c in found)]
    return Lookahead(ctx, state, first + rest)


DISTRIBUTING = frozenset({"map→mapGlobal", "map→mapWorkgroup"})


def _options(ctx, expr: Expr) -> list:
    return [m for m in moves(expr, ctx.types, ctx.at, ctx.vector_widths)
            if not on_a_view(expr, m.path)]


def on_a_view(expr: Expr, path) -> bool:
    """Whether the node at ``path`` is a map that only rearranges its elements (``map
    (scatter …)``, ``map (padClamp 1 1)``, the transposes of a 3-D slide): the code generator
    reads and writes through it as a view whatever it is rewritten to, so a move there
    gives the same kernel again (PPCG's 3-D stencils hold a dozen such maps, and their
    moves outnumbered the stencil's own a hundredfold)."""
    try:
        return mapped_layout(subterm(expr, path)) is not None
    except LookupError:
        return False


def model_walk(pool: Candidates, ctx, expr: Expr, steps: list[Step], rng: random.Random,
               depth: int, sample: int) -> list[Candidate]:
    """A walk that takes, at every step, the move predicted fastest among a sample of the
    moves (one parameter choice per rule and place, two for rules with many); the sample
    takes first the moves inside what the last step rewrote (a map just lowered onto the
    work-groups: the reduction below it), then others; every expression it passes is a
    candidate."""
    found = []
    for _ in range(depth):
        if terminal(expr):
            break
        groups = by_rule(pool.state.options_of(ctx, expr))
        if not groups:
            break
        rng.shuffle(groups)
        focus = tuple(steps[-1].path) if steps else ()
        groups.sort(key=lambda g: tuple(g[0].path[:len(focus)]) != focus)
        sampled = [option for group in groups[:sample]
                   for option in rng.sample(group, min(2, len(group)))]
        pool.prefetch([option.result for option in sampled])
        tried = []
        for option in sampled:
            step = option.bare()
            done = pool.complete(option.result, steps + [step])
            if done is not None:
                tried.append((option.result, steps + [step], done))
        if not tried:
            break
        tried.sort(key=lambda t: t[2].predicted_ms)
        expr, steps, _ = tried[0]
        found.extend(done for _, _, done in tried[:3])
    return found


def guided(ctx, walks: int = 8, depth: int = 3, sample: int = 10, measure: int = 6,
           patience: int = 6, strength: float = 2.0, default_first: bool | None = None,
           grids_first: bool | None = None, unrolled_first: bool | None = None,
           lanes_first: bool | None = None, tiles_first: bool = True,
           blocked_first: bool = False, constant_first: bool = False,
           rows_first: bool | None = None, pads_first: bool | None = None,
           fusion_first: bool | None = None, fused_first: bool | None = None,
           vector_blocks_first: bool | None = None, lane_widths: tuple = (),
           groups_first: bool | None = None, float4_lanes_first: bool | None = None,
           turns_first: bool | None = None, vector_reductions_first: bool | None = None,
           lane_sums_first: bool | None = None) -> None:
    """The descent; with ``default_first``, the start's default completion is measured
    before it (``measure_default``); with ``turns_first``, then the start with its C
    functions' sines and cosines of 2π·t in turns (``sinpi(2t)``) in vector lanes
    (``measure_turns``); with ``fused_first``, then the start with the computations its zips
    join fused into one (``measure_zip_fusion``: with its rows a work-group each where
    ``rows_first``, its reductions in vectors where ``lanes_first``, also with its lanes'
    sums unrolled where ``lane_sums_first``); with ``vector_reductions_first``, then its
    outermost reductions in vectors and two stages (``measure_vector_reductions``); with
    ``pads_first``, then the start with its result's pads moved onto its input
    (``measure_pads``); with ``grids_first``, then its map nests on grids of work-items
    (``measure_grids``); with ``groups_first``, then its 2-D nests on 2-D work-groups
    (``measure_groups``); with ``unrolled_first``, then the default completion with each
    short sequential reduction unrolled (``measure_unrolled``); with ``lanes_first``, then
    the start with a map computed in the lanes of vectors (``measure_lanes``; with
    ``float4_lanes_first`` also a map over float4s, n elements' components in the lanes);
    with ``vector_blocks_first``, then its maps of reductions in vectors several outputs per
    work-item (``measure_vector_blocks``). With ``tiles_first`` (on by default), then the
    start's reduction over an array every element shares tiled through local memory
    (``measure_tiles``); with ``rows_first``, then its maps of reductions over their
    elements a work-group per row (``measure_rows``); with ``fusion_first``, then its folds
    over mapped arrays fused with the map (``measure_fold_fusion``); with ``blocked_first``
    or ``constant_first``, then its maps of reductions computing several outputs per
    work-item, its shared inputs in constant memory, or both (``measure_blocked``). Each of
    the options left at None is as ``first_options`` has it for the device's kind.
    ``lane_widths``: the widths of the lanes and of these (none: the device's,
    ``lanes_of``)."""
    given = {name: value for name, value in locals().items() if name.endswith("_first")}
    firsts = _first_choices(ctx, {k: v for k, v in given.items() if k not in FLAGS},
                            {k: given[k] for k in FLAGS})
    state = GuidedState.of(ctx)
    state.processes = completing_processes(ctx)
    try:
        _guided(ctx, state, Descent(walks, depth, sample, measure, strength), patience,
                firsts, lanes_of(ctx, lane_widths))
    finally:
        if state.processes is not None:
            state.processes.close()
    return state


FLAGS = ("tiles_first", "blocked_first", "constant_first")  # True or False, never None


def _guided(ctx, state: GuidedState, how: Descent, patience: int, first: dict[str, bool],
            widths: tuple[int, ...]) -> None:
    """The candidates measured first (``first``: each option's choice; lanes of
    ``widths``), then descent after descent while budget is left (until ``patience``
    descents in a row find nothing new)."""
    rng = random.Random(ctx.seed)
    fused = partial(measure_zip_fusion, rows=first["rows_first"], lanes=first["lanes_first"],
                    sums=first["lane_sums_first"])
    for option, measure_first in (
            ("default_first", measure_default),
            ("turns_first", lambda c, s: measure_turns(c, s, widths)),
            ("fused_first", fused),
            ("vector_reductions_first", lambda c, s: measure_vector_reductions(c, s, widths)),
            ("pads_first", measure_pads), ("grids_first", measure_grids),
            ("groups_first", measure_groups), ("unrolled_first", measure_unrolled),
            ("lanes_first",
             lambda c, s: measure_lanes(c, s, widths, first["float4_lanes_first"])),
            ("vector_blocks_first", lambda c, s: measure_vector_blocks(c, s, widths))):
        if first[option]:
            measure_first(ctx, state)
    state.calibrated(ctx)  # what comes next ranks by the model
    if first["tiles_first"]:
        measure_tiles(ctx, state)
    if first["rows_first"]:
        measure_rows(ctx, state)
    if first["fusion_first"]:
        measure_fold_fusion(ctx, state)
    if first["blocked_first"] or first["constant_first"]:
        measure_blocked(ctx, state, first["blocked_first"], first["constant_first"])
    idle = 0
    while ctx.left() > 0 and idle < patience:
        before = len(ctx.records)
        _descent(ctx, state, rng, how)
        idle = idle + 1 if len(ctx.records) == before else 0


def completing_processes(ctx) -> Processes | None:
    """Processes that complete the search's expressions in parallel (``prefetch``), for a
    search that measures its candidates in worker processes of its own (not a replay, an
    executor's or this process's: they complete in this process); None on one core."""
    count = process_count()
    if ctx.replayed is not None or not ctx.own_workers or count < 2:
        return None
    return Processes(count, _completing, (ctx.types, ctx.sizes, ctx.device, ctx.replayed,
                                          ctx.device_info))


_COMPLETING: dict = {}  # a completing process's search (``_completing``) and its state


@dataclass(frozen=True)
class _Site:
    """What a completing process knows of its search (as ``Candidates`` reads a context):
    the device's ``DeviceInfo`` as the search found it (the process does not open OpenCL to
    find it again)."""

    types: tuple
    sizes: dict
    device: str | None
    replayed: list | None
    device_info: object = None


def _completing(types, sizes, device, replayed, device_info=None) -> None:
    _COMPLETING["site"] = _Site(tuple(types), dict(sizes), device, replayed, device_info)


def _complete_remote(exprs: list[Expr], model: cost.CostModel) -> list[tuple]:
    """In a completing process: each expression's completion (its steps bare), the program
    compiled for it (None where it is kept from before, or does not travel) and the bug met
    completing it (None)."""
    site = _COMPLETING["site"]
    state = _COMPLETING.setdefault("state", GuidedState(model, model))
    state.model = model
    pool = Candidates(site, state, ahead=True)
    out = []
    for expr in exprs:
        done = pool._complete(expr)
        if done.low is not None:
            done = Completion(done.low, [s.bare() for s in done.completed], done.features)
        program = state.programs.pop(str(done.low), None) if done.low is not None else None
        out.append((done, program, state.bugs.pop(str(expr), None)))
    return out


def first_options(kind: str) -> dict[str, bool]:
    """Which candidates the guided search measures before its descent, by the device's kind
    (the defaults of its version 6): everywhere the default completion (a search never
    reports a kernel slower than ``run`` gives), the computations its zips join fused into
    one (GESUMMV's two matrix-vector products and their sum: one kernel instead of three) and
    the folds over mapped arrays fused (MD's forces over the positions its neighbour list
    indexes, read in the loop as its hand-written kernel reads them, not first copied into
    private memory); on a GPU the grids (a stencil's points each a work-item, reads
    coalesced; on PoCL they were 1.5 to 3 times slower than the default mapping at --quick
    sizes), the same on 2-D work-groups of chosen shapes, and a work-group per row of a map
    of reductions (a matrix-vector product's rows read coalesced by a whole group, as GPU
    libraries read them); on a CPU the stencil's pads moved onto its input (PPCG's stencils
    in one kernel, no copy after: 1.3 to 2 times faster on PoCL), the short reductions
    unrolled, the maps in vector lanes (K-means' kernel 3 and 11 times faster on PoCL), and
    the maps of reductions several outputs per work-item in vectors (GEMV on PoCL 1.5 times
    faster than the best of a search without them), maps over float4s in lanes too (N-body's
    bodies 8 or 16 to a vector, ``float4_lanes_first``), a C function's sines and cosines of
    2π·t in turns, in vector lanes (MRI-Q's computeQ twice as fast on PoCL, ``turns_first``),
    a whole program's reductions in vectors and two stages (asum at 2^22 floats on PoCL 3.1
    4.5 times faster than the best of version 5's first eight candidates) and the fused
    computations in vectors also with their lanes' sums unrolled (GESUMMV at 512 rows on PoCL
    up to 1.15 times faster); version 6 added these four. What the Lift programs benchmark,
    the PoCL study, the blur study and the MRI-Q study measured better kernels with."""
    gpu = kind == "gpu"
    return {"default_first": True, "grids_first": gpu, "unrolled_first": not gpu,
            "lanes_first": not gpu, "rows_first": gpu, "pads_first": not gpu,
            "fusion_first": True, "fused_first": True, "vector_blocks_first": not gpu,
            "groups_first": gpu, "float4_lanes_first": not gpu, "turns_first": not gpu,
            "vector_reductions_first": not gpu, "lane_sums_first": not gpu}


def device_kind(ctx) -> str:
    """The kind of the device the search's times are taken on (or were, in a replay): as
    its identity says, else as its name suggests (``cost.kind_of_name``)."""
    identity = ctx.identity or {}
    kind = identity.get("kind")
    return kind if kind in ("cpu", "gpu") else cost.kind_of_name(str(identity.get("name")))


def _first_choices(ctx, given: dict, flags: dict) -> dict[str, bool]:
    """The options of what is measured first, each None taken from ``first_options``
    for the device's kind; the other flags checked to be True or False."""
    for name, value in {**given, **flags}.items():
        if (value is not None or name in flags) and not isinstance(value, bool):
            raise WorkbenchError(f"the guided strategy's option {name} = {value!r}: give "
                                 f"True or False" + ("" if name in flags else
                                                     " (or None: as suits the device's kind)"))
    chosen = first_options(device_kind(ctx)) | {k: v for k, v in given.items()
                                               if v is not None}
    return {**{k: chosen[k] for k in given}, **flags}


def measure_default(ctx, state: GuidedState) -> None:
    """The start's default completion, measured first (unless a resumed log holds it): what
    ``run`` gives without a search, so that the search never reports a kernel slower than
    that (on PoCL the walks' first candidates, chunked by splits, lost to the plain
    ``mapGlobal`` of Black-Scholes and the 2-D convolution, which the model predicted
    slower). An option (``default_first``), on by default (``first_options``)."""
    if ctx.left() <= 0:
        return
    _measure_new(ctx, state, [Candidates(ctx, state).complete(ctx.start, [])],
                 Lookahead(ctx, state, [ctx.start]))


def measure_pads(ctx, state: GuidedState) -> None:
    """The start with its result's pads moved onto its input (``grids.pads_moved``: PPCG's
    stencils as Lift writes them pad their result, which the default completion writes
    by a second kernel, a copy through the pads' clamps), completed by the default lowering
    and measured (unless a resumed log holds it): one kernel whose rows the code generator
    peels at the edges (``codegen.peel``), on PoCL 1.3 to 2 times faster than the default
    mapping. A walk reaches it only among many other moves. An option (``pads_first``), on
    by default on a CPU (``first_options``). Not in a search of one subtree (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    moved, steps = pads_moved(ctx.start, ctx.types)
    if steps:
        _measure_new(ctx, state, [Candidates(ctx, state).complete(moved, steps)])


def measure_grids(ctx, state: GuidedState) -> None:
    """The start's nests of two or three maps on grids of work-items, innermost map on
    dimension 0 (``grids.grid_mappings``), each completed by the default lowering and
    measured (unless a resumed log holds it): on a GPU every point of a stencil its own
    work-item, with coalesced reads, where the default mapping gives the outermost map alone
    to work-items (a 3-D stencil at 256³: 256 of them, each looping over 65536 points) and a
    walk reaches a grid one map at a time, the outermost on dimension 0. An option
    (``grids_first``), on by default on a GPU (``first_options``). Not in a search of one
    subtree (``at``): the pads it moves are outside it."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    pool = Candidates(ctx, state)
    _measure_new(ctx, state, (pool.complete(expr, steps)
                       for expr, steps in grid_mappings(ctx.start, ctx.types)))


def measure_groups(ctx, state: GuidedState) -> None:
    """The start's 2-D nests of maps on 2-D work-groups of the shapes of
    ``grids.GROUP_SHAPES``, each work-item computing one point or several rows of a column
    (``grids.group_mappings``), each completed by the default lowering and measured (unless
    a resumed log holds it): a ``mapGlobal`` grid leaves the work-groups' shape to the
    driver, and a walk reaches work-groups of two dimensions only through a tiling and
    four lowerings. An option (``groups_first``), on by default on a GPU
    (``first_options``). Not in a search of one subtree (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    pool = Candidates(ctx, state)
    _measure_new(ctx, state, (pool.complete(expr, steps)
                       for expr, steps in group_mappings(ctx.start, ctx.types)))


def measure_unrolled(ctx, state: GuidedState) -> None:
    """The start's default completion with each of its sequential reductions that
    ``reduceSeq→reduceSeqUnroll`` takes (constant length, up to its limit) unrolled, one
    candidate per reduction, innermost first, each measured (unless a resumed log holds
    it): on PoCL K-means' kernel with its distance over 34 features unrolled is 3 times
    faster than with the loop, whose float additions LLVM may not reorder, while a walk
    reaches it only below the moves that unroll nothing else. An option
    (``unrolled_first``), on by default on a CPU (``first_options``). Not in a search of
    one subtree (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    pool = Candidates(ctx, state)
    done = pool.complete(ctx.start, [])
    if done is None:
        return
    sites = rewrites(done.expr, *ctx.types, rules=[lookup_rule("reduceSeq→reduceSeqUnroll")])
    _measure_new(ctx, state, (pool.complete(r.result, done.steps + [r.bare()])
                       for r in sorted(sites, key=lambda r: -len(r.path))))


LANE_WIDTHS = (8, 16)  # the lanes where the device's are not known (version 4's, always)


def lanes_of(ctx, given) -> tuple[int, ...]:
    """The lane widths the first options put elements in: those given (the search records
    the device's in its options: ``strategies.device_options``), else the device's
    (``opencl.lane_widths``), else ``LANE_WIDTHS``."""
    if given:
        return tuple(int(w) for w in given)
    return device_lanes(ctx.device) if ctx.replayed is None else LANE_WIDTHS


def device_lanes(device: str | None) -> tuple[int, ...]:
    """The device's lane widths (``opencl.lane_widths``; ``LANE_WIDTHS`` where it is not
    found here: an executor's)."""
    from ..device.opencl import find_device, lane_widths

    try:
        return lane_widths(find_device(device)[0])
    except WorkbenchError:
        return LANE_WIDTHS


def _measure_proposals(ctx, state: GuidedState, proposals) -> None:
    """Each of ``proposals`` (an expression and the steps that reach it) completed by the
    default lowering, as it is measured (unless a resumed log holds it)."""
    pool = Candidates(ctx, state)
    _measure_new(ctx, state, (pool.complete(expr, steps) for expr, steps in proposals))


def measure_vector_blocks(ctx, state: GuidedState, widths: tuple[int, ...]) -> None:
    """The start with each map of reductions over a shared array reducing in vectors of n
    lanes (n of ``widths``) and computing k neighbouring outputs per work-item, their k
    vector accumulators together (``proposals.vector_blocked_mappings``), each completed by
    the default lowering and measured (unless a resumed log holds it). On PoCL 3.0 and 3.1
    GEMV at 4096² with 8 rows per work-item in float16s ran 1.1-1.2 times faster than the
    fastest hand-written kernel (four rows in float16s), where the best of a search without
    them (one row per work-item in float16s) ran at 0.6-0.8 times it: the rules are left
    out of the walks (blocking). An option (``vector_blocks_first``), on by default on a CPU
    (``first_options``). Not in a search of one subtree (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    _measure_proposals(ctx, state, vector_blocked_mappings(ctx.start, ctx.types, widths))


def measure_vector_reductions(ctx, state: GuidedState, widths: tuple[int, ...]) -> None:
    """The start with each reduction of a map that no map encloses in vectors of n lanes (n
    of ``widths``, widest first) and in two stages, work-groups of one work-item each
    streaming a chunk into a vector accumulator (``proposals.vector_reductions``), each
    completed by the default lowering and measured (unless a resumed log holds it). On PoCL
    3.1 asum at 2^22 floats ran in 0.63 ms at best in version 5's first eight candidates
    (the default, the lanes of its map, two-stage reductions of scalars, one vectorised
    reduction), in 0.14 ms in this form, which the descent reached at its eleventh
    candidate. An option (``vector_reductions_first``), on by default on a CPU
    (``first_options``). Not in a search of one subtree (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    _measure_proposals(ctx, state, vector_reductions(ctx.start, ctx.types, widths))


def measure_lanes(ctx, state: GuidedState, widths: tuple[int, ...] = LANE_WIDTHS,
                  float4s: bool = False) -> None:
    """The start with its outermost map computed ``n`` elements at a time in the lanes of
    vectors (n of ``widths``: ``vectorize-lanes`` where the elements are arrays of
    scalars, ``vectorize`` where they are scalars), completed by the default lowering, then
    with its innermost sequential reduction unrolled, each measured (unless a resumed log
    holds it). On PoCL (--quick sizes) K-means' points 16 at a time, feature f of 16
    points one float16, ran 11 times faster than one point per work-item with its distance
    unrolled, which PoCL does not run in vector lanes (its loop over the clusters, an
    argmin, is no reduction LLVM vectorises), MRI-Q's points in float16s 14 times faster
    than the default mapping, and Black-Scholes' options in float16s (its C body rewritten
    lane-wise) 16 times faster; a walk does not reach vectorize-lanes (it is left to the
    options: ``rule.OTHER_SEED``) and reaches vectorize only among many other moves. An
    option (``lanes_first``), on by default on a CPU (``first_options``). With ``float4s``
    (the option ``float4_lanes_first``, on by default on a CPU) also ``vectorize-lanes-float4``
    where the elements are float4s (N-body's bodies n to a vector, each component's lanes
    one floatN: on PoCL 3.1 at 1024 bodies 12 times faster than one body per work-item). Not
    in a search of one subtree (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    _measure_new(ctx, state, lanes_of_start(ctx, Candidates(ctx, state), ctx.start, [], widths,
                                            float4s))


def measure_turns(ctx, state: GuidedState, widths: tuple[int, ...]) -> None:
    """The start with its C functions' sines and cosines of 2π·t taken in turns
    (``turns.in_turns``: ``sin-cos-turns``, ``sinpi(2t)`` for ``sin(2π·t)``), with its
    outermost map in the lanes of vectors as ``measure_lanes`` puts it, each completed and
    measured (unless a resumed log holds it). On PoCL 3.0 and 3.1 MRI-Q's computeQ in float16
    lanes ran twice as fast so as with ``sincos`` (``benchmarks.mriq_study``); the rule is
    left out of the walks. An option (``turns_first``, guided version 6), on by default on a
    CPU (``first_options``); where no C function takes a sine of 2π·t it measures nothing.
    Not in a search of one subtree (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    turned = in_turns(ctx.start, ctx.types)
    if turned is not None:
        _measure_new(ctx, state, lanes_of_start(ctx, Candidates(ctx, state), *turned, widths))


def lanes_of_start(ctx, pool: Candidates, start: Expr, steps: list[Step],
                   widths: tuple[int, ...], float4s: bool = False) -> list:
    """``start`` (reached by ``steps``) with its outermost map in lanes of each of ``widths``
    (``vectorize-lanes`` or ``vectorize``; with ``float4s`` also ``vectorize-lanes-float4``),
    completed, then with its innermost sequential reduction unrolled: the completions (None
    where one does not complete)."""
    rules = ["vectorize-lanes", "vectorize"] + (["vectorize-lanes-float4"] if float4s else [])
    sites = rewrites(start, *ctx.types, rules=[lookup_rule(r) for r in rules])
    if not sites:
        return []
    outermost = min(len(r.path) for r in sites)
    chosen = [r for r in sites if len(r.path) == outermost and r.params.get("n") is not None
              and r.params["n"].is_integer_constant and int(r.params["n"].value) in widths]
    completed = []
    for r in sorted(chosen, key=lambda r: int(r.params["n"].value)):
        done = pool.complete(r.result, steps + [r.bare()])
        if done is None:
            continue
        completed.append(done)
        unroll = rewrites(done.expr, *ctx.types, rules=[lookup_rule("reduceSeq→reduceSeqUnroll")])
        if unroll:
            u = max(unroll, key=lambda u: len(u.path))
            completed.append(pool.complete(u.result, done.steps + [u.bare()]))
    return completed


def measure_tiles(ctx, state: GuidedState) -> None:
    """The start with its reduction over an array that every element of its outermost map
    shares walked in tiles that each work-group copies into local memory
    (``shared-tiling``, tiles as long as the group is wide, at each of the macro's sizes),
    each completed by the default lowering, then also with each work-item's fold over a
    tile unrolled (``tile-unroll``), measured predicted fastest first (unless a resumed log
    holds them). On an H200 N-body at 16384 bodies ran at 2.5 TFLOP/s in its default
    mapping, 4.2 after a search of 40 candidates without these, 9.0 tiled and 12.4 to 14.2
    tiled with the fold unrolled: a walk does not reach the macro (``rule.BLOCKING``), and
    its basic steps are a dozen. On by default (``tiles_first``): where the macro applies
    nowhere (every program a search log holds today) it measures nothing, and the
    candidates are those recorded. Not in a search of one subtree (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    pool = Candidates(ctx, state)
    sites = [r for r in rewrites(ctx.start, *ctx.types, rules=[lookup_rule("shared-tiling")])
             if r.params["t"] == r.params["l"]]  # a tile an element per work-item
    found = []
    for r in sites:
        done = pool.complete(r.result, [r.bare()])
        if done is None:
            continue
        unroll = rewrites(done.expr, *ctx.types, rules=[lookup_rule("tile-unroll")])
        if unroll:
            u = max(unroll, key=lambda u: len(u.path))
            found.append(pool.complete(u.result, done.steps + [u.bare()]))
        found.append(done)
    _measure_new(ctx, state, sorted((c for c in found if c is not None),
                                    key=lambda c: c.predicted_ms))


def measure_rows(ctx, state: GuidedState) -> None:
    """The start with each map whose function reduces an array built from its own element
    a work-group per row (``rows.row_groups``: the row read strided by the group's
    work-items, in float4 loads where the device runs them, its partial sums halved in
    local memory), each completed by the default lowering and measured (unless a resumed
    log holds it). On an H200 GESUMMV's best after a search of 40 candidates without these
    kept one of its two matrices' rows in one work-item each (0.40 times a hand-written
    kernel that gives each row a group): the descent reaches a group per row one map and
    one reduction at a time. An option (``rows_first``), on by default on a GPU
    (``first_options``); a map of reductions over an array every element shares is left
    to ``measure_tiles``. Not in a search of one subtree (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    _measure_proposals(ctx, state, row_groups(ctx.start, ctx.types, ctx.vector_widths))


def measure_fold_fusion(ctx, state: GuidedState) -> None:
    """The start with each fold inside a map that is applied to a map's result fused with
    that map (``fusion.fused_folds``: ``apply-compose``, then ``reduce-map-fusion``), and on
    a GPU also with its outermost map on work-groups of 128 work-items (``fusion.on_groups``,
    as the hand-written kernel runs), each completed by the default lowering and measured
    (unless a resumed log holds it): the default completion writes the mapped array into
    private memory first (MD: the 128 neighbour positions of each atom, 0.57 times its
    hand-written kernel on an H200), and the walks take neither fusion rule. An option
    (``fusion_first``), on by default (``first_options``). Not in a search of one subtree
    (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    pool = Candidates(ctx, state)
    _measure_new(ctx, state, [pool.complete(expr, steps) for expr, steps in fused_mappings(
        ctx.start, ctx.types, groups=device_kind(ctx) == "gpu")])
def measure_zip_fusion(ctx, state: GuidedState, rows: bool, lanes: bool,
                       sums: bool = False) -> None:
    """The start with the computations its zips join fused into one (``zip_fusion.zip_fusion``:
    GESUMMV's ``A x``, ``B x`` and their sum one map over the rows of A and B, each pair of
    rows one reduction with a pair accumulator), completed by the default lowering; with
    ``rows`` also its maps of reductions a work-group per row; with ``lanes`` its reductions
    left side by side, each read in vectors of 8 or 16 lanes (``zip_fusion.fused_proposals``);
    each measured (unless a resumed log holds it), right after the default completion (they
    need no model). On PoCL GESUMMV's default mapping is three kernels; fused, one, 2 to 3
    times faster, and with both rows' reductions in float16s as fast as the hand-written
    kernel. The descent reaches none of them: the fusion rules are left out of the walks
    (``rule.OTHER_SEED``), and its steps are a score. An option (``fused_first``), on by
    default (``first_options``); where no zip joins two computations it measures nothing.
    With ``sums``, each one in vectors is followed by itself with its lanes' sums unrolled
    (``lane_sums_unrolled``). Not in a search of one subtree (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    pool = Candidates(ctx, state)
    completed = []
    for expr, steps in fused_proposals(ctx.start, ctx.types, rows, lanes, ctx.vector_widths):
        done = pool.complete(expr, steps)
        completed.append(done)
        unrolled = lane_sums_unrolled(done.expr, ctx.types) if sums and done else None
        if unrolled is not None:
            completed.append(pool.complete(unrolled[0], done.steps + unrolled[1]))
    _measure_new(ctx, state, completed)


def measure_blocked(ctx, state: GuidedState, blocked: bool, constant: bool) -> None:
    """With ``constant``, the start with the inputs every work-item reads in constant memory
    (``proposals.constant_inputs``); with ``blocked``, the start with each map of reductions
    over a shared array computing 4 or 8 outputs per work-item, strided
    (``proposals.blocked_mappings``), and with both, each of these with its shared inputs in
    constant memory too (where they go there): each completed by the default lowering and
    measured (unless a resumed log holds it); three candidates at most, so that a search
    with a time limit goes on to its descent. The rules are left out of the walks, and a
    map of reductions reaches several outputs per work-item by no other move (on PoCL
    GESUMMV's rows 4 at a time ran 1.8 times faster than one per work-item). Options
    (``blocked_first``, ``constant_first``), off by default: the candidates of a search
    recorded without them replay as they were. Not in a search of one subtree (``at``)."""
    if ctx.left() <= 0 or ctx.at is not None:
        return
    proposed = []
    if constant:
        proposed.append(constant_inputs(ctx.start, ctx.types))
    if blocked:
        for expr, steps in blocked_mappings(ctx.start, ctx.types):
            both = with_constant_inputs(expr, steps, ctx.types) if constant else None
            proposed.append(both or (expr, steps))
    pool = Candidates(ctx, state)
    _measure_new(ctx, state, (pool.complete(*found) for found in proposed if found is not None))


def _measure_new(ctx, state: GuidedState, completed, idle=None) -> None:
    """The completed candidates (None: not a candidate) that no record holds yet, as many as
    the budget leaves, measured in one batch (``idle``: work done while they run)."""
    batch = []
    for done in completed:
        if done is not None and not ctx.measured(done.expr) and len(batch) < ctx.left():
            batch.append(state.candidate(ctx, done))
    if batch:
        ctx.measure(batch, idle)


def moves_below(ctx, pool: Candidates, current: Expr, fixed: list[Step], rng: random.Random,
                walks: int = 8, depth: int = 3, sample: int = 10) -> list[tuple]:
    """The next moves from ``current``, each with every candidate found below it, predicted
    fastest first: ``(option, first step, [Candidate…])``, the moves in the order of their
    best candidate. Every move is completed; the ``walks`` predicted fastest (and a few
    others, drawn at random) are walked further by the model."""
    options = pool.state.options_of(ctx, current)
    pool.prefetch([option.result for option in options])
    below: dict[int, dict[str, Candidate]] = {}
    firsts = []
    for i, option in enumerate(options):
        first = option.bare()
        firsts.append(first)
        done = pool.complete(option.result, fixed + [first])
        if done is not None:
            below[i] = {str(done.expr): done}
    best = {i: min(c.predicted_ms for c in found.values()) for i, found in below.items()}
    chosen = sorted(best, key=best.get)[:walks]
    # a map lowered onto work-items or work-groups is walked further whatever its
    # completion predicts: the default completion leaves the work below it sequential
    chosen += [i for i, option in enumerate(options)
               if option.rule in DISTRIBUTING and i not in chosen]
    others = [i for i in range(len(options)) if i not in chosen]
    chosen += rng.sample(others, min(len(others), max(1, walks // 3)))
    until = _share_of_time_left(ctx, 1 / 3)
    for i in chosen:
        if until is not None and time.time() > until:
            break  # measure what was found rather than walk past the time limit
        for found in model_walk(pool, ctx, options[i].result, fixed + [firsts[i]], rng,
                                depth, sample):
            known = below.setdefault(i, {})
            text = str(found.expr)
            if text not in known or found.predicted_ms < known[text].predicted_ms:
                known[text] = found
    ranked = {i: sorted(found.values(), key=lambda c: c.predicted_ms)
              for i, found in below.items()}
    order = sorted(ranked, key=lambda i: ranked[i][0].predicted_ms)
    return [(options[i], firsts[i], ranked[i]) for i in order]


def _share_of_time_left(ctx, share: float) -> float | None:
    """The wall-clock time at which ``share`` of the time left to a time-limited search
    is spent (None without a limit): the walks below one step's moves stop there, so that
    a search whose expressions are large (a 3-D stencil's completion takes 50 ms to lower
    and generate, and a step's walks thousands of them) measures candidates before its
    time runs out."""
    if ctx.deadline is None:
        return None
    now = time.time()
    return now + max(0.0, ctx.deadline - now) * share


def rank_moves(ctx, pool: Candidates, current: Expr, fixed: list[Step], rng: random.Random,
               walks: int = 8, depth: int = 3, sample: int = 10) -> list[tuple]:
    """The next moves from ``current``, each with the best candidate found below it,
    fastest first: ``(move, first step, Candidate)`` (``moves_below``, the best of each)."""
    return [(option, first, found[0])
            for option, first, found in moves_below(ctx, pool, current, fixed, rng, walks,
                                                    depth, sample)]


@dataclass(frozen=True)
class Descent:
    """How a descent looks below each move (``walks`` walked further, ``depth`` moves deep,
    a ``sample`` of the moves at each), how many candidates it measures per step
    (``measure``) and how strongly the model is pulled to its prior (``strength``)."""

    walks: int = 8
    depth: int = 3
    sample: int = 10
    measure: int = 6
    strength: float = 2.0


def _descent(ctx, state: GuidedState, rng: random.Random, how: Descent) -> None:
    """From the start down to a kernel: at each step the candidates below the moves
    measured (``_to_measure``), the model fitted again, and the move with the fastest
    candidate measured below it fixed (``_fastest_move``)."""
    current, fixed, stuck = ctx.start, [], 0
    while ctx.left() > 0:
        pool = Candidates(ctx, state)
        if terminal(current):
            done = pool.complete(current, fixed)
            if done is not None:
                ctx.measure([state.candidate(ctx, done)])
            return
        ranked = moves_below(ctx, pool, current, fixed, rng, how.walks, how.depth,
                             how.sample)
        if not ranked:
            return
        chosen = _to_measure(ctx, ranked, min(how.measure, ctx.left()))
        if chosen:
            ctx.measure([state.candidate(ctx, c) for c in chosen],
                        ahead_of(ctx, state, ranked, chosen))
            state.refit(ctx, how.strength)
        fastest = _fastest_move(ctx, ranked)
        if fastest is None:
            stuck += 1
            if stuck > 3:
                return
            continue
        option, first = fastest
        fixed = fixed + [first]
        current = option.result
        ctx.fix(fixed)


def _to_measure(ctx, ranked: list[tuple], want: int) -> list[Candidate]:
    """Below each move, the candidate predicted fastest that was not measured before (the
    moves in the order of these); of those, ``want``: half of them the best of each rule
    (so that the model meets every kind of kernel early, and learns what it mispredicts),
    the others the best overall."""
    unmeasured = ([c for c in found if not ctx.measured(c.expr)] for _, _, found in ranked)
    fresh = sorted(((new[0], option) for new, (option, _, _) in zip(unmeasured, ranked)
                    if new), key=lambda f: f[0].predicted_ms)
    batch, taken, rules = [], set(), set()
    for diverse in (True, False):
        for k, (candidate, option) in enumerate(fresh):
            if len(batch) >= (want + 1) // 2 and diverse or len(batch) >= want:
                break
            if k in taken or (diverse and option.rule in rules):
                continue
            taken.add(k)
            rules.add(option.rule)
            batch.append(candidate)
    return batch


def _fastest_move(ctx, ranked: list[tuple]) -> tuple | None:
    """The move (and its first step) with the fastest candidate measured below it, now or
    before (None when none below any move is)."""
    times = []
    for k, (option, first, found) in enumerate(ranked):
        for c in found:
            record = ctx.record_of(c.expr)
            if record is not None and record.correct and record.kernel_ms:
                times.append((record.kernel_ms, k, option, first))
    if not times:
        return None
    _, _, option, first = min(times, key=lambda t: t[:2])
    return option, first
