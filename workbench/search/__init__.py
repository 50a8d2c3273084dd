"""Automatic search for fast kernels (SPEC 8): strategies that choose rewrites and their
numerical parameters, candidates measured in isolated workers (or on a Dask cluster), an
append-only log that makes searches resumable and replayable, and the best correct kernel
with the derivation that produced it.

    >>> from workbench.search import search                      # doctest: +SKIP
    >>> result = search(parse("reduce (+) 0 ∘ map abs"), xs, budget=40)
    >>> result.best, result.best_kernel_ms, result.derivation

Candidates run on random inputs of the given arrays' types (their values are not shipped to
the workers); every kernel is checked against the interpreter, and a wrong, failing or
timed-out candidate is logged with its outcome and never becomes the best.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..derivation import Derivation
from ..device.build_options import build_options as allowed_build_options
from ..domain import ranges_of, with_ranges
from ..errors import (
    ArgumentError,
    WorkbenchError,
    as_path,
    flag_argument,
    format_path,
    path_argument,
    shown,
    sizes_argument,
    whole_argument,
)
from ..expr import Expr, expression_argument
from ..expr import Path as NodePath
from ..semantics import prepare_inputs
from ..typecheck import input_type_argument
from ..types import Type, free_size_vars
from .build_choice import measure_with_options, strategy_share
from .context import CUTOFF, Context, SearchSpec, StopSearch, TimeLimitReached
from .evaluation import (
    ExecutorEvaluator,
    InlineEvaluator,
    PoolEvaluator,
    ReplayEvaluator,
    source_sha256,
)
from .log import (
    Log,
    LogError,
    Record,
    RecordError,
    device_identity,
    make_header,
    read,
    read_log,
)
from .result import NoCorrectKernel, SearchResult, plural
from .seeds import Seeds, seeds_of
from .space import Step, replay
from .strategies import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    VERSIONS,
    check_options,
    device_options,
    draw_processes,
    replay_options,
    replays,
    reported_model,
    run_strategy,
    starting_calibration,
)
from .turns import search_definitions


def _types(expr: Expr, arrays, sizes: dict[str, int] | None = None
           ) -> tuple[list[Type], dict[str, int]]:
    """The input types the search rewrites at. Types with size variables (``[float]_N``)
    are kept as they are when ``sizes`` gives each variable a value: the rewrites are then
    those that hold at every size (a result adopted at the symbolic types applies there),
    and the candidates run at ``sizes``."""
    if arrays and all(isinstance(a, str | Type) for a in arrays):
        types = [input_type_argument(k, a) for k, a in enumerate(arrays, start=1)]
    else:
        _, types = prepare_inputs(expr, arrays)
    unbound = sorted({n for t in types for n in free_size_vars(t)} - set(sizes or {}))
    if unbound:
        raise WorkbenchError(f"search needs concrete input sizes (arrays, types such as "
                             f"[float]_1048576, or sizes=): {', '.join(unbound)} is not known")
    return list(types), {}


def search(expr: Expr | Derivation, *arrays, strategy: str | None = None, budget: int = 40,
           device: str | None = None, executor=None, log: str | Path | None = None,
           progress=None, seed: int | None = None, at: NodePath | str | None = None,
           timeout: float = 60.0, workers: int | None = None, repeat: int = 10,
           sizes: dict[str, int] | None = None, replay_log: str | Path | list | None = None,
           options: dict | None = None, time_limit: float | None = None,
           remeasure: bool = False, build_options=None, seeds=None) -> SearchResult:
    """Search for the fastest correct kernel of ``expr`` on ``device``.

    ``arrays`` are example inputs (or their concrete types as text); ``strategy`` one of
    ``STRATEGIES`` (default ``DEFAULT_STRATEGY``, the guided descent); ``budget`` the number
    of distinct candidates measured, a resumed log's among them; ``time_limit`` a wall-clock
    limit in seconds that ends the search with what it found; ``executor`` a
    ``concurrent.futures`` executor or a Dask ``Client`` (default: local worker processes,
    ``workers`` of them, each candidate limited to ``timeout`` seconds); ``log`` a JSON-lines
    file that makes the search resumable (it says which device and inputs its times are for:
    a log of another device or other inputs is refused, or with ``remeasure`` its candidates
    are measured again here); ``replay_log`` answers from a recorded log instead of running
    anything (with the log's strategy, seed and options unless others are given, those its
    header does not name as the version that wrote it had them); ``progress(record)`` is
    called as each candidate finishes (raising ``StopSearch`` ends the search, keeping what
    was found); ``at`` restricts the rewrites to that subtree; ``options`` go to the strategy
    (``strategies.option_names`` lists them); the best candidates of ``seeds`` (logs,
    results or derivations of other devices: ``seeds_of``) are measured here first; a
    ``Derivation`` is searched from its current step; ``build_options``: OpenCL math options
    the best kernels may be built with (``build_choice``; none unless given; a replay takes
    its log's). The best: the fastest candidate known here, the resumed log's too, re-timed."""
    start_time = time.time()
    records, replay_header = _replayed(replay_log)
    strategy, seed = _strategy_and_seed(strategy, seed, replay_header)
    _check_arguments(strategy, budget, repeat, seed, time_limit)
    _check_kinds(expr, at, sizes, workers, timeout, remeasure, log, device)
    options, allowed = _options_of(strategy, options, build_options, replay_header,
                                   device if replay_log is None else _REPLAYED)
    derivation, start = _start_of(expr)
    types, _ = _types(start, arrays, sizes)
    size_env, at = dict(sizes or {}), _path_of(at)
    identity = _searched_device(replay_log, replay_header, records, strategy, types,
                                size_env, device, executor)
    started = starting_calibration(strategy, device, identity, replay_header,
                                   replayed=replay_log is not None)  # (model, measure later)
    header = _header(start, types, size_env, identity, strategy, seed, options, repeat,
                     started[0], allowed)
    seeded = _seeded(header, start, types, seeds, budget, replay_header)
    run_log = Log(log)
    matching, others = run_log.begin(header, remeasure, _same_source(header))
    evaluator = _evaluator(records, replay_log is not None, executor, workers, timeout)
    spec = SearchSpec(start, tuple(types), budget, strategy, sizes=size_env, seed=seed,
                      options=options, device=device, identity=identity, at=at,
                      repeat=repeat, batch=_parallelism(evaluator), time_limit=time_limit,
                      deadline=start_time + time_limit if time_limit is not None else None,
                      replayed=records, calibration=started[0], calibrate_later=started[1])
    ctx = Context(spec, evaluator, run_log, progress, header)
    ctx.adopt(matching)
    try:
        explored = _explore(ctx, others, log, seeded, allowed)
        best_ms, timing = _best_time(ctx, explored.stop, replayed=replay_log is not None)
    finally:
        evaluator.close()
    return _result(ctx, derivation, best_ms, timing, explored, time.time() - start_time)


def _same_source(header: dict):
    """Whether a record's kernel is still the source it measured: the source generated now
    for its candidate at the header's inputs (its hash against the record's)."""
    def same(record) -> bool:
        if not isinstance(record.get("expression"), str):
            return False
        now = source_sha256(record["expression"], header["definitions"], header["types"],
                            header["sizes"])
        return bool(now) and now == record.get("source_sha256")
    return same


def _searched_device(replay_log, replay_header, records, strategy: str, types, sizes: dict,
                     device, executor) -> dict:
    """The device whose times the search reports: a replay's log's (checked to answer this
    search), else the one it runs on."""
    if replay_log is None:
        return _identity(device, executor)
    _check_replay(replay_log, replay_header, strategy, types, sizes)
    return replay_header.get("device") if replay_header else _recorded_device(records)


def _header(start: Expr, types, sizes: dict, identity: dict, strategy: str, seed: int,
            options: dict, repeat: int, calibration: dict | None, allowed=()) -> dict:
    """The search's log header, with the cost model a calibrated strategy starts from
    (``calibration``) where it has one, and the build options allowed."""
    header = make_header(device=identity, program=str(start),
                         definitions=search_definitions(start, types),
                         types=[str(t) for t in types],
                         sizes=sizes, strategy=strategy, strategy_version=VERSIONS[strategy],
                         seed=seed, options=_json_options(options), repeat=repeat,
                         build_options=allowed)
    return header | ({"calibration": calibration} if calibration is not None else {})


@dataclass(frozen=True)
class _Explored:
    """What running the strategy gave besides the records: why it stopped early (""),
    the candidates of other logs measured again, the strategy's own state, the seeds
    measured first."""

    stop: str
    remeasured: int
    state: object
    seeded: Seeds = field(default_factory=Seeds)


def _seeded(header: dict, start: Expr, types, seeds, budget: int,
            replay_header: dict | None) -> Seeds:
    """The seeds' candidates at the search's start (``seeds.seeds_of``; a replay's, those
    of its log's header unless others are given); the log's header keeps their steps (a
    replay of the log measures them first again)."""
    if seeds is None and replay_header is not None:
        seeds = replay_header.get("seeds")
    if seeds is None:
        return Seeds()
    seeded = seeds_of(start, tuple(types), seeds, budget)
    if seeded.candidates:
        header["seeds"] = seeded.steps_json()
    return seeded


def _strategy_and_seed(strategy: str | None, seed: int | None, replay_header: dict | None
                       ) -> tuple[str, int]:
    """The strategy and seed asked for, else those of the replayed log, else the
    defaults."""
    recorded = replay_header or {}
    if strategy is None:
        strategy = recorded.get("strategy", DEFAULT_STRATEGY)
    if seed is None:
        seed = recorded.get("seed", 0)
    return strategy, seed


_REPLAYED = object()  # the device of a replay: none here


def _options_of(strategy: str, options: dict | None, build_options, replay_header: dict | None,
                device=_REPLAYED) -> tuple[dict, tuple[str, ...]]:
    """The strategy's options (checked; in a replay those its log recorded unless others
    are given, over the defaults of the version that wrote it; else with what it takes
    from the ``device``: ``device_options``) and the build options allowed (given, else a
    replay's log's)."""
    options = check_options(strategy, replay_options(strategy, replay_header, options))
    if device is not _REPLAYED:
        options = device_options(strategy, options, device, replayed=False)
    if replay_header is None:
        return options, allowed_build_options(build_options)
    return options, allowed_build_options(build_options if build_options is not None
                                          else replay_header.get("build_options"))


def _check_arguments(strategy: str, budget, repeat, seed, time_limit) -> None:
    if not isinstance(strategy, str) or strategy not in STRATEGIES:
        raise WorkbenchError(f"unknown strategy {strategy!r} (known: "
                             f"{', '.join(STRATEGIES)})")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise WorkbenchError(f"budget = {budget!r}: give a whole number of candidates, at "
                             f"least 1")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise WorkbenchError(f"repeat = {repeat!r}: give a whole number of runs, at least 1")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise WorkbenchError(f"seed = {seed!r}: give a whole number")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(
            time_limit, int | float) or not 0 < time_limit < 1e12):
        raise WorkbenchError(f"time_limit = {shown(time_limit)}: give a number of seconds "
                             f"above 0 (and below 1e12)")


def _check_kinds(expr, at, sizes, workers, timeout, remeasure, log, device) -> None:
    """The arguments whose kind the search relies on, each refused naming it."""
    if device is not None and not isinstance(device, str):
        raise ArgumentError(f"device = {shown(device)}: give a device as text (its id from "
                            f"'workbench devices', cpu or gpu, or part of its name), or None "
                            f"for the default", "device")
    if not isinstance(expr, Derivation):
        expression_argument(expr)
    sizes_argument(sizes)
    flag_argument(remeasure, "remeasure")
    if workers is not None and (whole_argument(workers, "workers") < 0):
        raise ArgumentError(f"workers = {workers}: give 0 (this process) or more, or None",
                            "workers")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) \
            or not 0 < timeout < 1e12:
        raise ArgumentError(f"timeout = {shown(timeout)}: give a number of seconds above 0",
                            "timeout")
    if log is not None:
        path_argument(log, "log")


def _start_of(expr: Expr | Derivation) -> tuple[Derivation | None, Expr]:
    """The derivation searched from (None for an expression) and the expression it is at,
    with the inputs' ranges of the derivation's start."""
    derivation = expr if isinstance(expr, Derivation) else None
    start = derivation.current if derivation is not None else expr
    if derivation is not None and ranges_of(start) is None:
        start = with_ranges(start, ranges_of(derivation.start))
    return derivation, start


def _path_of(at: NodePath | str | None) -> NodePath | None:
    return as_path(at) if at is not None else None


def _evaluator(records, replayed: bool, executor, workers: int | None, timeout: float):
    """What measures the candidates: the replayed records, the executor, this process
    (``workers=0``) or worker processes of the search's own."""
    if replayed:
        return ReplayEvaluator(records)
    if executor is not None:
        return ExecutorEvaluator(executor, timeout)
    if workers == 0:
        return InlineEvaluator()
    return PoolEvaluator(workers or max(1, min(4, (os.cpu_count() or 2))), timeout)


