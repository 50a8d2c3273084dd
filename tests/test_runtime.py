"""The OpenCL runtime on the default device (PoCL's CPU device unless one is chosen):
devices, builds, timing, and every failure as an outcome. GPU checks skip without a GPU."""

import os

import numpy as np
import pytest

from workbench import runtime
from workbench.device import opencl as opencl_devices
from workbench.runtime import Launch, run_isolated, run_kernels

SCALE3 = """
kernel void scale3(global const float *xs, global float *out) {
    int i = get_global_id(0);
    out[i] = xs[i] * 3.0f;
}
"""

HALF_WRITTEN = """
kernel void evens(global const float *xs, global float *out) {
    int i = get_global_id(0);
    if (i % 2 == 0) out[i] = xs[i];
}
"""

SPIN = """
kernel void spin(global const float *xs, global float *out) {
    int i = 0;
    while (xs[0] == xs[0]) { i++; }
    out[0] = i;
}
"""


def test_the_default_device_is_pocl_when_no_variable_chooses(monkeypatch):
    for name in ("WORKBENCH_DEVICE", "PYOPENCL_CTX"):
        monkeypatch.delenv(name, raising=False)
    if not any(d.is_pocl and d.kind == "cpu" and d.ok for d in opencl_devices.devices()):
        pytest.skip("no working PoCL device here (a GPU machine's own Python)")
    info, _ = opencl_devices.find_device()
    assert info.is_pocl and info.kind == "cpu"
    assert any(d.id == info.id for d in opencl_devices.devices())


def test_unknown_device_is_named():
    with pytest.raises(opencl_devices.DeviceNotFound, match="no device matches 'quantum'"):
        opencl_devices.find_device("quantum")


def test_run_times_and_returns_outputs():
    xs = np.random.default_rng(0).uniform(-1, 1, 4096).astype(np.float32)
    outcome = run_kernels(SCALE3, [Launch("scale3", (4096,), None, ("xs", "out"))],
                          {"xs": xs}, {"out": ((4096,), np.float32)}, repeat=5)
    assert outcome.ok, outcome.message
    np.testing.assert_allclose(outcome.value["out"], xs * 3)
    assert len(outcome.kernel.samples_ms) == 5
    assert outcome.kernel.min_ms <= outcome.kernel.median_ms <= outcome.kernel.max_ms
    assert outcome.transfer_ms is not None and outcome.transfer_ms >= 0


def test_a_kernel_slower_than_the_cutoff_in_its_first_two_runs_is_timed_once():
    xs = np.random.default_rng(0).uniform(-1, 1, 4096).astype(np.float32)
    args = (SCALE3, [Launch("scale3", (4096,), None, ("xs", "out"))], {"xs": xs},
            {"out": ((4096,), np.float32)})
    cut = run_kernels(*args, repeat=5, cutoff_ms=1e-9)  # every run takes longer than this
    assert cut.ok, cut.message
    np.testing.assert_allclose(cut.value["out"], xs * 3)  # checked all the same
    assert len(cut.kernel.samples_ms) == 1
    kept = run_kernels(*args, repeat=5, cutoff_ms=1e6)  # no run takes this long
    assert len(kept.kernel.samples_ms) == 5


SLOW_ONCE = """
kernel void slow_once(global const float *xs, global int *state, global float *out) {
    float a = xs[0];
    if (state[0] == 0) {  /* the first run only: a long chain of dependent operations */
        for (int i = 0; i < (int)xs[1]; i++) a = a * 0.999f + 1.0f;
    }
    out[0] = a;
    state[0] += 1;
}
"""


def test_one_slow_run_is_not_enough_to_cut_a_kernels_timing_short():
    """The cut-off needs both of the first two runs past it: a kernel whose first run is
    slow (a cold cache, a first touch of its pages) and whose second is fast is timed in
    full."""
    xs = np.array([1.0, 2e7], dtype=np.float32)
    launches = [Launch("slow_once", (1,), (1,), ("xs", "state", "out"))]
    outputs = {"state": ((1,), np.int32), "out": ((1,), np.float32)}
    outcome = run_kernels(SLOW_ONCE, launches, {"xs": xs}, outputs, repeat=5, warmup=0,
                          cutoff_ms=2.0)
    assert outcome.ok, outcome.message
    assert outcome.value["state"][0] == 5
    samples = outcome.kernel.samples_ms
    assert samples[0] > 2.0 > max(samples[1:]), samples  # slow once, then fast
    assert len(samples) == 5


