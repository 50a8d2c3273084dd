"""Symbolic array sizes in one canonical form.

Array types in the Lift paper (Steuwer et al., "Generating Performance Portable Code using
Rewrite Rules", ICFP 2015) carry symbolic lengths: ``split^n : [T]_N -> [[T]_n]_{N/n}`` makes
``N/n``, ``join`` makes products and ``iterate`` makes powers such as ``2^k``. The type checker
compares such lengths, so equal sizes must be *equal values*: ``N/128*128 == N``,
``(N/4)/2 == N/8``, ``2*N - N == N``.

That is achieved by keeping every ``Size`` as a Laurent polynomial: a sum of terms
``coefficient * monomial`` with ``Fraction`` coefficients and monomials that multiply atoms to
integer (possibly negative) exponents. Atoms are variable names, ``Pow`` for a power whose
exponent is symbolic and ``Div`` for a quotient by a polynomial that does not divide exactly.
Division is exact (``N/4`` is a quarter of N, a natural number only when 4 divides N), which is
why ``divisible_by`` exists and why ``//`` and ``%`` are refused. Arithmetic builds the
canonical form directly, so equality and hashing are plain comparisons and nothing is ever
re-normalised.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from functools import total_ordering
from typing import Union

Atom = Union[str, "Pow", "Div"]
Monomial = tuple[tuple[Atom, int], ...]  # sorted by _atom_key; no zero exponents

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Exact division by a polynomial gives up after this many steps and keeps a Div atom.
_MAX_DIVISION_STEPS = 1000


class _Opaque:
    """An atom built from two sizes that arithmetic cannot look inside.

    Atoms are compared structurally and ordered by their printed text, which is unique
    because printed sizes parse back to equal sizes.
    """

    __slots__ = ("_left", "_right", "_hash", "_key")
    _rank = 0

    def __init__(self, left: Size, right: Size) -> None:
        object.__setattr__(self, "_left", left)
        object.__setattr__(self, "_right", right)
        object.__setattr__(self, "_hash", hash((type(self).__name__, left, right)))
        object.__setattr__(self, "_key", None)

    def __setattr__(self, name, value):
        raise AttributeError("size atoms are immutable")

    def __eq__(self, other) -> bool:
        return self is other or (type(other) is type(self) and self._hash == other._hash
                                 and self._left == other._left and self._right == other._right)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):
        return (type(self), (self._left, self._right))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._left!r}, {self._right!r})"

    @property
    def sort_key(self) -> tuple[int, str]:
        key = self._key
        if key is None:
            key = (self._rank, str(self))
            object.__setattr__(self, "_key", key)
        return key

    @property
    def free_vars(self) -> frozenset[str]:
        return self._left.free_vars | self._right.free_vars


class Pow(_Opaque):
    """``base ^ exponent`` for a symbolic exponent (``2^k``, ``N^k``); constant integer
    exponents never make one, they are multiplied out instead."""

    __slots__ = ()
    _rank = 1

    @property
    def base(self) -> Size:
        return self._left

    @property
    def exponent(self) -> Size:
        return self._right

    def __str__(self) -> str:
        return f"{_operand(self.base)}^{_operand(self.exponent)}"

    def evaluate(self, env: Mapping[str, int]) -> Fraction:
        exponent = Fraction(self.exponent.evaluate(env))
        if exponent.denominator != 1:
            raise ValueError(f"the exponent of {self} is {exponent}, not a whole number")
        return Fraction(self.base.evaluate(env)) ** int(exponent)

    def substitute(self, mapping: Mapping[str, Size | int]) -> Size:
        return self.base.substitute(mapping) ** self.exponent.substitute(mapping)


class Div(_Opaque):
    """``num / den`` for a polynomial ``den`` that does not divide ``num`` exactly.

    Both parts are primitive (leading coefficient 1, no common monomial factor) so that
    ``N/(M+1)``, ``2*N/(2*M+2)`` and ``N*(1/(M+1))`` all become ``N * Div(1, M+1)``.
    """

    __slots__ = ()
    _rank = 2

    @property
    def num(self) -> Size:
        return self._left

    @property
    def den(self) -> Size:
        return self._right

    def __str__(self) -> str:
        num = "1" if self.num == 1 else f"({self.num})"
        return f"({num}/({self.den}))"

    def evaluate(self, env: Mapping[str, int]) -> Fraction:
        return Fraction(self.num.evaluate(env)) / Fraction(self.den.evaluate(env))

    def substitute(self, mapping: Mapping[str, Size | int]) -> Size:
        return self.num.substitute(mapping) / self.den.substitute(mapping)


def _atom_key(atom: Atom) -> tuple[int, str]:
    return (0, atom) if isinstance(atom, str) else atom.sort_key


def _pair_key(pair: tuple[Atom, int]) -> tuple[int, str]:
    return _atom_key(pair[0])


class SizeSyntaxError(ValueError):
    """A size that does not parse: ``position`` is the 0-based column, ``expected`` says what
    would have been accepted there (the message counts columns from 1, as editors do)."""

    def __init__(self, text: str, position: int, expected: str) -> None:
        self.text = text
        self.position = position
        self.expected = expected
        super().__init__(f"size {text!r}: expected {expected} at column {position + 1}")


@total_ordering
class Size:
    """An immutable symbolic size in canonical form (see the module docstring).

    Build sizes with ``Size.of``, ``Size.var``, ``Size.const``, arithmetic or ``parse_size``;
    the constructor is private because it trusts its argument to be canonical already.
    """

    __slots__ = ("_terms", "_hash", "_free_vars")

    def __init__(self, *args, **kwargs) -> None:
        raise TypeError("build sizes with Size.of, Size.var, Size.const or parse_size")

    def __setattr__(self, name, value):
        raise AttributeError("sizes are immutable")

    @staticmethod
    def _make(terms: dict[Monomial, Fraction]) -> Size:
        # Callers guarantee canonical input: no zero coefficients, sorted monomials.
        size = object.__new__(Size)
        object.__setattr__(size, "_terms", terms)
        object.__setattr__(size, "_hash", None)
        object.__setattr__(size, "_free_vars", None)
        return size

    def __reduce__(self):
        return (parse_size, (str(self),))

    def __copy__(self) -> Size:
        return self

    def __deepcopy__(self, memo) -> Size:
        return self

    # --- construction ---------------------------------------------------------------------
    @staticmethod
    def of(x: int | Fraction | str | Size) -> Size:
        """``4`` -> constant, ``"N"`` -> variable, any other text is parsed, a Size is kept."""
        if isinstance(x, Size):
            return x
        if isinstance(x, str):
            return Size.var(x) if _NAME.match(x) else parse_size(x)
        return Size.const(x)

    @staticmethod
    def var(name: str) -> Size:
        cached = _VARIABLES.get(name)
        if cached is None:
            if not isinstance(name, str) or not _NAME.match(name):
                raise ValueError(f"a size variable is a plain name, not {name!r}")
            cached = _VARIABLES[name] = Size._make({((name, 1),): _ONE})
        return cached

    @staticmethod
    def const(value: int | Fraction) -> Size:
        if isinstance(value, bool) or not isinstance(value, int | Fraction):
            raise TypeError(f"a size constant is an int or a Fraction, not {value!r}")
        cached = _CONSTANTS.get(value)
        if cached is not None:
            return cached
        made = Size._make({(): Fraction(value)} if value else {})
        if isinstance(value, int) and -16 <= value <= 1024:  # small ints recur constantly
            _CONSTANTS[value] = made
        return made

    # --- arithmetic -----------------------------------------------------------------------
    def __add__(self, other) -> Size:
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        if not other._terms:
            return self
        if not self._terms:
            return other
        terms = dict(self._terms)
        for m, c in other._terms.items():
            old = terms.get(m)
            if old is None:
                terms[m] = c
            elif old + c:
                terms[m] = old + c
            else:
                del terms[m]
        return Size._make(terms)

    __radd__ = __add__

    def __neg__(self) -> Size:
        return self._scaled(-_ONE)

    def __pos__(self) -> Size:
        return self

    def __sub__(self, other) -> Size:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else self + other._scaled(-_ONE)

    def __rsub__(self, other) -> Size:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else other + self._scaled(-_ONE)

    def __mul__(self, other) -> Size:
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        if other.is_constant:
            return self._scaled(other._terms.get((), _ZERO))
        if self.is_constant:
            return other._scaled(self._terms.get((), _ZERO))
        terms: dict[Monomial, Fraction] = {}
        for m1, c1 in self._terms.items():
            for m2, c2 in other._terms.items():
                m = _mono_mul(m1, m2)
                terms[m] = terms.get(m, _ZERO) + c1 * c2
        return Size._make({m: c for m, c in terms.items() if c})

    __rmul__ = __mul__

    def __truediv__(self, other) -> Size:
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        if not other._terms:
            raise ZeroDivisionError(f"the size {self} divided by zero")
        if len(other._terms) == 1:
            ((m, c),) = other._terms.items()
            return self * _monomial_inverse(m, c)
        return _divide_by_polynomial(self, other)

    def __rtruediv__(self, other) -> Size:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else other / self

    def __pow__(self, exponent) -> Size:
        exponent = _coerce(exponent)
        if exponent is NotImplemented:
            return NotImplemented
        if exponent.is_integer_constant:
            k = int(exponent)
            return self._power(k) if k >= 0 else _ONE_SIZE / self._power(-k)
        return _symbolic_power(self, exponent)

    def __rpow__(self, base) -> Size:
        base = _coerce(base)
        return NotImplemented if base is NotImplemented else base ** self

    def __floordiv__(self, other):
        raise TypeError("sizes use exact division '/': N/4 is a quarter of N, "
                        "and divisible_by says whether it is a whole number")

    __rfloordiv__ = __mod__ = __rmod__ = __divmod__ = __rdivmod__ = __floordiv__

    def _scaled(self, factor: Fraction) -> Size:
        if factor == 1:
            return self
        if not factor:
            return _ZERO_SIZE
        return Size._make({m: c * factor for m, c in self._terms.items()})

    def _power(self, k: int) -> Size:
        if len(self._terms) == 1:  # a monomial: multiply the exponents, no expansion needed
            ((m, c),) = self._terms.items()
            return Size._make({tuple((a, e * k) for a, e in m): c ** k}) if k else _ONE_SIZE
        result = _ONE_SIZE
        for _ in range(k):
            result = result * self
        return result

    # --- queries --------------------------------------------------------------------------
    @property
    def is_constant(self) -> bool:
        terms = self._terms
        return not terms or (len(terms) == 1 and () in terms)

    @property
    def is_integer_constant(self) -> bool:
        return self.is_constant and self._terms.get((), _ZERO).denominator == 1

    @property
    def value(self) -> int | Fraction:
        if not self.is_constant:
            raise ValueError(f"the size {self} is not a constant")
        return _plain(self._terms.get((), _ZERO))

    @property
    def free_vars(self) -> frozenset[str]:
        free = self._free_vars
        if free is None:
            names: set[str] = set()
            for m in self._terms:
                for atom, _ in m:
                    names.update((atom,) if isinstance(atom, str) else atom.free_vars)
            free = frozenset(names)
            object.__setattr__(self, "_free_vars", free)
        return free

    def evaluate(self, env: Mapping[str, int]) -> int | Fraction:
        """The value for the given variable values (an int when it is a whole number)."""
        total = _ZERO
        for m, c in self._terms.items():
            term = c
            for atom, e in m:
                if not isinstance(atom, str):
                    term *= atom.evaluate(env) ** e
                elif atom in env:
                    term *= Fraction(env[atom]) ** e
                else:
                    raise ValueError(f"the size variable {atom} has no value (in {self})")
            total += term
        return _plain(total)

    def substitute(self, mapping: Mapping[str, Size | int]) -> Size:
        """Replace variables by sizes or numbers, re-canonicalising as the result is built."""
        if not mapping or self.free_vars.isdisjoint(mapping):
            return self
        result = _ZERO_SIZE
        for m, c in self._terms.items():
            term = Size._make({(): c})
            for atom, e in m:
                if isinstance(atom, str):
                    factor = Size.of(mapping[atom]) if atom in mapping else Size.var(atom)
                else:
                    factor = atom.substitute(mapping)
                term = term * factor ** e
            result = result + term
        return result

    def divisible_by(self, n: Size | int) -> bool | None:
        """Whether ``self / n`` is a whole number for all natural values of the variables.

        True when the exact quotient has integer coefficients and no negative exponents (so
        it is an integer polynomial), or both are constants and n divides; False when both
        are constants and n does not divide, or n is zero; None when it cannot be known
        without values (``N`` by 4). The type checker turns None into a recorded assumption.
        """
        n = Size.of(n)
        if not n._terms:
            return False
        quotient = self / n
        if self.is_constant and n.is_constant:
            return quotient.is_integer_constant
        return True if _takes_whole_values(quotient, natural=False) else None

    def __int__(self) -> int:
        if not self.is_integer_constant:
            raise TypeError(f"the size {self} is not a whole number")
        return int(self._terms.get((), _ZERO))

    __index__ = __int__  # so a constant size can be used as a length (range, shapes)

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if not isinstance(other, Size):
            other = _coerce(other)
            if other is NotImplemented:
                return NotImplemented
        if self._hash is not None and other._hash is not None and self._hash != other._hash:
            return False
        return self._terms == other._terms

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            if self.is_constant:  # hash like the number, since Size.of(4) == 4
                h = hash(self._terms.get((), _ZERO))
            else:
                h = hash(frozenset(self._terms.items()))
            object.__setattr__(self, "_hash", h)
        return h

    def __lt__(self, other) -> bool:
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        if not (self.is_constant and other.is_constant):
            raise TypeError(f"symbolic sizes have no order: {self} vs {other}")
        return self.value < other.value

    # --- printing -------------------------------------------------------------------------
    def __str__(self) -> str:
        """The paper's notation: ``N/128``, ``4*M``, ``2^k``, ``N - 2``; parses back."""
        if not self._terms:
            return "0"
        text = ""
        for m, c in sorted(self._terms.items(), key=_term_order):
            term = _term_text(m, abs(c))
            if not text:
                text = term if c > 0 else "-" + term
            else:
                text += (" + " if c > 0 else " - ") + term
        return text

    def __repr__(self) -> str:
        return f"Size({str(self)!r})"


