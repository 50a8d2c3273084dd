"""Search strategies. Each takes a ``Context`` (start expression, types, budget, how to
measure) and spends the budget through ``Context.measure``.

- ``mcts``: the Monte-Carlo descent of ICFP 2015 Sect. 6: from the current expression, try
  each of a sample of next moves (rules and places drawn first, then their parameters),
  follow each with a random walk to a kernel and measure it; fix the move whose walk gave
  the fastest correct kernel; repeat from there until the expression is fully low-level.
  A descent that ends with budget left is followed by another from the start (until
  several in a row find no candidate that was not measured before).
- ``random``: random walks from the start, each measured.
- ``exhaustive``: every expression reachable in up to ``depth`` moves, breadth first, equal
  expressions visited once, each lowered by the default completion and measured in order.
- ``ranked``: many random walks, generated without running anything, ranked by the
  analytical cost model (``cost.py``); the best ranked are measured first.
- ``guided``: the ICFP descent guided by the device's calibrated cost model (``guided.py``):
  walks below each next move follow the model, only the best predicted are measured, the
  model is fitted again to each measurement.
- ``cases``: the four-phase exploration of CASES 2016 (``cases/``): macro rules with two
  heuristics, a fixed mapping with memory choices, parameters that fit the device, then
  candidates in random order.
- ``egraph``: equality saturation (``egraph.py``): an e-graph grown by every rule at once,
  terms extracted and ranked by the cost model, derived and measured.
"""

from __future__ import annotations

import inspect
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from ..codegen.program import OpenCLProgram, concrete, opencl
from ..errors import WorkbenchError
from ..notation.printer import to_text
from ..rules.lowering import lower
from . import calibration, cost
from .cases import cases
from .egraph import egraph
from .evaluation import KERNEL_NAME, program_travels
from .guided import GuidedState, guided
from .space import DeadEnd, Step, by_rule, moves, numbered_walks, random_walk, terminal


def draw_processes(batch: int) -> int:
    """Processes that draw random walks for a search whose ``batch`` candidates at once run
    elsewhere: two per candidate running (a walk takes a process about as long as a GPU
    takes to build and time a candidate), at most one fewer than this host's cores and at
    most eight; 0 or 1 draw in the search's own process."""
    return max(0, min(2 * max(1, batch), (os.cpu_count() or 1) - 1, 8))


def random_search(ctx) -> None:
    """Walk after walk from the start, each measured; where candidates run elsewhere, the
    walks are drawn ahead by processes of their own (``draw_processes``), the same walks in
    the same order."""
    attempts = 0
    processes = draw_processes(ctx.batch) if ctx.asynchronous else 0
    walks = numbered_walks(ctx.start, ctx.types, ctx.seed, ctx.at, ctx.vector_widths,
                           processes=processes)
    try:
        while ctx.left() > 0 and attempts < 5 * ctx.budget:
            for _ in range(min(ctx.left(), ctx.batch)):
                attempts += 1
                candidate = next(walks)
                if candidate is not None:
                    ctx.submit([candidate])  # runs while the next walks are drawn
            ctx.flush()
    finally:
        walks.close()


def mcts(ctx, width: int = 6, patience: int = 8) -> None:
    rng = random.Random(ctx.seed)
    idle = 0
    while ctx.left() > 0 and idle < patience:
        before = len(ctx.records)
        _descent(ctx, rng, width)
        # a small space is exhausted when descent after descent finds nothing new
        idle = idle + 1 if len(ctx.records) == before else 0


def _descent(ctx, rng: random.Random, width: int) -> None:
    """One descent from the start to a kernel; the search starts another while budget is
    left (its walks, drawn afresh, differ)."""
    current, fixed, stuck = ctx.start, [], 0
    while ctx.left() > 0 and not terminal(current):
        groups = by_rule(moves(current, ctx.types, ctx.at, ctx.vector_widths))
        if not groups:
            break
        # a sample of rules (each with parameters drawn at random), not of rewrites
        rng.shuffle(groups)
        options = [rng.choice(g) for g in groups[:min(width, ctx.left())]]
        batch, firsts = [], []
        for option in options:
            first = option.bare()
            try:
                expr, steps = random_walk(option.result, ctx.types, rng, at=ctx.at,
                                          widths=ctx.vector_widths)
            except DeadEnd:
                continue  # no kernel below this move
            batch.append((expr, fixed + [first] + steps))
            firsts.append((first, option.result))
        records = ctx.measure(batch)
        scored = [(r.kernel_ms, i) for i, r in enumerate(records) if r.measured]
        if not scored:
            stuck += 1
            if stuck > 5:
                break
            continue  # no correct kernel below any of these moves: sample again
        _, i = min(scored)
        fixed = fixed + [firsts[i][0]]
        current = firsts[i][1]
        ctx.fix(fixed)
    if ctx.left() > 0 and terminal(current):
        ctx.measure([(current, fixed)])


