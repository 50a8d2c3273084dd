"""Symbolic array sizes in one canonical form.

Array types in the Lift paper (Steuwer et al., "Generating Performance Portable Code using
Rewrite Rules", ICFP 2015) carry symbolic lengths: ``split^n : [T]_N -> [[T]_n]_{N/n}`` makes
``N/n``, ``join`` makes products and ``iterate`` makes powers such as ``2^k``. The type checker
compares such lengths, so equal sizes must be equal values: ``N/128*128 == N``,
``(N/4)/2 == N/8``, ``2*N - N == N``.

Every ``Size`` is therefore kept as a Laurent polynomial: a sum of terms
``coefficient * monomial`` with non-zero ``Fraction`` coefficients and monomials that raise
atoms to integer (possibly negative) exponents. Atoms are variable names, ``Pow`` for a power
with a symbolic exponent and ``Div`` for one over a sum that does not divide exactly.
Arithmetic builds this form directly, so equality and hashing compare it as it stands and
nothing is re-normalised. Division is exact (``N/4`` is a quarter of N, a whole number only
when 4 divides N): that is why ``divisible_by`` exists and why ``//`` and ``%`` are refused.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import total_ordering
from typing import ClassVar, Union

Atom = Union[str, "Pow", "Div"]
Monomial = tuple[tuple[Atom, int], ...]  # sorted by _atom_key, no zero exponents

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True, slots=True)
class Pow:
    """``base ^ exponent`` for a symbolic exponent (``2^k``, ``N^k``). Constant integer
    exponents never make one: they are multiplied out, so ``(N+1)^2 == N^2 + 2*N + 1``."""

    base: Size
    exponent: Size
    _key: tuple[int, str] | None = field(default=None, init=False, repr=False, compare=False)
    _rank: ClassVar[int] = 1

    def __str__(self) -> str:
        return f"{_operand(self.base)}^{_operand(self.exponent)}"

    @property
    def free_vars(self) -> frozenset[str]:
        return self.base.free_vars | self.exponent.free_vars

    def evaluate(self, env: Mapping[str, int]) -> Fraction:
        exponent = Fraction(self.exponent.evaluate(env))
        if exponent.denominator != 1:
            raise ValueError(f"the exponent of {self} is {exponent}, not a whole number")
        return Fraction(self.base.evaluate(env)) ** int(exponent)

    def substitute(self, mapping: Mapping[str, Size | int]) -> Size:
        return self.base.substitute(mapping) ** self.exponent.substitute(mapping)


@dataclass(frozen=True, slots=True)
class Div:
    """``1 / den`` for a sum ``den`` that does not divide the numerator.

    The numerator stays outside, as the atom's cofactor, so quotients distribute like any
    product: ``(N+K)/(M+1) == N/(M+1) + K/(M+1)``. ``den`` is primitive (its first term's
    coefficient is 1, its terms share no monomial factor) and holds no Div; a monomial holds
    at most one Div, to the first power (``1/(M+1)^2`` is ``Div(M^2+2*M+1)``); and each
    Div's cofactor is kept reduced modulo den (see ``_over``), so ``(N+M+1)/(N+M)`` is
    ``1 + 1/(N+M)`` and ``N/(N+1)`` is ``1 - 1/(N+1)``. Without partial fractions or a gcd,
    sums over different denominators, or mixed with negative powers, are right in value but
    not canonical: ``1/N + 1/(N+1) != (2*N+1)/(N^2+N)``.
    """

    den: Size
    _key: tuple[int, str] | None = field(default=None, init=False, repr=False, compare=False)
    _rank: ClassVar[int] = 2

    def __str__(self) -> str:
        return f"1/({self.den})"

    @property
    def free_vars(self) -> frozenset[str]:
        return self.den.free_vars

    def evaluate(self, env: Mapping[str, int]) -> Fraction:
        return 1 / Fraction(self.den.evaluate(env))

    def substitute(self, mapping: Mapping[str, Size | int]) -> Size:
        return 1 / self.den.substitute(mapping)


def _atom_key(atom: Atom) -> tuple[int, str]:
    """Variables first, by name, then Pow, then Div (``_has_div`` relies on Div being last),
    each by printed text: unique, since printed sizes parse back to equal sizes. Cached on
    the atom, as printing is the slow part."""
    if isinstance(atom, str):
        return (0, atom)
    if atom._key is None:
        object.__setattr__(atom, "_key", (atom._rank, str(atom)))
    return atom._key


def _monomial(powers: Mapping[Atom, int]) -> Monomial:
    """The canonical monomial for atom -> exponent: zero exponents dropped, atoms sorted."""
    pairs = [(a, e) for a, e in powers.items() if e]
    return tuple(pairs if len(pairs) < 2 else sorted(pairs, key=lambda p: _atom_key(p[0])))


class SizeSyntaxError(ValueError):
    """A size that does not parse: ``position`` is the 0-based column, ``expected`` says what
    would have been accepted there (the message counts columns from 1, as editors do)."""

    def __init__(self, text: str, position: int, expected: str) -> None:
        self.text, self.position, self.expected = text, position, expected
        super().__init__(f"size {text!r}: expected {expected} at column {position + 1}")


@total_ordering
class Size:
    """An immutable symbolic size in canonical form (see the module docstring).

    Build sizes with ``Size.of``, ``Size.var``, ``Size.const``, arithmetic or ``parse_size``;
    there is no public constructor because ``_make`` trusts its terms to be canonical.
    """

    __slots__ = ("_terms", "_hash", "_free_vars")

    def __init__(self, *args, **kwargs) -> None:
        raise TypeError("build sizes with Size.of, Size.var, Size.const or parse_size")

    @staticmethod
    def _make(terms: dict[Monomial, Fraction]) -> Size:
        size = object.__new__(Size)
        size._terms, size._hash, size._free_vars = terms, None, None
        return size

    def __reduce__(self):
        # Rebuild rather than restore: the cached hash of variable names differs per process.
        return (Size._make, (self._terms,))

    # --- construction ---------------------------------------------------------------------
    @staticmethod
    def of(x: int | Fraction | str | Size) -> Size:
        """``4`` -> constant, ``"N"`` -> variable, other text is parsed, a Size is kept."""
        if isinstance(x, Size):
            return x
        if isinstance(x, str):
            return Size.var(x) if _NAME.match(x) else parse_size(x)
        return Size.const(x)

    @staticmethod
    def is_name(text: object) -> bool:
        """Whether ``text`` can name a size variable: ASCII letters, digits and '_', not
        starting with a digit (sizes become C identifiers)."""
        return isinstance(text, str) and bool(_NAME.match(text))

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
        made = _CONSTANTS.get(value)
        if made is None:
            made = Size._make({(): Fraction(value)} if value else {})
            if isinstance(value, int) and -16 <= value <= 1024:  # the ints sizes mostly use
                _CONSTANTS[value] = made
        return made

    # --- arithmetic -----------------------------------------------------------------------
    def __add__(self, other) -> Size:
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        total = Size._make(_accumulate(dict(self._terms), other._terms))
        return _normalise_quotients(total) if _has_div(self) and _has_div(other) else total

    __radd__ = __add__

    def __neg__(self) -> Size:
        return self._scaled(-_ONE)

    def __sub__(self, other) -> Size:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else self + -other

    def __rsub__(self, other) -> Size:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else other + -self

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
        product = Size._make({m: c for m, c in terms.items() if c})
        return _normalise_quotients(product) if _has_div(self) or _has_div(other) else product

    __rmul__ = __mul__

    def __truediv__(self, other) -> Size:
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        if not other._terms:
            raise ZeroDivisionError(f"the size {self} divided by zero")
        if other.is_constant:  # the common case, N/128
            return self._scaled(1 / other._terms[()])
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
        if not exponent.is_integer_constant:
            return _symbolic_power(self, exponent)
        k = int(exponent)
        return self._power(k) if k >= 0 else _ONE_SIZE / self._power(-k)

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
        return Size._make({m: c * factor for m, c in self._terms.items()} if factor else {})

    def _power(self, k: int) -> Size:
        if k and len(self._terms) == 1:  # a monomial: multiply the exponents, no expansion
            ((m, c),) = self._terms.items()
            power = Size._make({tuple((a, e * k) for a, e in m): c ** k})
            return _normalise_quotients(power) if k > 1 and _has_div(self) else power
        result = _ONE_SIZE
        for _ in range(k):
            result = result * self
        return result

    # --- queries --------------------------------------------------------------------------
    @property
    def is_constant(self) -> bool:
        return not self._terms or (len(self._terms) == 1 and () in self._terms)

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
        if self._free_vars is None:
            self._free_vars = frozenset().union(*(
                {atom} if isinstance(atom, str) else atom.free_vars
                for m in self._terms for atom, _ in m))
        return self._free_vars

    def evaluate(self, env: Mapping[str, int]) -> int | Fraction:
        """The value for the given variable values (an int when it is a whole number)."""
        total = _ZERO
        for m, c in self._terms.items():
            for atom, e in m:
                if not isinstance(atom, str):
                    c *= atom.evaluate(env) ** e
                elif atom in env:
                    c *= Fraction(env[atom]) ** e
                else:
                    raise ValueError(f"the size variable {atom} has no value (in {self})")
            total += c
        return _plain(total)

    def evaluate_many(self, columns: Mapping[str, object]):
        """The values for many choices at once: ``columns`` maps each variable to an array
        of its values (NumPy float64, one per choice). None where the values would not be
        exact in floating point: a symbolic power or division, or a coefficient whose
        denominator is not a power of two (the caller evaluates those one by one)."""
        total = 0.0
        for m, c in self._terms.items():
            if c.denominator & (c.denominator - 1):
                return None
            term = float(c)
            for atom, e in m:
                if not isinstance(atom, str) or atom not in columns:
                    return None
                term = term * columns[atom] ** e
            total = total + term
        return total

    def substitute(self, mapping: Mapping[str, Size | int]) -> Size:
        """Replace variables by sizes or numbers; the result is built canonical."""
        if not mapping or self.free_vars.isdisjoint(mapping):
            return self
        result = _ZERO_SIZE
        for m, c in self._terms.items():
            term = Size._make({(): c})
            for atom, e in m:
                if isinstance(atom, str):
                    term = term * Size.of(mapping.get(atom, atom)) ** e
                else:
                    term = term * atom.substitute(mapping) ** e
            result = result + term
        return result

    def divisible_by(self, n: Size | int) -> bool | None:
        """Whether ``self / n`` is a whole number for all natural values of the variables.

        True when the exact quotient has integer coefficients and no negative exponents (an
        integer polynomial, in atoms that are whole numbers too), or both are constants and n
        divides; False when both are constants and n does not divide, or n is zero; None when
        it cannot be known without values (``N`` by 4), which the type checker records as an
        assumption rather than an error.
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

    __index__ = __int__  # so a constant size can serve as a length (range, array shapes)

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        if self._hash is not None and other._hash is not None and self._hash != other._hash:
            return False
        return self._terms == other._terms

    def __hash__(self) -> int:
        if self._hash is None:  # constants hash like their number, since Size.of(4) == 4
            self._hash = (hash(self._terms.get((), 0)) if self.is_constant
                          else hash(frozenset(self._terms.items())))
        return self._hash

    def __lt__(self, other) -> bool:
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        if not (self.is_constant and other.is_constant):
            raise TypeError(f"symbolic sizes have no order: {self} vs {other}")
        return self.value < other.value

    # --- printing -------------------------------------------------------------------------
    def __str__(self) -> str:
        """The paper's notation (``N/128``, ``4*M``, ``2^k``, ``N - 2``); it parses back."""
        text = ""
        for m, c in sorted(self._terms.items(), key=_term_order):
            term = _term_text(m, abs(c))
            if not text:
                text = term if c > 0 else "-" + term
            else:
                text += (" + " if c > 0 else " - ") + term
        return text or "0"

    def __repr__(self) -> str:
        return f"Size({str(self)!r})"