def _explore(ctx: Context, others: list, log, seeded: Seeds,
             allowed: tuple[str, ...] = ()) -> _Explored:
    """The seeds' candidates measured first, then those of other logs measured again (with
    ``remeasure``), then the strategy run, until its budget is spent, it stops, it is asked
    to stop or its time is up, then its best kernels built with the ``allowed`` build
    options."""
    stop, remeasured, state = "", 0, None
    try:
        ctx.start_workers()
        _measure_first(ctx, seeded.candidates)
        remeasured = _remeasure(ctx, others)
        state = _strategy_then_options(ctx, allowed)
    except KeyboardInterrupt as err:  # Ctrl-C, a kernel interrupt: the log keeps all
        err.add_note(_interrupted(ctx, log))
        raise
    except StopSearch as request:  # asked to stop, or out of time
        stop = str(request) or "stopped on request"
    if not stop and ctx.time_up():
        stop = ctx.time_limit_text()
    return _Explored(stop, remeasured, state, seeded)


def _strategy_then_options(ctx: Context, allowed: tuple[str, ...]):
    """The strategy, within its share of the budget and time (``build_choice``), then its
    best kernels measured built with the allowed build options; the strategy's state."""
    state = None
    try:
        with strategy_share(ctx, allowed):
            state = run_strategy(ctx)
    except TimeLimitReached:
        if not allowed or ctx.time_up():
            raise  # the search's own limit, not the strategy's share of it
    measure_with_options(ctx, allowed)
    return state


