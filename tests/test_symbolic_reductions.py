"""The parallel reductions at a symbolic length: a two-stage reduction and a work-group's
reduction apply to ``[float]_N`` (a program with the widget's size box) with chunks of
``N/G``; each computes the reduction at every N that its groups divide, its expansion into
basic steps ends where the macro does, and its kernel runs right on the device."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import Derivation, evaluate, rewrites
from workbench.rewriting.expansion import expand
from workbench.rules import apply
from workbench.run import run

ASUM = "reduce (+) 0 ∘ map abs"


def _offered(expr: str, rule: str, types: str = "[float]_N") -> list[dict]:
    return [{k: str(v) for k, v in r.params.items()} | {"path": r.path}
            for r in rewrites(Derivation(expr, types).start) if r.rule == rule]


def test_a_two_stage_reduction_is_offered_at_symbolic_n():
    offered = _offered(ASUM, "two-stage-reduction")
    pairs = {(p["groups"], p["local"]) for p in offered}
    assert {("16", "1"), ("64", "256"), ("4096", "32")} <= pairs
    d = Derivation(ASUM, "[float]_N")
    d.apply("two-stage-reduction", "0", groups=16, local=32, distribution="strided")
    assert "split (N/16)" in str(d.current) and "N/512" in str(d.current)


@settings(max_examples=20, deadline=None)
@given(groups=st.sampled_from([2, 4, 16, 64]), local=st.sampled_from([1, 32, 64]),
       distribution=st.sampled_from(["chunked", "strided"]), m=st.integers(1, 3),
       seed=st.integers(0, 2 ** 16))
def test_each_two_stage_reduction_at_symbolic_n_computes_the_sum_and_expands_to_it(
        groups, local, distribution, m, seed):
    d = Derivation(ASUM, "[float]_N")
    params = {"groups": groups, "local": local, "distribution": distribution}
    d.apply("two-stage-reduction", "0", **params)
    steps = expand(d.start, "two-stage-reduction", "0", **params)
    assert steps[-1].result == d.current
    n = groups * max(local, 1) * 2 * m
    xs = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    np.testing.assert_allclose(evaluate(d.current, xs, sizes={"N": n}), np.abs(xs).sum(),
                               rtol=1e-4)


def test_a_work_group_reduction_at_symbolic_n_applies_inside_a_map_workgroup():
    expr = "join ∘ mapWorkgroup (reduce (+) 0 ∘ map abs) ∘ split 1024"
    offered = _offered(expr, "workgroup-map-reduce")
    assert {p["local"] for p in offered} >= {"2", "64", "256"}
    d = Derivation(expr, "[float]_N")
    path = offered[0]["path"]
    d.apply("workgroup-map-reduce", path, local=64, distribution="chunked")
    assert apply(d.start, "workgroup-map-reduce", path, local=64,
                 distribution="chunked") == d.current
    xs = np.random.default_rng(0).standard_normal(4096).astype(np.float32)
    got = evaluate(d.current, xs, sizes={"N": 4096})
    np.testing.assert_allclose(got, np.abs(xs).reshape(4, 1024).sum(axis=1), rtol=1e-4)


def test_the_kernel_of_a_symbolic_two_stage_reduction_runs_at_a_size():
    d = Derivation(ASUM, "[float]_N")
    d.apply("two-stage-reduction", "0", groups=16, local=32, distribution="strided")
    xs = np.random.default_rng(1).standard_normal(1 << 14).astype(np.float32)
    result = run(d.current, xs, sizes={"N": 1 << 14}, repeat=2)
    assert result.correct, result
