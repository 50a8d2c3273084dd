"""The benchmark harness runs (its numbers are read from its table and JSON, not asserted)."""

import json


def test_tool_benchmark_runs(tmp_path, monkeypatch):
    from benchmarks import tool

    monkeypatch.setattr(tool, "RESULTS", tmp_path)
    doc = tool.main(["--repeat", "1"])
    assert json.loads((tmp_path / "tool.json").read_text())["measurements"] == \
        json.loads(json.dumps(doc["measurements"]))


def test_search_benchmark_runs_retimes_and_plots(tmp_path, monkeypatch):
    from benchmarks import search as bench
    from workbench.search import read

    results = tmp_path / "benchmarks" / "results"
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    monkeypatch.setattr(bench, "RESULTS", results)
    monkeypatch.setattr(bench, "retime", lambda name, s, records, **_: [
        r["kernel_ms"] for r in records])  # the timing itself is exercised elsewhere
    bench.main(["--budget", "4", "--early", "2", "--programs", "scal", "--workers", "1",
                "--repeat", "1"])
    out = results / "search_pocl_small.json"
    doc = json.loads(out.read_text())
    p = doc["programs"]["scal"]
    records = read(tmp_path / p["log"])
    assert p["evaluated"] == len(records) == 4
    # indices refer to the log's order: the winner is the fastest of those timed again
    assert records[p["winner"]]["expression"] == p["best_expression"]
    assert p["retimed"]["best_ms"] == records[p["winner"]]["kernel_ms"] == p["best_ms"]
    assert set(p["retimed"]["early_candidates"]) <= {0, 1}
    assert "NumPy" in p["peers_ms"]
    assert "| scal | N=65536 | 4 |" in out.with_suffix(".md").read_text()
    assert (results / "plots" / "scal_pocl_small_mcts.png").stat().st_size > 1000
    bench.main(["--retime-only", str(out)])
    assert json.loads(out.read_text())["programs"]["scal"]["winner"] == p["winner"]
    (results / "plots" / "scal_pocl_small_mcts.png").unlink()
    bench.main(["--plots-only", str(out)])
    assert (results / "plots" / "scal_pocl_small_mcts.png").exists()


def test_gemm_benchmark_runs_and_writes_the_phase_counts(tmp_path, monkeypatch):
    from benchmarks import gemm

    results = tmp_path / "benchmarks" / "results"
    monkeypatch.setattr(gemm, "ROOT", tmp_path)
    monkeypatch.setattr(gemm, "RESULTS", results)
    monkeypatch.setitem(gemm.OPTIONS, "cpu", {**gemm.OPTIONS["cpu"], "depth": 2})
    doc = gemm.main(["--sizes", "64", "--budget", "3", "--rounds", "1", "--workers", "1"])
    entry = doc["sizes"]["64"]
    assert entry["evaluated"] == 3 and entry["best_ms"] and entry["peer_ms"]
    assert [p["phase"] for p in entry["phases"]][-1] == "parameters"
    text = (results / "gemm_pocl.md").read_text()
    assert "| 64 | 3 |" in text and "| algorithmic |" in text and "20000" in text
    assert (tmp_path / entry["log"]).exists()
