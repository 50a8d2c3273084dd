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
from .internal import InternalError
from .log import (
    Log,
    LogError,
    Record,
    device_identity,
    device_text,
    make_header,
    read,
    read_log,
)
from .space import Step, replay
from .strategies import DEFAULT_STRATEGY, STRATEGIES, VERSIONS, check_options, run_strategy

CUTOFF = 10  # a candidate whose first two runs each take this many times the best so far
# is timed no more: its time only has to show that it loses (a search at 2^27 floats meets
# kernels a thousand times slower than its best, and timed each one five times)


class StopSearch(Exception):
    """Raised by a ``progress`` callback to end the search after the candidate it was given:
    the result then holds what was measured, and ``stopped`` says why (the message)."""


class TimeLimitReached(StopSearch):
    """The search's wall-clock limit (``time_limit``) was reached."""


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
    time_limit: float | None = None  # the wall-clock limit it was given, in seconds
    device: dict | None = None  # the device its times were taken on (name, platform, driver)
    remeasured: int = 0  # candidates of a log of another device or inputs measured again
    restarts: int = 0  # worker processes started again after a candidate killed its worker
    lost_seconds: float = 0.0  # time spent on candidates that crashed or ran out of time
    # bugs met while the strategy prepared candidates (``internal``), each with its traceback
    internal_errors: list[InternalError] = field(default_factory=list)

    @property
    def records(self) -> list[Record]:
        """The candidates' records (``log``), typed."""
        return [Record.from_json(r) for r in self.log]

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
        bugs = (f"; {_plural(len(self.internal_errors), 'internal error')}"
                if self.internal_errors else "")
        if self.best is None:
            return f"no correct kernel {among}" + (f" ({failures})" if failures else "") + bugs
        ms = f"{self.best_kernel_ms:.4f} ms" if self.best_kernel_ms is not None else "no time"
        return f"best {ms} {among}" + (f"; {failures}" if failures else "") + bugs

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
        lines += self._notes()
        return "\n".join(lines)

    def _notes(self) -> list[str]:
        """What else the search says of itself: a resumed log, a time limit, crashes."""
        notes = []
        if self.from_log:
            notes.append(f"resumed: {self.from_log} of the {self.evaluated} candidates "
                         f"were taken from the log")
        if self.remeasured:
            notes.append(f"remeasured: {self.remeasured} candidates of the log measured "
                         f"again on this device and these inputs")
        if self.time_limit is not None:
            reached = self.stopped.startswith("the time limit")
            notes.append(f"time limit: {self.time_limit:g} s, "
                         f"{'reached' if reached else 'not reached'} ({self.seconds:.1f} s)")
        if self.restarts or self.lost_seconds:
            notes.append(f"crashes and time-outs: {_plural(self.restarts, 'worker')} started "
                         f"again, {self.lost_seconds:.1f} s lost")
        if self.internal_errors:
            first = self.internal_errors[0]
            notes.append(f"{_plural(len(self.internal_errors), 'internal error')} (a bug of "
                         f"the workbench; .internal_errors holds their tracebacks), the "
                         f"first in {first.where}: {first.error}")
        return notes

    def __str__(self) -> str:
        if self.best is None:
            return self._explanation()
        lines = [f"search ({self.strategy}): {self.outcome}, {self.seconds:.1f} s"]
        lines.append(f"  {self.best}")
        lines.append(f"  ({self.timing_text})")
        if self.stopped:
            lines.append(f"stopped after {self.evaluated} of {self.budget}: {self.stopped}")
        lines += self._notes()
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        if self.best is None:
            head, *rest = self._explanation().split("\n")
            return f"**{head}**\n\n```\n" + "\n".join(rest) + "\n```\n"
        notes = [f"stopped after {self.evaluated} of {self.budget}: {self.stopped}"
                 if self.stopped else "", *self._notes(), f"time: {self.timing_text}"]
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
                "details": self.details, "time_limit": self.time_limit,
                "device": self.device, "remeasured": self.remeasured,
                "restarts": self.restarts, "lost_seconds": self.lost_seconds,
                "internal_errors": [e.as_json() for e in self.internal_errors]}


def _counted(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in counts.items())


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


