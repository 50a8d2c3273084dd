"""Automatic search: strategies replayed from recorded logs (fast and deterministic), real
searches on the CPU default, a Dask cluster as executor, a search killed and resumed from
its log, failing candidates logged and never adopted, the command line and the plots."""

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from tests.children import child_env
from workbench import parse
from workbench.notation import parse_type
from workbench.programs import library
from workbench.search import CUTOFF, STRATEGIES, LogError, read, search
from workbench.search.evaluation import PoolEvaluator, evaluate_candidate, job_key

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent
ASUM = library("blas")["asum"]


# The logs were recorded on PoCL by `python -m tests.data.record`; a replay must be given
# the same budget (and rule catalogue) to draw the same candidates.
RECORDED_BUDGET = 24


def recorded(strategy: str) -> list[dict]:
    return read(DATA / f"asum_4096_{strategy}.jsonl")


@pytest.mark.parametrize("strategy", ["mcts", "random"])
def test_a_recorded_search_replays_to_the_same_best(strategy):
    log = recorded(strategy)
    result = search(ASUM, "[float]_4096", strategy=strategy, budget=RECORDED_BUDGET,
                    replay_log=log, repeat=3, device="another machine's GPU")
    best = min((r for r in log if r["correct"]), key=lambda r: r["kernel_ms"])
    assert result.evaluated == len(log)
    assert result.best_kernel_ms == best["kernel_ms"]
    assert str(result.best) == best["expression"]
    assert not [r for r in result.log if r["status"] == "not in log"]
    # the derivation replays from the program to the best kernel
    assert str(result.derivation.current) == best["expression"]
    assert str(result.derivation.start) == str(ASUM)


def test_monte_carlo_descent_fixes_steps_and_improves():
    log = recorded("mcts")
    result = search(ASUM, "[float]_4096", strategy="mcts", budget=RECORDED_BUDGET,
                    replay_log=log, repeat=3)
    assert result.fixed and result.fixed == sorted(result.fixed)
    times = [r["kernel_ms"] for r in result.log if r["correct"]]
    assert result.best_kernel_ms == min(times)


def test_candidates_missing_from_a_replayed_log_are_failures():
    result = search(ASUM, "[float]_4096", strategy="random", budget=5, seed=99,
                    replay_log=recorded("random"))
    assert all(r["status"] in ("not in log", "ok", "codegen error") for r in result.log)
    assert result.best is None or result.best_kernel_ms is not None


def test_failures_are_logged_and_never_adopted():
    log = [dict(r) for r in recorded("random")]
    ranked = sorted((r for r in log if r["correct"]), key=lambda r: r["kernel_ms"])
    ranked[0].update(status="wrong result", correct=False, message="differs")
    ranked[1].update(status="timeout", correct=False, kernel_ms=None)
    ranked[2].update(status="compile error", correct=False, kernel_ms=None)
    result = search(ASUM, "[float]_4096", strategy="random", budget=len(log), replay_log=log,
                    repeat=3)
    assert result.best_kernel_ms == ranked[3]["kernel_ms"]
    statuses = {r["status"] for r in result.log}
    assert {"wrong result", "timeout", "compile error"} <= statuses


# OpenCL C has no cast of a vector to a scalar type, and the code generator prints a
# conversion inside a function applied to vectors as one: such a kernel never builds
NOT_BUILDING = "joinVec ∘ {map} (mapVec (λx. float (int x))) ∘ splitVec 4"


def test_a_search_whose_kernels_often_do_not_compile_completes():
    expr = parse(NOT_BUILDING.format(map="map"))
    result = search(expr, "[float]_1024", strategy="random", budget=6, workers=1, repeat=1)
    assert result.evaluated >= 3
    assert {r["status"] for r in result.log} == {"compile error"}
    assert result.best is None and "no correct kernel among" in result.outcome


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_every_strategy_finds_a_correct_kernel_on_the_cpu(strategy, tmp_path):
    result = search(library("blas")["scal"], "float", "[float]_2048", strategy=strategy,
                    budget=4, workers=1, repeat=2, log=tmp_path / "log.jsonl")
    assert result.best is not None and result.best_kernel_ms > 0
    lines = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    # a header, the records; on a device with no calibration the header comes again with
    # the calibration the search measured
    records = [line for line in lines if "key" in line]
    assert len(records) == result.evaluated and result.evaluated <= 4
    assert lines[0]["strategy"] == strategy and "key" not in lines[0]
    assert all(line["strategy"] == strategy for line in lines if line not in records)
    assert result.derivation.current == result.best


