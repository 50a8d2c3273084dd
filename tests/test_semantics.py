"""The interpreter against plain NumPy/Python references (it is the oracle of every rule and
every kernel, so it is checked on its own): reductions with any initial value, every fast
path (operator sections, min/max, λ(acc, x). acc + g x) and the sequential fold."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import evaluate, parse

arrays = st.lists(st.integers(-50, 50), min_size=1, max_size=64).map(
    lambda xs: np.asarray(xs, np.float32))
initials = st.integers(-20, 20)

FOLDS = {
    "reduce (+) {z}": lambda z, xs: z + sum(xs),
    "reduceSeq (+) {z}": lambda z, xs: z + sum(xs),
    "reduce (*) {z}": lambda z, xs: functools.reduce(lambda a, b: a * b, xs, z),
    "reduce max {z}": lambda z, xs: max([z, *xs]),
    "reduce min {z}": lambda z, xs: min([z, *xs]),
    "reduceSeq (λ(acc, x). acc + abs x) {z}": lambda z, xs: z + sum(abs(x) for x in xs),
    "reduceSeq (λ(acc, x). 2 * x + acc) {z}": lambda z, xs: z + sum(2 * x for x in xs),
    "reduceSeq (λ(acc, x). acc - x) {z}": lambda z, xs: z - sum(xs),
    "reduceSeq (λ(acc, x). x) {z}": lambda z, xs: xs[-1],
}


@pytest.mark.parametrize("text", sorted(FOLDS))
@settings(max_examples=40, deadline=None)
@given(xs=arrays, z=initials)
def test_reductions_start_from_their_initial_value(text, xs, z):
    if "(*)" in text:
        xs = np.clip(xs, -3, 3)  # keep products exact in float32
    got = evaluate(parse(text.format(z=f"({z})")), xs)
    want = FOLDS[text](np.float64(z), [np.float64(x) for x in xs])
    assert got.shape == (1,)
    np.testing.assert_allclose(got[0], want, rtol=1e-6, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(xs=arrays, z=initials)
def test_reduce_part_keeps_the_initial_value_in_every_part(xs, z):
    xs = np.concatenate([xs, xs])[: 2 * (len(xs) // 2) or 2].astype(np.float32)
    if len(xs) < 2:
        xs = np.zeros(2, np.float32)
    got = evaluate(parse(f"reducePart (+) ({z}) 2"), xs)
    halves = xs.reshape(2, -1).astype(np.float64)
    # two partial results, each a fold from z (ICFP Fig. 4: reducePart then reduce)
    assert got.shape == (2,)
    np.testing.assert_allclose(sorted(got), sorted(z + halves.sum(axis=1)), rtol=1e-6,
                               atol=1e-6)


def test_a_reduction_inside_a_map_starts_each_row_from_the_initial_value():
    rows = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = evaluate(parse("join ∘ map (reduce (+) 10)"), rows)
    np.testing.assert_array_equal(got, 10 + rows.sum(axis=1))
