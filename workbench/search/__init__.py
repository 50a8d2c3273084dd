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
from ..domain import ranges_of, ranges_text, with_ranges
from ..errors import WorkbenchError, format_path
from ..expr import Expr
from ..expr import Path as NodePath
from ..notation import parse_type
from ..notation.program import user_functions_text
from ..semantics import prepare_inputs
from ..types import Type, free_size_vars
from .evaluation import (
    ExecutorEvaluator,
    InlineEvaluator,
    PoolEvaluator,
    ReplayEvaluator,
    job_key,
)
from .log import Log, LogError, read
from .space import Step, replay
from .strategies import STRATEGIES

CUTOFF = 10  # a candidate whose first two runs each take this many times the best so far
# is timed no more: its time only has to show that it loses (a search at 2^27 floats meets
# kernels a thousand times slower than its best, and timed each one five times)


class StopSearch(Exception):
    """Raised by a ``progress`` callback to end the search after the candidate it was given:
    the result then holds what was measured, and ``stopped`` says why (the message)."""


class NoCorrectKernel(WorkbenchError):
    """A search in which no candidate built, ran and computed what the interpreter does."""


@dataclass
class SearchResult:
    """What a search found. ``best`` is None when no candidate was correct: ``outcome`` then
    says so, ``failures_by_kind`` counts the failures by status and ``first_failure`` holds
    the first one's whole message; ``require_best()`` raises ``NoCorrectKernel`` with all
    of it. ``str(result)`` and a notebook's display say the same."""

    best: Expr | None
    best_kernel_ms: float | None
    derivation: Derivation | None
    log: list[dict]
    evaluated: int
    strategy: str
    fixed: list[int] = field(default_factory=list)  # evaluations after which a step was fixed
    best_record: dict | None = None
    seconds: float = 0.0
    # how best_kernel_ms was had: "re-timed" (measured again on the device after the
    # search), "recorded" (a replayed log's time), or "logged (…)" when re-timing failed
    timing: str = "recorded"
    budget: int | None = None
    from_log: int = 0  # candidates answered by the log of an earlier run (a resumed search)
    stopped: str = ""  # why the search measured fewer candidates than its budget
    model: dict | None = None  # the guided search's cost model, fitted to its measurements
    details: dict = field(default_factory=dict)  # the strategy's report (cases: phases)

    @property
    def failures_by_kind(self) -> dict[str, int]:
        """Failed or wrong candidates counted by outcome (``compile error``, ``timeout``,
        ``wrong result``, ...), the most frequent first."""
        counts: dict[str, int] = {}
        for r in self.log:
            if not r.get("correct"):
                kind = r.get("status") or "failed"
                counts[kind] = counts.get(kind, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))

    @property
    def first_failure(self) -> dict | None:
        """The first failed candidate: its number, status, expression and whole message."""
        for i, r in enumerate(self.log, start=1):
            if not r.get("correct"):
                return {"candidate": i, "status": r.get("status") or "failed",
                        "expression": r.get("expression", ""),
                        "message": r.get("message") or ""}
        return None

    @property
    def outcome(self) -> str:
        """One line: what was found, or that nothing correct was."""
        failures = _counted(self.failures_by_kind)
        among = f"among {_plural(self.evaluated, 'candidate')}"
        if self.best is None:
            return f"no correct kernel {among}" + (f" ({failures})" if failures else "")
        ms = f"{self.best_kernel_ms:.4f} ms" if self.best_kernel_ms is not None else "no time"
        return f"best {ms} {among}" + (f"; {failures}" if failures else "")

    @property
    def timing_text(self) -> str:
        """How the best time was had, in words."""
        logged = self.best_record.get("kernel_ms") if self.best_record else None
        if self.timing == "re-timed" and logged is not None:
            return f"measured again after the search; {logged:.4f} ms when it ran"
        if self.timing == "recorded":
            return "the time recorded in the log"
        return self.timing

    def require_best(self) -> Expr:
        """The best kernel's expression, or ``NoCorrectKernel`` saying why there is none."""
        if self.best is None:
            raise NoCorrectKernel(self._explanation())
        return self.best

    def _explanation(self) -> str:
        lines = [f"search ({self.strategy}): {self.outcome}"]
        first = self.first_failure
        if first is not None:
            lines.append(f"the first failure (candidate {first['candidate']}, "
                         f"{first['status']}): {first['message'] or '(no message)'}")
            lines.append(f"  its expression: {first['expression']}")
        if self.stopped:
            lines.append(f"stopped after {self.evaluated} of {self.budget}: {self.stopped}")
        if self.from_log:
            lines.append(f"resumed: {self.from_log} candidates taken from the log")
        return "\n".join(lines)

    def __str__(self) -> str:
        if self.best is None:
            return self._explanation()
        lines = [f"search ({self.strategy}): {self.outcome}, {self.seconds:.1f} s"]
        lines.append(f"  {self.best}")
        lines.append(f"  ({self.timing_text})")
        if self.stopped:
            lines.append(f"stopped after {self.evaluated} of {self.budget}: {self.stopped}")
        if self.from_log:
            lines.append(f"resumed: {self.from_log} candidates taken from the log")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        if self.best is None:
            head, *rest = self._explanation().split("\n")
            return f"**{head}**\n\n```\n" + "\n".join(rest) + "\n```\n"
        notes = [f"stopped after {self.evaluated} of {self.budget}: {self.stopped}"
                 if self.stopped else "",
                 f"resumed: {self.from_log} candidates taken from the log"
                 if self.from_log else "", f"time: {self.timing_text}"]
        return (f"**search ({self.strategy}): {self.outcome}**, {self.seconds:.1f} s\n\n"
                + "".join(f"- {n}\n" for n in notes if n) + "\n"
                + (self.derivation.to_markdown() if self.derivation is not None else ""))

    def as_json(self) -> dict:
        return {"best": {"expression": str(self.best) if self.best is not None else None,
                         "kernel_ms": self.best_kernel_ms,
                         "logged_kernel_ms": self.best_record.get("kernel_ms")
                         if self.best_record else None,
                         "timing": self.timing,
                         "derivation": self.best_record.get("steps") if self.best_record
                         else None},
                "outcome": self.outcome,
                "evaluated": self.evaluated, "budget": self.budget, "strategy": self.strategy,
                "fixed": self.fixed, "seconds": self.seconds,
                "failures": sum(1 for r in self.log if not r.get("correct")),
                "failures_by_kind": self.failures_by_kind,
                "first_failure": self.first_failure,
                "from_log": self.from_log, "stopped": self.stopped, "model": self.model,
                "details": self.details}


