"""The benchmark harness runs on the default device, whichever it is (its numbers are read
from its table and JSON, not asserted)."""

import importlib.util
import json

import numpy as np
import pytest


def default_tag() -> tuple[str, str]:
    """How the result files name the default device, and its kind as the harness sees it."""
    from benchmarks.search import device_tag
    from workbench.device.opencl import find_device

    info, _ = find_device(None)
    return device_tag(info), "gpu" if info.kind == "gpu" else "cpu"


def logged_times(name, s, records, peers=None, **_):
    """``search.retime`` without timing: the kernels' times as their search logged them and
    each peer timed once (the timing itself is exercised elsewhere)."""
    from benchmarks.timing import Spread

    return ([Spread(r["kernel_ms"], r["kernel_ms_min"], r["kernel_ms_max"])
             if r.get("correct") else None for r in records],
            {k: timer() for k, timer in (peers or {}).items()})


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
    monkeypatch.setattr(bench, "retime", logged_times)
    bench.main(["--budget", "4", "--early", "2", "--programs", "scal", "--workers", "1",
                "--repeat", "1"])
    tag, kind = default_tag()
    out = results / f"search_{tag}_small.json"
    doc = json.loads(out.read_text())
    p = doc["programs"]["scal N=65536"]
    records = read(tmp_path / p["log"])
    assert p["evaluated"] == len(records) == 4
    # indices refer to the log's order: the winner is the fastest of those timed again
    assert records[p["winner"]]["expression"] == p["best_expression"]
    assert p["retimed"]["best_ms"] == records[p["winner"]]["kernel_ms"] == p["best_ms"]
    assert set(p["retimed"]["early_candidates"]) <= {0, 1}
    peers = (bench.cupy_peers if kind == "gpu" else bench.numpy_peers)("scal", {"N": 16})
    assert set(p["peers_ms"]) == set(peers) and "copy (OpenCL)" in p["ceiling_ms"]
    # every time carries the range of its runs: the peers', the ceiling's, the kernel's
    for medians, ranges in ((p["peers_ms"], p["peers_range_ms"]),
                            (p["ceiling_ms"], p["ceiling_range_ms"])):
        assert set(ranges) == set(medians)
        assert all(lo <= medians[k] <= hi for k, (lo, hi) in ranges.items())
    winner = records[p["winner"]]
    assert p["retimed"]["best_range_ms"] == [winner["kernel_ms_min"], winner["kernel_ms_max"]]
    assert len(p["retimed"]["range_ms"]) == len(p["retimed"]["candidates"])
    text = out.with_suffix(".md").read_text()
    assert "| scal | N=65536 | 4 |" in text
    lo, hi = p["peers_range_ms"]["NumPy" if kind != "gpu" else next(iter(peers))]
    assert f"{p['peers_ms'][next(iter(peers))]:.4f} [{lo:.3g}–{hi:.3g}]" in text
    plot = results / "plots" / f"scal_65536_{tag}_small_guided.png"
    assert plot.stat().st_size > 1000
    bench.main(["--retime-only", str(out)])
    assert json.loads(out.read_text())["programs"]["scal N=65536"]["winner"] == p["winner"]
    # a recorded search continues from its archived log up to a larger budget
    bench.main(["--budget", "6", "--early", "2", "--programs", "scal", "--workers", "1",
                "--repeat", "1", "--resume"])
    more = json.loads(out.read_text())["programs"]["scal N=65536"]
    resumed = read(tmp_path / more["log"])
    assert more["evaluated"] == len(resumed) == 6
    assert [r["expression"] for r in resumed[:4]] == [r["expression"] for r in records]
    plot.unlink()
    bench.main(["--plots-only", str(out)])
    assert plot.exists()


def test_a_resumed_benchmark_search_counts_its_whole_log_against_the_budget(tmp_path,
                                                                          monkeypatch):
    """The random strategy meets its log's candidates again when it resumes (the same seed
    draws them first): they count once, and the log ends with the budget's number."""
    from benchmarks import search as bench
    from workbench.search import read

    monkeypatch.setattr(bench, "ROOT", tmp_path)
    monkeypatch.setattr(bench, "RESULTS", tmp_path / "benchmarks" / "results")
    monkeypatch.setattr(bench, "retime", logged_times)
    monkeypatch.setattr(bench, "plot", lambda *a, **k: None)
    common = ["--early", "2", "--programs", "asum", "--strategy", "random", "--workers", "1",
              "--repeat", "1"]
    bench.main(["--budget", "3", *common])
    out = tmp_path / "benchmarks" / "results" / f"search_{default_tag()[0]}_small.json"
    first = read(tmp_path / json.loads(out.read_text())["programs"]["asum N=65536"]["log"])
    bench.main(["--budget", "5", "--resume", *common])
    p = json.loads(out.read_text())["programs"]["asum N=65536"]
    resumed = read(tmp_path / p["log"])
    assert len({r["key"] for r in resumed}) == len(resumed) == p["evaluated"] == 5
    assert [r["key"] for r in resumed[:3]] == [r["key"] for r in first]
    assert p["stopped"] == ""  # the search itself counts its log against the budget


