"""Symbolic sizes: canonical forms, divisibility, evaluation, printing that parses back."""

import copy
import pickle
from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from workbench.sizes import Div, Pow, Size, SizeSyntaxError, divisors_between, parse_size

N, M, K, k, j = (Size.var(name) for name in ("N", "M", "K", "k", "j"))


# --- canonical forms ----------------------------------------------------------------------------

@pytest.mark.parametrize("a,b", [
    (N / 128 * 128, N),
    ((N / 4) / 2, N / 8),
    (2 * N - N, N),
    (N * M / M, N),
    ((N + 1) ** 2, N ** 2 + 2 * N + 1),
    (2 ** k * 2 ** k, (2 ** k) ** 2),
    (Size.const(4), 4),
    (N - N, 0),
    (N ** 0, 1),
    (N ** 1, N),
    (N ** -2, 1 / (N * N)),
    (Fraction(1, 2) * N, N / 2),
    (2 ** (k + 1), 2 * 2 ** k),  # optional in the brief; we split integer exponent offsets
    (2 ** (k - 1), 2 ** k / 2),
    ((2 ** k) ** j, 2 ** (k * j)),
    (1 ** k, 1),
])
def test_canonical_forms(a, b):
    assert a == b
    assert hash(a) == hash(b)


def test_symbolic_powers_stay_distinct():
    assert 2 ** (k + 1) != 2 ** k
    assert 2 ** k * 2 ** j != 2 ** (k + j)  # combining them is optional and not done
    assert (2 ** k) ** 2 != 2 ** k


@pytest.mark.parametrize("a,b", [
    ((2 * N + 2) / (N + 1), 2),
    ((N ** 2 - 1) / (N + 1), N - 1),
    ((N * M + N) / (M + 1), N),
    ((N + M) ** 2 / (N + M), N + M),
    (2 * N / (2 * M + 2), N / (M + 1)),
    (N * (1 / (M + 1)), N / (M + 1)),
    ((N + K) / (M + 1), N / (M + 1) + K / (M + 1)),
    (1 / (N / (M + 1)), (M + 1) / N),
    (1 / ((2 + N) / N), N / (N + 2)),  # a Laurent divisor: content removed before scaling
    (((N + 1) / (M + 1)) * ((M + 1) / (N + 1)), 1),
    ((N / (M + 1)) * (M + 1), N),
    (N / (N + 1) + 1 / (N + 1), 1),
    ((1 / (N + 1)) / (1 / (N + 1)), 1),
    (1 / (M + 1) * (1 / (M + 1)), 1 / (M + 1) ** 2),
    ((N + M + 1) / (N + M), 1 + 1 / (N + M)),  # quotient and remainder
    (N / (N + 1), 1 - 1 / (N + 1)),
    (1 / (1 / (N + 1) + 1), (N + 1) / (N + 2)),  # a quotient inside a divisor is cleared
])
def test_division_by_polynomials(a, b):
    assert a == b


def test_inexact_division_is_an_opaque_atom():
    ((monomial, coefficient),) = (N / (M + 1))._terms.items()
    assert coefficient == 1 and monomial == (("N", 1), (Div(M + 1), 1))
    assert (N / (M + 1)).evaluate({"N": 6, "M": 2}) == 2
    ((monomial, coefficient),) = (2 ** k)._terms.items()
    assert monomial == ((Pow(Size.const(2), k), 1),)
    # Known limitations (no partial fractions, no gcd): equal in value, not in form.
    assert 1 / N + 1 / (N + 1) != (2 * N + 1) / (N ** 2 + N)
    assert 1 / M - 1 / (M * (M + 1)) != 1 / (M + 1)
    assert (N / (N + 1)) / N != 1 / (N + 1)  # N/(N+1) is 1 - 1/(N+1): then over N, mixed
    assert (1 / (N + 1)) ** 2 * (N + 1) != 1 / (N + 1)  # (N+1)/(N+1)^2: a common factor


# --- queries ------------------------------------------------------------------------------------

@pytest.mark.parametrize("size,n,expected", [
    (4 * N, 4, True), (N * 128, 128, True), (Size.const(128), 32, True),
    (2 ** k * 8, 8, True), (2 ** (k + 1), 2, True), (N * M, M, True), (N - 2, 1, True),
    (Size.const(100), 3, False), (N, 0, False),
    (N, 4, None), (N / 4, 2, None), (2 ** k * 8, 16, None), (N / (M + 1), 1, None),
    (2 ** (k - M), 1, None), (N, M, None),
])
def test_divisible_by(size, n, expected):
    assert size.divisible_by(n) is expected