def _best_of(ctx: Context) -> Record | None:
    """The record of the fastest correct candidate (the first of equal times)."""
    return min((r for r in ctx.records if r.measured), key=lambda r: r.kernel_ms,
               default=None)


def _best_time(ctx: Context, stop: str, replayed: bool) -> tuple[float | None, str]:
    """The best candidate's time and how it was had: timed again, unless the search was
    stopped (candidates may still be running) or replayed."""
    best = _best_of(ctx)
    if stop and best is not None:
        why = "the time limit was reached" if ctx.time_up() else "the search was stopped"
        return best.kernel_ms, f"logged ({why})"
    return _retime(ctx, best, replayed=replayed)


def _best_derivation(ctx: Context, derivation: Derivation | None, best: Record
                     ) -> Derivation:
    """The derivation of the best candidate: its steps applied from the start (to the
    derivation searched from, when given one)."""
    start = ctx.start
    if derivation is None:
        derivation = Derivation(start, *ctx.types, name=getattr(start, "definition_name", ""))
    for s in best.steps or []:
        step = Step(s["rule"], _path(s["path"]), s["params"])
        derivation.apply(step.rule, step.path, **step.params)
    return derivation


def _result(ctx: Context, derivation: Derivation | None, best_ms: float | None, timing: str,
            explored: _Explored, seconds: float) -> SearchResult:
    best_record = _best_of(ctx)
    best = best_derivation = None
    if best_record is not None:
        best_derivation = _best_derivation(ctx, derivation, best_record)
        best = best_derivation.current
    evaluator = ctx.evaluator
    return SearchResult(best, best_ms, best_derivation, ctx.records, len(ctx.records),
                        ctx.strategy, ctx.fixed, best_record, seconds, timing,
                        budget=ctx.budget, from_log=ctx.from_log,
                        stopped=explored.stop or _why_stopped(ctx),
                        model=reported_model(explored.state), details=ctx.details,
                        time_limit=ctx.time_limit, device=ctx.spec.identity,
                        remeasured=explored.remeasured,
                        seeded=len(explored.seeded.candidates),
                        seeds_left_out=explored.seeded.left_out,
                        restarts=getattr(evaluator, "restarts", 0),
                        lost_seconds=getattr(evaluator, "lost_seconds", 0.0),
                        internal_errors=ctx.internal_errors,
                        rates=_best_rates(ctx, best, best_ms))


