"""A search whose candidates run elsewhere (an executor, a Dask cluster) keeps its workers
busy: the strategy submits each candidate as it is drawn and prepares the next ones while
the workers run these (``Context.submit``), as many at once as the executor runs. The
candidates, the budget and the log stay what they are when every batch is waited for."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from workbench.device.opencl import find_device
from workbench.notation import parse_type
from workbench.programs import library
from workbench.search import search
from workbench.search.evaluation import ExecutorEvaluator
from workbench.search.space import numbered_walk, numbered_walks

SCAL = library("blas")["scal"]
TYPES = ("float", "[float]_2048")


class WatchedPool(ThreadPoolExecutor):
    """A thread pool that notes, as each candidate is submitted, how many candidates are
    running on its threads at that moment."""

    def __init__(self, threads: int):
        super().__init__(threads)
        self.lock = threading.Lock()
        self.running = 0
        self.running_at_submit: list[int] = []

    def submit(self, fn, *args, **kwargs):
        with self.lock:
            self.running_at_submit.append(self.running)

        def watched():
            with self.lock:
                self.running += 1
            try:
                return fn(*args, **kwargs)
            finally:
                with self.lock:
                    self.running -= 1

        return super().submit(watched)


def drawn(budget: int, seed: int) -> list[str]:
    """The first ``budget`` distinct kernels the random strategy's walks reach."""
    types = tuple(parse_type(t) for t in TYPES)
    widths = find_device(None)[0].vector_widths or None  # as the search's context has them
    out: list[str] = []
    for i in range(5 * budget):
        walked = numbered_walk(SCAL, types, seed, i, widths=widths)
        if walked is not None and str(walked[0]) not in out:
            out.append(str(walked[0]))
        if len(out) == budget:
            break
    return out


def test_walks_drawn_by_processes_are_the_walks_drawn_here_in_the_same_order():
    types = tuple(parse_type(t) for t in TYPES)
    here = numbered_walks(SCAL, types, 5)
    there = numbered_walks(SCAL, types, 5, processes=2)
    try:
        for _ in range(6):
            a, b = next(here), next(there)
            assert (a is None) == (b is None)
            if a is not None:
                assert str(a[0]) == str(b[0]) and a[1] == b[1]
    finally:
        there.close()


def test_a_search_whose_candidates_run_elsewhere_draws_with_a_process_per_core_left():
    from workbench.search import draw_processes

    assert draw_processes(1) == min(2, max(0, (os.cpu_count() or 1) - 1))
    assert draw_processes(64) <= 8


def test_an_executor_runs_as_many_candidates_at_once_as_it_has_workers():
    with ThreadPoolExecutor(3) as pool:
        assert ExecutorEvaluator(pool).parallelism == 3


def test_a_random_search_keeps_two_workers_busy_while_it_draws_the_same_candidates():
    budget, seed = 6, 3
    with WatchedPool(2) as pool:
        spread = search(SCAL, *TYPES, strategy="random", budget=budget, seed=seed,
                        executor=pool, repeat=1, timeout=120)
    inline = search(SCAL, *TYPES, strategy="random", budget=budget, seed=seed, workers=0,
                    repeat=1)
    wanted = drawn(budget, seed)
    assert [r["expression"] for r in inline.log] == wanted  # one at a time, in order
    assert sorted(r["expression"] for r in spread.log) == sorted(wanted)  # as they finish
    assert spread.evaluated == budget
    assert len(pool.running_at_submit) == budget + 1  # and the best, timed again
    # the candidates after the first two were drawn and submitted while both workers ran
    assert pool.running_at_submit[:budget].count(2) >= budget - 3, pool.running_at_submit
    assert all(r.get("correct") for r in spread.log)
    steps = {r["expression"]: r["steps"] for r in inline.log}
    assert all(r["steps"] == steps[r["expression"]] for r in spread.log)


@pytest.mark.parametrize("strategy", ["exhaustive", "ranked"])
def test_strategies_that_do_not_wait_measure_what_they_measure_one_at_a_time(strategy):
    with ThreadPoolExecutor(2) as pool:
        spread = search(SCAL, *TYPES, strategy=strategy, budget=4, executor=pool, repeat=1,
                        timeout=120)
    inline = search(SCAL, *TYPES, strategy=strategy, budget=4, workers=0, repeat=1)
    assert spread.evaluated == inline.evaluated == 4
    assert sorted(r["expression"] for r in spread.log) == \
        sorted(r["expression"] for r in inline.log)


def test_a_time_limit_ends_a_search_whose_candidates_run_elsewhere():
    with ThreadPoolExecutor(2) as pool:
        result = search(SCAL, *TYPES, strategy="random", budget=40, executor=pool,
                        repeat=1, timeout=120, time_limit=4)
    assert result.stopped.startswith("the time limit"), result.stopped
    assert 0 < result.evaluated < 40
    assert result.evaluated == len(result.log) == len({r["key"] for r in result.log})


def _job(expression: str, key: str) -> dict:
    return {"key": key, "expression": expression, "reference": "map (*3)", "definitions": "",
            "types": ["[float]_4096"], "ranges": None, "sizes": {}, "device": None,
            "seed": 0, "repeat": 3, "steps": []}


def test_a_dask_workers_candidates_run_in_one_warm_process_that_a_time_out_replaces():
    """What a Dask worker runs per candidate (``evaluate_warm``): one process kept between
    candidates (imports, device and inputs ready), replaced after a candidate that overran
    its time limit, and the next candidate measured in the new one."""
    from workbench.search import evaluation

    limit = 117.0  # a time limit of this test's own: a pool no other test made
    first = evaluation.evaluate_warm(_job("mapGlobal (*3)", "a"), limit)
    pool = evaluation._WARM[(None, limit)][0].pool  # the warm worker pool
    pid, restarts = pool._workers[0].process.pid, pool.restarts
    second = evaluation.evaluate_warm(_job("join ∘ mapGlobal (mapSeq (*3)) ∘ split 4", "b"),
                                      limit)
    assert first["status"] == second["status"] == "ok" and first["correct"] and second["correct"]
    assert pool._workers[0].process.pid == pid and pool.restarts == restarts
    overran = evaluation.evaluate_warm(_job("mapGlobal (*3)", "c"), 1e-6)
    assert overran["status"] == "timeout" and overran["correct"] is False
    short, _ = evaluation._WARM.pop((None, 1e-6))
    assert short.restarts == 1
    short.close()
    evaluation._WARM.pop((None, limit))[0].close()
