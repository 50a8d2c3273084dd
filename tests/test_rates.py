"""One definition of a kernel's rates (``workbench.rates``): effective GB/s over the
program's own inputs and output, GFLOP/s from the kernel IR's count, each beside the
device's measured ceilings; the same numbers from ``run``, the command line and a search."""

import json
import subprocess
import sys

import numpy as np
import pytest

from workbench import run
from workbench.ceilings import Ceilings
from workbench.programs import library
from workbench.rates import rates
from workbench.search import search

ASUM = library("blas")["asum"]
DOT = library("blas")["dot"]


def test_rates_read_against_the_ceilings_and_say_when_faster_than_a_copy():
    c = Ceilings("a device", gflop_per_s=100.0, gb_per_s=10.0)
    r = rates(2.0, 10 ** 7, 4 * 10 ** 6, c)  # 5 GB/s, 2 GFLOP/s
    assert r.gb_per_s == pytest.approx(5.0) and r.gflop_per_s == pytest.approx(2.0)
    assert r.share_of_copy == pytest.approx(0.5) and not r.in_cache
    assert r.text() == "5.00 GB/s (50% of a copy's 10.0), 2.00 GFLOP/s (2.0% of the peak 100)"
    fast = rates(0.5, 10 ** 7, None, c)  # 20 GB/s: twice a copy's
    assert fast.in_cache and "in cache: 200% of a copy's" in fast.text()
    assert rates(1.0, None, None).text() == "" and rates(0.0, 10, 10).gb_per_s is None


def test_a_faster_kernel_of_the_same_program_never_shows_fewer_gb_per_s():
    """The bytes are the program's, not a kernel's: the rate orders steps as time does."""
    slow, fast = rates(2.0, 4096, 100), rates(1.0, 4096, 900)
    assert fast.gb_per_s > slow.gb_per_s


def test_run_counts_the_programs_own_inputs_and_output():
    x = np.random.default_rng(0).random(4096).astype(np.float32)
    y = np.random.default_rng(1).random(4096).astype(np.float32)
    result = run(DOT, x, y, repeat=3)
    assert result.correct, result.message
    assert result.bytes == x.nbytes + y.nbytes + 4  # two vectors in, one float out
    assert result.operations and result.operations >= 2 * 4096  # a product and a sum each
    doc = result.as_json()
    assert doc["gb_per_s"] == pytest.approx(result.bytes / (result.kernel_ms * 1e6))
    assert "GB/s" in str(result) and "GFLOP/s" in str(result)


@pytest.mark.slow
def test_the_command_line_and_a_search_give_the_same_rates():
    out = subprocess.run([sys.executable, "-m", "workbench", "run",
                          "@workbench/programs/blas.lift:asum", "--size", "N=4096", "--json",
                          "--repeat", "3"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["rates"]["bytes"] == 4096 * 4 + 4
    assert doc["rates"]["gb_per_s"] == pytest.approx(doc["gb_per_s"])
    assert doc["rates"]["copy_gb_per_s"] and "GB/s" in doc["rates"]["text"]
    found = search(ASUM, "[float]_4096", budget=2, workers=0, repeat=2)
    assert found.rates is not None and found.rates.bytes == 4096 * 4 + 4
    assert found.rates.gb_per_s == pytest.approx(found.rates.bytes
                                                 / (found.best_kernel_ms * 1e6))
    assert found.as_json()["best"]["rates"]["bytes"] == 4096 * 4 + 4


def test_a_roofline_draws_each_kernel_under_the_ceilings(tmp_path):
    pytest.importorskip("matplotlib")
    from workbench import plots

    c = Ceilings("a device", gflop_per_s=100.0, gb_per_s=10.0)
    points = {"step 1": rates(2.0, 10 ** 7, 4 * 10 ** 6, c),
              "step 2": rates(1.0, 10 ** 7, 4 * 10 ** 6, c),
              "no counts": rates(1.0, None, None, c)}
    fig = plots.roofline(points, c, title="asum", path=tmp_path / "roof.png")
    ax = fig.axes[0]
    assert len(ax.collections) == 2  # the kernel without counts is left out
    xs = sorted(float(p.get_offsets()[0][0]) for p in ax.collections)
    assert xs == pytest.approx([0.4, 0.4])  # operations per byte
    roof = ax.lines[0].get_ydata()
    assert roof.max() == pytest.approx(100.0)  # flat at the peak
    assert (tmp_path / "roof.png").stat().st_size > 1000
