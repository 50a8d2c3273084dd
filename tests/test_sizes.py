"""Symbolic sizes: canonical forms, divisibility, printing that parses back."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.sizes import Size, SizeSyntaxError, divisors_between, parse_size

N, M, K, k = Size.var("N"), Size.var("M"), Size.var("K"), Size.var("k")


@pytest.mark.parametrize("a,b", [
    (N / 128 * 128, N), ((N / 4) / 2, N / 8), (2 * N - N, N), (N * M / M, N),
    ((N + 1) ** 2, N * N + 2 * N + 1), (2 ** k * 2 ** k, (2 ** k) ** 2),
    ((2 * N + 2) / (N + 1), Size.const(2)), (Size.const(4), 4),
])
def test_canonical_forms(a, b):
    assert a == b and hash(a) == hash(b)


def test_divisibility():
    assert (4 * N).divisible_by(4) is True
    assert (N * 128).divisible_by(128) is True
    assert Size.const(128).divisible_by(32) is True
    assert (2 ** k * 8).divisible_by(8) is True
    assert Size.const(100).divisible_by(3) is False
    assert N.divisible_by(4) is None
    assert (N / 4).divisible_by(2) is None


def test_evaluate_and_substitute():
    assert (N / 4 + M).evaluate({"N": 64, "M": 3}) == 19
    assert (2 ** k).evaluate({"k": 5}) == 32
    assert (N / 4).substitute({"N": 4 * M}) == M
    assert (N / 3).evaluate({"N": 4}) == Fraction(4, 3)
    with pytest.raises(ValueError, match="N has no value"):
        N.evaluate({})
    assert (N / M + 2 ** k).free_vars == {"N", "M", "k"}


@pytest.mark.parametrize("size,text", [
    (N, "N"), (Size.const(128), "128"), (N / 128, "N/128"), (4 * M, "4*M"), (2 ** k, "2^k"),
    (N * M, "M*N"), (N / 4 + 1, "N/4 + 1"), (N - 2, "N - 2"), (3 * N / 4, "3*N/4"),
    (N / M, "N/M"),
])
def test_printing(size, text):
    assert str(size) == text
    assert parse_size(text) == size


@pytest.mark.parametrize("text,column", [("N/*4", 3), ("(N", 3), ("", 1), ("4 $ 2", 3)])
def test_parse_errors_name_the_column(text, column):
    with pytest.raises(SizeSyntaxError) as info:
        parse_size(text)
    assert info.value.position + 1 == column


def test_floor_division_is_refused():
    with pytest.raises(TypeError, match="exact division"):
        N // 4


def test_divisors_between():
    assert divisors_between(Size.const(64), 2, 16) == [2, 4, 8, 16]
    assert divisors_between(128 * N, 1, 256) == [1, 2, 4, 8, 16, 32, 64, 128]


def trees(depth=3):
    leaf = st.one_of(st.integers(1, 16).map(lambda v: ("c", v)),
                     st.sampled_from(["N", "M", "K"]).map(lambda v: ("v", v)))
    if depth == 0:
        return leaf
    sub = trees(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(["+", "-", "*"]), sub, sub),
        st.tuples(st.just("/"), sub, leaf),
        st.tuples(st.just("^"), sub, st.integers(0, 3).map(lambda v: ("c", v))),
    )


def build(t):
    if t[0] == "c":
        return Size.const(t[1])
    if t[0] == "v":
        return Size.var(t[1])
    op, a, b = t[0], build(t[1]), build(t[2])
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
            "^": lambda: a ** b}[op]()


def value(t, env):
    if t[0] == "c":
        return Fraction(t[1])
    if t[0] == "v":
        return Fraction(env[t[1]])
    op, a, b = t[0], value(t[1], env), value(t[2], env)
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
            "^": lambda: a ** int(b)}[op]()


ENVS = st.fixed_dictionaries({n: st.integers(1, 9) for n in "NMK"})


@given(trees())
def test_printed_sizes_parse_back(t):
    s = build(t)
    assert parse_size(str(s)) == s


@given(trees(), ENVS)
def test_canonical_form_keeps_the_value(t, env):
    assert Fraction(build(t).evaluate(env)) == value(t, env)


@given(trees(2), trees(2), trees(2))
def test_ring_laws(a, b, c):
    a, b, c = build(a), build(b), build(c)
    assert a + b == b + a
    assert (a * b) * c == a * (b * c)
    assert a * (b + c) == a * b + a * c
    assert (a / N) * N == a