_ZERO, _ONE = Fraction(0), Fraction(1)
_VARIABLES: dict[str, Size] = {}
_CONSTANTS: dict[int, Size] = {}
_ZERO_SIZE, _ONE_SIZE = Size.const(0), Size.const(1)


def _coerce(x) -> Size:
    if isinstance(x, Size):
        return x
    if type(x) is int and x in _CONSTANTS:  # the fast path for the usual small ints
        return _CONSTANTS[x]
    if isinstance(x, int | Fraction) and not isinstance(x, bool):
        return Size.const(x)
    return NotImplemented


def _plain(x: Fraction) -> int | Fraction:
    return x.numerator if x.denominator == 1 else x


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    if not a or not b:
        return a or b
    powers = dict(a)
    for atom, e in b:
        powers[atom] = powers.get(atom, 0) + e
    return _monomial(powers)


def _has_div(s: Size) -> bool:
    return any(m and type(m[-1][0]) is Div for m in s._terms)  # Div atoms sort last


def _accumulate(terms: dict[Monomial, Fraction], more: Mapping[Monomial, Fraction]) -> dict:
    for m, c in more.items():
        c += terms.get(m, 0)
        if c:
            terms[m] = c
        else:
            del terms[m]
    return terms


def _split_quotients(s: Size) -> tuple[dict[Monomial, Fraction], dict[Monomial, dict]]:
    """The terms without a Div, and for each product of Divs the cofactor of its terms."""
    plain: dict[Monomial, Fraction] = {}
    groups: dict[Monomial, dict[Monomial, Fraction]] = {}
    for m, c in s._terms.items():
        divs = tuple(p for p in m if type(p[0]) is Div)
        if divs:
            groups.setdefault(divs, {})[tuple(p for p in m if type(p[0]) is not Div)] = c
        else:
            plain[m] = c
    return plain, groups


