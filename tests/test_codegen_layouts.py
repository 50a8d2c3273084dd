"""Layout primitives on the output side: a computation that writes through a layout
primitive puts every element where the interpreter says it goes, in the views alone and in
kernels run on the device; and the index simplification the views rely on is exact at the
edges of its ranges."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import evaluate, parse
from workbench.codegen import CodegenError
from workbench.codegen.arith import Index, var
from workbench.codegen.views import layout_view
from workbench.run import run

RNG = np.random.default_rng(7)
XS = RNG.uniform(-1, 1, 4096).astype(np.float32)


def _type(shape: tuple[int, ...]) -> str:
    t = f"[int]_{shape[-1]}"
    for n in reversed(shape[:-1]):
        t = f"[{t}]_{n}"
    return t


# Every layout primitive with an output view (scatter's index function needs a kernel: it
# is checked end to end below), alone and composed; shapes whose lengths are not squares,
# so that a permutation and its inverse differ.
OUTPUT_SIDE = [
    ("split 4", (24,)), ("join", (6, 4)), ("transpose", (3, 5)), ("reorderStride 4", (64,)),
    ("reorderStride 2", (24,)), ("innerSplit 2", (3, 8)), ("innerJoin", (2, 3, 4)),
    ("id", (12,)), ("join ∘ split 3", (24,)), ("split 2 ∘ join ∘ transpose", (4, 6)),
    ("transpose ∘ split 8 ∘ reorderStride 4", (32,)), ("join ∘ transpose", (3, 7)),
    ("tile 2 3", (4, 9)), ("untile", (2, 3, 4, 5)), ("untile ∘ tile 4 2", (8, 6)),
    ("map transpose", (2, 3, 5)), ("map (join ∘ transpose) ∘ tile 2 2", (4, 6)),
    ("map (λx. transpose (split 2 x))", (3, 8)),
]


@pytest.mark.parametrize("text,shape", OUTPUT_SIDE)
def test_output_views_put_every_element_where_the_interpreter_does(text, shape):
    source = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    expected = evaluate(parse(text), source)
    view = layout_view(parse(text), _type(shape), buffer="out", output=True)
    written = np.full(expected.size, -1, dtype=np.int64)
    for index in itertools.product(*(range(n) for n in shape)):
        loc = view.access([Index.of(i) for i in index])
        offset = loc.offset.evaluate({})
        assert written[offset] == -1, (text, index, "written twice")
        written[offset] = source[index]
    np.testing.assert_array_equal(written.reshape(expected.shape), expected, err_msg=text)


@pytest.mark.parametrize("text,shape", [
    ("innerSplit 2", (3, 8)), ("innerJoin", (2, 3, 4)), ("reorderStride 4", (64,)),
    ("transpose ∘ innerSplit 4", (2, 8)), ("tile 2 3", (4, 9)), ("untile", (2, 3, 4, 5)),
    ("map transpose ∘ tile 4 2", (8, 6)), ("map (λx. transpose (split 2 x))", (3, 8)),
])
def test_input_views_read_every_element_where_the_interpreter_does(text, shape):
    source = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    expected = evaluate(parse(text), source)
    view = layout_view(parse(text), _type(shape))
    for index in itertools.product(*(range(n) for n in expected.shape)):
        offset = view.access([Index.of(i) for i in index]).offset.evaluate({})
        assert source.reshape(-1)[offset] == expected[index], (text, index)


@pytest.mark.parametrize("text,shape", [
    ("reorderStride 4 ∘ mapGlobal abs", (4096,)),
    ("reorderStride 16 ∘ join ∘ mapGlobal (mapSeq abs) ∘ split 8", (4096,)),
    ("transpose ∘ mapGlobal (mapSeq abs)", (32, 128)),
    ("split 64 ∘ mapGlobal abs", (4096,)),
    ("join ∘ mapGlobal (mapSeq abs)", (64, 64)),
    ("scatter (λi n. n - 1 - i) ∘ mapGlobal abs", (4096,)),
    ("scatter (λi. (i * 7) % 4096) ∘ mapGlobal abs", (4096,)),
    ("innerSplit 4 ∘ mapGlobal (mapSeq abs)", (32, 128)),
    ("innerJoin ∘ mapGlobal (mapSeq (mapSeq abs))", (16, 8, 32)),
    ("join ∘ mapWorkgroup (reorderStride 8 ∘ mapLocal abs) ∘ split 256", (4096,)),
])
def test_kernels_writing_through_a_layout_primitive_match_the_interpreter(text, shape):
    result = run(parse(text), XS.reshape(shape), repeat=1)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


@pytest.mark.parametrize("text", ["gather (λi n. n - 1 - i) ∘ mapGlobal abs",
                                  "slide 3 1 ∘ mapGlobal abs"])
def test_layouts_without_an_output_view_are_read_by_a_copy_after_them(text):
    # the computation writes a temporary; a copy kernel reads it through the layout
    result = run(parse(text), XS, repeat=1)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source
    assert result.source.count("kernel void") == 2


def test_views_of_primitives_without_an_inverse_refuse():
    with pytest.raises(CodegenError, match="cannot be written through"):
        layout_view(parse("slide 3 1"), "[int]_10", output=True)


# --- index simplification at the edges of its ranges ------------------------------------------

def test_a_quotient_is_dropped_only_when_the_remainder_is_below_the_divisor():
    # (d·q + r)/d = q needs 0 <= r < d: i in [0, 5) is not below 4
    i = var("i", 5)
    assert (i // 4).evaluate({"i": 4}) == 1
    assert (i % 4).evaluate({"i": 4}) == 0
    j, k = var("j", 8), var("k", 4)
    assert (j * 4 + k) // 4 == j and (j * 4 + k) % 4 == k
    k5 = var("k", 5)
    assert ((j * 4 + k5) // 4).evaluate({"j": 2, "k": 4}) == 3
    assert ((j * 4 + k5) % 4).evaluate({"j": 2, "k": 4}) == 0


def _exprs(i, j, a, b, c):
    """Index expressions built the way views build them, with an offset c."""
    return [i * a + j + c, i * a + j * b + c, (i * a + j) // b + c, (i + c) // a,
            ((i // a) * a + i % a) + c, (i * a + j + c) % b, ((i + c) // b) * b + (i + c) % b]


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.integers(1, 5), st.integers(1, 5),
       st.integers(0, 6), st.integers(1, 6))
def test_simplified_division_and_remainder_keep_their_value_over_whole_ranges(n, m, a, b, c, d):
    i, j = var("i", n), var("j", m)
    for symbolic, evaluated in zip(_exprs(i, j, a, b, c), zip(*[
            _exprs(x, y, a, b, c) for x, y in itertools.product(range(n), range(m))])):
        for (x, y), value in zip(itertools.product(range(n), range(m)), evaluated):
            env = {"i": x, "j": y}
            assert symbolic.evaluate(env) == value
            assert (symbolic // d).evaluate(env) == value // d, (symbolic, d, env)
            assert (symbolic % d).evaluate(env) == value % d, (symbolic, d, env)