@dataclass(frozen=True)
class SearchSpec:
    """What a search is asked to do, as its strategy sees it: from which expression (its
    input ``types``, ``sizes`` of its size variables), how many candidates (``budget``), with
    which strategy, seed and options, on which device (as asked; ``identity``: the device a
    log's header and every key name), how each candidate is run (``repeat`` runs, ``batch``
    at a time), only inside the subtree ``at``, until a wall-clock ``deadline``
    (``time_limit`` seconds from the start), answered from ``replayed`` records instead of
    being run when given."""

    start: Expr
    types: tuple[Type, ...]
    budget: int
    strategy: str
    sizes: dict[str, int] = field(default_factory=dict)
    seed: int = 0
    options: dict = field(default_factory=dict)
    device: str | None = None
    identity: dict | None = None
    at: NodePath | None = None
    repeat: int = 10
    batch: int = 4
    time_limit: float | None = None
    deadline: float | None = None
    replayed: list | None = None


def draw_processes(batch: int) -> int:
    """Processes that draw random walks for a search whose ``batch`` candidates at once run
    elsewhere: two per candidate running (a walk takes a process about as long as a GPU
    takes to build and time a candidate), at most one fewer than this host's cores and at
    most eight; 0 or 1 draw in the search's own process."""
    return max(0, min(2 * max(1, batch), (os.cpu_count() or 1) - 1, 8))


