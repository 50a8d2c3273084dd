"""Evaluating candidates: each one is generated, built, run, checked against the interpreter
and timed on a device, in a worker process (SPEC 7, 8).

A *job* is a plain dict (expression text, the program text of its user functions, concrete
input types and their ranges, sizes, device, seed), so it travels to any worker — a local
process pool or a Dask cluster; a strategy that compiled the candidate already (for its cost
model) sends the compiled ``program`` with it, and the worker does not compile it again. Its
*record* is a plain dict too: what the log stores and the plots read (``log.Record``).

Evaluators all offer ``evaluate(jobs) -> iterator of records, as they finish``:
- ``PoolEvaluator``: local worker processes (spawned), a time limit per candidate (a worker
  that overruns is killed and replaced; time spent waiting for the device does not count),
  and a crash of one candidate costs only that one;
- ``ExecutorEvaluator``: any ``concurrent.futures``-style executor, or a Dask ``Client``;
  each candidate then runs, with the time limit, in a process of its own on the worker
  (on a Dask worker: a warm process the worker keeps, ``evaluate_warm``);
- ``ReplayEvaluator``: answers from a recorded log, so a search recorded on one machine can
  be replayed on another (Kernel Tuner's simulation mode);
- ``InlineEvaluator``: in this process, for quick experiments.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import os
import pickle
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

TIMEOUT = "timeout"
KERNEL_NAME = "kernel"  # the kernels' name in a candidate's program: its text names none


def job_key(expression: str, sizes: dict, device: str | None, types=()) -> str:
    """Candidates are equal when their expressions print the same (expressions print in a
    normal form, up to renaming of bound variables) for the same sizes, input types and
    device (its name, platform and driver: ``log.device_text``)."""
    size_text = ",".join(f"{k}={v}" for k, v in sorted(sizes.items()))
    return f"{expression} | {size_text} | {', '.join(map(str, types))} | {device or 'default'}"


def evaluate_candidate(job: dict) -> dict:
    """Run one candidate; every failure is a status in the record, never an exception."""
    start = time.perf_counter()
    record = {"key": job["key"], "expression": job["expression"], "steps": job.get("steps", []),
              "sizes": job["sizes"], "device": job.get("device") or "default",
              **_ranking(job)}
    try:
        from ..notation import parse
        from ..notation.reading import user_functions
        from ..run import run
        from ..several.cluster import pinned_device, placement

        functions = user_functions(job.get("definitions", ""))
        expr = declared_for(parse(job["expression"], functions), job["types"])
        inputs, expected = _inputs_and_expected(job, functions)
        result = run(expr, *inputs, device=pinned_device(job.get("device")),
                     repeat=job.get("repeat", 10),
                     sizes=job["sizes"], time_limit_ms=job.get("time_limit_ms", 2000.0),
                     expected=expected, cutoff_ms=job.get("cutoff_ms"),
                     program=job.get("program"), build_options=job.get("build_options"))
        record.update(status=result.status, correct=result.correct, message=result.message,
                      kernel_ms=result.kernel_ms, kernel_ms_min=result.kernel_ms_min,
                      kernel_ms_max=result.kernel_ms_max, runs=result.runs,
                      max_error=result.max_error,
                      source_sha256=result.source_sha256, device_name=result.device,
                      codegen_ms=result.codegen_ms, build_ms=result.build_ms)
        record.update(placement(job.get("device")))  # a Dask worker's host and device
    except Exception as err:  # a bug in one candidate must not end the search
        record.update(status="error", correct=False, message=f"{type(err).__name__}: {err}",
                      kernel_ms=None)
    record["seconds"] = time.perf_counter() - start
    return record


def source_sha256(expression: str, definitions: str, types, sizes: dict) -> str:
    """The hash of the OpenCL source a worker generates for a candidate today (its record's
    ``source_sha256``: the candidate's text parsed with the program's functions, declared at
    the search's input ``types`` and compiled at its ``sizes``, as ``evaluate_candidate``
    runs it); '' where none is generated."""
    from ..codegen.program import opencl
    from ..notation import parse, parse_type
    from ..notation.reading import user_functions

    try:
        expr = declared_for(parse(expression, user_functions(definitions)), list(types))
        return opencl(expr, *[parse_type(t) for t in types], sizes=sizes, complete=True,
                      name=KERNEL_NAME).sha256
    except Exception:  # a candidate the generator refuses now (or fails on): no source
        return ""


def _inputs_and_expected(job: dict, functions) -> tuple[list, object]:
    """The job's inputs and the interpreter's output of its reference on them (None without
    one). The candidate's text carries no signature: its inputs take the job's types; a
    worker keeps the inputs (and the program's output on them) of its last few searches, so
    a large input is drawn once per worker, not per candidate; the output is interpreted
    once per input set (``expected_output``), not per worker."""
    from ..inputs import random_inputs
    from ..notation import parse, parse_ranges, parse_type
    from ..semantics import evaluate, typed_input

    types = [parse_type(t) for t in job["types"]]
    ranges = parse_ranges(job["ranges"]) if job.get("ranges") else None
    key = json.dumps([job["types"], job["sizes"], job.get("seed", 0), job.get("ranges")])
    inputs = _cached(("inputs", key), lambda: [
        typed_input(v, t) for v, t in
        zip(random_inputs(types, job["sizes"], job.get("seed", 0), ranges), types)])
    if not job.get("reference"):
        return inputs, None

    def interpret():
        reference = declared_for(parse(job["reference"], functions), job["types"])
        return evaluate(reference, *inputs, sizes=job["sizes"])

    # computed once per input set, for every worker and every search of these inputs
    return inputs, _cached(("expected", key, job["reference"]),
                           lambda: expected_output(job, interpret))


def declared_for(expr, type_texts: list[str]):
    """A candidate parsed from its text, declared to take inputs of the job's types where
    they hold vectors: an input of ``[<float>_4]_N`` is drawn as an N×4 array, which an
    expression with no declared type would read as ``[[float]_4]_N`` (Lift's N-body and
    molecular dynamics on float4)."""
    from ..expr import Signature, with_signature
    from ..notation import parse_type
    from ..typecheck import typecheck
    from ..types import FunctionType

    types = [parse_type(t) for t in type_texts]
    if not any(_holds_vectors(t) for t in types):
        return expr
    declared = typecheck(expr, *types)
    for t in reversed(types):
        declared = FunctionType(t, declared)
    return with_signature(expr, Signature(type=declared))


def program_travels(types) -> bool:
    """Whether a candidate's program compiled where the candidate is prepared, from its
    expression at the search's types and sizes under ``KERNEL_NAME``, is the one the worker
    would compile from its text (and so may travel in its job): not where an input holds
    vectors, which the worker declares on the parsed text (``declared_for``)."""
    return not any(_holds_vectors(t) for t in types)


def _holds_vectors(t) -> bool:
    from ..types import ArrayType, TupleType, VectorType

    if isinstance(t, VectorType):
        return True
    if isinstance(t, ArrayType):
        return _holds_vectors(t.elem)
    return isinstance(t, TupleType) and any(_holds_vectors(i) for i in t.items)


def candidate_of(job: dict) -> str | None:
    """Which candidate a job runs (its key): the worker that ran it keeps its program
    (``runtime.ProgramCache``), so a search's re-timing of its best candidate goes there
    (``WorkerPool``'s affinity) and does not build it again."""
    return job.get("key")


def prepare_candidate(job: dict) -> None:
    """What a worker does before its first candidate (``WorkerPool``'s warm-up), so that
    neither a candidate's time limit nor, after a crash, the next candidate pays for it:
    the imports, the device opened, and the inputs and expected output of the job's
    search."""
    from ..notation.reading import user_functions
    from ..runtime import context_for

    context_for(job.get("device"))
    _inputs_and_expected(job, user_functions(job.get("definitions", "")))


_CACHE: dict = {}  # this worker's recent inputs and interpreter outputs
_CACHE_ENTRIES = 4


def _cached(key, make):
    if key not in _CACHE:
        while len(_CACHE) >= _CACHE_ENTRIES:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = make()
    return _CACHE[key]


def evaluate_isolated(job: dict, timeout: float) -> dict:
    """``evaluate_candidate`` in a fresh process of its own, with a time limit."""
    from ..runtime import run_isolated

    outcome = run_isolated(evaluate_candidate, job, timeout=timeout)
    if outcome.ok:
        return outcome.value
    return failed(job, outcome.status, outcome.message)


_WARM: dict = {}  # this process's warm worker pool per (device, time limit)
_WARM_LOCK = threading.Lock()


def evaluate_warm(job: dict, timeout: float) -> dict:
    """``evaluate_candidate`` in a worker process that this process keeps between candidates
    (one per device it is asked for), with a time limit: what a Dask worker runs. The
    worker has done its imports, opened the device and drawn the search's inputs before
    the first candidate; a candidate that crashes or overruns costs only that worker
    process, which is replaced (``isolation.WorkerPool``). A fresh process per candidate
    spent more than half of each candidate's time starting."""
    key = (job.get("device"), timeout)
    with _WARM_LOCK:
        if key not in _WARM:
            _WARM[key] = (PoolEvaluator(1, timeout), threading.Lock())
        evaluator, lock = _WARM[key]
    with lock:  # one candidate at a time per device
        return next(evaluator.evaluate([job]))


def failed(job: dict, status: str, message: str) -> dict:
    return {"key": job["key"], "expression": job["expression"], "steps": job.get("steps", []),
            "sizes": job["sizes"], "device": job.get("device") or "default", "status": status,
            "correct": False, "message": message, "kernel_ms": None, **_ranking(job)}


def _ranking(job: dict) -> dict:
    """What a cost model said of the candidate (its features and predicted time), what the
    strategy noted of it (``details``) and the time past which it was timed once
    (``cutoff_ms``), kept in the record so that any log calibrates a model again (and a
    strategy reads its notes back)."""
    return {k: job[k] for k in ("features", "predicted_ms", "details", "cutoff_ms",
                                "build_options") if k in job}


class InlineEvaluator:
    def evaluate(self, jobs: Iterable[dict]) -> Iterator[dict]:
        for job in jobs:
            yield evaluate_candidate(job)

    def close(self) -> None:
        pass


class PoolEvaluator:
    """Worker processes of our own (``isolation.WorkerPool``), at most ``workers`` candidates
    at once. A candidate that overruns ``timeout`` seconds of its own time (waiting for the
    device does not count) or kills its worker is recorded with that outcome; the worker is
    replaced and the search goes on. The workers die with the search's process. Each
    worker prepares its search's inputs before its first candidate (``prepare_candidate``),
    a replacement while the others go on. ``restarts`` and ``lost_seconds`` say what
    crashes and time-outs cost: workers started again, and the worker time spent on the
    candidates that crashed or overran and on starting their replacements."""

    def __init__(self, workers: int = 2, timeout: float = 60.0, task=None):
        from ..device.isolation import WorkerPool

        self.workers = max(1, workers)
        self.timeout = timeout
        self.pool = WorkerPool(task or evaluate_candidate, self.workers, timeout,
                               warm=prepare_candidate if task is None else None,
                               affinity=candidate_of if task is None else None)

    @property
    def restarts(self) -> int:
        return self.pool.restarts

    @property
    def lost_seconds(self) -> float:
        return self.pool.lost_seconds

    def start(self, job: dict) -> None:
        """Start the workers now, each preparing ``job``'s search (``prepare_candidate``)
        while the search prepares its first candidates."""
        self.pool.start(job)

    def evaluate(self, jobs: Iterable[dict], idle=None, quiet: bool = False
                 ) -> Iterator[dict]:
        """Records as candidates finish; ``idle()`` does the caller's work while they run
        (not while a worker holds the device, with ``quiet``: ``WorkerPool.run``)."""
        for job, finished in self.pool.run(jobs, idle, quiet):
            yield finished.payload if finished.kind == "value" else \
                failed(job, finished.kind, finished.payload)

    def close(self) -> None:
        self.pool.close()


class ExecutorEvaluator:
    """Candidates submitted to a ``concurrent.futures`` executor or a Dask ``Client``
    (``dask.distributed``), each in a process of its own on the worker with a time limit (a
    Dask worker keeps that process warm between candidates: ``evaluate_warm``).
    Besides ``evaluate``, a search submits candidates one by one (``submit``) and takes
    their records as they finish (``finished``, ``record``), preparing the next candidates
    while the workers run these (``Context.submit``); ``parallelism`` says how many run at
    once."""

    def __init__(self, executor, timeout: float = 60.0):
        self.executor = executor
        self.timeout = timeout
        self.dask = type(executor).__module__.startswith("distributed")

    @property
    def parallelism(self) -> int:
        """Candidates the executor runs at once: a Dask cluster's threads (one per worker
        of ``device_cluster``, each pinned to a device), an executor's ``max_workers``;
        4 where it does not say."""
        if self.dask:
            threads = sum(self.executor.nthreads().values())
        else:
            threads = getattr(self.executor, "_max_workers", 0)
        return threads if isinstance(threads, int) and threads > 0 else 4

    def submit(self, job: dict):
        """Start one candidate; its future."""
        if self.dask:
            return self.executor.submit(evaluate_warm, job, self.timeout, pure=False)
        return self.executor.submit(evaluate_isolated, job, self.timeout)

    def finished(self, futures: list, wait: bool = False) -> list:
        """The futures that have finished, in the order given; with ``wait``, after the
        first one of them finishes."""
        if wait and futures:
            if self.dask:
                from distributed import wait as dask_wait

                dask_wait(futures, return_when="FIRST_COMPLETED")
            else:
                cf.wait(futures, return_when=cf.FIRST_COMPLETED)
        return [f for f in futures if f.done()]

    def record(self, future, job: dict) -> dict:
        """A finished candidate's record (a worker that died with it: ``crashed``)."""
        try:
            return future.result()
        except Exception as err:
            return failed(job, "crashed", f"{type(err).__name__}: {err}")

    def evaluate(self, jobs: Iterable[dict]) -> Iterator[dict]:
        futures = {self.submit(job): job for job in jobs}
        if not futures:
            return
        if self.dask:
            from distributed import as_completed

            done = as_completed(list(futures))
        else:
            done = cf.as_completed(futures)
        for future in done:
            yield self.record(future, futures[future])

    def close(self) -> None:
        pass


class ReplayEvaluator:
    """Answers from recorded records (keyed by candidate); a candidate that was never
    measured is reported as such, and counts as a failed evaluation."""

    def __init__(self, records: Iterable[dict], device: str | None = None):
        self.records = {}
        for r in records:
            self.records.setdefault(_replay_key(r), r)

    def evaluate(self, jobs: Iterable[dict]) -> Iterator[dict]:
        for job in jobs:
            found = self.records.get(_replay_key(job))
            if found is None:
                yield failed(job, "not in log", "this candidate was not measured in the "
                             "replayed log")
            else:
                yield dict(found, key=job["key"], steps=job.get("steps", found.get("steps")),
                           **_ranking(job))

    def close(self) -> None:
        pass


def _replay_key(record: dict) -> str:
    """The expression and sizes (and the build options, where there are any), without the
    device: a log from another machine answers for this one (the search checked that the
    log's header is of these inputs)."""
    sizes = ",".join(f"{k}={v}" for k, v in sorted((record.get("sizes") or {}).items()))
    options = " ".join(record.get("build_options") or ())
    return f"{record['expression']} | {sizes}" + (f" | {options}" if options else "")


# --- the expected output, computed once per input set ---------------------------------------
# The output every candidate of a search is checked against: the interpreter's output of
# the search's program on its inputs, computed once per input set.
# A search's workers each need it (and a worker started after a crash, and the same search
# resumed or run again tomorrow): the first to ask computes it and keeps it in the user's
# private cache folder (``userdirs.private_dir``), keyed by everything it depends on (the
# program and its functions, the input types, sizes, seed and ranges, and the interpreter's
# source); the others wait for it there and read it. The interpreter of a stencil at 4096²
# takes seconds, which each of four workers spent again before.

EXPECTED_KEPT = 8  # outputs kept in the cache folder, the most recently used
EXPECTED_LARGEST = 1 << 30  # bytes: a larger output is computed by each worker, not kept


def reference_key(job: dict) -> str:
    """What the expected output depends on, as a hash: the reference program and its
    functions, the inputs' types, sizes, seed and ranges, and the interpreter that computed
    it (``interpreter_fingerprint``)."""
    fields = [job.get("reference"), job.get("definitions", ""), list(job["types"]),
              sorted(job["sizes"].items()), job.get("seed", 0), job.get("ranges"),
              interpreter_fingerprint()]
    return hashlib.sha256(json.dumps(fields, default=str).encode()).hexdigest()[:32]


@cache
def interpreter_fingerprint() -> str:
    """The package's source files as they are (names, sizes, times of change): an output
    computed by an interpreter edited since (a checkout under work) is not taken for
    this one's."""
    root = Path(__file__).parent.parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        info = path.stat()
        digest.update(f"{path.relative_to(root)}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()[:16]


def expected_output(job: dict, compute: Callable[[], object]):
    """The interpreter's output for the job's search: read from the cache folder, else
    computed (``compute()``) and kept there, one process computing it while the others
    wait. Where the folder cannot be used, computed here."""
    try:
        folder = _expected_folder()
    except OSError:
        return compute()
    path = folder / f"expected-{reference_key(job)}.pickle"
    with _locked(folder / f"expected-{reference_key(job)}.lock"):
        found = _read_expected(path)
        if found is not None:
            return found[0]
        value = compute()
        _write_expected(path, value)
    _forget_old_expected(folder)
    return value


def _expected_folder() -> Path:
    from ..device.userdirs import private_dir

    return private_dir("expected")


@contextmanager
def _locked(path: Path):
    """Held by one process at a time (an ``flock``, released if its holder dies)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: each process computes its own
        yield
        return
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read_expected(path: Path) -> tuple | None:
    """``(value,)`` as kept, or None when there is none or it cannot be read (a file cut
    short by a kill: computed again)."""
    try:
        with open(path, "rb") as handle:
            value = pickle.load(handle)  # noqa: S301 - our own file, in a private folder
        os.utime(path)  # the most recently used
        return (value,)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ValueError):
        return None


def _write_expected(path: Path, value) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    if len(data) > EXPECTED_LARGEST:
        return
    partial = path.with_suffix(f".{os.getpid()}.part")
    try:
        partial.write_bytes(data)
        os.replace(partial, path)  # whole or not at all
    except OSError:
        partial.unlink(missing_ok=True)


def _forget_old_expected(folder: Path) -> None:
    """Only the ``EXPECTED_KEPT`` outputs used last are kept (with their lock files)."""
    kept = sorted(folder.glob("expected-*.pickle"), key=_mtime, reverse=True)
    for path in kept[EXPECTED_KEPT:]:
        path.unlink(missing_ok=True)
        path.with_suffix(".lock").unlink(missing_ok=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
