"""The interpreter reads a stencil's windows and their elements as views of its input: at
Lift's 256³ the windows' copy was 27 times the grid (1.7 GB) and the reference of a 3-D
stencil, against which a search checks each candidate, took 10 s; as views 0.3 s."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import parse
from workbench.semantics import evaluate
from workbench.values import windows


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 12), size=st.integers(1, 4), step=st.integers(1, 3),
       depth=st.integers(0, 1), seed=st.integers(0, 2**16))
def test_windows_are_every_step_th_slice_and_share_the_input(n, size, step, depth, seed):
    size = min(size, n)
    a = np.random.default_rng(seed).uniform(-1, 1, (3,) * depth + (n, 2)).astype(np.float32)
    got = windows(a, depth, size, step)
    starts = range(0, a.shape[depth] - size + 1, step)
    want = np.stack([np.take(a, range(s, s + size), axis=depth) for s in starts], axis=depth)
    assert got.shape == want.shape and np.array_equal(got, want)
    assert np.shares_memory(got, a)  # a view: no copy of every window


@settings(max_examples=30, deadline=None)
@given(n=st.integers(3, 9), i=st.integers(0, 2), seed=st.integers(0, 2**16))
def test_an_element_of_every_window_at_a_constant_index(n, i, seed):
    """``at i`` of every window of every row: what NumPy's slicing gives."""
    xs = np.random.default_rng(seed).uniform(-1, 1, (4, n)).astype(np.float32)
    got = evaluate(parse(f"map (map (λw. at {i} w) ∘ slide 3 1)"), xs)
    assert np.array_equal(np.asarray(got), xs[:, i:i + n - 2])