_ZERO = Fraction(0)
_ONE = Fraction(1)
_VARIABLES: dict[str, Size] = {}
_CONSTANTS: dict[int, Size] = {}
_ZERO_SIZE = Size.const(0)
_ONE_SIZE = Size.const(1)


def _coerce(x) -> Size:
    if isinstance(x, Size):
        return x
    if isinstance(x, int | Fraction) and not isinstance(x, bool):
        return Size.const(x)
    return NotImplemented


def _plain(x: Fraction) -> int | Fraction:
    return x.numerator if x.denominator == 1 else x


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    if not a:
        return b
    if not b:
        return a
    powers = dict(a)
    for atom, e in b:
        total = powers.get(atom, 0) + e
        if total:
            powers[atom] = total
        else:
            del powers[atom]
    return tuple(sorted(powers.items(), key=_pair_key))


def _monomial_inverse(m: Monomial, c: Fraction) -> Size:
    """``1 / (c*m)``. Div atoms keep positive exponents (Div(a, b)^-1 is b/a), so that a
    quotient has one representation however it was reached."""
    plain = tuple((a, -e) for a, e in m if not isinstance(a, Div))
    result = Size._make({plain: 1 / c})
    for atom, e in m:
        if isinstance(atom, Div):
            result = result * (atom.den / atom.num) ** e
    return result