def test_the_result_lists_candidates_in_the_order_of_the_log_file(tmp_path):
    # with two workers candidates finish out of order; indices into result.log (the
    # evaluations after which steps were fixed, the first 40) must mean the same in the file
    log = tmp_path / "log.jsonl"
    result = search(ASUM, "[float]_4096", strategy="mcts", budget=12, workers=2, repeat=2,
                    log=log, seed=3)
    assert [r["key"] for r in result.log] == [r["key"] for r in read(log)]


def test_exhaustive_search_measures_each_kernel_once():
    result = search(parse("map abs"), "[float]_1024", strategy="exhaustive", budget=12,
                    workers=0, repeat=1)
    expressions = [r["expression"] for r in result.log]
    assert len(expressions) == len(set(expressions))


def test_search_is_restricted_to_a_subtree():
    expr = parse("reduce (+) 0 ∘ map abs")
    result = search(expr, "[float]_1024", strategy="random", budget=3, workers=0, repeat=1,
                    at="1")
    for record in result.log:
        walked = [s for s in record["steps"] if s["rule"] not in ("reduce→reduceSeq",)]
        assert all(s["path"].startswith("1") for s in walked[:1])


def test_a_dask_cluster_evaluates_the_candidates():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        result = search(library("blas")["scal"], "float", "[float]_2048", strategy="random",
                        budget=3, executor=client, repeat=1, timeout=120)
    assert result.evaluated == 3 and result.best is not None


def test_a_pool_worker_that_hangs_is_stopped_and_the_search_goes_on():
    job = {"key": job_key("x", {}, None), "expression": "map abs", "types": ["[float]_64"],
           "sizes": {}, "repeat": 1}
    slow = dict(job, key="slow", expression="SLEEP")
    evaluator = PoolEvaluator(workers=1, timeout=3)
    evaluator_module = sys.modules["workbench.search.evaluation"]
    assert evaluator_module.evaluate_candidate is evaluate_candidate
    records = list(evaluator.evaluate([job, slow]))
    evaluator.close()
    by_key = {r["key"]: r for r in records}
    assert by_key[job["key"]]["status"] == "ok"
    assert by_key["slow"]["status"] == "error"  # not an expression: an outcome, not a crash


KILLED = """
import sys
from workbench.programs import library
from workbench.search import search
if __name__ == "__main__":
    search(library("blas")["asum"], "[float]_4096", strategy="random", budget=12, workers=1,
           repeat=2, log=sys.argv[1], seed=5)
"""