def test_timing_again_interleaves_the_peers_with_the_kernels():
    """Each round times every peer, then every kernel: both see the same drift. A time is
    the median of the rounds' medians, with the fastest and slowest run of any round."""
    from benchmarks import search as bench
    from benchmarks.timing import Spread

    s = {"N": 1024}
    calls = []

    def peer():
        calls.append(1)
        return Spread(0.5 * len(calls), 0.25 * len(calls), 0.75 * len(calls))

    records = [{"expression": "λa. join ∘ mapGlobal (mapSeq (*a)) ∘ split 4"},
               {"expression": "λa. mapGlobal (*a)"}]
    kernels, peers = bench.retime("scal", s, records, {"peer": peer}, rounds=3, repeat=2)
    assert len(calls) == 3
    assert peers == {"peer": Spread(1.0, 0.25, 2.25)}  # median of 0.5, 1.0, 1.5
    assert len(kernels) == 2 and all(0 < k.min_ms <= k.median_ms <= k.max_ms for k in kernels)
    numpy = bench.numpy_peers("dot", s)["NumPy"]()
    assert 0 < numpy.min_ms <= numpy.median_ms <= numpy.max_ms


def test_a_results_table_shows_the_ranges_and_says_where_a_file_has_none():
    """Results written before the ranges were recorded show the median alone, saying so."""
    from benchmarks import search as bench

    entry = {"program": "asum", "sizes": {"N": 16}, "evaluated": 4, "best_early_ms": 0.02,
             "best_ms": 0.01, "early_over_best": 2.0, "peers_ms": {"NumPy": 1.2754},
             "ceiling_ms": {"copy (OpenCL)": 0.5},
             "retimed": {"best_early_ms": 0.021, "best_ms": 0.011, "early_over_best": 1.9}}
    doc = {"device": "d", "platform": "p", "driver": "1", "strategy": "guided", "budget": 4,
           "early": 2, "programs": {"asum N=16": entry}}
    old = bench.table(doc)
    assert "NumPy 1.2754 (range not recorded)" in old and "| 0.0110 |" in old
    entry.update(peers_range_ms={"NumPy": [1.19, 1.57]},
                 ceiling_range_ms={"copy (OpenCL)": [0.45, 0.61]})
    entry["retimed"]["best_range_ms"] = [0.0105, 0.013]
    new = bench.table(doc)
    assert "NumPy 1.2754 [1.19–1.57]" in new and "copy (OpenCL) 0.5000 [0.45–0.61]" in new
    assert "| 0.0110 [0.0105–0.013] |" in new


def test_the_peers_compute_what_the_programs_do():
    """NumPy's BlackScholes and md, the peers of those programs, against the interpreter."""
    from benchmarks import search as bench
    from workbench.semantics import evaluate

    for name, s in (("blackScholes", {"N": 256}), ("md", {"N": 128, "K": 16})):
        args = bench.inputs_of(name, s)
        want = evaluate(bench.program(name), *args)
        got = bench.black_scholes(np, args[0]) if name == "blackScholes" else \
            bench.molecular_dynamics(np, *args[0], args[1], args[2])
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=2e-3, atol=2e-3 * np.abs(w).max())


def test_reduction_zoo_benchmark_records_the_seven_versions(tmp_path, monkeypatch):
    from benchmarks import reductions
    from workbench.studies.reductions import recorded

    monkeypatch.setattr(reductions, "RESULTS", tmp_path)
    doc = reductions.main(["--n", "65536", "--repeat", "1", "--rounds", "1"])
    rows = doc["versions"]
    assert [r["version"] for r in rows] == list("1234567")
    assert all(r["correct"] for r in rows), [r["message"] for r in rows]
    assert rows[1]["same_kernel_as"] == "1"  # versions 1 and 2 are one expression
    assert [r["warp_barriers"] for r in rows[4:]] == [5, 5, 5] and rows[3]["warp_barriers"] == 0
    assert recorded(tmp_path) == [json.loads(json.dumps(doc))]


