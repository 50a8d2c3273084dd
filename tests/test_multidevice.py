"""Running one program on several devices (``run(..., devices=, distributions=)``), on two
PoCL CPU devices of one platform: ``POCL_DEVICES="pthread pthread"`` must be set before
PoCL loads, so the runs happen in a child process with that environment. On a host with two
GPUs, the same runs on both (skipped elsewhere)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tests.children import ROOT, child_env
from workbench import load, run
from workbench.device.opencl import devices

TWO_POCL = {"POCL_DEVICES": "pthread pthread"}

# the child scripts' two PoCL devices of one platform
PAIR = r"""
from workbench.device.opencl import devices

pocl = [d for d in devices() if d.is_pocl and d.kind == "cpu" and d.ok]
by_platform = {}
for d in pocl:
    by_platform.setdefault(d.id.split(":")[0], []).append(d.id)
pair = next(ids[:2] for ids in by_platform.values() if len(ids) >= 2)
"""

CHILD = r"""
import json, sys
import numpy as np
from workbench import Derivation, load, run
from workbench.several.distribution import distribute, redistribute
""" + PAIR + r"""
blas, skelcl = load("workbench/programs/blas.lift"), load("workbench/programs/skelcl.lift")
rng = np.random.default_rng(1)
x, y = (rng.uniform(-1, 1, 5003).astype(np.float32) for _ in range(2))
image = rng.uniform(0, 1, (67, 40)).astype(np.float32)
weights = rng.uniform(0, 1, 9).astype(np.float32)
out = {"pair": pair}
cases = {
    "dot": (blas["dot"], (x, y), ["block", "block"]),
    "scal": (blas["scal"], (np.float32(3), x), ["copy", "block"]),
    "lowered dot": (Derivation.load("workbench/derivations/blas_dot.json").current,
                    (x[:128 * 39], y[:128 * 39]), ["block", "block"]),
    "blur": (skelcl["gaussianBlur"], (image, weights), [("overlap", 1), "copy"]),
    "blur given distributed": (skelcl["gaussianBlur"],
                               (distribute(image, ("overlap", 1), 2), weights),
                               [("overlap", 1), "copy"]),
    "blur not redistributed": (skelcl["gaussianBlur"],
                               (distribute(image, "block", 2), weights),
                               [("overlap", 1), "copy"]),
    "blur redistributed": (skelcl["gaussianBlur"],
                           (redistribute(distribute(image, "block", 2), ("overlap", 1)),
                            weights), [("overlap", 1), "copy"]),
}
for name, (program, inputs, dists) in cases.items():
    r = run(program, *inputs, devices=pair, distributions=dists, repeat=3)
    single = run(program, *[i.gather() if hasattr(i, "gather") else i for i in inputs],
                 device=pair[0], repeat=3) if name == "blur" else None
    out[name] = {"status": r.status, "correct": r.correct, "message": r.message,
                 "per_device": r.per_device, "kernel_ms": r.kernel_ms,
                 "same_as_one_device": None if single is None else
                 bool(np.allclose(single.output, r.output, atol=1e-5))}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def two_pocl_runs() -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=child_env(**TWO_POCL),
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and "StopIteration" in done.stderr:
        pytest.skip("PoCL does not give two CPU devices of one platform here")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ["dot", "scal", "lowered dot", "blur", "blur given distributed",
                                  "blur redistributed"])
def test_a_distributed_run_is_checked_and_timed_per_device(two_pocl_runs, name):
    r = two_pocl_runs[name]
    assert r["status"] == "ok" and r["correct"], r["message"]
    assert [e["device"] for e in r["per_device"]] == two_pocl_runs["pair"]
    for entry in r["per_device"]:
        assert entry["status"] == "ok"
        assert entry["kernel_ms"] > 0 and entry["transfer_ms"] > 0
    assert r["kernel_ms"] == max(e["kernel_ms"] for e in r["per_device"])
    rows = [tuple(e["rows"]) for e in r["per_device"]]
    assert rows[0][0] == 0 and rows[0][1] == rows[1][0]


def test_each_device_computes_its_own_block(two_pocl_runs):
    assert [e["rows"] for e in two_pocl_runs["dot"]["per_device"]] == [[0, 2502], [2502, 5003]]
    assert [e["rows"] for e in two_pocl_runs["blur"]["per_device"]] == [[0, 34], [34, 67]]
    # cut between the groups of 128 of its split
    assert [e["rows"] for e in two_pocl_runs["lowered dot"]["per_device"]] == \
        [[0, 128 * 20], [128 * 20, 128 * 39]]
    assert two_pocl_runs["blur"]["same_as_one_device"]


def test_a_distribution_other_than_the_one_asked_for_is_not_redistributed_silently(
        two_pocl_runs):
    r = two_pocl_runs["blur not redistributed"]
    assert r["status"] == "invalid input"
    assert "redistribute it explicitly" in r["message"]


def test_bad_device_lists_are_refused_with_the_reason():
    dot = load("workbench/programs/blas.lift")["dot"]
    x = np.ones(16, np.float32)
    here = next(d.id for d in devices() if d.ok)  # a device this host has
    r = run(dot, x, x, devices=here, distributions=["block", "block"])
    assert r.status == "invalid input" and "give a list of device names" in r.message
    r = run(dot, x, x, devices=[here, here], distributions=["block", "block"])
    assert r.status == "invalid input" and "give each device once" in r.message
    r = run(dot, x, x, devices=["no such device"], distributions=["block", "block"])
    assert r.status == "invalid input" and "devices[0]" in r.message
    r = run(dot, x, x, devices=[here], distributions=["block"])
    assert r.status == "invalid input" and "1 given for 2 inputs" in r.message