def _counted(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in counts.items())


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


class Context:
    """What a strategy sees: the start, the budget, and ``measure``."""

    def __init__(self, start, types, sizes, budget, evaluator, log, device, seed, at,
                 repeat, progress, batch, strategy, replayed: list | None = None):
        self.start, self.types, self.sizes, self.budget = start, types, sizes, budget
        self.evaluator, self.log, self.device, self.seed, self.at = (evaluator, log, device,
                                                                     seed, at)
        self.repeat, self.progress, self.batch, self.strategy = (repeat, progress, batch,
                                                                 strategy)
        self.definitions = user_functions_text(start)
        # every candidate is checked against the interpreter's output of the start (the
        # same, rule by rule), computed once per worker
        self.reference = str(start)
        self.ranges = ranges_text(ranges_of(start)) if ranges_of(start) is not None else None
        self.cache = log.by_key()
        self.logged_before = set(self.cache)  # measured by an earlier run (resuming)
        self.from_log = 0
        self.records: list[dict] = []
        self.best_ms: float | None = None  # the best correct time among the records
        self.seen: set[str] = set()
        self.fixed: list[int] = []
        self.started = time.time()
        self.replayed = replayed  # the records a replayed search answers from
        self.features: dict[str, dict] = {}  # candidate key -> its cost-model features
        self.model = self.prior_model = None  # the cost model (guided): prior and fitted
        self._widths: tuple | None = None
        self.options: dict = {}  # a strategy's options (search(..., options=...))
        self.details: dict = {}  # what a strategy reports beyond its records (cases: phases)

    @property
    def vector_widths(self) -> tuple[int, ...] | None:
        """The vector widths the device runs (None: unknown, e.g. a replayed search)."""
        if self.replayed is not None:
            return None
        if self._widths is None:
            from ..opencl_devices import find_device

            self._widths = find_device(self.device)[0].vector_widths
        return self._widths or None

    def cost_model(self):
        """The device's calibrated cost model (the prior of the device, or of the device a
        replayed log was recorded on), fitted to what the log already holds."""
        from . import cost

        if self.replayed is not None:
            names = sorted({r.get("device_name") for r in self.replayed if r.get("device_name")})
            name = names[0] if names else ""
            self.prior_model = cost.prior_for(name, cost.kind_of_name(name))
        else:
            self.prior_model = cost.model_for_device(self.device)
        earlier = [r for r in self.cache.values() if r.get("features")]
        return self.prior_model.fit(earlier, strength=2.0) if earlier else self.prior_model

    def key_of(self, expr) -> str:
        return job_key(str(expr), self.sizes, self.device)

    def measured(self, expr) -> bool:
        return self.key_of(expr) in self.cache

    def record_of(self, expr) -> dict | None:
        return self.cache.get(self.key_of(expr))

    def left(self) -> int:
        return self.budget - len(self.records)

    def fix(self, steps: list[Step]) -> None:
        self.fixed.append(len(self.records))

    def measure(self, candidates: list[tuple]) -> list[dict]:
        """Records for the candidates ``(expression, steps)``, or ``(expression, steps,
        fields)`` with fields the record keeps (a cost model's features and prediction, a
        strategy's ``details`` of the candidate), in
        their order: from the log when they were measured
        before (a resumed search), else measured now and appended to the log. The search's
        records (``SearchResult.log``) are in the order candidates finished, as in the log
        file."""
        jobs, order = [], []
        cutoff = self.cutoff_ms()
        for expr, steps, *extra in candidates:
            text = str(expr)
            key = job_key(text, self.sizes, self.device)
            order.append(key)
            if key in self.cache or key in {j["key"] for j in jobs}:
                continue
            jobs.append({"key": key, "expression": text, "reference": self.reference,
                         "definitions": self.definitions,
                         "types": [str(t) for t in self.types], "ranges": self.ranges,
                         "sizes": self.sizes,
                         "device": self.device, "seed": self.seed, "repeat": self.repeat,
                         "steps": [s.as_json() for s in steps], **(extra[0] if extra else {}),
                         **({"cutoff_ms": cutoff} if cutoff is not None else {})})
        for record in self.evaluator.evaluate(jobs):
            record.setdefault("finished", time.time())
            record["strategy"] = self.strategy
            self.cache[record["key"]] = record
            self.log.append(record)
            self._count(record)  # in the order they finish, as in the log file
        out = []
        for key in order:
            record = self.cache[key]
            self._count(record)  # measured before (a resumed search)
            out.append(record)
        return out

    def cutoff_ms(self) -> float | None:
        """A time past which a candidate is timed once (``run``'s ``cutoff_ms``): CUTOFF
        times the best correct time among the search's candidates so far."""
        return CUTOFF * self.best_ms if self.best_ms is not None else None

    def _count(self, record: dict) -> None:
        if record["key"] not in self.seen:
            self.seen.add(record["key"])
            self.records.append(record)
            ms = record.get("kernel_ms")
            if record.get("correct") and ms and (self.best_ms is None or ms < self.best_ms):
                self.best_ms = ms
            if record["key"] in self.logged_before:
                self.from_log += 1
            if self.progress is not None:
                self.progress(record)