def _denominator(divs: Monomial) -> Size:
    product = _ONE_SIZE
    for div, e in divs:
        product = product * div.den ** e
    return product


def _normalise_quotients(s: Size) -> Size:
    """Put every group ``cofactor * Div(d)`` back in normal form (see ``_over``) after
    arithmetic changed it: ``(N/(M+1)) * (M+1) == N``, ``N/(N+1) + 1/(N+1) == 1``; and
    make several Divs in a monomial one (``1/(M+1) * 1/(M+1) == 1/(M^2+2*M+1)``)."""
    plain, groups = _split_quotients(s)
    for divs, cofactor in groups.items():
        if len(divs) == 1 and divs[0][1] == 1:
            part = _over(Size._make(cofactor), divs[0][0].den)
        else:
            part = Size._make(cofactor) / _denominator(divs)
        _accumulate(plain, part._terms)
    return Size._make(plain)


def _monomial_inverse(m: Monomial, c: Fraction) -> Size:
    """``1 / (c*m)``, with ``Div(d)^-1`` turned back into ``d`` so that Div atoms keep
    positive exponents and a quotient has one form however it was reached."""
    result = Size._make({tuple((a, -e) for a, e in m if not isinstance(a, Div)): 1 / c})
    for atom, e in m:
        if isinstance(atom, Div):
            result = result * atom.den ** e
    return result


