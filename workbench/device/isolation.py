"""Running jobs in processes of their own, so that a kernel that hangs or crashes the driver
(as PoCL can: its LLVM aborts the process on some kernels) ends only that process (SPEC 7).

- ``run_isolated(job, …)``: one job in a fresh process, with a time limit.
- ``WorkerPool``: persistent worker processes that take jobs one at a time; a worker that
  overruns its job's time limit is killed and replaced, one that dies is replaced, and the
  pool goes on with the next job.

Workers die with their parent (``die_with_parent``): a search that is killed leaves no
worker behind holding the device. Workers ignore SIGINT: Ctrl-C in a terminal and a
Jupyter kernel interrupt signal the whole process group, and only the parent decides what
an interrupt ends (a job cut short by it must not be reported as the job's own failure).
The time a job spends waiting for the device lock (``lock``) is not counted against
its time limit: the worker tells its parent when it waits and when it has the device.

A spawned process runs the main module's top level again before its job; a script that
starts workers outside ``if __name__ == "__main__":`` would so start them again in each
child, which ``multiprocessing`` refuses. Such a script's workers are started without its
main module (``spawning``), as an interactive session's are.
"""

from __future__ import annotations

import ast
import collections
import contextlib
import ctypes
import functools
import multiprocessing
import os
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import wait as wait_for

from . import lock as device_lock

TIMEOUT, CRASHED = "timeout", "crashed"
RECENT = 32  # jobs a worker remembers for ``WorkerPool``'s affinity (the programs it keeps)


def die_with_parent() -> None:
    """End this process when its parent ends: the kernel's parent-death signal (Linux), and
    a watch on the parent's pid everywhere (the signal follows the parent *thread*)."""
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError, TypeError):  # not Linux (Windows has no CDLL(None))
        pass
    if os.getppid() != parent:  # the parent ended before the signal was armed
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


class _Clock:
    """A job's own time: wall time since it started, less the time it waited for a device."""

    def __init__(self):
        self.started = time.monotonic()
        self.waited = 0.0
        self.waiting_since: float | None = None

    def event(self, name: str) -> None:
        now = time.monotonic()
        if name == device_lock.WAITING:
            self.waiting_since = now
        elif name == device_lock.ACQUIRED and self.waiting_since is not None:
            self.waited += now - self.waiting_since
            self.waiting_since = None

    def spent(self) -> float:
        now = time.monotonic()
        waiting = now - self.waiting_since if self.waiting_since is not None else 0.0
        return now - self.started - self.waited - waiting

    def left(self, limit: float) -> float | None:
        """Seconds until the limit (None while the job waits for the device)."""
        return None if self.waiting_since is not None else limit - self.spent()


# --- starting processes from a script without the main guard ---------------------------------

_MAIN_SWAP = threading.Lock()


@contextlib.contextmanager
def spawning() -> Iterator[None]:
    """Processes spawned in this block do not run the main module again when it is a script
    whose top level is running outside an ``if __name__ == "__main__":`` block (run again,
    it would start them again). Their jobs are the workbench's own functions, which need no
    main module; elsewhere (a guarded script, a notebook) this changes nothing."""
    if not main_runs_unguarded():
        yield
        return
    with _MAIN_SWAP:
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")  # no file: not run again
        try:
            yield
        finally:
            sys.modules["__main__"] = main


