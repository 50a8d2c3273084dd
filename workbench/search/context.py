"""What every strategy shares: the search's spec, its records (``Record``, in the order
candidates finished, as in the log file) and the way candidates are measured. A strategy's
own state (the guided search's cost model, the ranked search's estimates) is kept by the
strategy, in its own module.

A candidate is ``(expression, steps)``, or ``(expression, steps, fields)`` with fields the
job carries to the worker (a compiled ``program``, which the worker then does not compile
again) or the record keeps (a cost model's features and prediction, a strategy's
``details`` of the candidate).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from ..domain import ranges_of, ranges_text
from ..errors import WorkbenchError
from ..expr import Expr
from ..expr import Path as NodePath
from ..types import Type
from .evaluation import job_key
from .internal import InternalError
from .log import Log, Record, device_text
from .space import Step
from .turns import search_definitions

CUTOFF = 10  # a candidate whose first two runs each take this many times the best so far
# is timed no more: its time only has to show that it loses (a search at 2^27 floats meets
# kernels a thousand times slower than its best, and timed each one five times)


class StopSearch(Exception):
    """Raised by a ``progress`` callback to end the search after the candidate it was given:
    the result then holds what was measured, and ``stopped`` says why (the message)."""


class TimeLimitReached(StopSearch):
    """The search's wall-clock limit (``time_limit``) was reached."""


@dataclass(frozen=True)
class SearchSpec:
    """What a search is asked to do, as its strategy sees it: from which expression (its
    input ``types``, ``sizes`` of its size variables), how many candidates (``budget``), with
    which strategy, seed and options, on which device (as asked; ``identity``: the device a
    log's header and every key name), how each candidate is run (``repeat`` runs, ``batch``
    at a time), only inside the subtree ``at``, until a wall-clock ``deadline``
    (``time_limit`` seconds from the start), answered from ``replayed`` records instead of
    being run when given; ``calibration``: the cost model a strategy that ranks with one
    starts from (``calibration.py``; the log's header keeps it); ``calibrate_later``: the
    device has none yet, and the strategy measures it when it first needs it
    (``Context.calibrate``)."""

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
    calibration: dict | None = None  # the cost model a guided search starts from (its JSON)
    calibrate_later: bool = False  # none kept for the device yet: measured in the search


@dataclass(frozen=True)
class Job:
    """What a worker is told of the search (the same for every candidate): the program's
    functions, the reference it checks against, the inputs' types and ranges, sizes,
    device, seed and runs."""

    definitions: str
    reference: str
    types: tuple[str, ...]
    ranges: str | None
    sizes: dict
    device: str | None
    seed: int
    repeat: int

    @staticmethod
    def of(spec: SearchSpec) -> Job:
        ranges = ranges_of(spec.start)
        # every candidate is checked against the interpreter's output of the start (the
        # same, rule by rule), computed once per worker
        return Job(search_definitions(spec.start, spec.types), str(spec.start),
                   tuple(str(t) for t in spec.types),
                   ranges_text(ranges) if ranges is not None else None, spec.sizes,
                   spec.device, spec.seed, spec.repeat)

    def of_candidate(self, key: str, expr, steps: list[Step], fields: dict,
                     cutoff: float | None) -> dict:
        return {"key": key, "expression": str(expr), "reference": self.reference,
                "definitions": self.definitions, "types": list(self.types),
                "ranges": self.ranges, "sizes": self.sizes, "device": self.device,
                "seed": self.seed, "repeat": self.repeat,
                "steps": [s.as_json() for s in steps], **fields,
                **({"cutoff_ms": cutoff} if cutoff is not None else {})}


