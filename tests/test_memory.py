"""The memory guard (``workbench.memory``): a run's peak estimated from types before
anything is allocated, within 2x of the peak measured on the library programs, and a run
that would not fit refused as an outcome (the notebook's kernel survives)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench.inputs as inputs
from workbench import load
from workbench.errors import ResourceError
from workbench.memory import check_run_memory, run_memory
from workbench.run import OUT_OF_MEMORY, compare, run
from workbench.run import tolerance as run_tolerance

from .children import child_env

PROGRAMS = Path(__file__).parent.parent / "workbench" / "programs"


def program(file: str, name: str):
    return load(PROGRAMS / file)[name]


def test_a_size_far_too_large_is_refused_before_anything_is_allocated(monkeypatch):
    asum = program("blas.lift", "asum")
    monkeypatch.setattr(inputs, "available_memory", lambda: 16 << 30)
    tracemalloc.start()
    try:
        with pytest.raises(ResourceError) as info:
            check_run_memory(asum, {"N": 2 ** 40})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert "N=1099511627776" in message and "TiB" in message and "16.0 GiB" in message
    assert info.value.sizes == {"N": 2 ** 40}
    assert peak < 8 << 20  # types and codegen only, never an array of the size


def test_the_estimate_counts_inputs_outputs_temporaries_and_the_interpreter():
    n = 1 << 20
    scal = run_memory(program("blas.lift", "scal"), {"N": n}, device=None)
    assert scal.inputs == 4 * n + 4 and scal.outputs == 4 * n
    # asum's default lowering keeps |x| in a temporary; the interpreter holds map abs
    asum = run_memory(program("blas.lift", "asum"), {"N": n})
    assert asum.temporaries >= 4 * n and asum.interpreter >= 4 * n
    # the dot product is one contraction in the interpreter: no array of products
    dot = run_memory(program("blas.lift", "dot"), {"N": n})
    assert dot.interpreter < dot.inputs
    # allPairs evaluates its function on every pair at once
    pmd = run_memory(program("skelcl.lift", "pmd"), {"D": 64, "K": 256})
    assert pmd.interpreter >= 256 * 256 * 64 * 4
    assert "inputs" in str(asum) and "interpreter" in str(asum)


@settings(max_examples=25, deadline=None)
@given(st.integers(10, 40))
def test_the_estimate_grows_with_the_size_and_refuses_past_the_memory(k):
    """Whatever the size, the estimate is at least the inputs and outputs, and the guard
    refuses exactly the sizes whose estimate (with its margin) passes what is available."""
    expr = program("blas.lift", "scal")
    estimate = run_memory(expr, {"N": 2 ** k})
    assert estimate.total >= estimate.inputs + estimate.outputs
    assert run_memory(expr, {"N": 2 ** (k + 1)}).total > estimate.total
    from workbench.memory import COMPILER_BYTES, MARGIN
    needed = estimate.total * MARGIN + COMPILER_BYTES
    with pytest.MonkeyPatch.context() as m:
        m.setattr(inputs, "available_memory", lambda: int(needed) + 1)
        assert check_run_memory(expr, {"N": 2 ** k}).total == estimate.total
        m.setattr(inputs, "available_memory", lambda: int(needed) - 1)
        with pytest.raises(ResourceError):
            check_run_memory(expr, {"N": 2 ** k})


def test_a_run_that_would_not_fit_is_an_outcome_and_evaluates_nothing(monkeypatch):
    scal = program("blas.lift", "scal")
    xs = np.ones(1 << 20, dtype=np.float32)
    monkeypatch.setattr(inputs, "available_memory", lambda: 64 << 20)
    tracemalloc.start()
    try:
        result = run(scal, np.float32(2), xs, repeat=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.status == OUT_OF_MEMORY and not result.correct
    assert "N=1048576" in result.message and "choose smaller sizes" in result.message
    assert isinstance(result.error, ResourceError)
    assert peak < xs.nbytes  # no interpreter output, no buffers


def test_the_cli_refuses_a_size_that_does_not_fit_with_a_message(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "workbench", "run", f"@{PROGRAMS / 'blas.lift'}:asum",
         "--size", f"N={2 ** 40}"], capture_output=True, text=True, env=child_env(),
        timeout=120)
    assert out.returncode == 1, out.stderr
    assert "N=1099511627776" in out.stderr and "choose smaller sizes" in out.stderr
    assert "Traceback" not in out.stderr


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=50),
       st.integers(1, 8), st.integers(0, 49), st.sampled_from([0.0, 1.0, np.nan]))
def test_the_check_in_blocks_finds_what_the_whole_check_finds(values, block, at, change):
    """``compare`` works on blocks (its memory stays small); with any block size it finds
    the same first mismatch, count and largest difference as on the whole array."""
    import workbench.memory as memory
    run_module = sys.modules["workbench.run"]

    want = np.array(values, dtype=np.float32)
    got = want.copy()
    if at < got.size and change != 0.0:
        got[at] = got[at] + np.float32(1e3) if change == 1.0 else np.nan
    whole = compare(got, want)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(memory, "COMPARE_BLOCK", block)
        m.setattr(run_module, "COMPARE_BLOCK", block)
        blocked = compare(got, want)
        assert run_tolerance(want) == whole.tolerance
    assert (blocked.correct, blocked.mismatches, blocked.first) == \
        (whole.correct, whole.mismatches, whole.first)
    assert blocked.max_error == whole.max_error


# --- measured against the estimate -------------------------------------------------------------

# Library programs at moderate sizes (inputs of 1-16 MiB): each is measured in a child
# process (peak resident memory from before its inputs are drawn to the end of the run; the
# program is built first, so the compiler's memory is not in it) and compared with the
# estimate.
MEASURED = [
    ("blas.lift", "asum", {"N": 1 << 22}),
    ("blas.lift", "scal", {"N": 1 << 22}),
    ("blas.lift", "dot", {"N": 1 << 22}),
    ("blas.lift", "gemv", {"N": 2048, "M": 2048}),
    ("figures.lift", "fig10_8", {"N": 1 << 22}),
    ("blackscholes.lift", "blackScholes", {"N": 1 << 22}),
    ("mm.lift", "mm", {"N": 512, "M": 512, "K": 512}),
    ("skelcl.lift", "pmd", {"D": 64, "K": 1024}),
    ("skelcl.lift", "gaussianBlur", {"M": 2048, "N": 2048}),
    ("md.lift", "md", {"N": 1 << 18, "K": 16}),
]

CHILD = textwrap.dedent("""
    import ctypes, gc, json, sys
    from workbench import load
    from workbench.codegen.program import opencl
    from workbench.domain import ranges_of
    from workbench.inputs import random_inputs
    from workbench.memory import run_memory
    from workbench.run import run
    from workbench.runtime import build, context_for
    from workbench.types import function_parts, substitute_sizes

    def rss(field):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024

    libc = ctypes.CDLL("libc.so.6")
    out = []
    for file, name, sizes in json.loads(sys.argv[1]):
        expr = load(file)[name]
        types = function_parts(expr.declared_type)[0]
        concrete = [substitute_sizes(t, sizes) for t in types]
        program = opencl(expr, *concrete, sizes=sizes, complete=True, name=name)
        build(context_for(None), program.source, ())
        estimate = run_memory(expr, sizes).total
        gc.collect()
        libc.malloc_trim(0)  # memory freed by the previous program goes back to the system
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # the peak (VmHWM) starts again from here
        base = rss("VmRSS")
        arrays = random_inputs(types, sizes, 0, ranges_of(expr))
        result = run(expr, *arrays, repeat=1, warmup=0, sizes=sizes)
        out.append([name, result.status, rss("VmHWM") - base, estimate])
        del arrays, result
    print(json.dumps(out))