def test_build_cache_is_keyed_by_source_device_and_options():
    ctx = runtime.context_for()
    _, first = runtime.build(ctx, SCALE3, ["-cl-fast-relaxed-math"])
    _, again = runtime.build(ctx, SCALE3, ["-cl-fast-relaxed-math"])
    assert again == 0.0
    assert runtime.cache_key(SCALE3, ctx.info, []) != runtime.cache_key(SCALE3, ctx.info, ["-O"])


def test_the_program_cache_drops_the_least_recently_used_beyond_its_count():
    cache = runtime.ProgramCache(max_entries=3, max_bytes=1 << 20)
    for key in "abc":
        cache.put(key, f"program {key}", 10)
    assert cache.get("a") == "program a"  # used again: now the most recent
    cache.put("d", "program d", 10)
    assert cache.keys() == ["c", "a", "d"] and "b" not in cache
    assert cache.get("b") is None
    assert (len(cache), cache.bytes, cache.evicted) == (3, 30, 1)


def test_the_program_cache_drops_the_oldest_beyond_its_bytes():
    cache = runtime.ProgramCache(max_entries=100, max_bytes=100)
    for key in "abc":
        cache.put(key, key, 40)
    assert cache.keys() == ["b", "c"] and cache.bytes == 80
    cache.put("huge", "huge", 1000)  # kept alone, even over the limit
    assert cache.keys() == ["huge"] and cache.bytes == 1000
    cache.put("huge", "rebuilt", 10)  # the same key again is counted once
    assert cache.keys() == ["huge"] and cache.bytes == 10 and cache.get("huge") == "rebuilt"


def test_a_program_built_on_pocl_is_counted_by_its_source(monkeypatch):
    # asking PoCL for its binaries' sizes compiles the program again (0.3-0.7 s a candidate)
    ctx = runtime.context_for()
    if not ctx.info.is_pocl:
        pytest.skip(f"the default device is not PoCL: {ctx.info.describe()}")
    monkeypatch.setattr(ctx, "programs", runtime.ProgramCache())
    source = SCALE3.replace("3.0f", "7.0f")
    assert runtime.build(ctx, source)[1] > 0
    assert ctx.programs.bytes == len(source.encode())


def test_builds_beyond_the_cache_evict_the_oldest_and_keep_the_recently_used(monkeypatch):
    ctx = runtime.context_for()
    monkeypatch.setattr(ctx, "programs", runtime.ProgramCache(max_entries=2))
    sources = [SCALE3.replace("3.0f", f"{n}.0f") for n in (4, 5, 6)]
    for source in sources[:2]:
        assert runtime.build(ctx, source)[1] > 0
    assert runtime.build(ctx, sources[0])[1] == 0.0  # cached, and now the most recent
    runtime.build(ctx, sources[2])  # evicts sources[1], the least recently used
    assert runtime.cache_key(sources[1], ctx.info, []) not in ctx.programs
    assert runtime.build(ctx, sources[0])[1] == 0.0
    assert len(ctx.programs) == 2 and ctx.programs.evicted == 1
    assert ctx.programs.bytes >= sum(len(s) for s in (sources[0], sources[2]))
    assert runtime.build(ctx, sources[1])[1] > 0  # built again


def test_compile_error_is_an_outcome():
    outcome = run_kernels("kernel void broken(global float *x) { x[0] = ; }",
                          [Launch("broken", (1,), None, ("x",))], {}, {"x": ((1,), np.float32)})
    assert outcome.status == runtime.COMPILE_ERROR
    assert "error" in outcome.message.lower()


def test_unwritten_outputs_are_nan():
    xs = np.ones(64, np.float32)
    outcome = run_kernels(HALF_WRITTEN, [Launch("evens", (64,), None, ("xs", "out"))],
                          {"xs": xs}, {"out": ((64,), np.float32)}, repeat=1)
    assert outcome.ok
    assert np.isnan(outcome.value["out"][1::2]).all()


