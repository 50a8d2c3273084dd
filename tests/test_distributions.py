"""SkelCL's distributions: a distributed program computes what the single-device interpreter
computes (the split rules are sound), redistributions keep an array, and bad distributions
are refused with the reason. Running on several devices is ``test_multidevice``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import evaluate, load, parse
from workbench.errors import ArgumentError, WorkbenchError
from workbench.semantics import prepare_inputs
from workbench.several.distribution import (
    SPLIT_RULES,
    Block,
    Copy,
    Overlap,
    block_bounds,
    distribute,
    distribution,
    evaluate_distributed,
    redistribute,
    split,
)

BLAS = load("workbench/programs/blas.lift")
SKELCL = load("workbench/programs/skelcl.lift")

DOT = BLAS["dot"]
SCAL = BLAS["scal"]
GAUSS = SKELCL["gaussianBlur"]
ADD = parse("λxs ys. map (λ(x, y). x + y) (zip xs ys)")
ASUM = parse("λxs. (reduce (+) 0 ∘ map abs) xs")
MAXIMUM = parse("λxs. reduce max (-1000.0) xs")
STENCIL_1D = parse("λxs. map (λw. reduce (+) 0 w) (slide 3 1 (pad 1 1 0.0 xs))")
CLAMPED = parse("λxs. map (λw. reduce (+) 0 w) (slide 5 1 (padClamp 2 2 xs))")

devices = st.integers(1, 4)


def floats(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, n).astype(np.float32)


def same(got, want) -> bool:
    return np.allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-4,
                       atol=1e-4)


@given(n=st.integers(1, 60), d=devices, seed=st.integers(0, 2**16))
def test_map_over_blocks_is_the_map(n, d, seed):
    x, y = floats(n, seed), floats(n, seed + 1)
    got = evaluate_distributed(ADD, x, y, distributions=["block", "block"], devices=d)
    assert np.array_equal(got, evaluate(ADD, x, y))
    got = evaluate_distributed(SCAL, np.float32(1.5), x, distributions=["copy", "block"],
                               devices=d)
    assert np.array_equal(got, evaluate(SCAL, np.float32(1.5), x))


@given(n=st.integers(1, 60), d=devices, seed=st.integers(0, 2**16))
def test_reduce_over_blocks_combines_partial_results(n, d, seed):
    x, y = floats(n, seed), floats(n, seed + 1)
    for program, inputs, dists in ((DOT, (x, y), ["block", "block"]), (ASUM, (x,), ["block"]),
                                   (MAXIMUM, (x,), ["block"])):
        got = evaluate_distributed(program, *inputs, distributions=dists, devices=d)
        assert same(got, evaluate(program, *inputs)), program


@given(rows=st.integers(1, 24), cols=st.integers(1, 6), d=devices, extra=st.integers(0, 2),
       seed=st.integers(0, 2**16))
def test_stencil_over_overlapping_blocks_is_the_stencil(rows, cols, d, extra, seed):
    rng = np.random.default_rng(seed)
    image = rng.uniform(-1, 1, (rows, cols)).astype(np.float32)
    weights = rng.uniform(-1, 1, 9).astype(np.float32)
    got = evaluate_distributed(GAUSS, image, weights,
                               distributions=[("overlap", 1 + extra), "copy"], devices=d)
    assert same(got, evaluate(GAUSS, image, weights))
    x = image.reshape(-1)
    assert same(evaluate_distributed(STENCIL_1D, x, distributions=[("overlap", 1 + extra)],
                                     devices=d), evaluate(STENCIL_1D, x))
    assert same(evaluate_distributed(CLAMPED, x, distributions=[("overlap", 2 + extra)],
                                     devices=d), evaluate(CLAMPED, x))


LOWERED_DOT = parse("λxs ys. (reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (λ(acc, x). "
                    "acc + (*) x) 0) ∘ split 128) (zip xs ys)")
LOWERED_SCAL = parse("λa. join ∘ mapWorkgroup (mapLocal (*a)) ∘ split 32")


@given(groups=st.integers(1, 12), d=devices, seed=st.integers(0, 2**16))
def test_lowered_programs_are_cut_between_the_groups_of_their_splits(groups, d, seed):
    x, y = floats(128 * groups, seed), floats(128 * groups, seed + 1)
    got = evaluate_distributed(LOWERED_DOT, x, y, distributions=["block", "block"], devices=d)
    assert same(got, evaluate(LOWERED_DOT, x, y))
    got = evaluate_distributed(LOWERED_SCAL, np.float32(-2), x, distributions=["copy", "block"],
                               devices=d)
    assert np.array_equal(got, evaluate(LOWERED_SCAL, np.float32(-2), x))


kinds = st.sampled_from([Block(), Copy(), Overlap(0), Overlap(1), Overlap(3)])


@given(rows=st.integers(1, 30), cols=st.integers(1, 4), d=devices, first=kinds, second=kinds,
       seed=st.integers(0, 2**16))
def test_a_redistribution_keeps_the_array(rows, cols, d, first, second, seed):
    a = np.random.default_rng(seed).uniform(-1, 1, (rows, cols)).astype(np.float32)
    spread = distribute(a, first, d)
    assert np.array_equal(spread.gather(), a)
    again = redistribute(spread, second)
    assert again.distribution == second and again.devices == d
    assert np.array_equal(again.gather(), a)


@settings(max_examples=30)
@given(n=st.integers(0, 100), d=st.integers(1, 8))
def test_blocks_cover_the_rows_evenly(n, d):
    bounds = block_bounds(n, d)
    assert bounds[0][0] == 0 and bounds[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
    sizes = [b - a for a, b in bounds]
    assert max(sizes) - min(sizes) <= 1
    granular = block_bounds(n, d, 8)
    assert granular[-1][1] == n and all(a % 8 == 0 or a == n for a, _ in granular)


def test_an_overlap_part_holds_its_halo_rows():
    a = np.arange(10, dtype=np.float32)
    spread = distribute(a, ("overlap", 2), 3)
    assert spread.owned == [(0, 4), (4, 7), (7, 10)]
    assert spread.held == [(0, 6), (2, 9), (5, 10)]
    assert np.array_equal(spread.parts[1], a[2:9])


def test_each_rule_names_the_skeleton_it_splits():
    assert [r.name for r in SPLIT_RULES] == ["map", "reduce", "stencil", "copy"]
    values, _ = prepare_inputs(DOT, (floats(10, 0), floats(10, 1)))
    assert split(DOT, values, ["block", "block"], 2).rule == "reduce"


@pytest.mark.parametrize("spec, words", [
    ("blocks", "give \"block\", \"copy\" or (\"overlap\", h)"),
    (("overlap", -1), "at least 0"),
    (("overlap", 1.5), "whole number"),
    (3, "give \"block\""),
])
def test_a_bad_distribution_is_refused_with_what_is_accepted(spec, words):
    with pytest.raises(ArgumentError, match="distributions\\[0\\]") as err:
        evaluate_distributed(ASUM, floats(8, 0), distributions=[spec])
    assert words in str(err.value)


def test_a_stencil_needs_an_overlap_wide_enough():
    image, weights = np.ones((8, 4), np.float32), np.ones(9, np.float32)
    with pytest.raises(WorkbenchError) as err:
        evaluate_distributed(GAUSS, image, weights, distributions=["block", "copy"])
    assert "stencil: the stencil reads input 0 (img), distributed as block" in str(err.value)
    with pytest.raises(WorkbenchError, match="give \\(\"overlap\", 2\\)"):
        evaluate_distributed(CLAMPED, image.reshape(-1), distributions=[("overlap", 1)])


def test_inputs_read_whole_must_be_copies():
    with pytest.raises(WorkbenchError, match="input 0 \\(a\\) is read whole by every element"):
        evaluate_distributed(SCAL, np.float32(2), floats(8, 0),
                             distributions=["block", "block"])
    with pytest.raises(ArgumentError, match="2 given for 1 input"):
        evaluate_distributed(ASUM, floats(8, 0), distributions=["block", "copy"])


def test_a_reduce_whose_initial_value_is_not_neutral_is_not_split():
    program = parse("λxs. reduce (+) 1 xs")
    with pytest.raises(WorkbenchError, match="not neutral for its operator"):
        evaluate_distributed(program, np.arange(6, dtype=np.int32), distributions=["block"])


def test_a_scalar_cannot_be_cut_in_blocks():
    with pytest.raises(ArgumentError, match="give it \"copy\""):
        distribute(np.float32(1), "block", 2)


def test_distributions_read_as_written():
    assert distribution("block") == Block() and distribution("copy") == Copy()
    assert distribution(("overlap", 2)) == Overlap(2) == distribution(["overlap", 2])
    assert str(Overlap(2)) == "('overlap', 2)"


@given(rows=st.integers(1, 20), cols=st.integers(1, 5), d=devices, extra=st.integers(0, 2),
       seed=st.integers(0, 2**16))
def test_every_devices_output_is_had_from_the_whole_output(rows, cols, d, extra, seed):
    """The shortcut that spares interpreting every device's part again (``outputs_of``) gives
    what the interpreter gives on the part."""
    rng = np.random.default_rng(seed)
    image = rng.uniform(-1, 1, (rows, cols)).astype(np.float32)
    weights = rng.uniform(-1, 1, 9).astype(np.float32)
    x = image.reshape(-1)
    for program, inputs, dists in (
            (GAUSS, (image, weights), [("overlap", 1 + extra), "copy"]),
            (CLAMPED, (x,), [("overlap", 2 + extra)]),
            (ADD, (x, x), ["block", "block"]),
            (SCAL, (np.float32(2), x), ["copy", "block"])):
        values, _ = prepare_inputs(program, inputs)
        plan = split(program, values, dists, d)
        had = plan.outputs_of(evaluate(program, *values))
        for part, got in zip(plan.inputs, had):
            assert same(got, evaluate(program, *part)), program


def test_only_a_distributed_array_is_redistributed():
    with pytest.raises(ArgumentError, match="redistribute takes a DistributedArray"):
        redistribute(np.ones(4, np.float32), "copy")
    with pytest.raises(ArgumentError, match="devices = 0"):
        distribute(np.ones(4, np.float32), "block", 0)