def exhaustive(ctx, depth: int = 3) -> None:
    seen = {str(ctx.start)}
    frontier: list[tuple[object, list[Step]]] = [(ctx.start, [])]
    measured: set[str] = set()
    for level in range(depth + 1):
        batch = []
        for expr, steps in frontier:
            try:
                low, completed = lower(expr, *ctx.types) if not terminal(expr) \
                    else (expr, [])
            except WorkbenchError:
                continue  # a dead end: no default lowering finishes it
            if str(low) in measured:
                continue
            measured.add(str(low))
            batch.append((low, steps + [s.bare()
                                        for s in completed]))
        while batch and ctx.left() > 0:
            chunk, batch = batch[:ctx.left()], batch[ctx.left():]
            ctx.submit(chunk)  # the next level is built while these run
            ctx.flush()
        if ctx.left() <= 0 or level == depth:
            return
        nxt = []
        for expr, steps in frontier:
            for r in moves(expr, ctx.types, ctx.at, ctx.vector_widths):
                if str(r.result) not in seen:
                    seen.add(str(r.result))
                    nxt.append((r.result, steps + [r.bare()]))
        frontier = nxt


@dataclass
class RankedState:
    """The ranked search's estimates of the candidates it drew, best first."""

    ranks: list[float] = field(default_factory=list)


def ranked(ctx, pool: int | None = None) -> RankedState:
    rng = random.Random(ctx.seed)
    state = RankedState()
    travels = program_travels(ctx.types) and ctx.replayed is None  # a replay runs nothing
    pool = pool or min(5 * ctx.budget, 200)
    found: dict[str, tuple[float, object, list[Step], dict]] = {}
    for _ in range(pool):
        try:
            expr, steps = random_walk(ctx.start, ctx.types, rng, at=ctx.at,
                                      widths=ctx.vector_widths)
        except DeadEnd:
            continue
        if str(expr) in found:
            continue
        score, program = _estimate(ctx, expr, travels)
        found[str(expr)] = (score, expr, steps, {"program": program} if program else {})
    order = sorted(found.values(), key=lambda t: t[0])
    state.ranks = [score for score, _, _, _ in order]
    for i in range(0, len(order), ctx.batch):
        if ctx.left() <= 0:
            break
        ctx.submit([(e, s, fields)
                    for _, e, s, fields in order[i:i + min(ctx.batch, ctx.left())]])
        ctx.flush()
    return state


def _estimate(ctx, expr, travels: bool) -> tuple[float, OpenCLProgram | None]:
    """The analytical estimate of a walk's kernel, and its program compiled as the worker
    compiles it (None where it does not travel, or cannot be generated). The estimate is of
    the program compiled without the copies ``run`` adds (``opencl``'s ``complete``): where
    they change nothing, it is of the same program, compiled once."""
    program = None
    if travels:
        try:
            program = opencl(expr, *ctx.types, sizes=ctx.sizes, complete=True,
                             name=KERNEL_NAME)
        except Exception:  # noqa: BLE001 - compiled again below, which says what it was
            program = None
    if program is not None and program.expression == to_text(concrete(expr, ctx.types,
                                                                      ctx.sizes)[0]):
        return cost.estimate(program), program
    try:
        return cost.estimate(opencl(expr, *ctx.types, sizes=ctx.sizes)), program
    except WorkbenchError:  # what cannot be generated ranks last (and is still logged)
        return float("inf"), program
    except Exception as err:  # a bug: reported in the result, and ranked last too
        ctx.internal_error("ranking (ranked)", expr, err)
        return float("inf"), program


STRATEGIES: dict[str, Callable] = {"mcts": mcts, "random": random_search,
                                   "exhaustive": exhaustive, "ranked": ranked,
                                   "guided": guided, "cases": cases, "egraph": egraph}

# The strategy a search takes unless told otherwise: on the CPU at budget 40 the guided
# descent reached 1.05-1.20x NumPy on dot and 0.84x on gemv where the Monte-Carlo descent
# reached 0.39x and 0.43x (the search benchmark compares them).
DEFAULT_STRATEGY = "guided"

# Each strategy's version, written in a log's header: a new version takes other choices from
# the same seed, so a log it did not write replays with candidates missing. Raise a version
# whenever a strategy's choices change (and record the strategy tests' logs again).
VERSIONS: dict[str, int] = {"mcts": 2, "random": 2, "exhaustive": 1, "ranked": 1,
                            "guided": 6, "cases": 3,
                            "egraph": 4}

