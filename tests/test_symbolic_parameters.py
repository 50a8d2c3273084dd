"""Size parameters at a symbolic length: ``reduce-partial`` offers the fractions ``N/d``
(ICFP Fig. 10's ``reducePart (+) 0 (N/128)``) beside the usual chunk sizes, and each
fraction, applied at symbolic N, computes what the reduction computes at every N it divides."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import Derivation, evaluate, parse, rewrites
from workbench.rules.rule import fractions_of, powers_of_two_dividing
from workbench.sizes import Size


def test_fractions_only_for_a_symbolic_length():
    n = Size.var("N")
    assert [str(f) for f in fractions_of(n)][:3] == ["N/2", "N/4", "N/8"]
    assert str(fractions_of(n)[-1]) == "N/1024"
    assert fractions_of(Size.const(4096)) == [] and fractions_of(None) == []
    assert [str(f) for f in fractions_of(n, 64, 256)] == ["N/64", "N/128", "N/256"]
    # the concrete parts are what they were
    assert powers_of_two_dividing(n)[0] == Size.const(2)


def test_reduce_partial_offers_n_over_128_at_symbolic_n_and_not_at_a_fixed_one():
    symbolic = {str(r.params["n"]) for r in rewrites(parse("reduce (+) 0 ∘ map abs"), "[float]_N",
                                                     at=(0,)) if r.rule == "reduce-partial"}
    assert {"N/128", "N/2", "N/1024", "128"} <= symbolic
    fixed = {str(r.params["n"]) for r in rewrites(parse("reduce (+) 0 ∘ map abs"), "[float]_4096",
                                                  at=(0,)) if r.rule == "reduce-partial"}
    assert fixed and not any("N" in v for v in fixed)


@settings(max_examples=25, deadline=None)
@given(k=st.integers(1, 10), m=st.integers(1, 4), seed=st.integers(0, 2 ** 16))
def test_each_fraction_computes_the_reduction_at_every_n_it_divides(k, m, seed):
    d = Derivation("reduce (+) 0 ∘ map abs", "[float]_N")
    d.apply("reduce-partial", "0", n=f"N/{2 ** k}")
    d.apply("partial-split", "1", j=1)  # the next line of Fig. 10: chunks of 2^k
    n = 2 ** k * m
    xs = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    want = evaluate(d.start, xs, sizes={"N": n})
    for expr in d.expressions()[1:]:
        got = evaluate(expr, xs, sizes={"N": n})
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)


@settings(max_examples=15, deadline=None)
@given(k=st.integers(1, 8), m=st.integers(1, 4), seed=st.integers(0, 2 ** 16))
def test_a_stride_of_n_over_d_reads_what_the_reordering_reads(k, m, seed):
    """reorder → reorderStride (N/d) at symbolic N (ICFP Fig. 11): the reduction it feeds
    computes the same sum at every N that d divides."""
    d = Derivation("reduce (+) 0 ∘ map abs", "[float]_N")
    d.apply("reduce-partial", "0", n=f"N/{2 ** k}")
    d.apply("partial-reorder", "1")
    offered = {str(r.params["s"]) for r in rewrites(d.current, at=(2,))
               if r.rule == "reorder→reorderStride"}
    assert f"N/{2 ** k}" in offered
    d.apply("reorder→reorderStride", "2", s=f"N/{2 ** k}")
    n = 2 ** k * m
    xs = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    want = evaluate(d.start, xs, sizes={"N": n})
    got = evaluate(d.current, xs, sizes={"N": n})
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)