def spin_job():
    xs = np.ones(1, np.float32)
    return run_kernels(SPIN, [Launch("spin", (1,), None, ("xs", "out"))], {"xs": xs},
                       {"out": ((1,), np.float32)}, repeat=1)


def crash_job():
    os._exit(3)


def test_a_kernel_that_hangs_is_a_timeout_and_the_caller_survives():
    outcome = run_isolated(spin_job, timeout=8)
    assert outcome.status == runtime.TIMEOUT


def test_a_worker_that_dies_is_a_crash():
    outcome = run_isolated(crash_job, timeout=30)
    assert outcome.status == runtime.CRASHED and "exit code 3" in outcome.message


def out_of_bounds_job():
    source = ("kernel void far(global const float *xs, global float *out) {"
              "  int i = get_global_id(0); out[i] = xs[i + (1 << 30)]; }")
    xs = np.ones(16, np.float32)
    return run_kernels(source, [Launch("far", (16,), None, ("xs", "out"))], {"xs": xs},
                       {"out": ((16,), np.float32)}, repeat=1)


def test_a_kernel_that_reads_out_of_bounds_is_an_outcome_and_the_caller_survives():
    outcome = run_isolated(out_of_bounds_job, timeout=60)
    assert outcome.status in (runtime.CRASHED, runtime.LAUNCH_ERROR), outcome
    assert run_isolated(_scale_job, timeout=60).ok  # and the next run works


def test_isolated_run_returns_the_outcome():
    outcome = run_isolated(_scale_job, timeout=60)
    assert outcome.ok
    np.testing.assert_allclose(outcome.value["out"], np.arange(16, dtype=np.float32) * 3)


def _scale_job():
    xs = np.arange(16, dtype=np.float32)
    return run_kernels(SCALE3, [Launch("scale3", (16,), None, ("xs", "out"))], {"xs": xs},
                       {"out": ((16,), np.float32)}, repeat=1)


def gpu_available() -> bool:
    return any(d.kind == "gpu" and d.ok for d in opencl_devices.devices())


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="no GPU OpenCL device on this machine")
def test_gpu_runs_the_same_kernel():
    xs = np.random.default_rng(0).uniform(-1, 1, 1 << 20).astype(np.float32)
    outcome = run_kernels(SCALE3, [Launch("scale3", (1 << 20,), (256,), ("xs", "out"))],
                          {"xs": xs}, {"out": ((1 << 20,), np.float32)}, device="gpu")
    assert outcome.ok, outcome.message
    np.testing.assert_allclose(outcome.value["out"], xs * 3)


def test_vector_widths_that_failed_the_devices_probe_are_refused_in_process(monkeypatch):
    """A width whose probe kernel crashes the compiler (PoCL 3.0 on float16, injected here)
    is missing from the device's widths; a kernel using it is refused before it is built,
    in this process, which it would otherwise end."""
    from workbench import parse
    from workbench.run import run

    info, _ = opencl_devices.find_device(None)
    monkeypatch.setenv("WORKBENCH_PROBE_FAIL", f"crash16:{info.id}")
    probed = next(d for d in opencl_devices.devices() if d.id == info.id)
    assert probed.ok and probed.vector_widths == (2, 4, 8)
    xs = np.arange(64, dtype=np.float32)
    result = run(parse("λa. joinVec ∘ mapGlobal (mapVec (*a)) ∘ splitVec 16"),
                 np.float32(2.0), xs, repeat=1)
    assert result.status == "compile error"
    assert "vectors of 16 (float16) failed this device's probe" in result.message
    assert "use widths 2, 4, 8" in result.message
    narrow = run(parse("λa. joinVec ∘ mapGlobal (mapVec (*a)) ∘ splitVec 8"),
                 np.float32(2.0), xs, repeat=1)
    assert narrow.correct