def main_runs_unguarded() -> bool:
    """Whether the main module is a file whose top level is running now (in this thread or
    the main thread) at a statement outside an ``if __name__ == "__main__":`` block."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None or getattr(sys, "frozen", False):
        return False
    frames = [sys._getframe(), sys._current_frames().get(threading.main_thread().ident)]
    for frame in frames:
        while frame is not None:
            if frame.f_globals is vars(main) and frame.f_code.co_name == "<module>":
                return not _guarded(os.path.abspath(path), frame.f_lineno)
            frame = frame.f_back
    return False


@functools.lru_cache(maxsize=8)
def _guarded(path: str, line: int) -> bool:
    """Whether ``line`` of the file lies in the body of a top-level ``if __name__ ==
    "__main__":`` (a file that cannot be read is taken as guarded)."""
    try:
        with open(path, encoding="utf-8") as file:
            module = ast.parse(file.read())
    except (OSError, SyntaxError, ValueError):
        return True
    for statement in module.body:
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            return isinstance(statement, ast.If) and _is_main_test(statement.test) and any(
                s.lineno <= line <= (s.end_lineno or s.lineno) for s in statement.body)
    return True


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


# --- one job, one process --------------------------------------------------------------------

def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _one_job(conn, job, args, kwargs):
    die_with_parent()
    _ignore_interrupts()
    device_lock.listen(lambda event: conn.send(("lock", event)), worker=True)
    try:
        conn.send(("value", job(*args, **kwargs)))
    except BaseException as err:  # reported to the parent, which survives
        conn.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        conn.close()


@dataclass
class Finished:
    """How an isolated job ended: ``value`` (its result), ``error`` (it raised; ``payload`` is
    the message), ``timeout`` or ``crashed`` (``payload`` says what happened)."""

    kind: str
    payload: object = None


def run_isolated(job: Callable, *args, timeout: float = 60.0, **kwargs) -> Finished:
    """Run ``job(*args, **kwargs)`` in a fresh process; a hang past ``timeout`` seconds of its
    own time (waiting for a device does not count) is a ``timeout``, a crash (even one that
    kills the process) ``crashed``."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_one_job, args=(child, job, args, kwargs), daemon=True)
    with spawning():
        process.start()
    child.close()
    clock = _Clock()
    try:
        while True:
            left = clock.left(timeout)
            if left is not None and left <= 0:
                process.kill()
                return Finished(TIMEOUT, f"no result within {timeout:g} s; the worker was "
                                f"stopped")
            if not parent.poll(left if left is not None else 1.0):
                continue
            try:
                kind, payload = parent.recv()
            except EOFError:
                process.join()
                return Finished(CRASHED, f"the worker process died "
                                f"({_exit_text(process.exitcode)})")
            if kind == "lock":
                clock.event(payload)
            else:
                return Finished(kind, payload)
    except KeyboardInterrupt:  # the caller was interrupted: the job's result is not wanted
        process.kill()
        raise
    finally:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
        parent.close()


def _exit_text(code: int | None) -> str:
    if code is None:
        return "still running"
    return f"signal {-code}" if code < 0 else f"exit code {code}"


# --- a pool of workers -----------------------------------------------------------------------

def _worker_loop(conn, task, warm=None, warm_job=None):
    die_with_parent()
    _ignore_interrupts()
    device_lock.listen(lambda event: conn.send(("lock", event)), worker=True)
    if warm is not None:
        try:
            warm(warm_job)
        except Exception:  # pragma: no cover - a job meets the same failure and reports it
            pass
    conn.send(("ready",))
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        ticket, job = message
        try:
            conn.send(("value", ticket, task(job)))
        except BaseException as err:  # the job's failure, reported; the worker goes on
            conn.send(("error", ticket, f"{type(err).__name__}: {err}"))


def _overran(clock: _Clock, limit: float) -> bool:
    left = clock.left(limit)
    return left is not None and left <= 0


@dataclass
class _Worker:
    process: object
    conn: object
    ticket: int | None = None
    job: object = None
    clock: _Clock = field(default_factory=_Clock)
    ready: bool = False  # started, warmed up, and said so
    started: float = field(default_factory=time.monotonic)
    replacing: bool = False  # started in place of one that crashed or overran
    warming: bool = False  # runs the warm-up before it says it is ready
    holding: bool = False  # holds the device's lock (builds or times a kernel on a CPU)
    # what the worker's last jobs had in common with others (``WorkerPool``'s ``affinity``)
    recent: collections.deque = field(default_factory=lambda: collections.deque(maxlen=RECENT))