def test_zip_fusion_benchmark_times_both_searches_bests_and_the_fused_kernels(tmp_path,
                                                                              monkeypatch):
    from benchmarks import zip_fusion

    monkeypatch.setattr(zip_fusion, "RESULTS", tmp_path)
    doc = zip_fusion.main(["--size", "16", "--budget", "2", "--rounds", "1"])
    entry = doc["programs"]["gesummvNN"]
    assert set(entry["searches"]) == {"best without fusion", "best with fusion"}
    assert {"default", "best without fusion", "best with fusion", "fused, a pair accumulator",
            "fused, reductions side by side in float8s",
            "fused, reductions side by side in float8s, lanes' sums unrolled",
            "hand-written"} <= set(entry["times"])
    assert all(t is not None for t in entry["times"].values()), entry["times"]  # all correct
    again = zip_fusion.main(["--again", "--rounds", "1"])["programs"]["gesummvNN"]["again"]
    assert set(again["times"]) == set(entry["times"])
    assert all(t is not None for t in again["times"].values())
    assert "Timed again" in (tmp_path / "zip_fusion_pocl.md").read_text()
    zip_fusion.main(["--again", "--rounds", "1", "--out", "again_elsewhere"])
    assert "again" in json.loads((tmp_path / "again_elsewhere.json").read_text())[
        "programs"]["gesummvNN"]


def test_gemm_benchmark_runs_and_writes_the_phase_counts(tmp_path, monkeypatch):
    from benchmarks import gemm
    from workbench.search.cases import DEFAULTS

    results = tmp_path / "benchmarks" / "results"
    monkeypatch.setattr(gemm, "ROOT", tmp_path)
    monkeypatch.setattr(gemm, "RESULTS", results)
    for kind in DEFAULTS:
        monkeypatch.setitem(DEFAULTS, kind, {**DEFAULTS[kind], "depth": 2})
    tag, kind = default_tag()
    # a GPU's limits want enough work-groups to fill its compute units: 64³ has too few
    sizes = ["512"] if kind == "gpu" else ["64", "64x32x128"]
    doc = gemm.main(["--sizes", ",".join(sizes), "--budget", "3", "--rounds", "1",
                     "--workers", "1"])
    assert doc["peak_gflops"] > 0
    text = (results / f"gemm_{tag}.md").read_text()
    for n in sizes:
        entry = doc["sizes"][n]
        assert entry["evaluated"] == 3 and entry["best_ms"]
        assert entry["peer_ms"] or (kind == "gpu" and importlib.util.find_spec("cupy") is None)
        low, high = entry["best_range_ms"]  # each time with the range of its runs
        assert low <= entry["best_ms"] <= high and f"{entry['best_ms']:.4f} [" in text
        if entry["peer_ms"]:
            low, high = entry["peer_range_ms"]
            assert low <= entry["peer_ms"] <= high
        assert [p["phase"] for p in entry["phases"]][-1] == "parameters"
        assert f"| {'×'.join(map(str, gemm.shape_of(n)))} | 3 |" in text
        assert (tmp_path / entry["log"]).exists()
    assert "| algorithmic |" in text and "20000" in text and "of peak" in text


def test_portability_runs_each_winner_on_the_inputs_its_search_typed(tmp_path, monkeypatch):
    """md's winner takes the array of tuples its search gave it (not NumPy's tuple of
    arrays): run here, it computes the interpreter's forces."""
    from benchmarks import portability
    from benchmarks import search as bench

    monkeypatch.setattr(portability, "RESULTS", tmp_path)
    s = {"N": 4096, "K": 32}
    winner = str(bench.program("md"))  # as a search records it: text, no signature
    (tmp_path / "search_elsewhere_small.json").write_text(json.dumps({"programs": {
        "md N=4096, K=32": {"program": "md", "sizes": s, "best_expression": winner}}}))
    portability.main(["--sizes", "small", "--rounds", "1", "--repeat", "1"])
    doc = json.loads(next(tmp_path.glob("portability_*_small.json")).read_text())
    row = doc["programs"]["md N=4096, K=32"]
    assert row["elsewhere"]["correct"], row["elsewhere"]["message"]
    assert row["default completion"]["correct"]
    low, high = row["elsewhere"]["range_ms"]  # every time with the range of its runs
    assert low <= row["elsewhere"]["kernel_ms"] <= high
    table = next(tmp_path.glob("portability_*_small.md")).read_text()
    assert f"[{low:.3g}–{high:.3g}]" in table