def _split_content(s: Size) -> tuple[Fraction, Monomial, Size]:
    """``s == c * m * p`` with p a polynomial whose leading term (in print order) has
    coefficient 1 and whose terms share no monomial factor."""
    lead_coefficient = min(s._terms.items(), key=_term_order)[1]
    atoms = {a for m in s._terms for a, _ in m}
    lowest = {a: min(dict(m).get(a, 0) for m in s._terms) for a in atoms}
    content = tuple(sorted(((a, e) for a, e in lowest.items() if e), key=_pair_key))
    if not content and lead_coefficient == 1:
        return _ONE, (), s
    primitive = {}
    for m, c in s._terms.items():
        powers = dict(m)
        for a, e in content:
            powers[a] -= e
        kept = tuple((a, e) for a, e in sorted(powers.items(), key=_pair_key) if e)
        primitive[kept] = c / lead_coefficient
    return lead_coefficient, content, Size._make(primitive)


def _divide_by_polynomial(num: Size, den: Size) -> Size:
    """Exact division by a sum: the polynomial quotient when it exists (``(2*N+2)/(N+1)``
    is 2), else the quotient of the primitive parts kept as a Div atom."""
    if not num._terms:
        return _ZERO_SIZE
    den_c, den_m, den_p = _split_content(den)
    num_c, num_m, num_p = _split_content(num)
    outside = Size._make({num_m: num_c}) * _monomial_inverse(den_m, den_c)
    quotient = _ONE_SIZE if num_p == den_p else _polynomial_quotient(num_p, den_p)
    if quotient is None:
        quotient = Size._make({((Div(num_p, den_p), 1),): _ONE})
    return outside * quotient


