"""Private arrays of a work-group: PoCL keeps every work-item's copy on one thread's stack,
so a work-group whose arrays do not fit kills the process (SIGSEGV) although the device
reports work-groups of 4096 work-items. The limit is a probed device fact; a launch whose
work-group size the driver chooses gets one that fits, one that fixes it is refused, and
the guided search does not propose what the device refuses.

The shape that crashed the recorded PoCL searches (gemv at 4096², scal and dot at 2^24 and
2^26, BlackScholes): a kernel without work-groups of its own (``mapGlobal``) whose work-item
keeps a private array (``mapSeq`` into private memory, ``toPrivate``) of 8-16 KiB: 16 KiB
times the 2048 work-items per group PoCL chose is 32 MiB, four times its 8 MiB stack."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workbench import parse, runtime
from workbench.codegen.program import opencl
from workbench.device import opencl as opencl_devices
from workbench.device import probe
from workbench.programs import library
from workbench.run import private_bytes, runtime_launches
from workbench.runtime import Launch, fit_private_arrays

ROOT = Path(__file__).parent.parent
# a scal candidate that killed its worker in the recorded search at 2^24 (PoCL 3.1): each
# work-item scales two chunks of 1024 floats into a private array (8 KiB) before storing them
SCAL_CRASHED = ("λa. join ∘ join ∘ mapGlobal (toPrivate (mapSeq (joinVec ∘ mapSeq "
                "(mapVec (*a)) ∘ splitVec 16))) ∘ split 2 ∘ split 1024")


def _pocl_cpu() -> opencl_devices.DeviceInfo:
    found = [d for d in opencl_devices.devices() if d.ok and d.is_pocl and d.kind == "cpu"]
    if not found:
        pytest.skip("no working PoCL CPU device here")
    return found[0]


def test_the_crashing_shape_is_a_private_array_in_a_kernel_the_driver_groups():
    program = opencl(parse(SCAL_CRASHED), "float", "[float]_16777216")
    assert "float prv" in program.source and "barrier(" not in program.source
    launch = program.launches[0]
    assert launch.local_size is None and launch.global_size == (8192,)
    assert private_bytes(program)[launch.kernel] == 2048 * 4


def _info(**fields) -> opencl_devices.DeviceInfo:
    return opencl_devices.DeviceInfo(**{
        "id": "9:0", "platform": "Portable Computing Language", "name": "a CPU",
        "kind": "cpu", "driver": "3.1", "compute_units": 2, "max_work_group_size": 4096,
        "local_memory_bytes": 1 << 20, "doubles": True, **fields})


def test_the_driver_chosen_work_group_is_cut_to_what_the_device_held(monkeypatch):
    monkeypatch.setattr(probe, "private_group_limit", lambda info, key, *a: 4 << 20)
    launches = [Launch("rows", (4096,), None, ()), Launch("small", (4096,), None, ()),
                Launch("odd", (3000,), None, ())]
    fitted, refused = fit_private_arrays(_info(), launches,
                                         {"rows": 16384, "small": 64, "odd": 16384})
    assert refused is None
    assert [l.local_size for l in fitted] == [(256,), None, (250,)]  # 250 divides 3000


def test_a_work_group_the_code_fixes_is_refused_when_its_arrays_do_not_fit(monkeypatch):
    monkeypatch.setattr(probe, "private_group_limit", lambda info, key, *a: 4 << 20)
    _, refused = fit_private_arrays(_info(), [Launch("groups", (8192,), (1024,), ())],
                                    {"groups": 16384})
    assert refused.startswith("groups: its work-groups of 1024 work-items (16 MiB of private "
                              "arrays) do not fit") and "at most 4 MiB" in refused
    _, refused = fit_private_arrays(_info(), [Launch("huge", (64,), None, ())],
                                    {"huge": 8 << 20})
    assert refused.startswith("huge: one work-item's private arrays (8 MiB) do not fit")


def test_small_private_arrays_never_ask_the_probe(monkeypatch):
    def asked(*args):
        raise AssertionError("the probe was asked")

    monkeypatch.setattr(probe, "private_group_limit", asked)
    launches = [Launch("k", (1 << 20,), None, ())]
    assert fit_private_arrays(_info(), launches, {"k": 64}) == (launches, None)


def test_a_device_without_a_limit_keeps_its_launches(monkeypatch):
    monkeypatch.setattr(probe, "private_group_limit", lambda info, key, *a: None)
    launches = [Launch("k", (4096,), None, ())]
    assert fit_private_arrays(_info(), launches, {"k": 1 << 20}) == (launches, None)


LIMIT = """
import json, sys
from workbench.device import opencl as opencl_devices
from workbench.device import probe
info = opencl_devices.find_device(sys.argv[1])[0]
print(json.dumps(probe.private_group_limit(info, opencl_devices.health_key(info))))
"""


def _probed_limit(device_id: str, stack: int, cache: Path) -> int | None:
    import resource

    def with_stack():
        resource.setrlimit(resource.RLIMIT_STACK, (stack, resource.getrlimit(
            resource.RLIMIT_STACK)[1]))

    done = subprocess.run([sys.executable, "-c", LIMIT, device_id], capture_output=True,
                          text=True, cwd=ROOT, timeout=600, preexec_fn=with_stack,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="sets the child's stack limit")
def test_the_probe_finds_the_private_arrays_a_pocl_work_group_holds(tmp_path):
    """PoCL's threads take the process's stack limit as their stack size: with 8 MiB the
    work-groups of 16 MiB crash the probe and 4 MiB is the limit; with 64 MiB, 16 MiB ran
    (and 64 MiB crashed). The answer is kept per stack limit."""
    import resource

    if resource.getrlimit(resource.RLIMIT_STACK)[1] not in (resource.RLIM_INFINITY,) and \
            resource.getrlimit(resource.RLIMIT_STACK)[1] < 64 << 20:
        pytest.skip("the hard stack limit is below 64 MiB")
    device = _pocl_cpu()
    assert _probed_limit(device.id, 8 << 20, tmp_path) == 4 << 20
    assert _probed_limit(device.id, 64 << 20, tmp_path) == 16 << 20
    kept = json.loads((tmp_path / "rewrite-workbench" / "probes" / "private.json").read_text())
    assert sorted(e["limit"] for e in kept.values()) == [4 << 20, 16 << 20]


RUN_SCAL = """
import json, sys
import numpy as np
from workbench import parse
from workbench.run import run
xs = np.random.default_rng(0).random(1 << 22, np.float32)
r = run(parse(sys.argv[1]), np.float32(3), xs, device=sys.argv[2], repeat=1)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message}))
"""


@pytest.mark.slow
def test_the_scal_candidate_that_killed_its_worker_runs_on_pocl():
    """At 2^22 floats PoCL grouped the 2048 work-items by 1024 (8 MiB of private arrays per
    group, its whole stack): the process died. Now the work-groups are cut to the probed
    limit."""
    device = _pocl_cpu()
    done = subprocess.run([sys.executable, "-c", RUN_SCAL, SCAL_CRASHED, device.id],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, f"the process died ({done.returncode}): {done.stderr[-2000:]}"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["status"] == "ok" and result["correct"], result


def test_the_guided_search_does_not_propose_what_the_device_refuses(monkeypatch):
    """A candidate whose work-item keeps more private arrays than the device's work-groups
    held is not a candidate of the guided search (as widths the device does not run)."""
    from workbench.notation import parse_type
    from workbench.search import Context, SearchSpec
    from workbench.search.evaluation import ReplayEvaluator
    from workbench.search.guided import Candidates, GuidedState
    from workbench.search.log import Log

    monkeypatch.setattr(runtime.probe, "private_group_limit", lambda info, key, *a: 1024)
    scal = library("blas")["scal"]
    types = (parse_type("float"), parse_type("[float]_1048576"))
    ctx = Context(SearchSpec(scal, types, 8, "guided", repeat=3, batch=2), ReplayEvaluator([]),
                  Log(None))
    pool = Candidates(ctx, GuidedState.of(ctx))
    big = parse("λa. join ∘ mapGlobal (toPrivate (mapSeq (*a))) ∘ split 1024")
    small = parse("λa. join ∘ mapGlobal (toPrivate (mapSeq (*a))) ∘ split 16")
    assert pool.complete(big, []) is None  # 4 KiB in one work-item
    assert pool.complete(small, []) is not None
    program = opencl(big, *types)
    refused = fit_private_arrays(opencl_devices.find_device(None)[0],
                                 runtime_launches(program), private_bytes(program))[1]
    assert refused.startswith("kernel_0: one work-item's private arrays (4 KiB) do not fit")