def test_constants():
    assert Size.of(4) == 4 and 4 == Size.of(4) and Size.of(4) != 5
    assert Size.of(4).is_constant and Size.of(4).is_integer_constant and Size.of(4).value == 4
    assert (N / N).value == 1 and type((N / N).value) is int
    half = Size.const(1) / 2
    assert half.is_constant and not half.is_integer_constant and half.value == Fraction(1, 2)
    assert not N.is_constant
    with pytest.raises(ValueError, match="not a constant"):
        _ = N.value
    assert int(Size.of(12)) == 12 and list(range(Size.of(3))) == [0, 1, 2]
    with pytest.raises(TypeError):
        int(N)
    assert Size.of(3) < 4 and Size.of(5) >= Size.of(5) and sorted([Size.of(3), 1]) == [1, 3]
    with pytest.raises(TypeError, match="no order"):
        _ = N < M
    assert {Size.of(4): "four"}[4] == "four" and len({N / 2 * 2, N, Size.var("N")}) == 1


def test_construction():
    assert Size.of("N") is Size.var("N") and Size.of(N) is N
    assert Size.of("N/128") == N / 128 and Size.of(Fraction(3, 2)) == Size.const(3) / 2
    with pytest.raises(ValueError, match="plain name"):
        Size.var("N M")
    with pytest.raises(TypeError):
        Size.of(2.5)
    with pytest.raises(TypeError):
        Size.const(True)
    with pytest.raises(TypeError):
        Size({})


def test_sizes_are_immutable_values():
    with pytest.raises(AttributeError):
        N.extra = 1  # __slots__, and no public attributes to set
    with pytest.raises(AttributeError):
        N.value = 3
    s = N / (M + 1) + 2 ** k
    assert copy.deepcopy(s) == s and pickle.loads(pickle.dumps(s)) == s