def _polynomial_quotient(num: Size, den: Size) -> Size | None:
    """``num / den`` for polynomials when the remainder is zero, else None.

    Multivariate division by a single divisor under the graded-lexicographic monomial order
    (Cox, Little, O'Shea, "Ideals, Varieties, and Algorithms", Sect. 2.3): when den divides
    num, the leading term of den divides the leading term of every remainder, so a leading
    term it does not divide proves the division inexact. Atoms count as indeterminates.
    """
    atoms = sorted({a for s in (num, den) for m in s._terms for a, _ in m}, key=_atom_key)
    index = {a: i for i, a in enumerate(atoms)}

    def grlex(item: tuple[Monomial, Fraction]) -> tuple[int, tuple[int, ...]]:
        vector = [0] * len(atoms)
        for a, e in item[0]:
            vector[index[a]] = e
        return (sum(vector), tuple(vector))

    lead_m, lead_c = max(den._terms.items(), key=grlex)
    lead_powers = dict(lead_m)
    quotient, rest = _ZERO_SIZE, num
    for _ in range(_MAX_DIVISION_STEPS):
        if not rest._terms:
            return quotient
        m, c = max(rest._terms.items(), key=grlex)
        powers = dict(m)
        for a, e in lead_powers.items():
            powers[a] = powers.get(a, 0) - e
        if any(e < 0 for e in powers.values()):
            return None
        step = Size._make({tuple(sorted(((a, e) for a, e in powers.items() if e),
                                        key=_pair_key)): c / lead_c})
        quotient, rest = quotient + step, rest - step * den
    return None


