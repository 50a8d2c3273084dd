"""Lift's benchmark programs as Lift writes them (workbench/programs/lift/): each program
file parses, every program evaluates equal to its NumPy reference and runs correctly on the
default device; the peers the benchmark times compute the same stencils; the benchmark
writes its table."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks import lift_programs as bench
from workbench import evaluate
from workbench.errors import ArgumentError
from workbench.programs import LIBRARY, library
from workbench.run import run

NAMES = sorted(bench.PROGRAMS)
FAMILIES = sorted(p.stem for p in (LIBRARY / "lift").glob("*.lift"))


def test_every_family_file_is_benchmarked_and_names_its_source():
    assert FAMILIES == sorted({p.family for p in bench.PROGRAMS.values()})
    for family in FAMILIES:
        text = (LIBRARY / "lift" / f"{family}.lift").read_text()
        assert "github.com/lift-project/lift, commit" in text
        for name in (p.name for p in bench.PROGRAMS.values() if p.family == family):
            assert f"// {name}: highLevel/" in text, name


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_file_parses(family):
    programs = library(f"lift/{family}")
    for spec in bench.PROGRAMS.values():
        if spec.family == family:
            assert spec.name in programs


@pytest.mark.parametrize("name", NAMES)
def test_a_lift_program_evaluates_equal_to_numpy(name):
    spec = bench.PROGRAMS[name]
    args = bench.inputs_of(name, spec.sizes["test"])
    assert bench.agree(evaluate(spec.program(), *args), spec.reference(np, *args))


# sizes and inputs of the stencils and maps drawn at random: the interpreter and the NumPy
# reference agree on each (the programs' sizes are SizeVars)
CHEAP = ["jacobi2d5pt", "convolution2D", "hotspot", "srad1", "srad2", "jacobi3d7pt",
         "heat3d", "hotspot3D", "nearestNeighbour", "mriqPhiMag", "blackScholes", "kmeans"]


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(CHEAP), st.integers(4, 9), st.integers(0, 2**16))
def test_lift_programs_agree_with_numpy_at_any_size(name, size, seed):
    spec = bench.PROGRAMS[name]
    args = bench.inputs_of(name, size, seed)
    assert bench.agree(evaluate(spec.program(), *args), spec.reference(np, *args))


def test_a_wrong_reference_does_not_agree():
    spec = bench.PROGRAMS["convolution2D"]
    args = bench.inputs_of("convolution2D", 8)
    want = spec.reference(np, *args)
    assert bench.agree(evaluate(spec.program(), *args), want)
    want[3, 4] += 0.01
    assert not bench.agree(evaluate(spec.program(), *args), want)


@pytest.mark.parametrize("name", NAMES)
def test_a_lift_program_runs_correctly_on_the_default_device(name):
    spec = bench.PROGRAMS[name]
    result = run(spec.program(), *bench.inputs_of(name, spec.sizes["test"]), repeat=1,
                 warmup=0)
    assert result.status == "ok" and result.correct, (result.status, result.message[:2000])


@pytest.mark.parametrize("name", [n for n in NAMES if bench.PROGRAMS[n].correlate])
def test_ndimage_computes_the_programs_stencil(name):
    ndimage = pytest.importorskip("scipy.ndimage")
    spec = bench.PROGRAMS[name]
    args = bench.inputs_of(name, 10)
    want = spec.reference(np, *args)
    got = spec.correlate(ndimage, np, *args)
    if name in ("jacobi2d5pt", "jacobi3d7pt", "heat3d"):
        # PPCG's result is the stencil of the inner points, padded and rotated by one
        for axis in range(want.ndim):
            want = np.roll(want, -1, axis=axis)
        inner = tuple(slice(1, -1) for _ in range(want.ndim))
        want, got = want[inner], got[inner]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_the_benchmark_searches_times_and_writes_its_table(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "RESULTS", tmp_path)
    for spec in bench.PROGRAMS.values():
        monkeypatch.setitem(spec.sizes, "quick", spec.sizes["test"])
    doc = bench.main(["--quick", "--programs", "hotspot", "mriqPhiMag", "--budget", "2",
                      "--time-limit", "20", "--rounds", "1"])
    for name in ("hotspot", "mriqPhiMag"):
        entry = doc["programs"][name]
        assert entry["status"] == "ok" and entry["evaluates_equal_to_numpy"]
        peer = "CuPy" if "CuPy" in entry["retimed_ms"] else "NumPy"  # the device's peer
        assert entry["retimed_ms"]["best"] > 0 and entry["retimed_ms"][peer] > 0
        assert entry["ceiling_ms"]["copy (OpenCL)"] > 0
        # each time with the range of its runs
        for medians, ranges in ((entry["retimed_ms"], entry["retimed_range_ms"]),
                                (entry["ceiling_ms"], entry["ceiling_range_ms"])):
            assert all(lo <= medians[k] <= hi for k, (lo, hi) in ranges.items())
        low, high = entry["retimed_range_ms"][peer]
        assert f"{peer} {entry['retimed_ms'][peer]:.4f} [{low:.3g}–{high:.3g}]" in \
            next(tmp_path.glob("lift_programs_*.md")).read_text()
        # the hand-written peer, checked and timed in the same rounds; the ratio and rates
        assert entry["hand_written"]["correct"] and entry["retimed_ms"]["hand-written"] > 0
        row = next(line for line in next(tmp_path.glob("lift_programs_*.md")).read_text()
                   .splitlines() if line.startswith(f"| {name} |"))
        ratio = entry["retimed_ms"]["hand-written"] / entry["retimed_ms"]["best"]
        assert f"| {ratio:.2f}x |" in row and row.count("GB/s (") == 2, row
    written = json.loads(next(tmp_path.glob("lift_programs_*.json")).read_text())
    assert set(written["programs"]) == {"hotspot", "mriqPhiMag"}
    assert written["ceilings"]["gb_per_s"] > 0 and written["ceilings"]["gflop_per_s"] > 0
    assert "| hotspot | 12 | yes |" in next(tmp_path.glob("lift_programs_*.md")).read_text()


def test_a_program_starts_only_while_the_longest_so_far_fits_before_the_deadline():
    """A search started measures its whole budget, so the deadline decides which programs
    start, never when a search stops."""
    assert bench.may_start(100.0, [])
    assert bench.may_start(100.0, [40.0, 100.0])
    assert not bench.may_start(99.0, [40.0, 100.0])
    assert not bench.may_start(0.0, [])


def test_programs_the_deadline_leaves_no_time_for_are_listed_as_not_run(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "RESULTS", tmp_path)
    doc = bench.main(["--quick", "--programs", "hotspot", "mriqPhiMag", "--budget", "2",
                      "--deadline", "1e-9"])
    assert doc["time_limit"] is None
    assert [p["status"] for p in doc["programs"].values()] == [bench.NOT_RUN] * 2
    text = next(tmp_path.glob("lift_programs_*.md")).read_text()
    assert f"| hotspot | 512 | {bench.NOT_RUN} |" in text
    assert "no time limit (each search measured its budget)" in text


@pytest.mark.parametrize("name", [n for n in NAMES if bench.PROGRAMS[n].fastest])
def test_the_fastest_numpy_formulation_computes_the_program(name):
    spec = bench.PROGRAMS[name]
    args = bench.inputs_of(name, spec.sizes["quick"])
    want, got = spec.reference(np, *args), spec.fastest(np, *args)
    if name == "kmeans":  # another rounding of the distances: a nearest cluster all the same
        features, clusters = args
        d = ((features.T[:, None, :] - clusters[None, :, :]) ** 2).sum(axis=2)
        chosen = np.take_along_axis(d, got, axis=1)[:, 0]
        np.testing.assert_allclose(chosen, d.min(axis=1), rtol=1e-5, atol=1e-5)
        assert (got == want).mean() > 0.999
    else:
        assert bench.agree(got, want)


def test_the_cpu_peers_hold_the_fastest_numpy_formulation():
    args = bench.inputs_of("kmeans", 64)
    peers = bench.cpu_peers("kmeans", args, 1)
    assert set(peers) == {"NumPy", "NumPy (products)"}
    assert peers["NumPy (products)"]().median_ms > 0
    assert set(bench.cpu_peers("nbody", bench.inputs_of("nbody", 16), 1)) == {"NumPy"}


def test_the_benchmark_lets_its_searches_build_with_the_options_given(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "RESULTS", tmp_path)
    monkeypatch.setitem(bench.PROGRAMS["srad1"].sizes, "quick", 16)
    doc = bench.main(["--quick", "--programs", "srad1", "--budget", "4", "--rounds", "1",
                      "--build-option", "single-precision-constant", "--out", "with"])
    assert doc["build_options"] == ["-cl-single-precision-constant"]
    entry = doc["programs"]["srad1"]
    assert entry["status"] == "ok" and entry["search"]["build_options"] in (
        [], ["-cl-single-precision-constant"])
    text = (tmp_path / "with.md").read_text()
    assert "might build their best kernels with -cl-single-precision-constant" in text
    row = next(line for line in text.splitlines() if line.startswith("| srad1 |"))
    assert ("(built with -cl-single-precision-constant)" in row) == \
        bool(entry["search"]["build_options"])
    with pytest.raises(ArgumentError, match="'-DX=1' is not an option"):
        bench.main(["--quick", "--programs", "srad1", "--build-option=-DX=1"])