# Versions that differ from today's only in the defaults of options: a log they wrote
# replays with the defaults its version had (an option its header does not name takes that
# default), which takes the same choices. Guided 3 measures its start's default completion
# first, then the grids on a GPU, the unrolled and the lanes on a CPU (guided.first_options);
# guided 2 measured none of them unless asked. Guided 4 measures a work-group per row of a
# map of reductions on a GPU too (``rows_first``) and moves a stencil's pads onto its input
# on a CPU (``pads_first``); guided 3 did neither. Guided 5 measures the start with the
# computations its zips join fused into one (``fused_first``) and with its folds over mapped
# arrays fused (``fusion_first``), everywhere, a stencil's 2-D nests on 2-D work-groups on a
# GPU (``groups_first``), a CPU's maps of reductions several outputs per work-item in vectors
# (``vector_blocks_first``), and takes its lanes' widths from the device (``lane_widths``,
# recorded in the options: ``device_options``); guided 4 and earlier did none of these and
# took 8 and 16 lanes always. Guided 6 puts n float4 elements of a map in vector lanes on a
# CPU (``float4_lanes_first``: ``vectorize-lanes-float4``, N-body's bodies 8 or 16 to a
# vector), measures, right after the default completion, the start with its C functions'
# sines and cosines of 2π·t in turns (``sinpi``), in vector lanes (``turns_first``), a CPU's
# reductions of a map outside every map in vectors and two stages
# (``vector_reductions_first``) and its fused computations in vectors also with their lanes'
# sums unrolled (``lane_sums_first``); guided 5 and earlier did none of these. Egraph 3 keeps
# a composition's functions in e-classes of their own and extracts only terms that derive
# (``derivable``); egraph 2 did neither. Egraph 4 grows within 0.3 of the time limit
# (``growth_share``), completes its kernels within half the time left (in processes, where
# the search has them) and derives a kernel's term once it is to be measured
# (``derive_late``); egraph 3 and 2 grew within half the time limit and derived every term
# before completing it. An entry holds only while the strategy takes today's choices with
# these options: a version raised for other choices drops them.
_BEFORE_6 = {"float4_lanes_first": False, "turns_first": False,
             "vector_reductions_first": False, "lane_sums_first": False}
_BEFORE_5 = {"fusion_first": False, "fused_first": False, "vector_blocks_first": False,
             "lane_widths": [8, 16], "groups_first": False, **_BEFORE_6}
_EGRAPH_BEFORE_4 = {"derive_late": False, "growth_share": 0.5}
EARLIER_DEFAULTS: dict[str, dict[int, dict]] = {
    "guided": {2: {"default_first": False, "grids_first": False, "unrolled_first": False,
                   "lanes_first": False, "rows_first": False, "pads_first": False,
                   **_BEFORE_5},
               3: {"rows_first": False, "pads_first": False, **_BEFORE_5},
               4: _BEFORE_5, 5: _BEFORE_6},
    "egraph": {2: {"derivable": False, **_EGRAPH_BEFORE_4}, 3: _EGRAPH_BEFORE_4},
}

# the strategies that rank candidates with the device's calibrated cost model
CALIBRATED = frozenset({"guided", "egraph"})


def replays(strategy: str, version) -> bool:
    """Whether a log written by this version of the strategy replays today."""
    return version == VERSIONS[strategy] or version in EARLIER_DEFAULTS.get(strategy, {})


def replay_options(strategy: str, header: dict | None, given: dict | None) -> dict:
    """The options a search runs with: those given (else, in a replay, those its log's header
    recorded), over the defaults of the log's version where they differ from today's."""
    header = header or {}
    earlier = EARLIER_DEFAULTS.get(strategy, {}).get(header.get("strategy_version"), {})
    if given is not None and not isinstance(given, dict):
        return given  # refused with its reason by check_options
    recorded = header.get("options") if header.get("strategy") == strategy else None
    chosen = given if given is not None else recorded or {}
    return {**earlier, **chosen} if isinstance(chosen, dict) else chosen


def starting_calibration(strategy: str, device: str | None, identity: dict | None,
                         header: dict | None, replayed: bool) -> tuple[dict | None, bool]:
    """The cost model a calibrated strategy starts from, as a log's header keeps it, and
    whether the device's calibration is still to be measured: in a replay the one its log
    recorded (None for a log that recorded none: the shipped prior of its device); else the
    device's calibration from the user's cache (``calibration.stored_model``). A device with
    none gets None and True: the search measures it after its first candidates, when its
    ranking first needs the model (``Context.calibrate``), and writes its header again with
    it."""
    if strategy not in CALIBRATED:
        return None, False
    if replayed:
        return (header or {}).get("calibration"), False
    model = calibration.stored_model(identity)
    if model is not None:
        return model.as_json(), False
    return None, calibration.to_measure(identity)