def test_built_in_functions_on_widths_that_failed_their_probe_are_refused(monkeypatch):
    """A width whose built-in functions crash the compiler (PoCL 3.0 from PyPI on float16 on
    an AVX-512 CPU, injected here) runs kernels that call none (its vectors read through
    vector pointers, partial sums written so); a kernel on it that calls one is refused
    before it is built."""
    from workbench import parse
    from workbench.run import run
    from workbench.runtime import builtin_calls

    info, _ = opencl_devices.find_device(None)
    monkeypatch.setenv("WORKBENCH_PROBE_FAIL", f"builtins16:{info.id}")
    probed = next(d for d in opencl_devices.devices() if d.id == info.id)
    assert probed.vector_widths == (2, 4, 8, 16) and probed.builtin_widths == (2, 4, 8)
    xs = np.arange(64, dtype=np.float32)
    plain = run(parse("reduceSeq (+) 0 ∘ joinVec ∘ reduceSeq (mapVec (+)) 0 ∘ splitVec 16"),
                xs, repeat=1)
    assert plain.correct and not builtin_calls(plain.source), plain.message
    calling = run(parse("joinVec ∘ mapGlobal (mapVec sqrt) ∘ splitVec 16"), xs, repeat=1)
    assert calling.status == "compile error"
    assert "built-in functions on vectors of 16 (float16) failed this device's probe, and " \
        "this kernel calls sqrt" in calling.message
    # aligned vectors are read and stored through pointers: no built-in, built and run
    out = run(parse("λa. joinVec ∘ mapGlobal (mapVec (*a)) ∘ splitVec 16"), np.float32(2.0),
              xs, repeat=1)
    assert out.correct and not builtin_calls(out.source), out.message
    # a vector that starts one element in is read by vload16: refused
    shifted = run(parse("λa. joinVec ∘ mapGlobal (mapVec (*a)) ∘ splitVec 16 ∘ drop 1"),
                  np.float32(2.0), np.arange(65, dtype=np.float32), repeat=1)
    assert shifted.status == "compile error" and "calls vload16" in shifted.message
    assert run(parse("joinVec ∘ mapGlobal (mapVec sqrt) ∘ splitVec 8"), xs, repeat=1).correct


def test_built_in_calls_are_told_from_the_kernels_own_functions():
    source = """
float kernel_f1(float8 a) { return a.s0; } // fabs(x) in a comment
kernel void kernel_0(global const float *restrict in0, global float *restrict out) {
    float prv[8] __attribute__((aligned(32)));
    for (int i = get_global_id(0); i < 8; i++) {
        out[i] = kernel_f1(vload8(0, in0)) + sqrt(as_float(as_uint(in0[i]) & 0x7fffffffu));
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}"""
    from dataclasses import replace

    from workbench.runtime import builtin_calls, known_compiler_crash

    assert builtin_calls(source) == {"vload8", "sqrt"}
    info, _ = opencl_devices.find_device(None)
    pocl30 = replace(info, vector_widths=(2, 4, 8, 16), builtin_widths=(2, 4, 8))
    # vloadN and vstoreN of the widths whose built-ins work, beside float16 code, are built
    assert known_compiler_crash(pocl30, "float2 y = vload2(0, a); float16 x = y.s0;") is None
    assert "calls vstore16" in known_compiler_crash(pocl30, "float16 x; vstore16(x, 0, a);")
    assert "calls fabs" in known_compiler_crash(pocl30, "float16 x; float y = fabs(a[0]);")


def test_local_memory_that_does_not_fit_the_device_is_refused_before_the_build():
    """PoCL aborts the process on a launch asking for more local memory than it has: the
    runtime says so instead, naming the kernel and both sizes."""
    from workbench import parse
    from workbench.run import run

    info, device = opencl_devices.find_device(None)
    n = device.local_mem_size // 4 * 2  # twice the device's local memory, in floats
    xs = np.ones(n, dtype=np.float32)
    chunk = n // 64
    result = run(parse(f"join ∘ mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split "
                       f"{chunk} ∘ join ∘ toLocal (mapLocal (mapSeq id)) ∘ split {chunk}) ∘ "
                       f"split {n}"),
                 xs, repeat=1)
    assert result.status == "launch error"
    assert "local memory" in result.message and f"at most {device.local_mem_size}" in \
        result.message