def test_floor_division_and_modulo_are_refused():
    for attempt in (lambda: N // 4, lambda: 4 // N, lambda: N % 4, lambda: 4 % N):
        with pytest.raises(TypeError, match="exact division"):
            attempt()


def test_evaluate():
    assert (N / 4 + M).evaluate({"N": 64, "M": 3}) == 19
    assert (2 ** k).evaluate({"k": 5}) == 32
    assert (N / 3).evaluate({"N": 4}) == Fraction(4, 3)
    assert type((N / 4).evaluate({"N": 8})) is int
    assert (N / (M + 1) + 2 ** (k + 1)).evaluate({"N": 6, "M": 1, "k": 2}) == 11
    with pytest.raises(ValueError, match="the size variable M has no value"):
        (N + M).evaluate({"N": 1})
    with pytest.raises(ValueError, match="not a whole number"):
        (2 ** (k / 2)).evaluate({"k": 1})


def test_substitute():
    assert (N / 4).substitute({"N": 4 * M}) == M
    assert (N * M).substitute({"N": 2}) == 2 * M
    assert (2 ** k).substitute({"k": 3}) == 8
    assert (2 ** k).substitute({"k": j + 1}) == 2 * 2 ** j
    assert (N / (M + 1)).substitute({"M": 1}) == N / 2
    assert (N / M).substitute({"M": N + 1}) == N / (N + 1)
    assert (N + 1).substitute({}) == N + 1 and (N + 1).substitute({"M": 3}) == N + 1


def test_free_vars():
    assert (N / M + 2 ** k).free_vars == {"N", "M", "k"}
    assert (N / (K + 1)).free_vars == {"N", "K"}
    assert (M ** j).free_vars == {"M", "j"} and Size.of(7).free_vars == frozenset()


# --- printing and parsing -----------------------------------------------------------------------

@pytest.mark.parametrize("size,text", [
    (N, "N"), (Size.const(128), "128"), (N / 128, "N/128"), (4 * M, "4*M"), (2 ** k, "2^k"),
    (N * M, "M*N"), (N / 4 + 1, "N/4 + 1"), (N - 2, "N - 2"), (3 * N / 4, "3*N/4"),
    (N / M, "N/M"), ((N + 1) ** 2, "N^2 + 2*N + 1"), ((N + 1) ** k, "(N + 1)^k"),
    (2 ** (k + j), "2^(j + k)"), (2 ** k * 8, "8*2^k"), (N / (4 * M), "N/(4*M)"),
    (-N, "-N"), (Size.const(0), "0"), (Size.const(-3) / 4, "-3/4"), (1 / N ** 2, "1/N^2"),
    (N / (M + 1), "N/(M + 1)"), (N / 2 ** k, "N/2^k"), ((2 ** k) ** 2, "(2^k)^2"),
    ((N + K) / (M + 1), "K/(M + 1) + N/(M + 1)"), (3 * N / (4 * M + 4), "3*N/(4*(M + 1))"),
    (1 / (M + 1) ** 2, "1/(M^2 + 2*M + 1)"), ((1 / (M + 1)) ** k, "(1/(M + 1))^k"),
])
def test_printing(size, text):
    assert str(size) == text
    assert parse_size(text) == size
    assert repr(size) == f"Size({text!r})"


def test_parser_accepts_the_paper_typesetting():
    assert parse_size("N × M · 2") == 2 * N * M
    assert parse_size("2^3^2") == 2 ** 9  # right-associative
    assert parse_size("-N^2") == -(N ** 2) and parse_size("2^-1") == Size.const(1) / 2
    assert parse_size(" ( N+1 ) * ( N-1 ) ") == N ** 2 - 1


@pytest.mark.parametrize("text,position,expected", [
    ("N/*4", 2, "a number, a name or '('"),
    ("(N", 2, "')'"),
    ("", 0, "a number, a name or '('"),
    ("4 $ 2", 2, "'+', '-', '*', '/', '^' or the end"),
    ("N/0", 2, "a divisor that is not zero"),
    ("N²", 1, "'+', '-', '*', '/', '^' or the end"),
])
def test_parse_errors_name_the_column(text, position, expected):
    with pytest.raises(SizeSyntaxError) as info:
        parse_size(text)
    assert info.value.position == position and info.value.expected == expected
    assert str(info.value) == f"size {text!r}: expected {expected} at column {position + 1}"
    assert isinstance(info.value, ValueError)


def test_parse_error_message_from_the_brief():
    with pytest.raises(SizeSyntaxError,
                       match=r"^size 'N/\*4': expected a number, a name or '\(' at column 3$"):
        parse_size("N/*4")


def test_divisors_between():
    assert divisors_between(Size.const(64), 2, 16) == [2, 4, 8, 16]
    assert divisors_between(Size.const(12), 1, 100) == [1, 2, 3, 4, 6, 12]
    assert divisors_between(128 * N, 1, 256) == [1, 2, 4, 8, 16, 32, 64, 128]
    assert divisors_between(N, 1, 64) == [1] and divisors_between(N, 2, 64) == []
    assert divisors_between(8 * 2 ** k, 3, 100) == [4, 8]
    assert divisors_between(Size.const(3) / 2, 1, 10) == []


# --- properties ---------------------------------------------------------------------------------
# Expression trees: ("c", int) | ("v", name) | (op, left, right); built both as a Size and
# evaluated directly with Fractions, so the canonical form can be checked against the tree.

CONSTANTS = st.integers(1, 16).map(lambda v: ("c", v))
VARIABLES = st.sampled_from(["N", "M", "K"]).map(lambda v: ("v", v))
LEAVES = st.one_of(CONSTANTS, VARIABLES)


def _extend(sub):
    return st.one_of(
        st.tuples(st.sampled_from(["+", "-", "*"]), sub, sub),
        st.tuples(st.just("/"), sub, LEAVES),
        st.tuples(st.just("^"), sub, st.integers(0, 3).map(lambda v: ("c", v))),
    )


TREES = st.recursive(LEAVES, _extend, max_leaves=8)
SMALL_TREES = st.recursive(LEAVES, _extend, max_leaves=4)
POLYNOMIALS = st.recursive(CONSTANTS | VARIABLES, lambda sub: st.one_of(
    st.tuples(st.sampled_from(["+", "-", "*"]), sub, sub),
    st.tuples(st.just("/"), sub, CONSTANTS),
), max_leaves=4)
MONOMIALS = st.recursive(LEAVES, lambda sub: st.tuples(st.sampled_from(["*", "/"]), sub, sub),
                         max_leaves=4)
# Beyond the brief's grammar: division by any subtree and symbolic exponents (Div, Pow atoms).
WILD_TREES = st.recursive(LEAVES, lambda sub: st.one_of(
    _extend(sub),
    st.tuples(st.just("/"), sub, sub),
    st.tuples(st.just("^"), sub, st.sampled_from(["k", "j"]).map(lambda v: ("v", v))),
), max_leaves=5)
ENVS = st.fixed_dictionaries({name: st.integers(1, 9) for name in "NMKkj"})


def build(tree) -> Size:
    if tree[0] == "c":
        return Size.const(tree[1])
    if tree[0] == "v":
        return Size.var(tree[1])
    op, a, b = tree[0], build(tree[1]), build(tree[2])
    return {"+": a.__add__, "-": a.__sub__, "*": a.__mul__, "/": a.__truediv__,
            "^": a.__pow__}[op](b)


def value(tree, env) -> Fraction:
    if tree[0] == "c":
        return Fraction(tree[1])
    if tree[0] == "v":
        return Fraction(env[tree[1]])
    op, a, b = tree[0], value(tree[1], env), value(tree[2], env)
    if op == "/" and b == 0:
        raise ZeroDivisionError
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
            "^": lambda: a ** int(b)}[op]()