def _split_content(s: Size) -> tuple[Fraction, Monomial, Size]:
    """``s == c * m * p`` with p a polynomial whose first term (in print order) has
    coefficient 1 and whose terms share no monomial factor."""
    atoms = {a for m in s._terms for a, _ in m}
    content = _monomial({a: min(dict(m).get(a, 0) for m in s._terms) for a in atoms})
    shifted = {}
    for m, c in s._terms.items():
        powers = dict(m)
        for a, e in content:
            powers[a] = powers.get(a, 0) - e
        shifted[_monomial(powers)] = c
    lead = min(shifted.items(), key=_term_order)[1]  # after the shift: it changes the order
    return lead, content, Size._make({m: c / lead for m, c in shifted.items()})


def _divide_by_polynomial(num: Size, den: Size) -> Size:
    """Exact division by a sum: the polynomial quotient when there is one
    (``(2*N+2)/(N+1) == 2``), else a quotient and a remainder over the primitive divisor."""
    if not num._terms:
        return _ZERO_SIZE
    if _has_div(den):  # clear the quotients inside the divisor: num/den == num*D / (den*D)
        inner = _denominator(tuple({p for divs in _split_quotients(den)[1] for p in divs}))
        return (num * inner) / (den * inner)
    if _has_div(num):  # cofactor*Div(d) / den == cofactor / (d*den), group by group
        plain, groups = _split_quotients(num)
        result = Size._make(plain) / den
        for divs, cofactor in groups.items():
            result = result + Size._make(cofactor) / (_denominator(divs) * den)
        return result
    den_c, den_m, den_p = _split_content(den)
    return _over(num * _monomial_inverse(den_m, den_c), den_p)