def test_calibration_reads_results_keyed_by_program_and_sizes(capsys):
    """The large-size results (one row per program and size: "scal N=16777216") calibrate
    the cost model like the others; --report writes nothing."""
    from benchmarks import calibrate

    path = calibrate.RESULTS / "search_pocl_large.json"
    before = calibrate.cost.CALIBRATION.read_text()
    calibrate.main([str(path), "--report"])
    out = capsys.readouterr().out
    assert "scal         {\"N\": 16777216}" in out and "rank corr" in out
    assert calibrate.cost.CALIBRATION.read_text() == before


def test_calibration_leaves_out_the_small_sizes_by_default():
    """The small sizes' kernels take microseconds: a model fitted to them alone weighs no
    work (PoCL 3.0's, so fitted, ranked a dot product of 2^24 floats in one work-item with
    the fastest), so the default calibration reads the other results only, and the shipped
    priors hold no model fitted so."""
    from benchmarks import calibrate

    small = calibrate.RESULTS / "search_pocl_small.json"
    assert calibrate.at_small_sizes(small)
    assert not calibrate.at_small_sizes(calibrate.RESULTS / "search_pocl_paper.json")
    device = json.loads(small.read_text())["device"]
    shipped = json.loads(calibrate.cost.CALIBRATION.read_text())["devices"]
    fitted_elsewhere = {json.loads(p.read_text())["device"]
                        for p in calibrate.RESULTS.glob("search_*.json")
                        if not calibrate.at_small_sizes(p)}
    assert device in fitted_elsewhere or device not in shipped