def _best_rates(ctx: Context, best: Expr | None, best_ms: float | None):
    """The best kernel's time as rates (``workbench.rates``), from its program as the search
    compiled it (else compiled again for its counts); None where there is no best or it
    does not compile here."""
    from ..codegen.program import opencl
    from ..rates import of_program

    if best is None or best_ms is None:
        return None
    record = _best_of(ctx)
    kept = ctx.best_program
    if kept and record is not None and kept[0] == record.key and kept[1] is not None:
        return of_program(best_ms, kept[1])  # the program the search compiled for it
    try:
        program = opencl(best, *ctx.types, sizes=ctx.sizes, complete=True)
    except Exception:  # noqa: BLE001 — the counts are a report, never a failure
        return None
    return of_program(best_ms, program)


def _parallelism(evaluator) -> int:
    """Candidates the evaluator runs at once (a strategy's batch): its worker processes, an
    executor's workers or a Dask cluster's threads; 4 where it does not say."""
    for name in ("parallelism", "workers"):
        value = getattr(evaluator, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return 4


def _json_options(options: dict) -> dict:
    """The options as a header keeps them (JSON values; a ``Limits`` as its fields)."""
    import dataclasses

    return {k: dataclasses.asdict(v) if dataclasses.is_dataclass(v) else v
            for k, v in options.items()}


def _identity(device: str | None, executor) -> dict:
    """The device a search's times are taken on. With an executor the workers may see other
    devices than this process: where this process cannot find it, the spec stands for it."""
    from ..device.opencl import find_device

    try:
        return device_identity(find_device(device)[0])
    except WorkbenchError:
        if executor is None:
            raise  # one clear error now, rather than one per candidate
        return {"name": device or "default", "platform": "(the executor's workers)",
                "driver": "", "kind": ""}


def _replayed(replay_log) -> tuple[list | None, dict | None]:
    """The records a replay answers from, and the header of its log file (None for a list
    of records, or a log of version 1 whose records have no header)."""
    if replay_log is None:
        return None, None
    if isinstance(replay_log, list):
        for i, record in enumerate(replay_log, start=1):
            try:
                Record.of(record)
            except (RecordError, TypeError, ValueError) as err:
                raise ArgumentError(f"replay_log: its item {i} ({shown(record)}) is not a "
                                    f"search record ({err})", "replay_log") from None
        return replay_log, None
    contents = read_log(replay_log)
    return contents.records, contents.headers[-1] if contents.headers else None


def _recorded_device(records: list) -> dict:
    names = sorted({r.device_name for r in map(Record.of, records) if r.device_name})
    return {"name": names[0] if names else "a replayed log", "platform": "", "driver": "",
            "kind": ""}


def _check_replay(replay_log, header: dict | None, strategy: str, types, sizes) -> None:
    """A replay draws the candidates its log holds only with the same strategy, at the same
    version (or one whose choices the options take again: ``strategies.replays``), for the same
    inputs: anything else is refused, with the reason."""
    if header is None:
        return
    where = str(replay_log)
    if header.get("strategy") != strategy:
        raise LogError(f"{where}: recorded by the {header.get('strategy')} strategy; a "
                       f"replay with {strategy} would meet candidates it does not hold "
                       f"(replay it with strategy={header.get('strategy')!r})", where)
    if header.get("replays") or not replays(strategy, header.get("strategy_version")):
        why = header.get("replays") or (
            f"recorded by version {header.get('strategy_version')} of the {strategy} "
            f"strategy, and this is version {VERSIONS[strategy]}, which takes other choices")
        raise LogError(f"{where} does not replay: {why}. Its records still plot "
                       f"(workbench.search.read), and a search given it as log= on its device "
                       f"goes on from them", where)
    if header.get("types") != [str(t) for t in types] or header.get("sizes") != dict(sizes):
        raise LogError(f"{where}: recorded for inputs {', '.join(header.get('types') or [])}; "
                       f"this replay's are {', '.join(map(str, types))}", where)


def _remeasure(ctx: Context, records: list) -> int:
    """Measure again, here, the candidates of a log taken on another device or for other
    inputs: each one's derivation applied again from the start at these inputs (its default
    completion may choose other sizes there); those that no longer apply are left out. How
    many were measured."""
    wanted, seen = [], set()
    for r in map(Record.of, records):
        try:
            steps = [Step(s["rule"], _path(s["path"]), s.get("params", {}))
                     for s in r.steps or []]
            expr = replay(ctx.start, ctx.types, steps)
        except (WorkbenchError, KeyError, TypeError, ValueError):
            continue
        if str(expr) in seen:
            continue
        seen.add(str(expr))
        wanted.append((expr, steps))
    return _measure_first(ctx, wanted)


def _measure_first(ctx: Context, wanted: list) -> int:
    """The candidates measured in their order, a batch at a time, as far as the budget
    goes; how many were."""
    done = 0
    while wanted and ctx.left() > 0:
        chunk, wanted = wanted[:min(ctx.batch, ctx.left())], wanted[min(ctx.batch, ctx.left()):]
        ctx.measure(chunk)
        done += len(chunk)
    return done


def _interrupted(ctx: Context, log) -> str:
    done = plural(len(ctx.records), "candidate")
    if log is None:
        return (f"search interrupted after {done}; nothing was kept (give log=FILE to make "
                f"a search resumable)")
    return (f"search interrupted after {done}; every finished candidate is in {log}: search "
            f"again with log={str(log)!r} to resume (nothing is measured twice)")


def _why_stopped(ctx: Context) -> str:
    """Why a search measured fewer candidates than its budget ("" when it spent it)."""
    from .space import moves, terminal

    n = len(ctx.records)
    if n >= ctx.budget:
        return ""
    candidates = plural(n, "candidate")
    if terminal(ctx.start):
        return f"the expression is already fully low-level: {candidates}"
    where = f" inside {format_path(ctx.at)}" if ctx.at else ""
    if not moves(ctx.start, ctx.types, ctx.at):
        return (f"no rule applies{where}: only the default completion could be measured "
                f"({candidates})")
    if ctx.strategy == "exhaustive":
        return f"every expression within the search's depth was measured: {candidates}"
    if ctx.logged_before:  # a resumed search: what it reaches includes the log's
        known = len(ctx.logged_before | {r.key for r in ctx.records})
        return (f"the search found no candidate that neither it nor the log it resumed had "
                f"measured{where}: {candidates} this time, {known} with the log's")
    return (f"the search found no candidate it had not measured before{where}: the space it "
            f"reaches holds {candidates}")


def _retime(ctx: Context, best: Record | None, replayed: bool) -> tuple[float | None, str]:
    """The best candidate's time, measured again on the device: a logged time may be a lucky
    one (or come from an earlier run, when the search resumed from its log)."""
    if best is None:
        return None, "recorded"
    if replayed:
        return best.kernel_ms, "recorded"
    job = ctx.job
    # the program its job carried, not compiled again (the best of a resumed log: compiled)
    program = ctx.best_program[1] if ctx.best_program and ctx.best_program[0] == best.key \
        else None
    again = next(iter(ctx.evaluator.evaluate([{
        "key": best.key, "expression": best.expression, "definitions": job.definitions,
        "reference": job.reference, "types": list(job.types), "ranges": job.ranges,
        "sizes": ctx.sizes, "device": ctx.device, "seed": ctx.seed, "repeat": max(ctx.repeat, 10),
        "steps": best.steps if best.steps is not None else [],
        **({"program": program} if program is not None else {}),
        **({"build_options": best.build_options} if best.build_options else {})}])), None)
    again = Record.of(again) if again is not None else None
    if again is not None and again.measured:
        return again.kernel_ms, "re-timed"
    status = again.status or "no answer" if again is not None else "no answer"
    return best.kernel_ms, f"logged (re-timing it gave: {status})"


def _path(text: str) -> NodePath:
    from ..errors import parse_path

    return parse_path(text)


__all__ = ["search", "SearchResult", "SearchSpec", "Context", "CUTOFF", "NoCorrectKernel",
           "StopSearch", "TimeLimitReached", "STRATEGIES", "DEFAULT_STRATEGY", "VERSIONS",
           "draw_processes", "read_log",
           "Log", "LogError", "Record", "read", "replay", "ReplayEvaluator", "PoolEvaluator",
           "ExecutorEvaluator", "InlineEvaluator"]