def _symbolic_power(base: Size, exponent: Size) -> Size:
    """``base ^ exponent`` for an exponent that is not a constant integer."""
    if base == 1:
        return _ONE_SIZE
    if len(base._terms) == 1:
        ((m, c),) = base._terms.items()
        if c == 1 and len(m) == 1 and m[0][1] == 1 and isinstance(m[0][0], Pow):
            inner = m[0][0]  # (b^e)^f = b^(e*f)
            return inner.base ** (inner.exponent * exponent)
    shift = exponent._terms.get(())
    if (shift is not None and shift.denominator == 1 and base._terms
            and (shift > 0 or len(base._terms) == 1)):
        # b^(e+c) = b^c * b^e, so that 2^(k+1) == 2*2^k; only where b^c stays a polynomial
        # or a Laurent monomial (never a Div), and never for b = 0 where 0^-1 is undefined.
        rest = _symbolic_power(base, exponent - shift)
        k = int(shift)
        return base._power(k) * rest if k > 0 else rest / base._power(-k)
    return Size._make({((Pow(base, exponent), 1),): _ONE})


def _takes_whole_values(s: Size, natural: bool) -> bool:
    """A sufficient test that s is a whole number (natural=False) or a natural number
    (natural=True) for all natural values of its variables: an integer polynomial (with
    non-negative coefficients for naturals) in atoms that are themselves whole numbers."""
    for m, c in s._terms.items():
        if c.denominator != 1 or (natural and c < 0):
            return False
        for atom, e in m:
            if e < 0 or isinstance(atom, Div):
                return False
            if isinstance(atom, Pow) and not (_takes_whole_values(atom.base, natural)
                                              and _takes_whole_values(atom.exponent, True)):
                return False
    return True


# --- printing helpers ---------------------------------------------------------------------------

def _term_order(item: tuple[Monomial, Fraction]):
    """Print order: constants last, higher total degree first, then by atom names."""
    m = item[0]
    return (not m, -sum(e for _, e in m), tuple((_atom_key(a), -e) for a, e in m))


def _operand(s: Size) -> str:
    text = str(s)
    return text if _NAME.match(text) or text.isdigit() else f"({text})"


def _term_text(m: Monomial, c: Fraction) -> str:
    """One term with a positive coefficient, as ``p*factors/(q*factors)``."""
    divs = [e for a, e in m if isinstance(a, Div)]
    inline_div = divs == [1]  # a lone Div reads best as a fraction: N*(K + 1)/(M + 1)
    num: list[str] = []
    den: list[str] = []
    for atom, e in m:
        if inline_div and isinstance(atom, Div):
            if atom.num != 1:
                num.append(f"({atom.num})")
            den.append(f"({atom.den})")
        elif e > 0:
            num.append(_factor_text(atom, e))
        else:
            den.append(_factor_text(atom, -e))
    if c.numerator != 1 or not num:
        num.insert(0, str(c.numerator))
    if c.denominator != 1:
        den.insert(0, str(c.denominator))
    text = "*".join(num)
    if den:
        text += "/" + (den[0] if len(den) == 1 else "(" + "*".join(den) + ")")
    return text


