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
           options={"default_first": True, "unrolled_first": False, "lanes_first": False,
                    "vector_reductions_first": False},
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
                           device_info=None, internal_errors=[])
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


def test_candidates_completed_in_the_search_processes_are_compiled_once(monkeypatch):
    """With completing processes and a worker of its own (a search on a host of several
    cores), every candidate goes to the worker with the program compiled for its features,
    which the worker runs (its source's hash is that program's) without compiling it again;
    the search's own process compiles no kernel twice, and none that its processes
    compiled."""
    from .compilations import count_compilations

    monkeypatch.setattr(GUIDED, "process_count", lambda: 2)  # whatever this host's cores
    by_search, by_worker = count_compilations(monkeypatch, GUIDED)
    jobs = []
    real = CONTEXT.Context.overlap

    def overlap(self, measured, idle=None):
        jobs.extend(measured)
        return real(self, measured, idle)

    monkeypatch.setattr(CONTEXT.Context, "overlap", overlap)
    result = search(ASUM, "[float]_65536", budget=6, workers=1, repeat=2)
    assert result.evaluated == 6 and len(jobs) == 6
    assert all("program" in job for job in jobs)
    sha = {job["expression"]: job["program"].sha256 for job in jobs}
    assert all(r.source_sha256 == sha[r.expression] for r in result.log)
    assert max(by_search.values()) == 1 and not by_worker  # the best re-timed with its own
    assert any(by_search[job["expression"]] == 0 for job in jobs)  # from the processes


def _walked(expr, path=()):
    """Pre-order, as ``walk`` was first written (a generator per level)."""
    yield path, expr
    for i, child in enumerate(expr.children()):
        yield from _walked(child, path + (i,))


def _expressions_met():
    """The start and the first moves of asum, gemv and Lift's jacobi2d5pt at small sizes."""
    from workbench.notation import parse_type
    from workbench.search.space import moves

    for program, types in ((ASUM, ["[float]_4096"]),
                           (library("blas")["gemv"], ["[[float]_64]_32", "[float]_64",
                                                      "[float]_32", "float", "float"]),
                           (library("lift/stencils")["jacobi2d5pt"], ["[[float]_64]_64"])):
        types = tuple(parse_type(t) for t in types)
        yield program, types
        for move in moves(program, types)[:12]:
            yield move.result, types


def test_the_default_lowering_lowers_as_a_sweep_over_every_node_does():
    """The default lowering's sweep builds sites only at the nodes that need lowering, and
    annotates only when it meets one: the same kernels and steps as a sweep that asks at
    every node; and ``walk`` visits the nodes in the pre-order it always did."""
    from workbench.expr import walk
    from workbench.rewriting.strategies import State, everywhere, repeat
    from workbench.rules.lowering import default_choice, lower

    every_node = repeat(everywhere(default_choice))
    count = 0
    for expr, types in _expressions_met():
        assert list(walk(expr)) == list(_walked(expr))
        swept = every_node(State(expr, types))
        low, steps = lower(expr, *types)
        assert str(low) == str(swept.expr) and steps == list(swept.steps)
        count += 1
    assert count > 20


def test_an_expression_prints_once_and_travels_without_what_it_cached():
    """An expression keeps its text (printed once); pickled, it leaves behind what it
    cached (its hash is of this process's strings) and keeps its fields and signature."""
    import pickle

    from workbench.expr import signature_of

    assert signature_of(ASUM) is not None
    text, key = str(ASUM), hash(ASUM)
    assert ASUM.__dict__["_cached_text"] is text and str(ASUM) is text
    back = pickle.loads(pickle.dumps(ASUM))
    assert not [k for k in back.__dict__ if k.startswith("_cached_")]
    assert back == ASUM and str(back) == text and hash(back) == key
    assert signature_of(back) == signature_of(ASUM)