def device_options(strategy: str, options: dict, device: str | None, replayed: bool) -> dict:
    """The options with what the strategy takes from the device written in, so that the
    log's header names it and a replay takes it again: the guided search's lane widths
    (``guided.device_lanes``), where not given; a replay's as its log has them."""
    if strategy != "guided" or replayed or not isinstance(options, dict) or \
            options.get("lane_widths"):
        return options
    from .guided import device_lanes

    return options | {"lane_widths": list(device_lanes(device))}


def option_names(strategy: str) -> dict[str, object]:
    """The options a strategy takes (``search(..., options=...)``) with their defaults."""
    if strategy == "cases":
        from dataclasses import MISSING, fields

        from .cases import Options

        return {f.name: f.default_factory() if f.default is MISSING else f.default
                for f in fields(Options)}
    params = list(inspect.signature(STRATEGIES[strategy]).parameters.values())[1:]
    return {p.name: p.default for p in params}


def check_options(strategy: str, options: dict) -> dict:
    """The options, or a ``WorkbenchError`` naming an option the strategy does not take or a
    value of the wrong kind."""
    if not isinstance(options, dict):
        raise WorkbenchError(f"options = {options!r}: give a dict of option names and values")
    known = option_names(strategy)
    for name, value in options.items():
        if name not in known:
            raise WorkbenchError(
                f"the {strategy} strategy takes no option {name!r} (its options: "
                f"{', '.join(known) or 'none'})")
        default = known[name]
        problem = _kind_problem(name, default, value)
        if problem is not None:
            raise WorkbenchError(f"the {strategy} strategy's option {name} = {value!r}: "
                                 f"give {problem}")
        if isinstance(default, bool) or not isinstance(default, int | float):
            continue
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if isinstance(default, int):
            ok, what = number and isinstance(value, int) and value >= 0, "a whole number"
        else:
            ok, what = number and value >= 0, "a number, at least 0"
        if name in ("refine", "growth_share"):
            ok, what = number and 0 <= value <= 1, "a share between 0 and 1"
        if not ok:
            raise WorkbenchError(f"the {strategy} strategy's option {name} = {value!r}: "
                                 f"give {what}")
    return dict(options)


def _kind_problem(name: str, default, value) -> str | None:
    """What kind of value an option whose default is ``default`` takes, where ``value`` is
    not of it (None where it is, and for numbers, which ``check_options`` checks)."""
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "True or False"
    if isinstance(default, dict):
        ok = isinstance(value, dict) and all(
            isinstance(k, str) and isinstance(v, list | tuple)
            and all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in v)
            for k, v in value.items())
        return None if ok else "a dict of parameter names and lists of positive whole numbers"
    if name == "lane_widths":
        ok = isinstance(value, list | tuple) and all(
            isinstance(n, int) and not isinstance(n, bool) and n in (2, 4, 8, 16) for n in value)
        return None if ok else "a list of vector widths of 2, 4, 8 or 16"
    if isinstance(default, tuple):
        ok = isinstance(value, list | tuple) and all(isinstance(v, str | dict) for v in value)
        return None if ok else "a list of names or conditions"
    if name == "limits":
        from .cases.resources import Limits

        ok = value is None or isinstance(value, Limits | dict)
        return None if ok else "a Limits, a dict of its fields, or None"
    if name == "pool":
        ok = value is None or (isinstance(value, int) and not isinstance(value, bool)
                               and value > 0)
        return None if ok else "a whole number above 0, or None"
    return None


def run_strategy(ctx):
    """The context's strategy, with its options; the state it kept (None for a strategy that
    keeps none beyond its records)."""
    try:
        if ctx.strategy == "cases":
            try:
                state = STRATEGIES["cases"](ctx, **ctx.options)
            except TypeError as err:  # an option of the wrong kind inside the exploration
                raise WorkbenchError(f"the cases strategy's options: {err}") from None
        else:
            state = STRATEGIES[ctx.strategy](ctx, **ctx.options)
        ctx.drain()  # the candidates a strategy submitted and did not wait for
    finally:  # stopped or out of time too: what was measured calibrates the device
        if ctx.spec.calibration and ctx.replayed is None:
            calibration.learn(ctx.spec.identity, ctx.records)
    return state


def reported_model(state) -> dict | None:
    """The model a strategy fitted to its measurements, as a result reports it (the guided
    search's cost model)."""
    return state.model.as_json() if isinstance(state, GuidedState) else None