def test_a_killed_search_resumes_from_its_log_without_running_candidates_again(tmp_path):
    log = tmp_path / "search.jsonl"
    script = tmp_path / "killed.py"
    script.write_text(KILLED)
    proc = subprocess.Popen([sys.executable, str(script), str(log)], cwd=ROOT,
                            env=child_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 240
    while time.time() < deadline and (not log.exists() or
                                      len(log.read_text().splitlines()) < 4):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    with open(log, "a") as f:
        f.write('{"key": "cut sho')  # as if killed while writing a line
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        before = read(log)
    assert any("cut short" in str(w.message) for w in caught)
    assert len(before) >= 3
    result = search(ASUM, "[float]_4096", strategy="random", budget=12, workers=1, repeat=2,
                    log=log, seed=5)
    after = read(log)
    assert result.evaluated == 12
    assert after[:len(before)] == before  # nothing lost, nothing rewritten
    keys = [r["key"] for r in after]
    assert len(keys) == len(set(keys))  # no finished candidate was run again
    assert {r["key"] for r in before} <= {r["key"] for r in result.log}


def _descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (read from /proc)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc")
def test_killing_only_the_search_process_stops_its_workers_and_frees_the_device(tmp_path):
    log = tmp_path / "search.jsonl"
    script = tmp_path / "killed.py"
    script.write_text(KILLED.replace("workers=1", "workers=2"))
    proc = subprocess.Popen([sys.executable, str(script), str(log)], cwd=ROOT,
                            env=child_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 240
    while time.time() < deadline and (not log.exists() or
                                      len(log.read_text().splitlines()) < 2):
        time.sleep(0.1)
    workers = _descendants(proc.pid)
    assert workers, "the search runs its candidates in worker processes"
    os.kill(proc.pid, signal.SIGKILL)  # the search alone, not its process group
    proc.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.1)
    assert not [p for p in workers if _alive(p)], "workers outlived their search"
    before = read(log)
    result = search(ASUM, "[float]_4096", strategy="random", budget=12, workers=2, repeat=2,
                    log=log, seed=5, timeout=30)
    after = read(log)
    assert result.evaluated == 12
    assert after[:len(before)] == before
    keys = [r["key"] for r in after]
    assert len(keys) == len(set(keys))  # no finished candidate was run again
    assert not [r for r in after if r["status"] in ("timeout", "crashed")]


HOLDS_THE_DEVICE = """
import sys, time
from workbench.search.evaluation import PoolEvaluator
from tests.test_search import _take_the_device_then
if __name__ == "__main__":
    pool = PoolEvaluator(workers=1, timeout=600, task=_take_the_device_then)
    list(pool.evaluate([{"key": "hang", "expression": "hang", "lock": sys.argv[1]}]))
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc")
def test_a_worker_busy_with_the_device_dies_with_its_search_and_frees_the_device(tmp_path):
    from workbench.device import lock as device_lock

    key = f"test device {time.time()}"
    script = tmp_path / "holds.py"
    script.write_text(HOLDS_THE_DEVICE)
    proc = subprocess.Popen([sys.executable, str(script), key], cwd=ROOT,
                            env=child_env())
    deadline = time.time() + 60
    while time.time() < deadline and not (device_lock.holder(device_lock.lock_path(key))
                                          or {}).get("pid"):
        time.sleep(0.1)
    workers = _descendants(proc.pid)
    assert device_lock.holder(device_lock.lock_path(key))["pid"] in workers
    os.kill(proc.pid, signal.SIGKILL)  # the search alone; its worker is in a 60 s job
    proc.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.1)
    assert not [p for p in workers if _alive(p)]
    started = time.time()
    with device_lock.exclusive(key):  # the device is free
        waited = time.time() - started
    assert waited < 1


def test_a_lock_held_by_an_orphaned_search_worker_is_taken_back(tmp_path):
    """A worker whose search is gone but that still holds the device (one started before
    workers died with their parent, or on a system without the parent-death signal)."""
    from workbench.device import lock as device_lock

    key = f"test device {time.time()}"
    path = device_lock.lock_path(key)
    # a process that takes the lock as a search worker whose recorded parent is long gone
    holder_code = (
        "import sys, time, json, fcntl\n"
        "f = open(sys.argv[1], 'a+'); fcntl.flock(f, fcntl.LOCK_EX)\n"
        "f.seek(0); f.truncate(); f.write(json.dumps({'pid': __import__('os').getpid(),"
        " 'parent': 999999999, 'worker': True})); f.flush()\n"
        "print('held', flush=True); time.sleep(120)\n")
    holder = subprocess.Popen([sys.executable, "-c", holder_code, str(path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.time()
        with device_lock.exclusive(key):
            waited = time.time() - started
        assert waited < 10
        assert holder.wait(timeout=10) == -signal.SIGKILL
    finally:
        if holder.poll() is None:
            holder.kill()


def test_a_corrupt_log_line_is_named(tmp_path):
    log = tmp_path / "bad.jsonl"
    good = json.dumps(recorded("random")[0])
    log.write_text(good + "\nnot json\n" + good + "\n")
    with pytest.raises(LogError, match="line 2"):
        read(log)


def test_cli_search_json(tmp_path, capsys):
    from workbench.cli import main

    argv = ["search", "@workbench/programs/blas.lift:scal", "--size", "N=2048", "--budget",
            "3", "--workers", "1", "--json", "--log", str(tmp_path / "l.jsonl"),
            "--plot", str(tmp_path / "curve.png")]
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        assert main(argv) == 0
    finally:
        os.chdir(old)
    doc = json.loads(capsys.readouterr().out)
    assert doc["evaluated"] == 3 and doc["best"]["kernel_ms"] > 0
    assert doc["best"]["expression"] and isinstance(doc["best"]["derivation"], list)
    assert (tmp_path / "curve.png").stat().st_size > 1000


def test_plots_read_logs():
    from workbench import plots

    log = recorded("mcts")
    fig = plots.efficiency_curve(log, fixed=[6, 11], title="asum")
    assert fig.axes[0].get_xlabel() == "evaluated candidates"
    curve = plots.best_so_far(log)
    assert np.all(np.diff(curve[~np.isnan(curve)]) <= 0)
    fig = plots.best_so_far_band({"mcts": [log], "random": [recorded("random")]})
    assert len(fig.axes[0].lines) == 2
    fig = plots.best_so_far_band({"mcts": [log]}, against="seconds")
    assert fig.axes[0].get_xlabel() == "wall time (s)"
    table = plots.portability_table({("cpu", "cpu"): 1.0, ("cpu", "gpu"): 0.5,
                                     ("gpu", "gpu"): 0.1, ("gpu", "cpu"): 2.0})
    assert "| cpu | 1.00 | 0.20 |" in table and "| gpu | 0.50 | 1.00 |" in table


@pytest.mark.slow
@pytest.mark.parametrize("program,types,seed", [
    ("asum", ["[float]_4096"], 11), ("dot", ["[float]_4096", "[float]_4096"], 12),
    ("gemv", ["[[float]_64]_32", "[float]_64", "[float]_32", "float", "float"], 13),
])
def test_random_derivations_never_generate_a_wrong_kernel(program, types, seed):
    """Every rule is sound, so a kernel that disagrees with the interpreter is a code
    generator bug: random searches look for them (what cannot be generated is refused)."""
    result = search(library("blas")[program], *types, strategy="random", budget=16,
                    workers=2, repeat=1, seed=seed)
    wrong = [r["expression"] for r in result.log if r["status"] == "wrong result"]
    assert not wrong, wrong


def _take_the_device_then(job: dict) -> dict:
    """A stand-in for evaluate_candidate: takes the device lock (as a CPU device is held
    from the build on), then sleeps for "hang" and returns at once otherwise."""
    from workbench.device import lock as device_lock

    if job["expression"] != "hang":
        time.sleep(1)  # the hanging one takes the device first
    with device_lock.exclusive(job["lock"]):
        if job["expression"] == "hang":
            time.sleep(60)
    return {"key": job["key"], "status": "ok", "correct": True, "kernel_ms": 1.0}


def test_waiting_for_the_device_does_not_count_against_a_candidates_time_limit():
    lock = f"test device {time.time()}"
    # quick waits for the device longer than the time limit while hang holds it
    jobs = [{"key": k, "expression": k, "lock": lock, "sizes": {}} for k in ("hang", "quick")]
    evaluator = PoolEvaluator(workers=2, timeout=4, task=_take_the_device_then)
    try:
        records = {r["key"]: r for r in evaluator.evaluate(jobs)}
    finally:
        evaluator.close()
    assert records["hang"]["status"] == "timeout"
    assert records["quick"]["status"] == "ok"
    assert evaluator.restarts == 1  # only the hanging candidate's worker was stopped


def _all_failing() -> list[dict]:
    log = [dict(r) for r in recorded("random")]
    kinds = ["compile error", "timeout", "compile error", "wrong result"]
    for i, r in enumerate(log):
        r.update(status=kinds[i % 4], correct=False, kernel_ms=None,
                 message=f"failure {i}: " + "x" * 300 + " the cause at the end")
    return log


def test_a_search_with_no_correct_candidate_says_so_and_why():
    from workbench.search import NoCorrectKernel

    log = _all_failing()
    result = search(ASUM, "[float]_4096", strategy="random", budget=len(log), replay_log=log)
    assert result.best is None and result.derivation is None
    n = result.evaluated
    assert result.outcome.startswith(f"no correct kernel among {n} candidates (")
    assert sum(result.failures_by_kind.values()) == n
    assert set(result.failures_by_kind) == {"compile error", "timeout", "wrong result"}
    first = result.first_failure
    assert first["candidate"] == 1 and first["message"].endswith("the cause at the end")
    text = str(result)
    assert result.outcome in text and first["message"] in text  # the whole message
    assert first["message"] in result._repr_markdown_()
    with pytest.raises(NoCorrectKernel) as info:
        result.require_best()
    assert result.outcome in str(info.value) and "the cause at the end" in str(info.value)
    doc = result.as_json()
    assert doc["best"]["expression"] is None and doc["failures"] == n
    assert doc["failures_by_kind"] == result.failures_by_kind
    assert doc["first_failure"]["message"] == first["message"]


def test_a_found_kernel_prints_with_its_time_and_derivation():
    result = search(ASUM, "[float]_4096", strategy="mcts", budget=RECORDED_BUDGET,
                    replay_log=recorded("mcts"))
    assert result.require_best() == result.best
    assert str(result).startswith(f"search (mcts): best {result.best_kernel_ms:.4f} ms among "
                                  f"{result.evaluated} candidates")
    assert str(result.best) in str(result) and "recorded in the log" in str(result)
    assert result.derivation.to_markdown() in result._repr_markdown_()


def test_candidates_far_slower_than_the_best_so_far_are_timed_once(tmp_path):
    log = tmp_path / "cutoff.jsonl"
    result = search(parse("reduce (+) 0 ∘ map abs"), "[float]_65536", strategy="random",
                    budget=10, workers=0, repeat=5, log=log)
    records = read(log)
    assert "cutoff_ms" not in records[0]  # nothing measured yet to compare with
    assert any("cutoff_ms" in r for r in records)
    best = []
    for r in records:
        if "cutoff_ms" in r:  # the best before its batch was sent
            assert any(r["cutoff_ms"] == pytest.approx(CUTOFF * b) for b in best)
        if r.get("correct"):
            best.append(r["kernel_ms"])
            # once: both first runs were past the cutoff; else all five were timed
            assert r["runs"] == 5 or (r["runs"] == 1 and r["kernel_ms"] > r["cutoff_ms"])
    assert result.best_record["runs"] == 5


def test_a_search_that_stops_early_says_why():
    lowered = parse("mapGlobal abs")
    result = search(lowered, "[float]_1024", budget=12, workers=0, repeat=2)
    assert result.evaluated == 1
    assert result.stopped == "the expression is already fully low-level: 1 candidate"
    assert "stopped after 1 of 12: the expression is already fully low-level" in str(result)
    result = search(ASUM, "[float]_4096", budget=RECORDED_BUDGET, replay_log=recorded("mcts"))
    assert result.stopped == ""


def test_a_resumed_search_counts_the_candidates_it_took_from_its_log(tmp_path):
    log = tmp_path / "log.jsonl"
    first = search(ASUM, "[float]_4096", strategy="random", budget=3, workers=1, repeat=2,
                   log=log, seed=2)
    assert first.from_log == 0
    again = search(ASUM, "[float]_4096", strategy="random", budget=5, workers=1, repeat=2,
                   log=log, seed=2)
    assert again.from_log == 3 and again.evaluated == 5
    assert "resumed: 3 of the 5 candidates were taken from the log" in str(again)
    assert len(read(log)) == 5


def test_a_resumed_search_that_finds_nothing_new_counts_the_log_in_its_reason():
    from types import SimpleNamespace

    from workbench.search import Record, _why_stopped

    records = [Record(k) for k in ("a", "b", "c")]
    ctx = SimpleNamespace(records=records, budget=16, start=ASUM, types=(
        parse_type("[float]_4096"),), at=None, strategy="guided", logged_before=set())
    assert _why_stopped(ctx) == ("the search found no candidate it had not measured before: "
                                 "the space it reaches holds 3 candidates")
    ctx.logged_before = {"a", "b", "c", "d", "e"}  # the three met again, and two more
    assert _why_stopped(ctx) == ("the search found no candidate that neither it nor the log "
                                 "it resumed had measured: 3 candidates this time, 5 with "
                                 "the log's")


def test_failures_are_never_plotted_at_a_time():
    from workbench import plots

    log = [dict(r) for r in recorded("random")]
    if all(r["correct"] for r in log):  # a recording without a failure: make one
        log[3].update(correct=False, status="compile error", kernel_ms=None)
    fig = plots.efficiency_curve(log)
    ax = fig.axes[0]
    failed = [c for c in ax.collections if "failed" in c.get_label()]
    assert len(failed) == 1
    assert failed[0].get_transform() != ax.transData  # on the axes' edge, not at a time
    fig = plots.efficiency_curve(_all_failing())
    assert any("no correct kernel among" in t.get_text() for t in fig.axes[0].texts)
    assert fig._repr_png_().startswith(b"\x89PNG")  # a notebook shows it as an image


def test_a_search_with_no_correct_kernel_on_the_command_line(tmp_path, capsys):
    from workbench.cli import main

    program = tmp_path / "cast.lift"
    program.write_text(f"f : [float]_N -> [float]_N\nf = {NOT_BUILDING.format(map='mapGlobal')}\n")
    argv = ["search", f"@{program}:f", "--size", "N=1024", "--budget", "4", "--workers", "1",
            "--plot", str(tmp_path / "curve.png")]
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err and out == ""
    assert "no correct kernel among 1 candidate (1 compile error)" in err
    assert "the first failure (candidate 1, compile error): " in err
    assert "stopped after 1 of 4: the expression is already fully low-level" in err
    assert (tmp_path / "curve.png").stat().st_size > 1000
    assert main(argv + ["--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["best"]["expression"] is None
    assert doc["failures_by_kind"] == {"compile error": 1}
    assert doc["first_failure"]["status"] == "compile error"


def _interrupt_when_logged(proc: subprocess.Popen, log: Path, lines: int) -> set[int]:
    """Wait until the log holds ``lines`` candidates, then send SIGINT to the whole process
    group, as Ctrl-C in a terminal and a Jupyter kernel interrupt do; returns the workers."""
    deadline = time.time() + 240
    while time.time() < deadline and (not log.exists() or
                                      len(log.read_text().splitlines()) < lines):
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    workers = _descendants(proc.pid)
    os.killpg(proc.pid, signal.SIGINT)
    return workers


def _gone(pids: set[int], within: float = 10) -> bool:
    deadline = time.time() + within
    while time.time() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    return not any(_alive(p) for p in pids)


def _no_interrupted_candidates(records: list[dict]) -> None:
    # workers ignore SIGINT: no candidate is logged as failed by the interrupt
    assert not [r for r in records if r["status"] in ("error", "crashed", "timeout")]


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc")
def test_ctrl_c_stops_a_command_line_search_and_the_same_command_resumes(tmp_path, capsys):
    from workbench.cli import main

    log = tmp_path / "search.jsonl"
    argv = ["search", "@workbench/programs/blas.lift:asum", "--size", "N=4096", "--budget",
            "10", "--workers", "1", "--repeat", "2", "--strategy", "random", "--seed", "5",
            "--log", str(log)]
    proc = subprocess.Popen([sys.executable, "-m", "workbench", *argv], cwd=ROOT,
                            env=child_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    workers = _interrupt_when_logged(proc, log, 2)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and out == ""
    before = read(log)
    assert f"interrupted; {log} holds {len(before)} measured candidates: run the same " \
           f"command again to resume" in err
    assert _gone(workers), "workers outlived the interrupt"
    _no_interrupted_candidates(before)

    old = os.getcwd()
    os.chdir(ROOT)
    try:
        assert main(argv) == 0
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    assert f"resuming from {log}: it holds {len(before)} measured candidates" in err
    assert f"resumed: {len(before)} of the 10 candidates were taken from {log}" in out
    after = read(log)
    assert after[:len(before)] == before and len(after) == 10
    assert len({r["key"] for r in after}) == 10  # nothing measured twice


INTERRUPTED = """
import sys
from workbench.programs import library
from workbench.search import search
if __name__ == "__main__":
    search(library("blas")["asum"], "[float]_4096", strategy="random", budget=10, workers=2,
           repeat=2, log=sys.argv[1], seed=6)
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc")
def test_an_interrupted_search_in_python_keeps_its_log_and_resumes(tmp_path):
    log = tmp_path / "search.jsonl"
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED)
    proc = subprocess.Popen([sys.executable, str(script), str(log)], cwd=ROOT,
                            env=child_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    workers = _interrupt_when_logged(proc, log, 3)
    _, err = proc.communicate(timeout=30)
    assert "KeyboardInterrupt" in err  # what a notebook shows, with the note below
    assert f"every finished candidate is in {log}: search again with log='{log}' to " \
           f"resume" in err
    assert _gone(workers), "workers outlived the interrupt"
    before = read(log)
    _no_interrupted_candidates(before)
    result = search(ASUM, "[float]_4096", strategy="random", budget=10, workers=2, repeat=2,
                    log=log, seed=6)
    assert result.from_log == len(before) and result.evaluated == 10
    after = read(log)
    assert after[:len(before)] == before and len({r["key"] for r in after}) == 10


def test_a_progress_callback_may_stop_the_search_keeping_what_it_found():
    from workbench.search import StopSearch

    seen = []

    def progress(record):
        seen.append(record)
        if len(seen) == 5:
            raise StopSearch("enough after 5")

    log = recorded("random")
    result = search(ASUM, "[float]_4096", strategy="random", budget=len(log), replay_log=log,
                    progress=progress)
    assert result.evaluated == 5 and result.stopped == "enough after 5"
    good = [r for r in seen if r["correct"]]
    assert result.best_kernel_ms == min(r["kernel_ms"] for r in good)
    assert result.timing == "logged (the search was stopped)"


# --- defaults, limits and options ---------------------------------------------------------------

def test_the_default_strategy_is_the_guided_descent_everywhere():
    from workbench.cli import build_parser
    from workbench.search import DEFAULT_STRATEGY

    assert DEFAULT_STRATEGY == "guided"
    result = search(ASUM, "[float]_4096", budget=2, workers=0, repeat=1)
    assert result.strategy == "guided"
    args = build_parser().parse_args(["search", "map abs", "--type", "[float]_64"])
    assert args.strategy == "guided"


def test_a_time_limit_ends_every_strategy_with_what_it_found():
    for strategy in ("random", "mcts", "guided"):
        result = search(ASUM, "[float]_65536", strategy=strategy, budget=10_000, workers=1,
                        repeat=2, time_limit=6)
        assert result.stopped == "the time limit of 6 s was reached", strategy
        assert result.time_limit == 6
        assert result.evaluated >= 1 or strategy == "guided"  # its model's walks take time
        assert result.seconds < 6 + 30  # at most the candidates in flight beyond it
        assert "time limit: 6 s, reached" in str(result)
        assert result.as_json()["time_limit"] == 6


@pytest.mark.parametrize("budget", [2.5, "40", True, 0, None])
def test_a_budget_that_is_not_a_whole_number_of_candidates_is_refused(budget):
    from workbench.errors import WorkbenchError

    with pytest.raises(WorkbenchError, match="give a whole number of candidates"):
        search(ASUM, "[float]_64", budget=budget, workers=0)


@pytest.mark.parametrize("strategy, options, message", [
    ("mcts", {"bogus": 1}, "the mcts strategy takes no option 'bogus' .*width, patience"),
    ("mcts", {"width": "six"}, "option width = 'six': give a whole number"),
    ("guided", {"strength": -1}, "option strength = -1: give a number"),
    ("cases", {"refine": 2}, "option refine = 2: give a share between 0 and 1"),
    ("random", {"depth": 3}, "the random strategy takes no option 'depth' .*none"),
    ("mcts", ["width"], "give a dict"),
    ("cases", {"values": "x"}, "option values = 'x': give a dict of parameter names"),
    ("cases", {"values": {"block": [0, 2]}}, "lists of positive whole numbers"),
    ("cases", {"keep": "private"}, "option keep = 'private': give a list of names"),
    ("cases", {"limits": 4}, "give a Limits, a dict of its fields"),
    ("guided", {"default_first": "yes"}, "option default_first = 'yes': give True or False"),
    ("ranked", {"pool": 0}, "option pool = 0: give a whole number above 0"),
])
def test_strategy_options_it_does_not_take_are_refused(strategy, options, message):
    from workbench.errors import WorkbenchError

    with pytest.raises(WorkbenchError, match=message):
        search(ASUM, "[float]_64", strategy=strategy, budget=2, workers=0, options=options)


def test_no_strategy_proposes_vectors_the_device_does_not_run():
    import random

    from workbench.search.space import fits_device, moves, random_walk

    types = (parse_type("[float]_4096"),)
    wide = [m for m in moves(ASUM, types) if not fits_device(m.result, (2, 4))]
    assert wide  # the space holds vectors of 8 and 16
    assert all(fits_device(m.result, (2, 4)) for m in moves(ASUM, types, widths=(2, 4)))
    rng = random.Random(0)
    for _ in range(40):
        expr, _ = random_walk(ASUM, types, rng, widths=(2, 4))
        assert fits_device(expr, (2, 4)), expr


def test_a_code_generator_bug_while_ranking_is_reported_and_the_candidate_ranks_last(
        monkeypatch):
    from workbench.search import strategies

    def buggy(expr, *types, **options):
        raise ZeroDivisionError("a bug of the code generator")

    monkeypatch.setattr(strategies, "opencl", buggy)
    result = search(ASUM, "[float]_4096", strategy="ranked", budget=2, replay_log=[],
                    options={"pool": 3})
    assert result.evaluated == 2  # still measured (here: answered by the empty replay)
    assert result.internal_errors and {e.where for e in result.internal_errors} == \
        {"ranking (ranked)"}
    assert "ZeroDivisionError: a bug of the code generator" in str(result)


@pytest.mark.parametrize("strategy", ["random", "guided"])
def test_a_search_at_symbolic_types_runs_at_the_sizes_given_and_its_steps_hold_at_every_n(
        strategy):
    from workbench import Derivation, evaluate
    from workbench.codegen.program import opencl
    from workbench.run import run

    asum = library("blas")["asum"]
    result = search(asum, "[float]_N", sizes={"N": 2048}, strategy=strategy, budget=4,
                    workers=1, repeat=2)
    assert result.evaluated == 4 and result.best is not None
    for record in result.log:
        assert record["sizes"] == {"N": 2048} and "[float]_N" in record["key"]
        d = Derivation(asum, "[float]_N")  # each candidate's steps apply at symbolic N
        for s in record["steps"]:
            d.apply(s["rule"], s["path"], **s["params"])
        if record["correct"]:
            xs = np.random.default_rng(0).uniform(-1, 1, 4096).astype(np.float32)
            assert abs(evaluate(d.current, xs, sizes={"N": 4096}) - np.abs(xs).sum()) < 1e-2
    assert "kernel void" in opencl(result.best, "[float]_N", sizes={"N": 2048}).source
    xs = np.random.default_rng(1).uniform(-1, 1, 2048).astype(np.float32)
    assert run(result.best, xs, sizes={"N": 2048}, repeat=1).correct
    with pytest.raises(Exception, match="N is not known"):
        search(asum, "[float]_N", budget=1, workers=0)


def test_each_ranked_candidate_is_compiled_once(monkeypatch):
    """The program the ranked search estimates travels with the candidate to the worker,
    which does not compile it again (nor when the best is timed again)."""
    from collections import Counter

    from workbench.search import strategies

    from .compilations import count_compilations

    by_search, by_worker = count_compilations(monkeypatch, strategies)
    result = search(ASUM, "[float]_4096", strategy="ranked", budget=4, workers=0, repeat=2,
                    options={"pool": 6})
    assert result.evaluated == 4 and result.timing == "re-timed"
    assert all(by_search[r.expression] == 1 for r in result.log)
    assert by_worker == Counter()