class WorkerPool:
    """``workers`` persistent processes running ``task(job)`` (a picklable function), one job
    each at a time. ``run(jobs)`` yields ``(job, Finished)`` as jobs finish.

    A worker gets its first job once it has started (and run ``warm(job)``, when given, on
    a job like the ones it will get: imports, inputs), so a job's time limit counts only its
    own time. A worker whose job crashed or overran is replaced at once, while the others
    go on: its replacement warms up on the job that ended it. ``restarts`` counts the
    replacements, ``lost_seconds`` the worker time they cost: the jobs that crashed or
    overran, from their start to their end, and the start of the workers that replaced
    theirs."""

    def __init__(self, task: Callable, workers: int = 2, timeout: float = 60.0,
                 warm: Callable | None = None, affinity: Callable | None = None):
        self.task, self.size, self.timeout, self.warm = task, max(1, workers), timeout, warm
        self.affinity = affinity
        self._ctx = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self.restarts = 0  # workers started in place of one that crashed or overran
        self.lost_seconds = 0.0

    def start(self, job, workers: int = 1) -> None:
        """Start ``workers`` workers now (at most the pool's size), each warming up on
        ``job`` (one like those it will get), so that they are ready when the first jobs
        come: what the caller does meanwhile (a search preparing its first candidates)
        overlaps their start. The others start when jobs wait for them."""
        while len(self._workers) < min(workers, self.size):
            self._start(job)

    def device_held(self) -> bool:
        """Whether a worker holds its device's lock (as last reported): on a CPU it builds
        or times a kernel on the cores this process would take."""
        return any(w.holding for w in self._workers)

    def _start(self, job=None, replacing: bool = False) -> _Worker:
        parent, child = self._ctx.Pipe(duplex=True)
        warm = self.warm if job is not None else None
        process = self._ctx.Process(target=_worker_loop, args=(child, self.task, warm, job),
                                    daemon=True)
        with spawning():
            process.start()
        child.close()
        worker = _Worker(process, parent, replacing=replacing, warming=warm is not None)
        self._workers.append(worker)
        return worker

    def _stop(self, worker: _Worker) -> None:
        worker.process.kill()
        worker.process.join(timeout=5)
        worker.conn.close()
        self._workers.remove(worker)

    def _replace(self, worker: _Worker, job) -> None:
        """Stop a worker whose job crashed or overran (or that died between jobs), count
        what it cost, and start its replacement (warming up on that job)."""
        if worker.ticket is not None:
            self.lost_seconds += time.monotonic() - worker.clock.started
        self._stop(worker)
        self.restarts += 1
        self._start(job, replacing=True)

    def _give(self, worker: _Worker, ticket: int, job) -> bool:
        try:
            worker.conn.send((ticket, job))
        except (BrokenPipeError, OSError):  # it died between jobs
            self._replace(worker, job)
            return False
        worker.ticket, worker.job, worker.clock = ticket, job, _Clock()
        if self.affinity is not None:
            worker.recent.append(self.affinity(job))
        return True

    def run(self, jobs: Iterable, idle: Callable[[], bool] | None = None,
            quiet: bool = False) -> Iterator[tuple[object, Finished]]:
        """``(job, Finished)`` as the jobs finish. ``idle()``, when given, is called while
        the jobs run instead of sleeping, one small piece of work per call, until it says
        (False) that it has no more; with ``quiet``, not while a worker holds the device (a
        CPU device, whose kernels' times the work would disturb)."""
        waiting = list(enumerate(jobs))
        while waiting or any(w.ticket is not None for w in self._workers):
            self._hand_out(waiting)
            starting = [w for w in self._workers if not w.ready]
            busy = [w for w in self._workers if w.ticket is not None]
            now = idle is not None and not (quiet and self.device_held())
            ready = wait_for([w.conn for w in busy + starting],
                             timeout=0 if now else self._pause(busy))
            if not ready and now and not idle():
                idle = None  # no more to do: wait for the workers
            for worker in starting:
                if worker.conn in ready and not self._started(worker) and waiting:
                    # a worker that dies as it starts would die with any job: the next fails
                    yield waiting.pop(0)[1], Finished(CRASHED, "the worker process died as it "
                                                      "started")
            yield from self._collect(busy, ready)

    def _hand_out(self, waiting: list) -> None:
        """The waiting jobs given to idle workers, and workers started for the others."""
        while waiting:
            ticket, job = waiting[0]
            idle = self._idle_for(job)
            if idle is None:
                break
            if self._give(idle, ticket, job):
                waiting.pop(0)
        starting = [w for w in self._workers if not w.ready]
        for _ in range(min(self.size - len(self._workers), len(waiting) - len(starting))):
            starting.append(self._start(waiting[0][1]))

    def _idle_for(self, job) -> _Worker | None:
        """An idle worker for ``job``: one whose last ``RECENT`` jobs include one of the
        same ``affinity`` (what it kept of that job serves this one: a search's re-timing
        of its best candidate finds the program built), else the first idle one."""
        idle = [w for w in self._workers if w.ready and w.ticket is None]
        if self.affinity is not None and len(idle) > 1:
            mark = self.affinity(job)
            return next((w for w in idle if mark is not None and mark in w.recent), idle[0])
        return idle[0] if idle else None

    def _pause(self, busy: list[_Worker]) -> float:
        """How long to wait for a worker's word: until the first time limit, a second at
        most."""
        lefts = [w.clock.left(self.timeout) for w in busy]
        timed = [left for left in lefts if left is not None]
        return min(max(0.0, min(timed)) if timed else 1.0, 1.0)

    def _collect(self, busy: list[_Worker], ready: list) -> Iterator[tuple[object, Finished]]:
        for worker in busy:
            if worker.conn in ready:
                finished = self._receive(worker)
                if finished is not None:
                    yield finished
            elif _overran(worker.clock, self.timeout):
                job = worker.job
                self._replace(worker, job)
                yield job, Finished(TIMEOUT, f"no result within {self.timeout:g} s; the "
                                    f"worker was stopped")

    def _started(self, worker: _Worker) -> bool:
        """A starting worker's first word: ready (its start counted as lost when it replaced
        another), or its death: one that died warming up is started again without the
        warm-up (which may be what killed it); False when one died without it."""
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            self._stop(worker)
            if worker.replacing:
                self.lost_seconds += time.monotonic() - worker.started
            if not worker.warming:
                return False
            self.restarts += 1
            self._start(None, replacing=True)
            return True
        if message[0] == "ready":
            worker.ready = True
            if worker.replacing:
                self.lost_seconds += time.monotonic() - worker.started
        return True

    def _receive(self, worker: _Worker) -> tuple[object, Finished] | None:
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            job = worker.job
            code = worker.process.exitcode
            worker.process.join(timeout=5)
            code = worker.process.exitcode if code is None else code
            self._replace(worker, job)
            return job, Finished(CRASHED, f"the worker process died while running this job "
                                 f"({_exit_text(code)})")
        if message[0] == "lock":
            worker.clock.event(message[1])
            worker.holding = message[1] == device_lock.ACQUIRED
            return None
        kind, ticket, payload = message
        if ticket != worker.ticket:  # pragma: no cover - one job at a time per worker
            return None
        job = worker.job
        worker.ticket, worker.job = None, None
        return job, Finished(kind, payload)

    def close(self) -> None:
        """Stop the workers: idle ones are told to end, busy ones (the caller stopped waiting
        for their jobs, e.g. on an interrupt) and starting ones are killed at once."""
        for worker in list(self._workers):
            if worker.ticket is not None or not worker.ready:
                worker.process.kill()
                continue
            try:
                worker.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        deadline = time.monotonic() + 5
        for worker in list(self._workers):
            worker.process.join(timeout=max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self._workers.clear()