def _over(cofactor: Size, den: Size) -> Size:
    """``cofactor / den`` in normal form, for a primitive den and a cofactor without Div.

    The cofactor is ``m*P`` with m its negative exponents and P a polynomial, and
    ``P = q*den + r`` with r the remainder of dividing by den, so the result is
    ``m*q + m*r*Div(den)``. That remainder is unique ({den} is a Groebner basis of the ideal
    it generates: Cox, Little, O'Shea, "Ideals, Varieties, and Algorithms", ch. 2 sect. 6),
    so for polynomial cofactors equal quotients over one den get one form however they
    were built. Common factors of r and den are not cancelled, as that would need a gcd
    (and cancelling only some would make the form depend on the order of operations).
    """
    atoms = {a for m in cofactor._terms for a, _ in m}
    shift = _monomial({a: min(0, *(dict(m).get(a, 0) for m in cofactor._terms)) for a in atoms})
    lift = tuple((a, -e) for a, e in shift)
    quotient, remainder = _polynomial_divmod(
        Size._make({_mono_mul(m, lift): c for m, c in cofactor._terms.items()}), den)
    terms = {_mono_mul(m, shift): c for m, c in quotient.items()}
    div = ((Div(den), 1),)
    terms.update((_mono_mul(m, shift) + div, c) for m, c in remainder.items())
    return Size._make(terms)


def _polynomial_divmod(num: Size, den: Size) -> tuple[dict, dict]:
    """Quotient and remainder terms of polynomials ``num = q*den + r``: division by one
    divisor under the graded-lexicographic order (Cox, Little, O'Shea, ch. 2 sect. 3). A
    leading term that den's leading term does not divide goes to the remainder; the leading
    monomial falls at every step, so it ends. Atoms count as independent indeterminates."""
    atoms = sorted({a for s in (num, den) for m in s._terms for a, _ in m}, key=_atom_key)
    index = {a: i for i, a in enumerate(atoms)}

    def grlex(item: tuple[Monomial, Fraction]) -> tuple[int, list[int]]:
        vector = [0] * len(atoms)
        for a, e in item[0]:
            vector[index[a]] = e
        return (sum(vector), vector)

    lead_m, lead_c = max(den._terms.items(), key=grlex)
    quotient: dict[Monomial, Fraction] = {}
    remainder: dict[Monomial, Fraction] = {}
    rest = dict(num._terms)
    while rest:
        m, c = max(rest.items(), key=grlex)
        powers = dict(m)
        for a, e in lead_m:
            powers[a] = powers.get(a, 0) - e
        if any(e < 0 for e in powers.values()):
            remainder[m] = rest.pop(m)
        else:
            step = _monomial(powers)
            quotient[step] = c / lead_c
            _accumulate(rest, {_mono_mul(step, dm): -dc * c / lead_c
                               for dm, dc in den._terms.items()})
    return quotient, remainder


def _symbolic_power(base: Size, exponent: Size) -> Size:
    """``base ^ exponent`` for an exponent that is not a constant integer."""
    if base == 1:
        return _ONE_SIZE
    if len(base._terms) == 1:
        ((m, c),) = base._terms.items()
        if c == 1 and len(m) == 1 and m[0][1] == 1 and isinstance(m[0][0], Pow):
            return m[0][0].base ** (m[0][0].exponent * exponent)  # (b^e)^f = b^(e*f)
    shift = exponent._terms.get(())
    if (shift is not None and shift.denominator == 1 and base._terms
            and (shift > 0 or len(base._terms) == 1)):
        # b^(e+c) = b^c * b^e, so 2^(k+1) == 2*2^k; only where b^c is a polynomial or a
        # Laurent monomial (never a new Div), and never for b = 0, where 0^-1 is undefined.
        rest, k = _symbolic_power(base, exponent - shift), int(shift)
        return base._power(k) * rest if k > 0 else rest / base._power(-k)
    return Size._make({((Pow(base, exponent), 1),): _ONE})


def _takes_whole_values(s: Size, natural: bool) -> bool:
    """A sufficient test that s is a whole number (a natural one when ``natural``) for all
    natural values of its variables: an integer polynomial (with non-negative coefficients
    for naturals) in atoms that are whole numbers themselves."""
    for m, c in s._terms.items():
        if c.denominator != 1 or (natural and c < 0):
            return False
        for atom, e in m:
            if e < 0 or isinstance(atom, Div) or (isinstance(atom, Pow) and not (
                    _takes_whole_values(atom.base, natural)
                    and _takes_whole_values(atom.exponent, True))):
                return False
    return True


# --- printing -----------------------------------------------------------------------------------

def _term_order(item: tuple[Monomial, Fraction]):
    """Print order: constants last, higher total degree first, then by atom names."""
    m = item[0]
    return (not m, -sum(e for _, e in m), tuple((_atom_key(a), -e) for a, e in m))


