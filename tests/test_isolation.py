"""A pool of worker processes survives jobs that kill or hang their worker, and says what
they cost: the workers started again and the worker time lost (SPEC 7)."""

import os
import signal
import time

from workbench.device.isolation import CRASHED, TIMEOUT, WorkerPool
from workbench.search.evaluation import PoolEvaluator


def _answer_or_die(job: str) -> str:
    """A job that returns its name, or, for "die", takes a moment and kills its process
    (as a driver that crashes does), or, for "hang", never ends."""
    if job == "die":
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGKILL)
    if job == "hang":
        time.sleep(60)
    return job


def _slow_warm_up(job) -> None:
    time.sleep(3)  # longer than the pool's time limit: must not count against any job


def _pid_of(job: tuple[str, str]) -> tuple[str, int]:
    """The job's name and its worker's pid; "a1" waits until "b1" has run (so that the two
    run on two workers)."""
    name, folder = job
    if name == "a1":
        while not os.path.exists(os.path.join(folder, "b1")):
            time.sleep(0.05)
    open(os.path.join(folder, name), "w").close()
    return name, os.getpid()


def test_a_job_goes_to_the_idle_worker_that_ran_one_of_its_affinity(tmp_path):
    # a search's re-timing of its best candidate goes to the worker that built its program
    pool = WorkerPool(_pid_of, workers=2, timeout=60, affinity=lambda job: job[0][0])
    try:
        ran = dict(f.payload for _, f in pool.run([("a1", str(tmp_path)), ("b1", str(tmp_path))]))
        assert ran["a1"] != ran["b1"]
        for kind in "ba":  # each alone, both workers idle: to the one that ran its kind
            [(_, finished)] = list(pool.run([(kind + "2", str(tmp_path))]))
            assert finished.payload[1] == ran[kind + "1"]
    finally:
        pool.close()


def test_a_job_that_kills_its_worker_costs_one_restart_and_its_time():
    pool = WorkerPool(_answer_or_die, workers=1, timeout=30)
    try:
        outcomes = {job: finished for job, finished in pool.run(["a", "die", "b"])}
    finally:
        pool.close()
    assert outcomes["a"].payload == "a" and outcomes["b"].payload == "b"
    assert outcomes["die"].kind == CRASHED and "signal 9" in outcomes["die"].payload
    assert pool.restarts == 1
    assert pool.lost_seconds >= 0.5  # the crashed job's time, and its replacement's start


def test_a_job_that_overruns_costs_one_restart_and_its_time_limit():
    pool = WorkerPool(_answer_or_die, workers=2, timeout=2)
    try:
        outcomes = {job: finished for job, finished in pool.run(["hang", "a", "b"])}
    finally:
        pool.close()
    assert outcomes["hang"].kind == TIMEOUT
    assert outcomes["a"].payload == "a" and outcomes["b"].payload == "b"
    assert pool.restarts == 1 and pool.lost_seconds >= 2


def test_a_replacement_warms_up_before_its_first_job_and_off_its_clock():
    """The replacement of a crashed worker warms up (imports, inputs) before it is given a
    job: a warm-up longer than the time limit makes no job overrun."""
    pool = WorkerPool(_answer_or_die, workers=1, timeout=2, warm=_slow_warm_up)
    try:
        outcomes = {job: finished for job, finished in pool.run(["a", "die", "b"])}
    finally:
        pool.close()
    assert outcomes["a"].payload == "a" and outcomes["b"].payload == "b"
    assert outcomes["die"].kind == CRASHED
    assert pool.restarts == 1 and pool.lost_seconds >= 3  # the replacement's warm-up


def test_the_search_evaluator_counts_restarts_and_lost_time():
    jobs = [{"key": k, "expression": k, "sizes": {}} for k in ("x", "die")]
    evaluator = PoolEvaluator(workers=1, timeout=30, task=_record_or_die)
    try:
        records = {r["key"]: r for r in evaluator.evaluate(jobs)}
    finally:
        evaluator.close()
    assert records["x"]["status"] == "ok" and records["die"]["status"] == "crashed"
    assert evaluator.restarts == 1 and evaluator.lost_seconds >= 0.5


def _record_or_die(job: dict) -> dict:
    _answer_or_die(job["expression"])
    return {"key": job["key"], "status": "ok", "correct": True, "kernel_ms": 1.0}