def test_one_device_with_distributions_is_an_ordinary_checked_run():
    dot = load("workbench/programs/blas.lift")["dot"]
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    r = run(dot, x, x, devices=[None], distributions=["block", "block"], repeat=2)
    assert r.correct, r.message
    assert len(r.per_device) == 1 and r.per_device[0]["rows"] == [0, 1000]


def test_two_gpus_run_a_block_distributed_dot():
    gpus = [d.id for d in devices() if d.kind == "gpu" and d.ok]
    if len(gpus) < 2:
        pytest.skip("needs two working GPUs (this host has "
                    f"{len(gpus)}); the PoCL tests above cover the runtime")
    dot = load("workbench/programs/blas.lift")["dot"]
    x = np.random.default_rng(0).uniform(-1, 1, 1 << 20).astype(np.float32)
    r = run(dot, x, x, devices=gpus[:2], distributions=["block", "block"], repeat=5)
    assert r.correct, r.message
    assert [e["device"] for e in r.per_device] == gpus[:2]


STAGED_CHILD = r"""
import json, sys
import numpy as np
from hypothesis import given, settings, strategies as st
from workbench import evaluate, parse, run
""" + PAIR + r"""
PROGRAMS = {
    "map, copy, map": ("λxs. map abs (redistribute copy (map (*2) xs))", ["block"]),
    "map, block, reduce, copy, map": (
        "λa xs. (map (*a) ∘ redistribute copy ∘ reduce (+) 0 ∘ redistribute block ∘ "
        "map (*2)) xs", ["copy", "block"]),
    "blur, block, map": (
        "λimg ws. (map (map (*2)) ∘ redistribute block ∘ map (join ∘ map (λnbh. reduce (+) 0 "
        "(map (*) (zip (join nbh) ws)))) ∘ slide2D 3 1 ∘ pad2D 1 1 0.0) img", None),
    "map, overlap, stencil": (
        "λxs. (map (λw. reduce (+) 0 w) ∘ slide 3 1 ∘ pad 1 1 0.0 ∘ redistribute (overlap 1) "
        "∘ map abs) xs", ["block"]),
}
seen = {}


@settings(max_examples=12, deadline=None, database=None)
@given(name=st.sampled_from(sorted(PROGRAMS)), n=st.integers(2, 300), rows=st.integers(2, 40),
       halo=st.integers(1, 3), copied=st.booleans(), seed=st.integers(0, 2**16))
def staged_runs_give_the_interpreters_result(name, n, rows, halo, copied, seed):
    text, dists = PROGRAMS[name]
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    # the first stage's source: blocks (an overlap for the blur), or a copy on every device
    if name.startswith("blur"):
        inputs = (rng.uniform(0, 1, (rows, 7)).astype(np.float32),
                  rng.uniform(0, 1, 9).astype(np.float32))
        dists = ["copy" if copied else ("overlap", halo), "copy"]
    else:
        dists = dists[:-1] + ["copy" if copied else dists[-1]]
        inputs = (np.float32(1.5), x) if len(dists) == 2 else (x,)
    program = parse(text)
    r = run(program, *inputs, devices=pair, distributions=dists, repeat=2)
    assert r.correct, (name, r.status, r.message)
    assert np.allclose(r.output, evaluate(program, *inputs), rtol=1e-4, atol=1e-4), name
    seen[name] = {"stages": r.stages, "per_device": r.per_device, "kernel_ms": r.kernel_ms,
                  "transfer_ms": r.transfer_ms}


staged_runs_give_the_interpreters_result()
refused = run(parse("λxs. (map (reduce (+) 0) ∘ redistribute block ∘ slide 3 1) xs"),
              np.ones(20, np.float32), devices=pair, distributions=["block"])
print(json.dumps({"pair": pair, "seen": seen, "refused": [refused.status, refused.message]}))
"""


@pytest.fixture(scope="module")
def staged_pocl_runs() -> dict:
    done = subprocess.run([sys.executable, "-c", STAGED_CHILD], cwd=ROOT,
                          env=child_env(**TWO_POCL), capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0 and "StopIteration" in done.stderr:
        pytest.skip("PoCL does not give two CPU devices of one platform here")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_programs_with_redistributions_give_the_interpreters_result_on_two_devices(
        staged_pocl_runs):
    """Hypothesis draws the program, its sizes and halo (in the child, on two PoCL devices):
    every run is correct and equals the single-device interpreter."""
    assert staged_pocl_runs["seen"], "no run was drawn"


def test_each_stage_is_timed_on_every_device_and_each_redistribution_on_the_host(
        staged_pocl_runs):
    pair = staged_pocl_runs["pair"]
    for name, r in staged_pocl_runs["seen"].items():
        stages = r["stages"]
        assert [s["stage"] for s in stages] == list(range(1, len(stages) + 1)), name
        assert all(s["status"] == "ok" and s["kernel_ms"] > 0 for s in stages), name
        assert all(s["redistribute"] for s in stages[:-1]) and not stages[-1]["redistribute"]
        assert all(s["redistribute_ms"] > 0 for s in stages[:-1]), name
        for s in stages:
            mine = [e for e in r["per_device"] if e["stage"] == s["stage"]]
            assert {e["device"] for e in mine} <= set(pair) and mine, name
            assert all(e["kernel_ms"] > 0 and e["transfer_ms"] > 0 for e in mine), name
        assert abs(r["kernel_ms"] - sum(s["kernel_ms"] for s in stages)) < 1e-9
        assert r["transfer_ms"] >= sum(s["transfer_ms"] for s in stages)


def test_a_stage_that_does_not_split_on_two_devices_is_named(staged_pocl_runs):
    status, message = staged_pocl_runs["refused"]
    assert status == "invalid input"
    assert "stage 1 (slide 3 1): the program does not split" in message