def _operand(s: Size) -> str:
    text = str(s)
    return text if _NAME.match(text) or text.isdigit() else f"({text})"


def _term_text(m: Monomial, c: Fraction) -> str:
    """One term with a positive coefficient, as ``p*factors/(q*factors)``."""
    num: list[str] = []
    den: list[str] = []
    for atom, e in m:
        if isinstance(atom, Div):  # the only one, to the first power: N/(M + 1)
            den.append(f"({atom.den})")
        elif isinstance(atom, str):
            (num if e > 0 else den).append(atom if abs(e) == 1 else f"{atom}^{abs(e)}")
        else:
            (num if e > 0 else den).append(str(atom) if abs(e) == 1 else f"({atom})^{abs(e)}")
    if c.numerator != 1 or not num:
        num.insert(0, str(c.numerator))
    if c.denominator != 1:
        den.insert(0, str(c.denominator))
    text = "*".join(num)
    if den:
        text += "/" + (den[0] if len(den) == 1 else "(" + "*".join(den) + ")")
    return text


# --- limits on sizes written by users ------------------------------------------------------------

# A size is an array length or a split factor: constants past 64 bits, exponents past 64 and
# sums of thousands of terms are typos (or fuzz), and computing them could take unbounded
# time and memory (``10^10^10``, ``(A+B+C+D)^64``). The parsers refuse them where written.
MAX_SIZE_CONSTANT = 2 ** 63 - 1
MAX_SIZE_EXPONENT = 64
MAX_SIZE_TERMS = 4096


def arithmetic_refusal(op: str, a: Size, b: Size) -> str | None:
    """Why computing ``a op b`` (op one of + - * / ^) is refused, or None; checked before
    computing, so the refusal costs nothing."""
    if op == "^":
        if not b.is_integer_constant:
            return None  # a symbolic power (2^k) stays one atom
        k = abs(int(b))
        if k > MAX_SIZE_EXPONENT:
            return f"the exponent {_short(b)} is too large (at most {MAX_SIZE_EXPONENT})"
        terms = len(a._terms)
        if terms > 1 and math.comb(terms + k - 1, k) > MAX_SIZE_TERMS:
            return f"({_short(a)})^{k} expands to too many terms"
        return None
    if op in ("*", "/") and len(a._terms) * len(b._terms) > MAX_SIZE_TERMS:
        return "the product expands to too many terms"
    if op == "/" and not b._terms:
        return "a size divided by zero"
    return None


def arithmetic(op: str, a: Size, b: Size) -> Size:
    """``a op b`` for op one of + - * / ^ (check ``arithmetic_refusal`` first)."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return a / b if op == "/" else a ** b


def magnitude_refusal(size: Size) -> str | None:
    """Why ``size`` is too large to be a size (a constant past 64 bits), or None."""
    for monomial, c in size._terms.items():
        if abs(c.numerator) > MAX_SIZE_CONSTANT or c.denominator > MAX_SIZE_CONSTANT:
            return f"a size's numbers must stay below 2^63 (this one has {_digits(c)})"
        for atom, _ in monomial:
            inner = [atom.base, atom.exponent] if isinstance(atom, Pow) else \
                [atom.den] if isinstance(atom, Div) else []
            for part in inner:
                reason = magnitude_refusal(part)
                if reason is not None:
                    return reason
    return None


def natural_refusal(size: Size) -> str | None:
    """Why ``size`` cannot be a natural number (a length, a count, a width), or None: a
    negative or fractional constant, or a sum of negative multiples of products of
    variables (``-N``, ``-2*N*M - 1``), negative for every positive value of its variables.
    Other symbolic sizes may be natural, so they pass."""
    if size.is_constant:
        value = size.value
        if value < 0:
            return f"{_short(size)} is negative"
        if not size.is_integer_constant:
            return f"{_short(size)} is not a whole number"
        return None
    if all(c < 0 and all(isinstance(atom, str) and e > 0 for atom, e in m)
           for m, c in size._terms.items()):
        return f"{_short(size)} is negative for every value of {', '.join(sorted(size.free_vars))}"
    return None


def _digits(c: Fraction) -> str:
    big = max(abs(c.numerator), c.denominator)
    return f"a number of about {int(big.bit_length() * 0.30103) + 1} digits"


def _short(s: Size) -> str:
    if magnitude_refusal(s) is not None:
        return "a huge number"
    text = str(s)
    return text if len(text) <= 40 else text[:37] + "..."


# --- parsing ------------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*([0-9]+|[A-Za-z_][A-Za-z0-9_]*|.|\Z)", re.DOTALL)
_ATOM_EXPECTED = "a number, a name or '('"


def parse_size(text: str) -> Size:
    """Parse a size in the printed notation: whole numbers, names, ``+ - * /``, ``^``
    (right-associative, tighter than ``*`` and ``/``, so ``2*N^2`` is 2*(N^2)), unary minus
    and parentheses; ``×`` and ``·`` are accepted for ``*`` as in the paper's typesetting."""
    return _SizeParser(text).parse()