class Context:
    """What a strategy sees: the spec (its fields are the context's: ``ctx.start``,
    ``ctx.budget``, …), the records measured so far, ``measure`` and ``submit``, and what
    it reports (``details``, ``internal_errors``)."""

    def __init__(self, spec: SearchSpec, evaluator, log: Log, progress=None,
                 header: dict | None = None):
        self.spec = spec
        self.header = header  # the log's header of the search (written again: calibrate)
        self.start, self.types, self.sizes, self.budget = (spec.start, tuple(spec.types),
                                                           spec.sizes, spec.budget)
        self.strategy, self.seed, self.options = spec.strategy, spec.seed, dict(spec.options)
        self.device, self.at, self.repeat, self.batch = (spec.device, spec.at, spec.repeat,
                                                         spec.batch)
        self.replayed = spec.replayed  # the records a replayed search answers from
        self.evaluator, self.log, self.progress = evaluator, log, progress
        self.job = Job.of(spec)
        # the device the times are taken on, as a log's header and every key name it
        self.identity = spec.identity or {"name": spec.device or "default"}
        self.device_key = device_text(self.identity) if spec.identity else \
            (spec.device or "default")
        self.deadline = spec.deadline  # the wall-clock time (time.time()) the search stops at
        self.time_limit = spec.time_limit  # the same, in seconds from the search's start
        self.records: list[Record] = []  # in the order they finished
        self.cache: dict[str, Record] = {}  # candidate key -> its record
        self.logged_before: set[str] = set()  # measured by an earlier run (resuming)
        self.from_log = 0
        self.best_ms: float | None = None  # the best correct time among the records
        # the best record's program, where its job carried one (re-timed without compiling)
        self.best_program: tuple[str, object] | None = None
        self.fixed: list[int] = []  # records measured when a strategy fixed a step
        self.details: dict = {}  # what a strategy reports beyond its records (cases: phases)
        self.internal_errors: list[InternalError] = []  # bugs met preparing candidates
        self.seen: set[str] = set()  # the keys of the records
        self.pending = Pending(self)
        self._info: tuple | None = None  # (DeviceInfo or None,), once looked up

    @property
    def own_workers(self) -> bool:
        """Whether the evaluator runs candidates in worker processes of the search's own
        (``PoolEvaluator``), which it starts and gives work to while they run."""
        return hasattr(self.evaluator, "start")

    @property
    def asynchronous(self) -> bool:
        """Whether the evaluator runs candidates elsewhere (an executor, a Dask cluster)."""
        return self.pending.asynchronous

    def internal_error(self, where: str, expr, err: BaseException) -> None:
        """A bug (not a refusal) met while preparing a candidate: kept for the result."""
        self.internal_errors.append(InternalError.of(where, expr, err))

    @property
    def vector_widths(self) -> tuple[int, ...] | None:
        """The vector widths the device runs (None: unknown, e.g. a replayed search)."""
        if self.replayed is not None:
            return None
        info = self.device_info
        return (info.vector_widths if info is not None else ()) or None

    @property
    def device_info(self):
        """The device's ``DeviceInfo`` as this process finds it (None in a replay, or for an
        executor's device, not found here), looked up once."""
        if self.replayed is not None:
            return None
        if self._info is None:
            from ..device.opencl import find_device

            try:
                self._info = (find_device(self.device)[0],)
            except WorkbenchError:  # an executor's device, not found in this process
                self._info = (None,)
        return self._info[0]

    def key_of(self, expr) -> str:
        return job_key(str(expr), self.sizes, self.device_key, self.types)

    def adopt(self, records: list) -> None:
        """The records of the log this search resumes (of this device and these inputs):
        they answer for their candidates, count against the budget and may be the best."""
        for record in map(Record.of, records):
            if record.key not in self.cache:
                self.cache[record.key] = record
                self.logged_before.add(record.key)
                self._count(record, announce=False)

    def measured(self, expr) -> bool:
        return self.key_of(expr) in self.cache

    def record_of(self, expr) -> Record | None:
        return self.cache.get(self.key_of(expr))

    def left(self) -> int:
        """Candidates the budget still allows, those submitted and not finished counted
        (none once the time limit is reached)."""
        if self.time_up():
            return 0
        return self.budget - len(self.records) - self.pending.count()

    def time_up(self) -> bool:
        return self.deadline is not None and time.time() >= self.deadline

    def time_limit_text(self) -> str:
        return f"the time limit of {self.time_limit:g} s was reached"

    def fix(self, steps: list[Step]) -> None:
        self.fixed.append(len(self.records))

    def cutoff_ms(self) -> float | None:
        """A time past which a candidate is timed once (``run``'s ``cutoff_ms``): CUTOFF
        times the best correct time among the search's candidates so far."""
        return CUTOFF * self.best_ms if self.best_ms is not None else None

    def measure(self, candidates: list[tuple], idle=None) -> list[Record]:
        """Records for the candidates, in their order: from the log when they were measured
        before (a resumed search), else measured now and appended to the log. Candidates
        submitted before (``submit``) finish first. ``idle()``, when given, does work of the
        strategy's while they run (``overlap``)."""
        self.drain()
        jobs, order = [], []
        cutoff = self.cutoff_ms()
        for expr, steps, *extra in candidates:
            key = self.key_of(str(expr))
            order.append(key)
            if key in self.cache or key in {j["key"] for j in jobs}:
                continue
            jobs.append(self.job_of(key, expr, steps, extra, cutoff))
        programs = {j["key"]: j["program"] for j in jobs if "program" in j}
        for record in self.overlap(jobs, idle):
            self.take(record, programs.get(record.get("key")))
        out = []
        for key in order:
            record = self.cache[key]
            self._count(record)  # measured before (a resumed search)
            out.append(record)
        return out

    def overlap(self, jobs: list[dict], idle=None):
        """The jobs' records as they finish, ``idle()`` called while they run, where the
        evaluator runs them in processes of the search's own (``PoolEvaluator``) and the
        host has a core to spare beside them; on a device that is not a GPU, not while a
        worker holds it (a CPU's kernels share its cores with this process). Elsewhere
        ``idle`` is not called: its work is the strategy's to do later (on two cores busy
        with two workers, a search that did it meanwhile measured its first candidate
        twice as late)."""
        if idle is None or not self.own_workers or not spare_core(self.evaluator.workers):
            return self.evaluator.evaluate(jobs)
        quiet = self.identity.get("kind") != "gpu"
        return self.evaluator.evaluate(jobs, idle, quiet)

    def calibrate(self) -> dict | None:
        """The cost model the strategy goes on from, for a search that began on a device
        with no calibration (``spec.calibrate_later``): measured now, between the search's
        batches (the probes in its own workers, where it has them), kept for the device and
        written into the log's header again, so that a replay starts from it; the spec's
        model otherwise (None where there is none: the shipped prior)."""
        if not self.spec.calibrate_later:
            return self.spec.calibration
        from dataclasses import replace

        from .calibration import measure_for_search

        model = measure_for_search(self.device, self.spec.identity,
                                   self.evaluator if self.own_workers else None)
        found = model.as_json() if model is not None else None
        self.spec = replace(self.spec, calibration=found, calibrate_later=False)
        if found is not None and self.header is not None:
            self.header = self.header | {"calibration": found}
            self.log.restate(self.header)
        return found

    def start_workers(self) -> None:
        """The evaluator's workers started now, where it has workers of its own, each
        preparing the search (imports, the device, the inputs and their expected output)
        while the strategy prepares its first candidates."""
        if self.own_workers:
            self.evaluator.start(self.job.of_candidate(self.key_of(self.start), self.start,
                                                       [], {}, None))

    def submit(self, candidates: list[tuple]) -> None:
        """Measure the candidates (as ``measure`` takes them) without waiting for their
        records (``Pending.submit``)."""
        self.pending.submit(candidates)

    def flush(self) -> None:
        """The candidates kept by ``submit`` measured now, as one batch."""
        self.pending.flush()

    def drain(self) -> None:
        """Wait for every candidate submitted and take its record."""
        self.pending.drain()

    def job_of(self, key: str, expr, steps, extra, cutoff: float | None) -> dict:
        return self.job.of_candidate(key, expr, steps, extra[0] if extra else {}, cutoff)

    def take(self, finished: dict, program=None) -> None:
        """A finished candidate's record: cached, logged and counted (in the order they
        finish, as in the log file); past the time limit, the search ends here. ``program``:
        the one its job carried, kept while it is the best."""
        finished.setdefault("finished", time.time())
        finished["strategy"] = self.strategy
        record = self.log.append(finished)  # refused (LogError) when it is no record
        self.cache[record.key] = record
        best = self.best_ms
        self._count(record)
        if program is not None and self.best_ms != best and self.best_ms == record.kernel_ms:
            self.best_program = (record.key, program)
        if self.time_up():
            raise TimeLimitReached(self.time_limit_text())

    def _count(self, record: Record, announce: bool = True) -> None:
        if record.key in self.seen:
            return
        self.seen.add(record.key)
        self.records.append(record)
        ms = record.kernel_ms
        if record.correct and ms and (self.best_ms is None or ms < self.best_ms):
            self.best_ms = ms
        if record.key in self.logged_before:
            self.from_log += 1
        if self.progress is not None and announce:
            self.progress(record)