""")


def _measure(cases) -> list:
    if not Path("/proc/self/clear_refs").exists():
        pytest.skip("measuring a peak needs Linux's /proc/self/clear_refs")
    jobs = [[str(PROGRAMS / f), n, s] for f, n, s in cases]
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(jobs)], capture_output=True,
                         text=True, env=child_env(), timeout=600)
    if out.returncode != 0 and "clear_refs" in out.stderr:
        pytest.skip("this kernel does not let a process reset its peak memory")
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _within_twice(rows) -> None:
    for name, status, measured, estimate in rows:
        assert status == "ok", (name, status)
        assert measured / 2 <= estimate <= measured * 2, \
            f"{name}: estimated {estimate >> 20} MiB, measured {measured >> 20} MiB"


def test_the_estimate_is_within_twice_the_measured_peak_for_asum():
    _within_twice(_measure(MEASURED[:1]))


@pytest.mark.slow
def test_the_estimate_is_within_twice_the_measured_peak_on_the_library():
    _within_twice(_measure(MEASURED))


def test_a_search_too_large_is_refused_before_it_starts():
    out = subprocess.run(
        [sys.executable, "-m", "workbench", "search", f"@{PROGRAMS / 'blas.lift'}:asum",
         "--size", f"N={2 ** 40}", "--budget", "2"], capture_output=True, text=True,
        env=child_env(), timeout=120)
    assert out.returncode == 1 and "choose smaller sizes" in out.stderr, out.stderr[-2000:]


def test_a_control_groups_limit_is_the_memory_available(tmp_path, monkeypatch):
    """In a container (JupyterHub, Binder) the group's limit kills the kernel long before
    the machine is full: the memory available is what is left under it."""
    group = tmp_path / "group"
    group.mkdir()
    (group / "memory.max").write_text(f"{2 << 30}\n")
    (group / "memory.current").write_text(f"{512 << 20}\n")
    monkeypatch.setattr(inputs, "_cgroup_folders", lambda: [str(group)])
    monkeypatch.setattr(inputs, "_system_available", lambda: 64 << 30)
    assert inputs.available_memory() == (2 << 30) - (512 << 20)
    (group / "memory.max").write_text("max\n")  # no limit: the system's
    assert inputs.available_memory() == 64 << 30
    v1 = tmp_path / "v1"
    v1.mkdir()
    (v1 / "memory.limit_in_bytes").write_text(f"{1 << 30}\n")
    (v1 / "memory.usage_in_bytes").write_text(f"{1 << 28}\n")
    monkeypatch.setattr(inputs, "_cgroup_folders", lambda: [str(tmp_path / "none"), str(v1)])
    assert inputs.available_memory() == (1 << 30) - (1 << 28)