class Context:
    """What a strategy sees: the spec (its fields are the context's: ``ctx.start``,
    ``ctx.budget``, …), ``measure``, and the state strategies keep, every piece declared
    here."""

    def __init__(self, spec: SearchSpec, evaluator, log, progress=None):
        self.spec = spec
        self.start, self.types, self.sizes, self.budget = (spec.start, tuple(spec.types),
                                                           spec.sizes, spec.budget)
        self.strategy, self.seed, self.options = spec.strategy, spec.seed, dict(spec.options)
        self.device, self.at, self.repeat, self.batch = (spec.device, spec.at, spec.repeat,
                                                         spec.batch)
        self.replayed = spec.replayed  # the records a replayed search answers from
        self.evaluator, self.log, self.progress = evaluator, log, progress
        start, identity, device = spec.start, spec.identity, spec.device
        self.definitions = user_functions_text(start)
        # every candidate is checked against the interpreter's output of the start (the
        # same, rule by rule), computed once per worker
        self.reference = str(start)
        self.ranges = ranges_text(ranges_of(start)) if ranges_of(start) is not None else None
        # the device the times are taken on, as a log's header and every key name it
        self.identity = identity or {"name": device or "default"}
        self.device_key = device_text(self.identity) if identity else (device or "default")
        self.deadline = spec.deadline  # the wall-clock time (time.time()) the search stops at
        self.time_limit = spec.time_limit  # the same, in seconds from the search's start
        self.cache: dict[str, dict] = {}
        self.logged_before: set[str] = set()  # measured by an earlier run (resuming)
        self.from_log = 0
        self.records: list[dict] = []
        self.best_ms: float | None = None  # the best correct time among the records
        self.seen: set[str] = set()
        self.fixed: list[int] = []
        self.started = time.time()
        # the strategies' state
        self.features: dict[str, dict] = {}  # candidate key -> its cost-model features
        # expression text -> (lowered, completion steps, features): the guided search's
        # default completions, computed once per search
        self.completions: dict[str, tuple] = {}
        self.model = self.prior_model = None  # the cost model (guided): prior and fitted
        self._widths: tuple | None = None
        self.ranks: list[float] = []  # the ranked strategy's estimates, best first
        self.details: dict = {}  # what a strategy reports beyond its records (cases: phases)
        self.internal_errors: list[InternalError] = []  # bugs met preparing candidates
        # candidates submitted and not finished (``submit``): key -> (future, job) where the
        # evaluator runs them elsewhere, else the jobs kept until ``flush``
        self.in_flight: dict[str, tuple] = {}
        self.kept: list[tuple] = []
        # an evaluator that runs candidates elsewhere (an executor, a Dask cluster) is given
        # them one by one, up to this many at once, so that a worker that finishes finds
        # the next waiting while the strategy prepares more
        self.asynchronous = hasattr(evaluator, "submit")
        self.lookahead = 2 * max(1, spec.batch)
        # there, the random strategy's walks are drawn ahead by processes of their own
        self.draw_processes = draw_processes(spec.batch) if self.asynchronous else 0

    def internal_error(self, where: str, expr, err: BaseException) -> None:
        """A bug (not a refusal) met while preparing a candidate: kept for the result."""
        self.internal_errors.append(InternalError.of(where, expr, err))

    @property
    def vector_widths(self) -> tuple[int, ...] | None:
        """The vector widths the device runs (None: unknown, e.g. a replayed search)."""
        if self.replayed is not None:
            return None
        if self._widths is None:
            from ..device.opencl import find_device

            try:
                self._widths = find_device(self.device)[0].vector_widths
            except WorkbenchError:  # an executor's device, not found in this process
                self._widths = ()
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
        return job_key(str(expr), self.sizes, self.device_key, self.types)

    def adopt(self, records: list[dict]) -> None:
        """The records of the log this search resumes (of this device and these inputs):
        they answer for their candidates, count against the budget and may be the best."""
        for record in records:
            if record["key"] not in self.cache:
                self.cache[record["key"]] = record
                self.logged_before.add(record["key"])
                self._count(record, announce=False)

    def measured(self, expr) -> bool:
        return self.key_of(expr) in self.cache

    def record_of(self, expr) -> dict | None:
        return self.cache.get(self.key_of(expr))

    def left(self) -> int:
        """Candidates the budget still allows, those submitted and not finished counted
        (none once the time limit is reached)."""
        if self.time_up():
            return 0
        return self.budget - len(self.records) - len(self.in_flight) - len(self.kept)

    def time_up(self) -> bool:
        return self.deadline is not None and time.time() >= self.deadline

    def fix(self, steps: list[Step]) -> None:
        self.fixed.append(len(self.records))

    def measure(self, candidates: list[tuple]) -> list[dict]:
        """Records for the candidates ``(expression, steps)``, or ``(expression, steps,
        fields)`` with fields the record keeps (a cost model's features and prediction, a
        strategy's ``details`` of the candidate), in
        their order: from the log when they were measured
        before (a resumed search), else measured now and appended to the log. The search's
        records (``SearchResult.log``) are in the order candidates finished, as in the log
        file. Candidates submitted before (``submit``) finish first."""
        self.drain()
        jobs, order = [], []
        cutoff = self.cutoff_ms()
        for expr, steps, *extra in candidates:
            key = self.key_of(str(expr))
            order.append(key)
            if key in self.cache or key in {j["key"] for j in jobs}:
                continue
            jobs.append(self._job(key, expr, steps, extra, cutoff))
        for record in self.evaluator.evaluate(jobs):
            self._take(record)
        out = []
        for key in order:
            record = self.cache[key]
            self._count(record)  # measured before (a resumed search)
            out.append(record)
        return out

    def submit(self, candidates: list[tuple]) -> None:
        """Measure the candidates (as ``measure`` takes them) without waiting for their
        records, for a strategy that does not need them to choose its next candidates
        (random, exhaustive, ranked): an evaluator that runs candidates elsewhere (an
        executor, a Dask cluster) starts each one now, and this waits only while
        ``lookahead`` candidates are running (twice the evaluator's parallelism), so that
        every worker is kept busy while the strategy prepares the next ones. Other
        evaluators measure the candidates kept at the next ``flush``, as one batch.
        Finished records are taken as ``measure`` takes them (the log, ``progress``, the
        time limit); ``left`` counts the candidates not finished."""
        cutoff = self.cutoff_ms()
        for expr, steps, *extra in candidates:
            key = self.key_of(str(expr))
            if key in self.cache:
                self._count(self.cache[key])  # measured before (a resumed search)
                continue
            if key in self.in_flight or any(job["key"] == key for job in self.kept):
                continue
            if not self.asynchronous:
                self.kept.append(self._job(key, expr, steps, extra, cutoff))
                continue
            while len(self.in_flight) >= self.lookahead:
                self._collect(wait=True)
            job = self._job(key, expr, steps, extra, self.cutoff_ms())
            self.in_flight[key] = (self.evaluator.submit(job), job)
        self._collect(wait=False)

    def flush(self) -> None:
        """The candidates kept by ``submit`` measured now, as one batch (an evaluator that
        runs them elsewhere: the records of those finished taken, without waiting)."""
        if self.kept:
            jobs, self.kept = self.kept, []
            for record in self.evaluator.evaluate(jobs):
                self._take(record)
        self._collect(wait=False)

    def drain(self) -> None:
        """Wait for every candidate submitted and take its record."""
        self.flush()
        while self.in_flight:
            self._collect(wait=True)

    def _collect(self, wait: bool) -> None:
        if not self.in_flight:
            return
        futures = [future for future, _ in self.in_flight.values()]
        for future in self.evaluator.finished(futures, wait=wait):
            key = next(k for k, (f, _) in self.in_flight.items() if f is future)
            _, job = self.in_flight.pop(key)
            self._take(self.evaluator.record(future, job))

    def _job(self, key: str, expr, steps, extra, cutoff: float | None) -> dict:
        return {"key": key, "expression": str(expr), "reference": self.reference,
                "definitions": self.definitions,
                "types": [str(t) for t in self.types], "ranges": self.ranges,
                "sizes": self.sizes,
                "device": self.device, "seed": self.seed, "repeat": self.repeat,
                "steps": [s.as_json() for s in steps], **(extra[0] if extra else {}),
                **({"cutoff_ms": cutoff} if cutoff is not None else {})}

    def _take(self, record: dict) -> None:
        """A finished candidate's record: cached, logged and counted (in the order they
        finish, as in the log file); past the time limit, the search ends here."""
        record.setdefault("finished", time.time())
        record["strategy"] = self.strategy
        self.cache[record["key"]] = record
        self.log.append(record)
        self._count(record)
        if self.time_up():
            raise TimeLimitReached(self.time_limit_text())

    def cutoff_ms(self) -> float | None:
        """A time past which a candidate is timed once (``run``'s ``cutoff_ms``): CUTOFF
        times the best correct time among the search's candidates so far."""
        return CUTOFF * self.best_ms if self.best_ms is not None else None

    def time_limit_text(self) -> str:
        return f"the time limit of {self.time_limit:g} s was reached"

    def _count(self, record: dict, announce: bool = True) -> None:
        if record["key"] not in self.seen:
            self.seen.add(record["key"])
            self.records.append(record)
            ms = record.get("kernel_ms")
            if record.get("correct") and ms and (self.best_ms is None or ms < self.best_ms):
                self.best_ms = ms
            if record["key"] in self.logged_before:
                self.from_log += 1
            if self.progress is not None and announce:
                self.progress(record)