def _factor_text(atom: Atom, e: int) -> str:
    if isinstance(atom, str):
        return atom if e == 1 else f"{atom}^{e}"
    if isinstance(atom, Div):  # already parenthesised
        return str(atom) if e == 1 else f"{atom}^{e}"
    return str(atom) if e == 1 else f"({atom})^{e}"


# --- parsing ------------------------------------------------------------------------------------

def parse_size(text: str) -> Size:
    """Parse a size in the printed notation: whole numbers, names, ``+ - * /``, ``^``
    (right-associative, tighter than ``*`` and ``/``, so ``2*N^2`` is 2*(N^2)), unary minus
    and parentheses; ``×`` and ``·`` are accepted for ``*`` as in the paper's typesetting."""
    return _SizeParser(text).parse()


_ATOM_EXPECTED = "a number, a name or '('"


class _SizeParser:
    """Recursive descent, one method per precedence level."""

    def __init__(self, text: str) -> None:
        self.original = text
        self.text = text.replace("×", "*").replace("·", "*")  # one char each: columns stay
        self.i = 0

    def error(self, expected: str, position: int | None = None) -> SizeSyntaxError:
        return SizeSyntaxError(self.original, self.i if position is None else position, expected)

    def parse(self) -> Size:
        size = self.sum()
        if self.peek():
            raise self.error("'+', '-', '*', '/', '^' or the end")
        return size

    def peek(self) -> str:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1
        return self.text[self.i] if self.i < len(self.text) else ""

    def sum(self) -> Size:
        size = self.product()
        while (op := self.peek()) in ("+", "-"):
            self.i += 1
            right = self.product()
            size = size + right if op == "+" else size - right
        return size

    def product(self) -> Size:
        size = self.unary()
        while (op := self.peek()) in ("*", "/"):
            self.i += 1
            start = self.i
            right = self.unary()
            if op == "*":
                size = size * right
            elif right == 0:
                raise self.error("a divisor that is not zero", start)
            else:
                size = size / right
        return size

    def unary(self) -> Size:
        if self.peek() == "-":
            self.i += 1
            return -self.unary()
        return self.power()

    def power(self) -> Size:
        base = self.atom()
        if self.peek() != "^":
            return base
        self.i += 1
        start = self.i
        exponent = self.unary()  # right-associative, and 2^-1 is allowed
        try:
            return base ** exponent
        except ZeroDivisionError:
            raise self.error("a non-negative exponent (0 has no inverse)", start) from None

    def atom(self) -> Size:
        ch = self.peek()
        start = self.i
        if "0" <= ch <= "9":
            while self.i < len(self.text) and "0" <= self.text[self.i] <= "9":
                self.i += 1
            return Size.const(int(self.text[start:self.i]))
        if ch and (ch.isascii() and (ch.isalpha() or ch == "_")):
            while self.i < len(self.text) and (self.text[self.i].isascii()
                                               and (self.text[self.i].isalnum()
                                                    or self.text[self.i] == "_")):
                self.i += 1
            return Size.var(self.text[start:self.i])
        if ch == "(":
            self.i += 1
            size = self.sum()
            if self.peek() != ")":
                raise self.error("')'")
            self.i += 1
            return size
        raise self.error(_ATOM_EXPECTED)


def divisors_between(size: Size, low: int, high: int) -> list[int]:
    """Candidate split factors in ``[low, high]``, ascending: the divisors of a constant
    size, or the powers of two that a symbolic size is known to be divisible by (the
    factors a split of an unknown length can be proved safe for, e.g. 128 for ``128*N``)."""
    low = max(low, 1)
    if size.is_constant:
        if not size.is_integer_constant:
            return []
        n = abs(int(size))
        top = high if n == 0 else min(high, n)  # every number divides 0
        return [d for d in range(low, top + 1) if n % d == 0]
    found = []
    d = 1
    while d <= high:
        if d >= low and size.divisible_by(d):
            found.append(d)
        d *= 2
    return found
