"""A faster search (SPEC 8: the first progress line within 2 s): workers prepared as the
search begins, the guided search's next moves completed while its candidates run (with the
same choices), each candidate compiled once, and the interpreter's expected output computed
once per input set."""

import sys
import time
from pathlib import Path

from workbench.device import lock as device_lock
from workbench.device.isolation import WorkerPool
from workbench.programs import library
from workbench.search import read, search
from workbench.search.evaluation import expected_output, reference_key

GUIDED = sys.modules["workbench.search.guided"]
CONTEXT = sys.modules["workbench.search.context"]
DATA = Path(__file__).parent / "data"
ASUM = library("blas")["asum"]
LOCK_KEY = "tests.test_search_speed device"


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def _hold_the_device(seconds: float) -> float:
    """Half a second on its own, then ``seconds`` holding the device's lock."""
    time.sleep(0.5)
    with device_lock.exclusive(LOCK_KEY):
        time.sleep(seconds)
    return seconds


def test_the_pool_does_the_callers_work_while_its_jobs_run_until_it_has_none():
    pool = WorkerPool(_sleep, workers=1, timeout=30)
    calls = []

    def idle() -> bool:
        calls.append(time.monotonic())
        time.sleep(0.01)
        return len(calls) < 5

    try:
        pool.start(0.0)  # started and warmed before the first job comes
        results = [finished.payload for _, finished in pool.run([1.0], idle)]
    finally:
        pool.close()
    assert results == [1.0]
    assert len(calls) == 5  # asked until it said it had no more


def test_quiet_work_waits_while_a_worker_holds_the_device():
    pool = WorkerPool(_hold_the_device, workers=1, timeout=30)
    held = []

    def idle() -> bool:
        held.append(pool.device_held())
        time.sleep(0.02)
        return True

    try:
        results = [finished.payload for _, finished in pool.run([1.0], idle, quiet=True)]
    finally:
        pool.close()
    assert results == [1.0]
    assert held and not any(held)  # called before the device was taken, never while held


def test_the_first_progress_comes_before_the_first_step_is_ranked(monkeypatch):
    """With the default completion measured first, the first record arrives before the
    cost model generates the first step's candidates; while it runs, the start's moves are
    completed ahead (``Lookahead``), so that ranking them finds them done."""
    events = []
    real = GUIDED.moves_below

    def ranking(ctx, pool, current, *args, **kwargs):
        events.append(("rank", len(pool.known)))
        return real(ctx, pool, current, *args, **kwargs)

    monkeypatch.setattr(GUIDED, "moves_below", ranking)
    monkeypatch.setattr(CONTEXT, "spare_core", lambda workers: True)  # a host of many cores
    search(ASUM, "[float]_65536", budget=2, workers=1, repeat=2,
           options={"default_first": True, "unrolled_first": False, "lanes_first": False},
           progress=lambda r: events.append(("progress",)))
    assert events[0] == ("progress",)
    assert events[1][0] == "rank" and events[1][1] > 1  # completed ahead of the ranking


def test_work_done_ahead_changes_no_choice(monkeypatch):
    """The guided search replayed from its recorded log, with all the work ahead done
    before each batch is measured, meets the same candidates in the same order as without
    it, all of them in the log."""
    log = DATA / "asum_4096_guided.jsonl"
    recorded = [r["expression"] for r in read(log)]
    plain = search(ASUM, "[float]_4096", budget=12, replay_log=log)
    real = CONTEXT.Context.measure

    def measure_after_the_work_ahead(self, candidates, idle=None):
        while idle is not None and idle():
            pass
        return real(self, candidates)

    monkeypatch.setattr(CONTEXT.Context, "measure", measure_after_the_work_ahead)
    ahead = search(ASUM, "[float]_4096", budget=12, replay_log=log)
    assert [r.key for r in ahead.log] == [r.key for r in plain.log]
    assert {r.expression for r in ahead.log} <= set(recorded)


def test_each_candidate_is_compiled_once(monkeypatch):
    """The guided search compiles each kernel once, for its features; the worker runs that
    program (and the best is timed again with it) without compiling it again."""
    codegen = sys.modules["workbench.codegen.program"]
    run = sys.modules["workbench.run"]
    compiled, in_worker = {}, []
    real_translate, real_opencl = codegen.translate, run.opencl

    def translate(expr, *args, **kwargs):
        compiled[str(expr)] = compiled.get(str(expr), 0) + 1
        return real_translate(expr, *args, **kwargs)

    def opencl(expr, *args, **kwargs):
        in_worker.append(str(expr))
        return real_opencl(expr, *args, **kwargs)

    monkeypatch.setattr(codegen, "translate", translate)
    monkeypatch.setattr(run, "opencl", opencl)
    result = search(ASUM, "[float]_65536", budget=6, workers=0, repeat=2)
    assert result.evaluated == 6 and result.timing == "re-timed"
    assert in_worker == []
    assert max(compiled.values()) == 1


def test_the_expected_output_is_computed_once_per_input_set(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    job = {"reference": "reduce (+) 0", "definitions": "", "types": ["[float]_8"],
           "sizes": {}, "seed": 0, "ranges": None}
    computed = []

    def compute():
        computed.append(1)
        return [1.0, 2.0]

    assert expected_output(job, compute) == [1.0, 2.0]
    assert expected_output(job, compute) == [1.0, 2.0]  # read back, not computed
    assert len(computed) == 1
    other = dict(job, seed=1)  # other inputs: another output
    assert reference_key(other) != reference_key(job)
    expected_output(other, compute)
    assert len(computed) == 2
    kept = next(tmp_path.rglob(f"expected-{reference_key(job)}.pickle"))
    kept.write_bytes(kept.read_bytes()[:5])  # cut short (a kill while writing)
    assert expected_output(job, compute) == [1.0, 2.0]
    assert len(computed) == 3


def test_completions_from_the_search_processes_are_the_searchs_own():
    """Completed in the search's processes (``Candidates.prefetch``), each expression gives
    the kernel, steps, features and program it gives completed in the search itself."""
    from types import SimpleNamespace

    from workbench.notation import parse_type
    from workbench.search import cost
    from workbench.search.processes import Processes
    from workbench.search.space import moves

    types = (parse_type("[float]_65536"),)
    site = SimpleNamespace(types=types, sizes={}, device=None, replayed=None,
                           internal_errors=[])
    model = cost.model_for_device(None)
    options = moves(ASUM, types)
    here = GUIDED.Candidates(site, GUIDED.GuidedState(model, model))
    state = GUIDED.GuidedState(model, model)
    state.processes = Processes(2, GUIDED._completing, (types, {}, None, None))
    there = GUIDED.Candidates(site, state)
    try:
        there.prefetch([option.result for option in options])
    finally:
        state.processes.close()
    assert len(state.completions) == len({str(option.result) for option in options})
    for option in options:
        mine, theirs = here.complete(option.result, []), there.complete(option.result, [])
        assert (mine is None) == (theirs is None)
        if mine is not None:
            assert str(theirs.expr) == str(mine.expr) and theirs.steps == mine.steps
            assert theirs.features == mine.features
            assert theirs.program.sha256 == mine.program.sha256
    assert site.internal_errors == []