def test_devices_benchmark_runs_on_two_pocl_devices(tmp_path):
    """One device against two, kernels only, at the quick sizes (two PoCL devices need
    POCL_DEVICES before PoCL loads: a child process)."""
    import subprocess
    import sys

    from tests.children import ROOT, child_env
    from workbench.device.opencl import devices

    if not any(d.is_pocl and d.ok for d in devices()):
        pytest.skip("no PoCL here (a GPU host): the two-GPU run is benchmarks.devices itself")
    done = subprocess.run([sys.executable, "-m", "benchmarks.devices", "--quick", "--no-search",
                           "--results", str(tmp_path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env=child_env(POCL_DEVICES="pthread pthread"))
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads((tmp_path / "devices_pocl_quick.json").read_text())
    assert len(doc["kernels"]) == 3 and len(doc["devices"]) == 2
    for row in doc["kernels"]:
        assert row["one_device"]["correct"] and row["two_devices"]["correct"], row
        assert [e["device"] for e in row["two_devices"]["per_device"]] == doc["devices"]
        assert row["speedup"] > 0
    table = (tmp_path / "devices_pocl_quick.md").read_text()
    assert table.count("\n| ") >= 4 and "Gaussian blur" in table


def test_spellings_benchmark_searches_each_spelling_beside_numpy(tmp_path, monkeypatch):
    from benchmarks import spellings

    monkeypatch.setattr(spellings, "RESULTS", tmp_path)
    # a GPU's limits want enough work-groups to fill its compute units: the shape
    shape = "512x256x384" if default_tag()[1] == "gpu" else "32x64x16"
    doc = spellings.main(["--shape", shape, "--budget", "2", "--rounds", "1",
                          "--workers", "0"])
    library, named = doc["spellings"]["library form"], doc["spellings"]["named dot product"]
    assert library["normalised"] == [] and named["normalised"][0].startswith("β-reduction")
    assert library["phases"] == named["phases"]
    for entry in (library, named):
        assert entry["evaluated"] == 2 and entry["best_ms"] and entry["default_mapping_ms"]
    assert doc["numpy_ms"] > 0
    low, high = doc["numpy_range_ms"]  # NumPy's time with the range of its runs
    assert low <= doc["numpy_ms"] <= high and library["best_range_ms"][0] <= library["best_ms"]
    assert "| named dot product | β-reduction |" in (tmp_path / next(
        p.name for p in tmp_path.glob("spellings_*.md"))).read_text()


def test_the_blur_reference_is_the_interpreters_output():
    from benchmarks.devices import blur_reference, programs
    from workbench import evaluate

    [(_, _, blur, inputs, _)] = programs({"vector": 16, "image": 37}, ["blur"], seed=3)
    np.testing.assert_allclose(blur_reference(*inputs),
                               np.asarray(evaluate(blur, *inputs), dtype=np.float32),
                               rtol=1e-6, atol=1e-6)  # float32's rounding, summed apart


def test_pocl_study_kernels_compute_what_numpy_does():
    """Every hand-written kernel of the PoCL study, at small sizes on the default device, is
    checked against NumPy's answer in float64 (a wrong one would be reported, not timed)."""
    from benchmarks import pocl_study
    from workbench.device.opencl import find_device

    info, _ = find_device(None)
    if info.kind != "cpu":
        pytest.skip("the study is of CPU devices")
    sizes = {"n": 1 << 12, "rows": 64, "rounds": 1, "repeat": 1}
    widths = tuple(w for w in (4, 8, 16) if w in info.vector_widths)
    for name in pocl_study.PROGRAMS:
        kernels = [pocl_study.Timed(v.name, v.shape, v.source, v.launches, v.width)
                   for v in pocl_study.variants(name, sizes, widths)]
        said = []
        pocl_study.time_rounds(info.id, name, kernels, sizes, pocl_study.inputs(name, sizes),
                               log=said.append)
        assert not said and all(k.status == "ok" and k.samples for k in kernels), said


def test_stencil_peeling_compiles_before_without_and_after_with_the_peeled_rows():
    """The before/after benchmark's variants: the same expression, its rows peeled only
    after; PPCG's Jacobi also with its pads moved; each agreeing with the interpreter."""
    from benchmarks import stencil_peeling

    _, _, found = stencil_peeling.variants("jacobi2d5pt", 24)
    assert list(found) == ["before", "after", "after, pads moved"]
    assert found["before"][0] == found["after"][0]
    assert "_in = 0;" not in found["before"][1].source and "index" in found["before"][1].source
    assert "_in = 0;" in found["after"][1].source
    entry = stencil_peeling.measure("hotspot", 24, None, 1, 1)
    assert set(entry["ms"]) == {"before", "after", "hand-written"}
    assert "hotspot" in stencil_peeling.table({"device": "d", "rounds": 1,
                                               "programs": {"hotspot": entry}})


def test_efficiency_benchmark_draws_each_strategy_from_its_log(tmp_path, monkeypatch):
    from benchmarks import efficiency, saturation
    from workbench.search import read

    results = tmp_path / "benchmarks" / "results"
    monkeypatch.setattr(saturation, "ROOT", tmp_path)
    monkeypatch.setattr(saturation, "RESULTS", results)
    doc = efficiency.main(["--budget", "3", "--programs", "scal", "--strategies", "random",
                           "mcts", "--deadline", "300"])
    (p,) = doc["programs"]
    runs = {k: read(tmp_path / log) for k, log in p["logs"].items()}
    assert {k: len(r) for k, r in runs.items()} == {"random": 3, "mcts": 3}
    best = min(r["kernel_ms"] for records in runs.values() for r in records if r["correct"])
    for strategy, records in runs.items():
        times = [r["kernel_ms"] for r in records if r["correct"]]
        assert p["curves"][strategy][-1] == round(min(times) / best, 4)
    assert min(c[-1] for c in p["curves"].values()) == 1.0
    tag = f"{'gpu' if 'gpu' in p['logs']['mcts'] else 'cpu'}_small"
    assert (results / f"efficiency_{tag}.md").read_text().count("| scal N=65536 |") == 2
    assert (results / "plots" / f"efficiency_{tag}.png").stat().st_size > 0
    again = efficiency.main(["--budget", "3", "--programs", "scal", "--strategies", "random",
                             "mcts"])
    assert again["programs"][0]["curves"] == p["curves"]  # read from the logs, not run again


def test_efficiency_benchmark_writes_results_and_logs_into_one_folder(tmp_path, monkeypatch):
    """``--out DIR``: the JSON, the table, the plot and logs.tar, nothing else (the GPU run's
    results come back as a few files); a later run reads the logs from the tar and searches
    nothing."""
    import tarfile

    from benchmarks import efficiency, saturation

    monkeypatch.setattr(saturation, "RESULTS", tmp_path / "untouched")
    out = tmp_path / "out"
    args = ["--budget", "2", "--programs", "scal", "--strategies", "random", "--out", str(out)]
    doc = efficiency.main(args + ["--fresh", "--time-limit", "60"])
    tag = doc["tag"]
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"efficiency_{tag}.json", f"efficiency_{tag}.md", f"efficiency_{tag}.png", "logs.tar"])
    with tarfile.open(out / "logs.tar") as tar:
        assert tar.getnames() == list(doc["programs"][0]["logs"].values())
    monkeypatch.setattr(efficiency, "logged_search", None)  # a search would fail
    assert efficiency.main(args)["programs"][0]["curves"] == doc["programs"][0]["curves"]
    assert not (tmp_path / "untouched").exists()