def build_nonzero(tree) -> Size:
    try:
        return build(tree)
    except ZeroDivisionError:
        assume(False)


@given(TREES)
def test_printed_sizes_parse_back(tree):
    s = build(tree)
    assert parse_size(str(s)) == s


@given(WILD_TREES)
def test_printed_sizes_with_opaque_atoms_parse_back(tree):
    s = build_nonzero(tree)
    assert parse_size(str(s)) == s


@given(TREES, ENVS)
def test_canonical_form_keeps_the_value(tree, env):
    assert Fraction(build(tree).evaluate(env)) == value(tree, env)


@given(WILD_TREES, ENVS)
def test_canonical_form_with_opaque_atoms_keeps_the_value(tree, env):
    s = build_nonzero(tree)
    try:
        expected = value(tree, env)
        actual = Fraction(s.evaluate(env))
    except ZeroDivisionError:
        assume(False)
    assert actual == expected


@given(SMALL_TREES, SMALL_TREES, SMALL_TREES, MONOMIALS)
def test_ring_laws(a, b, c, monomial):
    a, b, c, m = build(a), build(b), build(c), build(monomial)
    assert a + b == b + a
    assert a * b == b * a
    assert (a + b) + c == a + (b + c)
    assert (a * b) * c == a * (b * c)
    assert a * (b + c) == a * b + a * c
    assert a - a == 0 and a + 0 == a and a * 1 == a
    assert (a / m) * m == a
    if b != 0:
        assert (a * b) / b == a  # exact polynomial division recovers the factor
        assert (a / b) * b == a  # and a quotient's cofactor cancels against its divisor


@given(POLYNOMIALS, POLYNOMIALS, SMALL_TREES)
def test_quotients_by_sums_distribute(p, q, divisor):
    # For polynomial numerators the remainder modulo a sum is unique, so this holds; with
    # negative powers as well it may not (see test_inexact_division_is_an_opaque_atom).
    p, q, b = build(p), build(q), build(divisor)
    assume(b != 0)
    assert (p + q) / b == p / b + q / b
    assert (p * q) / b == p * (q / b)


@given(TREES, st.one_of(LEAVES, MONOMIALS), ENVS)
def test_known_divisibility_holds_for_all_values(tree, divisor, env):
    s, n = build(tree), build(divisor)
    known = s.divisible_by(n)
    if known is True:
        assert Fraction((s / n).evaluate(env)).denominator == 1
    if s.is_constant and n.is_constant:
        assert known is ((Fraction(s.value) / n.value).denominator == 1)
    else:
        assert known is not False


@given(TREES, ENVS)
def test_substituting_every_variable_evaluates(tree, env):
    s = build(tree)
    assert s.substitute(env) == s.evaluate(env)


def test_building_many_sizes_runs():
    # Not a timing assertion: type checking builds sizes like these by the hundred.
    built = {Size.var("N") / 128 * 128 for _ in range(10_000)}
    assert built == {Size.var("N")}


def test_evaluate_many_gives_the_exact_values_of_many_choices_or_none():
    import numpy as np

    n, k = Size.var("n"), Size.var("k")
    columns = {"n": np.array([4.0, 8.0, 16.0]), "k": np.array([2.0, 2.0, 4.0])}
    size = Size.const(512) / n * k + n * n
    assert list(size.evaluate_many(columns)) == [
        float(size.evaluate({"n": a, "k": b})) for a, b in ((4, 2), (8, 2), (16, 4))]
    assert (Size.const(1) / 3 * n).evaluate_many(columns) is None  # a third is not exact
    assert n.evaluate_many({"k": columns["k"]}) is None  # n has no values