def _types(expr: Expr, arrays) -> tuple[list[Type], dict[str, int]]:
    if arrays and all(isinstance(a, str | Type) for a in arrays):
        types = [parse_type(a) if isinstance(a, str) else a for a in arrays]
    else:
        _, types = prepare_inputs(expr, arrays)
    unbound = sorted({n for t in types for n in free_size_vars(t)})
    if unbound:
        raise WorkbenchError(f"search needs concrete input sizes (arrays, or types such as "
                             f"[float]_1048576); {', '.join(unbound)} is not known")
    return list(types), {}


def search(expr: Expr | Derivation, *arrays, strategy: str = "mcts", budget: int = 40,
           device: str | None = None, executor=None, log: str | Path | None = None,
           progress=None, seed: int = 0, at: NodePath | str | None = None,
           timeout: float = 60.0, workers: int | None = None, repeat: int = 10,
           sizes: dict[str, int] | None = None, replay_log: str | Path | list | None = None,
           options: dict | None = None) -> SearchResult:
    """Search for the fastest correct kernel of ``expr`` on ``device``.

    ``arrays`` are example inputs (or their concrete types as text); ``strategy`` one of
    ``STRATEGIES``; ``budget`` the number of distinct candidates measured; ``executor`` a
    ``concurrent.futures`` executor or a Dask ``Client`` (default: local worker processes,
    ``workers`` of them, each candidate limited to ``timeout`` seconds); ``log`` a JSON-lines
    file that makes the search resumable; ``replay_log`` answers from a recorded log instead
    of running anything; ``progress(record)`` is called as each candidate finishes (it may
    raise ``StopSearch`` to end the search there, keeping what was found); ``at``
    restricts the rewrites to the subtree at that path; ``options`` go to the strategy
    (``cases``: ``depth``, ``max_depth``, ``values``, ``mappings``, ``limits``). A
    ``Derivation`` starts the search from its current step."""
    from ..errors import parse_path

    start_time = time.time()
    if strategy not in STRATEGIES:
        raise WorkbenchError(f"unknown strategy {strategy!r} (known: "
                             f"{', '.join(STRATEGIES)})")
    if budget < 1:
        raise WorkbenchError("the budget must be at least one candidate")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise WorkbenchError(f"repeat = {repeat!r}: give a whole number of runs, at least 1")
    derivation = expr if isinstance(expr, Derivation) else None
    start = derivation.current if derivation is not None else expr
    if derivation is not None and ranges_of(start) is None:
        start = with_ranges(start, ranges_of(derivation.start))  # the inputs' ranges
    types, _ = _types(start, arrays)
    if isinstance(at, str):
        at = parse_path(at)
    if replay_log is None and executor is None:
        from ..opencl_devices import find_device

        find_device(device)  # one clear error now, rather than one per candidate
    run_log = Log(log)
    if replay_log is not None:
        records = replay_log if isinstance(replay_log, list) else read(replay_log)
        evaluator = ReplayEvaluator(records)
    elif executor is not None:
        evaluator = ExecutorEvaluator(executor, timeout)
    elif workers == 0:
        evaluator = InlineEvaluator()
    else:
        evaluator = PoolEvaluator(workers or max(1, min(4, (os.cpu_count() or 2))), timeout)
    size_env = dict(sizes or {})
    ctx = Context(start, tuple(types), size_env, budget, evaluator, run_log, device, seed, at,
                  repeat, progress, batch=getattr(evaluator, "workers", 4), strategy=strategy,
                  replayed=records if replay_log is not None else None)
    ctx.options = dict(options or {})
    stop = ""
    try:
        try:
            STRATEGIES[strategy](ctx)
        except KeyboardInterrupt as err:  # Ctrl-C, a kernel interrupt: the log keeps all
            err.add_note(_interrupted(ctx, log))
            raise
        except StopSearch as request:  # the caller's progress callback asked to stop
            stop = str(request) or "stopped on request"
        good = [r for r in ctx.records if r.get("correct") and r.get("kernel_ms") is not None]
        best_record = min(good, key=lambda r: r["kernel_ms"]) if good else None
        if stop and best_record is not None:  # candidates may still be running: no re-timing
            best_ms, timing = best_record["kernel_ms"], "logged (the search was stopped)"
        else:
            best_ms, timing = _retime(ctx, best_record, replayed=replay_log is not None)
    finally:
        evaluator.close()
    best = best_derivation = None
    if best_record is not None:
        steps = [Step(s["rule"], _path(s["path"]), s["params"]) for s in best_record["steps"]]
        best_derivation = Derivation(start, *types, name=getattr(start, "definition_name", ""))
        if derivation is not None:
            best_derivation = derivation
        for s in steps:
            best_derivation.apply(s.rule, s.path, **s.params)
        best = best_derivation.current
    return SearchResult(best, best_ms, best_derivation, ctx.records, len(ctx.records),
                        strategy, ctx.fixed, best_record, time.time() - start_time, timing,
                        budget=budget, from_log=ctx.from_log,
                        stopped=stop or _why_stopped(ctx),
                        model=ctx.model.as_json() if ctx.model is not None else None,
                        details=ctx.details)


