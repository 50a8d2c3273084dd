"""Index arithmetic and views: the offsets views compute select exactly the elements the
interpreter produces, and simplification leaves no (i/n)*n + i%n behind."""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench import evaluate, parse
from workbench.codegen.arith import Index, var
from workbench.codegen.views import BufferView, GetView, ZipView, layout_view


def test_split_join_offsets_simplify_away():
    i = var("i", 1024)
    assert (i // 4) * 4 + i % 4 == i
    assert str((i // 128) * 128 + i % 128) == "i"
    j, k = var("j", 256), var("k", 4)
    assert (j * 4 + k) // 4 == j and (j * 4 + k) % 4 == k
    view = layout_view(parse("join ∘ split 4"), "[float]_1024")
    assert str(view.access([i])) == "in[i]"
    row, col = var("row", 128), var("col", 8)
    view = layout_view(parse("split 8 ∘ join ∘ split 4"), "[float]_1024")
    offset = view.access([row, col]).offset
    assert offset == row * 8 + col
    assert "/" not in str(offset) and "%" not in str(offset)


@pytest.mark.parametrize("text,shape", [
    ("split 4", (64,)), ("join", (8, 4)), ("join ∘ split 4", (64,)),
    ("reorderStride 8", (64,)), ("join ∘ split 2 ∘ reorderStride 16", (64,)),
    ("transpose", (4, 6)), ("transpose ∘ split 8", (32,)), ("slide 3 1", (10,)),
    ("slide 4 2", (12,)), ("split 2 ∘ join ∘ transpose ∘ split 4 ∘ reorderStride 4", (32,)),
])
def test_views_agree_with_the_interpreter(text, shape):
    source = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    t = "[int]_" + str(shape[-1])
    for n in reversed(shape[:-1]):
        t = f"[{t}]_{n}"
    expected = evaluate(parse(text), source)
    view = layout_view(parse(text), t)
    for index in itertools.product(*(range(n) for n in expected.shape)):
        loc = view.access([Index.of(i) for i in index])
        assert source.reshape(-1)[loc.offset.evaluate({})] == expected[index], (text, index)


def test_zip_and_get_select_components():
    a, b = BufferView("a", (16,)), BufferView("b", (16,))
    i = var("i", 16)
    assert str(GetView(1, ZipView((a, b))).access([i])) == "b[i]"


LAWS = [
    (lambda i, j, n, m: (i // m) * m + i % m),
    (lambda i, j, n, m: (i * m + j) // m),
    (lambda i, j, n, m: (i * m + j) % m),
    (lambda i, j, n, m: (i + 3) // n),
    (lambda i, j, n, m: ((i // n) * n + i % n) // m),
]


@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 50))
def test_simplified_expressions_keep_their_value(n, m, seed):
    rng = np.random.default_rng(seed)
    i, j = var("i", n * m), var("j", m)
    for law in LAWS:
        simplified = law(i, j, n, m)
        for _ in range(5):
            env = {"i": int(rng.integers(n * m)), "j": int(rng.integers(m))}
            assert simplified.evaluate(env) == law(env["i"], env["j"], n, m)


def test_layout_view_refuses_computation():
    from workbench.codegen import CodegenError

    with pytest.raises(CodegenError, match="not a data-layout primitive"):
        layout_view(parse("map abs"), "[float]_4")