class _SizeParser:
    """Recursive descent over (token, column) pairs, one method per precedence level."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, int]] = []
        at = 0
        while not self.tokens or self.tokens[-1][0]:  # "" marks the end
            match = _TOKEN.match(text, at)
            token = match.group(1)
            self.tokens.append(("*" if token in ("×", "·") else token, match.start(1)))
            at = match.end()
        self.k = 0

    def peek(self) -> str:
        return self.tokens[self.k][0]

    def take(self) -> tuple[str, int]:
        self.k += 1
        return self.tokens[self.k - 1]

    def error(self, expected: str, column: int | None = None) -> SizeSyntaxError:
        return SizeSyntaxError(self.text, self.tokens[self.k][1] if column is None else column,
                               expected)

    def parse(self) -> Size:
        size = self.sum()
        if self.peek():
            raise self.error("'+', '-', '*', '/', '^' or the end")
        reason = magnitude_refusal(size)
        if reason is not None:
            raise SizeSyntaxError(self.text, 0, f"a smaller size ({reason})")
        return size

    def combine(self, op: str, a: Size, b: Size, column: int) -> Size:
        reason = arithmetic_refusal(op, a, b)
        if reason is not None:
            raise self.error(f"a smaller size ({reason})", column)
        return arithmetic(op, a, b)

    def sum(self) -> Size:
        size = self.product()
        while self.peek() in ("+", "-"):
            op, column = self.take()
            size = self.combine(op, size, self.product(), column)
        return size

    def product(self) -> Size:
        size = self.unary()
        while self.peek() in ("*", "/"):
            op, _ = self.take()
            column = self.tokens[self.k][1]
            right = self.unary()
            if op == "/" and right == 0:
                raise self.error("a divisor that is not zero", column)
            size = self.combine(op, size, right, column)
        return size

    def unary(self) -> Size:
        if self.peek() == "-":
            self.take()
            return -self.unary()
        return self.power()

    def power(self) -> Size:
        base = self.atom()
        if self.peek() != "^":
            return base
        self.take()
        column = self.tokens[self.k][1]
        try:
            return self.combine("^", base, self.unary(), column)  # right-associative; 2^-1
        except ZeroDivisionError:
            raise self.error("a non-negative exponent (0 has no inverse)", column) from None

    def atom(self) -> Size:
        token = self.peek()
        if token[:1].isascii() and token[:1].isdigit():
            digits = token.lstrip("0")
            if len(digits) > len(str(MAX_SIZE_CONSTANT)) or int(digits or "0") > MAX_SIZE_CONSTANT:
                raise self.error(f"a number below 2^63 (not one of {len(token)} digits)")
            return Size.const(int(self.take()[0]))
        if _NAME.match(token):
            return Size.var(self.take()[0])
        if token != "(":
            raise self.error(_ATOM_EXPECTED)
        self.take()
        size = self.sum()
        if self.peek() != ")":
            raise self.error("')'")
        self.take()
        return size


def divisors_between(size: Size, low: int, high: int) -> list[int]:
    """Candidate split factors in ``[low, high]``, ascending: the divisors of a constant
    size, or the powers of two that a symbolic size is known to be divisible by (the factors
    a split of an unknown length can be proved safe for, such as 128 for ``128*N``)."""
    low = max(low, 1)
    if size.is_constant:
        if not size.is_integer_constant:
            return []
        n = abs(int(size))
        return [d for d in range(low, (min(high, n) if n else high) + 1) if n % d == 0]
    found, d = [], 1
    while d <= high:
        if d >= low and size.divisible_by(d):
            found.append(d)
        d *= 2
    return found