def _interrupted(ctx: Context, log) -> str:
    done = _plural(len(ctx.records), "candidate")
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
    candidates = _plural(n, "candidate")
    if terminal(ctx.start):
        return f"the expression is already fully low-level: {candidates}"
    where = f" inside {format_path(ctx.at)}" if ctx.at else ""
    if not moves(ctx.start, ctx.types, ctx.at):
        return (f"no rule applies{where}: only the default completion could be measured "
                f"({candidates})")
    if ctx.strategy == "exhaustive":
        return f"every expression within the search's depth was measured: {candidates}"
    if ctx.logged_before:  # a resumed search: what it reaches includes the log's
        known = len(ctx.logged_before | {r["key"] for r in ctx.records})
        return (f"the search found no candidate that neither it nor the log it resumed had "
                f"measured{where}: {candidates} this time, {known} with the log's")
    return (f"the search found no candidate it had not measured before{where}: the space it "
            f"reaches holds {candidates}")


def _retime(ctx: Context, best: dict | None, replayed: bool) -> tuple[float | None, str]:
    """The best candidate's time, measured again on the device: a logged time may be a lucky
    one (or come from an earlier run, when the search resumed from its log)."""
    if best is None:
        return None, "recorded"
    if replayed:
        return best["kernel_ms"], "recorded"
    job = {"key": best["key"], "expression": best["expression"],
           "definitions": ctx.definitions, "types": [str(t) for t in ctx.types],
           "ranges": ctx.ranges, "sizes": ctx.sizes, "device": ctx.device, "seed": ctx.seed,
           "repeat": max(ctx.repeat, 10), "steps": best.get("steps", [])}
    again = next(iter(ctx.evaluator.evaluate([job])), None)
    if again and again.get("correct") and again.get("kernel_ms") is not None:
        return again["kernel_ms"], "re-timed"
    status = again.get("status", "no answer") if again else "no answer"
    return best["kernel_ms"], f"logged (re-timing it gave: {status})"


def _path(text: str) -> NodePath:
    from ..errors import parse_path

    return parse_path(text)


__all__ = ["search", "SearchResult", "CUTOFF", "NoCorrectKernel", "StopSearch", "STRATEGIES",
           "Log", "LogError", "read", "replay", "ReplayEvaluator", "PoolEvaluator",
           "ExecutorEvaluator", "InlineEvaluator"]