def test_saturation_benchmark_times_both_bests_again_and_keeps_a_strategy_it_does_not_search(
        tmp_path, monkeypatch):
    from benchmarks import saturation
    from workbench.search import read

    results = tmp_path / "benchmarks" / "results"
    monkeypatch.setattr(saturation, "ROOT", tmp_path)
    monkeypatch.setattr(saturation, "RESULTS", results)
    # the sketches are measured in test_egraph
    monkeypatch.setattr(saturation, "sketches", lambda size, macros=True: [])
    args = ["--programs", "scal", "--budget", "2", "--rounds", "1", "--nodes", "300"]
    saturation.main(args)
    (out,) = results.glob("saturation_*_small.json")
    (first,) = json.loads(out.read_text())["programs"]
    for strategy in ("egraph", "guided"):
        logged = [r["kernel_ms"] for r in read(tmp_path / first[strategy]["log"])
                  if r["correct"]]
        assert first[strategy]["best_ms"] == min(logged)
        assert first["timed_again"][strategy]["median_ms"] > 0
    e, g = first["timed_again"]["egraph"], first["timed_again"]["guided"]
    assert first["egraph_vs_guided"] == g["median_ms"] / e["median_ms"]
    saturation.main(args + ["--search", "egraph"])
    (again,) = json.loads(out.read_text())["programs"]
    assert again["guided"] == first["guided"]  # its log read, not searched again
    assert "guided/egraph" in out.with_suffix(".md").read_text()
    # under a label, the egraph strategy within a time limit, the guided log of another run
    saturation.main(args + ["--search", "egraph", "--label", "limited", "--time-limit", "60",
                            "--keep-from", str(out)])
    (limited,) = json.loads(out.with_name(out.stem + "_limited.json").read_text())["programs"]
    assert limited["guided"] == first["guided"] and "_limited_" in limited["egraph"]["log"]
    assert "within 60 s" in out.with_name(out.stem + "_limited.md").read_text()


def test_search_speed_interleaves_two_checkouts_with_the_same_search(tmp_path):
    """Each search a process of its own, the two checkouts alternating and the order swapped
    each round, the same program, budget and seed for both (here this checkout against
    itself: the same candidates)."""
    from benchmarks import search_speed

    out = tmp_path / "speed.json"
    assert search_speed.main(["--against", str(search_speed.ROOT), "--programs", "asum",
                              "--sizes", "tiny", "--budget", "2", "--rounds", "2",
                              "--calibrations", "kept", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    new, old = doc["rows"]["new"]["asum"], doc["rows"]["old"]["asum"]
    assert [r["evaluated"] for r in new + old] == [2] * 4
    assert new[0]["started"] < old[0]["started"] < old[1]["started"] < new[1]["started"]
    assert [sorted(r["expressions"]) for r in new] == [sorted(r["expressions"]) for r in old]
    assert all(r["per_minute"] > 0 and r["first_s"] > 0 for r in new + old)


def test_saturation_benchmark_grows_matrix_multiplication_by_the_basic_rules_without_macros():
    """``--no-macros``: the paper's unguided setting, no macro (blocking, tiling, fusion,
    reduction tree) is one rule; the table says which rules grew the graph."""
    from benchmarks import saturation
    from workbench.rules import rules

    macros = {r.name for r in rules if r.category == "macro"}
    assert not {r.name for r in saturation.grown_by(False)} & macros
    assert {"1d-blocking", "tiling"} <= {r.name for r in saturation.grown_by(True)}
    grown = saturation.unguided(16, 5.0, 600, macros=False)
    fired = {rule for r in grown["rounds"] for rule in r["fired"]}
    assert grown["macros"] is False and grown["nodes"] > 0 and fired and not fired & macros
    assert set(grown["holds"]) == set(saturation.MM_SKETCHES)
    doc = {"device": "d", "budget": 1, "options": {}, "programs": [], "sketches": [],
           "mm_unguided": grown}
    assert "grown by the basic rules alone (no macro)" in saturation.table(doc)