def _types(expr: Expr, arrays, sizes: dict[str, int] | None = None
           ) -> tuple[list[Type], dict[str, int]]:
    """The input types the search rewrites at. Types with size variables (``[float]_N``)
    are kept as they are when ``sizes`` gives each variable a value: the rewrites are then
    those that hold at every size (a result adopted at the symbolic types applies there),
    and the candidates run at ``sizes``."""
    if arrays and all(isinstance(a, str | Type) for a in arrays):
        types = [parse_type(a) if isinstance(a, str) else a for a in arrays]
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
           remeasure: bool = False) -> SearchResult:
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
    anything (with the log's strategy and seed unless others are given); ``progress(record)``
    is called as each candidate finishes (it may raise ``StopSearch`` to end the search
    there, keeping what was found); ``at`` restricts the rewrites to the subtree at that
    path; ``options`` go to the strategy (``strategies.option_names`` lists them). A
    ``Derivation`` starts the search from its current step. The best is the best of every
    candidate known for this device and these inputs, the resumed log's included, timed
    again."""
    from ..errors import parse_path

    start_time = time.time()
    records, replay_header = _replayed(replay_log)
    if strategy is None:
        strategy = replay_header.get("strategy", DEFAULT_STRATEGY) if replay_header \
            else DEFAULT_STRATEGY
    if seed is None:
        seed = replay_header.get("seed", 0) if replay_header else 0
    if strategy not in STRATEGIES:
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
            time_limit, int | float) or not time_limit > 0):
        raise WorkbenchError(f"time_limit = {time_limit!r}: give a number of seconds above 0")
    options = check_options(strategy, {} if options is None else options)
    derivation = expr if isinstance(expr, Derivation) else None
    start = derivation.current if derivation is not None else expr
    if derivation is not None and ranges_of(start) is None:
        start = with_ranges(start, ranges_of(derivation.start))  # the inputs' ranges
    types, _ = _types(start, arrays, sizes)
    size_env = dict(sizes or {})
    if isinstance(at, str):
        at = parse_path(at)
    if replay_log is not None:
        _check_replay(replay_log, replay_header, strategy, types, size_env)
        identity = replay_header.get("device") if replay_header else _recorded_device(records)
    else:
        identity = _identity(device, executor)
    header = make_header(device=identity, program=str(start),
                         definitions=user_functions_text(start), types=[str(t) for t in types],
                         sizes=size_env, strategy=strategy, strategy_version=VERSIONS[strategy],
                         seed=seed, options=_json_options(options), repeat=repeat)
    run_log = Log(log)
    matching, others = run_log.begin(header, remeasure=remeasure)
    if replay_log is not None:
        evaluator = ReplayEvaluator(records)
    elif executor is not None:
        evaluator = ExecutorEvaluator(executor, timeout)
    elif workers == 0:
        evaluator = InlineEvaluator()
    else:
        evaluator = PoolEvaluator(workers or max(1, min(4, (os.cpu_count() or 2))), timeout)
    spec = SearchSpec(start, tuple(types), budget, strategy, sizes=size_env, seed=seed,
                      options=options, device=device, identity=identity, at=at, repeat=repeat,
                      batch=_parallelism(evaluator), time_limit=time_limit,
                      deadline=start_time + time_limit if time_limit is not None else None,
                      replayed=records)
    ctx = Context(spec, evaluator, run_log, progress)
    ctx.adopt(matching)
    stop = ""
    remeasured = 0
    try:
        try:
            remeasured = _remeasure(ctx, others)
            run_strategy(ctx)
        except KeyboardInterrupt as err:  # Ctrl-C, a kernel interrupt: the log keeps all
            err.add_note(_interrupted(ctx, log))
            raise
        except StopSearch as request:  # asked to stop, or out of time
            stop = str(request) or "stopped on request"
        if not stop and ctx.time_up():
            stop = ctx.time_limit_text()
        good = [r for r in ctx.records if r.get("correct") and r.get("kernel_ms") is not None]
        best_record = min(good, key=lambda r: r["kernel_ms"]) if good else None
        if stop and best_record is not None:  # candidates may still be running: no re-timing
            why = "the time limit was reached" if ctx.time_up() else "the search was stopped"
            best_ms, timing = best_record["kernel_ms"], f"logged ({why})"
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
                        details=ctx.details, time_limit=time_limit, device=identity,
                        remeasured=remeasured,
                        restarts=getattr(evaluator, "restarts", 0),
                        lost_seconds=getattr(evaluator, "lost_seconds", 0.0),
                        internal_errors=ctx.internal_errors)


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


def _replayed(replay_log) -> tuple[list[dict] | None, dict | None]:
    """The records a replay answers from, and the header of its log file (None for a list
    of records, or a log of version 1 whose records have no header)."""
    if replay_log is None:
        return None, None
    if isinstance(replay_log, list):
        return replay_log, None
    contents = read_log(replay_log)
    return contents.records, contents.headers[-1] if contents.headers else None


def _recorded_device(records: list[dict]) -> dict:
    names = sorted({r.get("device_name") for r in records if r.get("device_name")})
    return {"name": names[0] if names else "a replayed log", "platform": "", "driver": "",
            "kind": ""}


def _check_replay(replay_log, header: dict | None, strategy: str, types, sizes) -> None:
    """A replay draws the candidates its log holds only with the same strategy, at the same
    version, for the same inputs: anything else is refused, with the reason."""
    if header is None:
        return
    where = str(replay_log)
    if header.get("strategy") != strategy:
        raise LogError(f"{where}: recorded by the {header.get('strategy')} strategy; a "
                       f"replay with {strategy} would meet candidates it does not hold "
                       f"(replay it with strategy={header.get('strategy')!r})", where)
    if header.get("strategy_version") != VERSIONS[strategy]:
        why = header.get("replays") or (
            f"recorded by version {header.get('strategy_version')} of the {strategy} "
            f"strategy, and this is version {VERSIONS[strategy]}, which takes other choices")
        raise LogError(f"{where} does not replay: {why}. Its records still plot "
                       f"(workbench.search.read), and a search given it as log= on its device "
                       f"goes on from them", where)
    if header.get("types") != [str(t) for t in types] or header.get("sizes") != dict(sizes):
        raise LogError(f"{where}: recorded for inputs {', '.join(header.get('types') or [])}; "
                       f"this replay's are {', '.join(map(str, types))}", where)


def _remeasure(ctx: Context, records: list[dict]) -> int:
    """Measure again, here, the candidates of a log taken on another device or for other
    inputs: each one's derivation applied again from the start at these inputs (its default
    completion may choose other sizes there); those that no longer apply are left out. How
    many were measured."""
    wanted, seen = [], set()
    for r in records:
        try:
            steps = [Step(s["rule"], _path(s["path"]), s.get("params", {}))
                     for s in r.get("steps", [])]
            expr = replay(ctx.start, ctx.types, steps)
        except (WorkbenchError, KeyError, TypeError, ValueError):
            continue
        if str(expr) in seen:
            continue
        seen.add(str(expr))
        wanted.append((expr, steps))
    done = 0
    while wanted and ctx.left() > 0:
        chunk, wanted = wanted[:min(ctx.batch, ctx.left())], wanted[min(ctx.batch, ctx.left()):]
        ctx.measure(chunk)
        done += len(chunk)
    return done


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


__all__ = ["search", "SearchResult", "SearchSpec", "Context", "CUTOFF", "NoCorrectKernel",
           "StopSearch", "TimeLimitReached", "STRATEGIES", "DEFAULT_STRATEGY",
           "Log", "LogError", "Record", "read", "replay", "ReplayEvaluator", "PoolEvaluator",
           "ExecutorEvaluator", "InlineEvaluator"]