def spare_core(workers: int) -> bool:
    """Whether this host has a core for the search's own work beside its ``workers``."""
    return (os.cpu_count() or 1) > workers + 1


class Pending:
    """Candidates submitted and not finished. An evaluator that runs candidates elsewhere
    (an executor, a Dask cluster) is given them one by one, up to ``lookahead`` at once
    (twice the search's batch), so that a worker that finishes finds the next waiting while
    the strategy prepares more (``running``: key -> (future, job)); other evaluators measure
    those kept (``kept``) at the next ``flush``, as one batch."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.asynchronous = hasattr(ctx.evaluator, "submit")
        self.lookahead = 2 * max(1, ctx.batch)
        self.running: dict[str, tuple] = {}
        self.kept: list[dict] = []

    def count(self) -> int:
        return len(self.running) + len(self.kept)

    def submit(self, candidates: list[tuple]) -> None:
        """For a strategy that does not need the records to choose its next candidates
        (random, exhaustive, ranked): this waits only while ``lookahead`` candidates are
        running. Finished records are taken as ``measure`` takes them (the log,
        ``progress``, the time limit); ``Context.left`` counts the candidates not
        finished."""
        ctx = self.ctx
        cutoff = ctx.cutoff_ms()
        for expr, steps, *extra in candidates:
            key = ctx.key_of(str(expr))
            if key in ctx.cache:
                ctx._count(ctx.cache[key])  # measured before (a resumed search)
                continue
            if key in self.running or any(job["key"] == key for job in self.kept):
                continue
            if not self.asynchronous:
                self.kept.append(ctx.job_of(key, expr, steps, extra, cutoff))
                continue
            while len(self.running) >= self.lookahead:
                self._collect(wait=True)
            job = ctx.job_of(key, expr, steps, extra, ctx.cutoff_ms())
            self.running[key] = (ctx.evaluator.submit(job), job)
        self._collect(wait=False)

    def flush(self) -> None:
        """The kept candidates measured now, as one batch (an evaluator that runs them
        elsewhere: the records of those finished taken, without waiting)."""
        if self.kept:
            jobs, self.kept = self.kept, []
            programs = {j["key"]: j["program"] for j in jobs if "program" in j}
            for record in self.ctx.evaluator.evaluate(jobs):
                self.ctx.take(record, programs.get(record.get("key")))
        self._collect(wait=False)

    def drain(self) -> None:
        self.flush()
        while self.running:
            self._collect(wait=True)

    def _collect(self, wait: bool) -> None:
        if not self.running:
            return
        evaluator = self.ctx.evaluator
        futures = [future for future, _ in self.running.values()]
        for future in evaluator.finished(futures, wait=wait):
            key = next(k for k, (f, _) in self.running.items() if f is future)
            _, job = self.running.pop(key)
            self.ctx.take(evaluator.record(future, job), job.get("program"))
