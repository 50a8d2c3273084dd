"""Symbolic array sizes (ICFP 2015 Sect. 3: a size is a variable, a natural number, or a
product or power of sizes; we add + and - for stencils and exact division for split).

A ``Size`` is kept in one canonical form, a Laurent polynomial: a sum of terms
``coefficient · monomial`` with ``Fraction`` coefficients and monomials that are products of
atoms with integer (possibly negative) exponents. Atoms are variable names, or opaque
``Pow(base, exponent)`` atoms when the exponent is symbolic (``2^k``). So ``N/128*128 == N``,
``(N/4)/2 == N/8`` and ``2*N - N == N`` hold by construction, and equality and hashing are
plain comparisons of the canonical form.

Division is exact: ``N/4`` means "a quarter of N", which is a natural number only when 4
divides N. ``divisible_by`` answers that question (True, False, or None when it cannot be
known for symbolic sizes); the type checker records such assumptions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

Monomial = tuple  # sorted tuple of (atom, exponent); atom is a str or a Pow


@dataclass(frozen=True, order=False)
class Pow:
    """An opaque power with a symbolic exponent, such as ``2^k``."""

    base: Size
    exponent: Size

    def sort_key(self) -> str:
        return "~" + str(self)

    def __str__(self) -> str:
        return f"{_operand(self.base)}^{_operand(self.exponent)}"


def _atom_key(atom) -> str:
    return atom if isinstance(atom, str) else atom.sort_key()


def _operand(s: Size) -> str:
    text = str(s)
    return text if text.isidentifier() or text.isdigit() else f"({text})"


class SizeSyntaxError(ValueError):
    """A size that does not parse; ``position`` is the 0-based column, ``expected`` what was."""

    def __init__(self, text: str, position: int, expected: str):
        self.position = position
        self.expected = expected
        super().__init__(f"size {text!r}: expected {expected} at column {position + 1}")


class Size:
    """An immutable symbolic size in canonical form (see the module docstring)."""

    __slots__ = ("_terms", "_hash")

    def __init__(self, terms: Mapping[Monomial, Fraction]):
        object.__setattr__(self, "_terms", {m: c for m, c in terms.items() if c != 0})
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name, value):
        raise AttributeError("sizes are immutable")

    # --- construction ---------------------------------------------------------------------
    @staticmethod
    def of(x: int | str | Fraction | Size) -> Size:
        if isinstance(x, Size):
            return x
        if isinstance(x, str):
            return Size.var(x)
        if isinstance(x, bool):
            raise TypeError("a size is not a bool")
        return Size.const(x)

    @staticmethod
    def var(name: str) -> Size:
        cached = _var_cache.get(name)
        if cached is None:
            cached = _var_cache[name] = Size({((name, 1),): Fraction(1)})
        return cached

    @staticmethod
    def const(value: int | Fraction) -> Size:
        if isinstance(value, int) and 0 <= value < 1025:
            cached = _const_cache.get(value)
            if cached is None:
                cached = _const_cache[value] = Size({(): Fraction(value)})
            return cached
        return Size({(): Fraction(value)})

    # --- arithmetic -----------------------------------------------------------------------
    def __add__(self, other) -> Size:
        other = _coerce(other)
        if other is NotImplemented:
            return other
        terms = dict(self._terms)
        for m, c in other._terms.items():
            terms[m] = terms.get(m, 0) + c
        return Size(terms)

    __radd__ = __add__

    def __neg__(self) -> Size:
        return Size({m: -c for m, c in self._terms.items()})

    def __sub__(self, other) -> Size:
        other = _coerce(other)
        return other if other is NotImplemented else self + (-other)

    def __rsub__(self, other) -> Size:
        other = _coerce(other)
        return other if other is NotImplemented else other - self

    def __mul__(self, other) -> Size:
        other = _coerce(other)
        if other is NotImplemented:
            return other
        terms: dict[Monomial, Fraction] = {}
        for m1, c1 in self._terms.items():
            for m2, c2 in other._terms.items():
                m = _mono_mul(m1, m2)
                terms[m] = terms.get(m, 0) + c1 * c2
        return Size(terms)

    __rmul__ = __mul__

    def __truediv__(self, other) -> Size:
        other = _coerce(other)
        if other is NotImplemented:
            return other
        if not other._terms:
            raise ZeroDivisionError("division of a size by zero")
        if len(other._terms) == 1:
            (m, c), = other._terms.items()
            inverse = tuple((atom, -e) for atom, e in m)
            return self * Size({inverse: 1 / c})
        quotient = self._divide_polynomial(other)
        if quotient is not None:
            return quotient
        return Size({((_Div(self, other), 1),): Fraction(1)})

    def __rtruediv__(self, other) -> Size:
        other = _coerce(other)
        return other if other is NotImplemented else other / self

    def _divide_polynomial(self, other: Size) -> Size | None:
        # Exact when self is a constant multiple of other, e.g. (2*N+2)/(N+1) == 2.
        (m0, c0) = next(iter(other._terms.items()))
        c = self._terms.get(m0)
        if c is None:
            return None
        ratio = c / c0
        return Size.const(ratio) if other * ratio == self else None

    def __pow__(self, exponent) -> Size:
        exponent = _coerce(exponent)
        if exponent is NotImplemented:
            return exponent
        if exponent.is_integer_constant and exponent.value >= 0:
            result = Size.const(1)
            for _ in range(int(exponent.value)):
                result = result * self
            return result
        if len(self._terms) == 1 and exponent.is_integer_constant:
            (m, c), = self._terms.items()  # (c·m)^-k
            k = int(exponent.value)
            return Size({tuple((a, e * k) for a, e in m): c ** k})
        return Size({((Pow(self, exponent), 1),): Fraction(1)})

    def __rpow__(self, base) -> Size:
        base = _coerce(base)
        return base if base is NotImplemented else base ** self

    def __floordiv__(self, other):
        raise TypeError("sizes use exact division '/': N/4 is a quarter of N")

    __mod__ = __rfloordiv__ = __rmod__ = __floordiv__

    # --- queries --------------------------------------------------------------------------
    @property
    def is_constant(self) -> bool:
        return all(m == () for m in self._terms)

    @property
    def value(self) -> int | Fraction:
        if not self.is_constant:
            raise ValueError(f"the size {self} is not a constant")
        v = self._terms.get((), Fraction(0))
        return int(v) if v.denominator == 1 else v

    @property
    def is_integer_constant(self) -> bool:
        return self.is_constant and self._terms.get((), Fraction(0)).denominator == 1

    @property
    def free_vars(self) -> frozenset[str]:
        out: set[str] = set()
        for m in self._terms:
            for atom, _ in m:
                if isinstance(atom, str):
                    out.add(atom)
                else:
                    out |= atom.base.free_vars | atom.exponent.free_vars
        return frozenset(out)

    def evaluate(self, env: Mapping[str, int]) -> int | Fraction:
        total = Fraction(0)
        for m, c in self._terms.items():
            term = c
            for atom, e in m:
                term *= _atom_value(atom, env) ** e
            total += term
        return int(total) if total.denominator == 1 else total

    def substitute(self, mapping: Mapping[str, Size | int]) -> Size:
        if not mapping or not (self.free_vars & set(mapping)):
            return self
        result = Size.const(0)
        for m, c in self._terms.items():
            term = Size.const(c)
            for atom, e in m:
                if isinstance(atom, str):
                    base = Size.of(mapping[atom]) if atom in mapping else Size.var(atom)
                else:
                    base = atom.base.substitute(mapping) ** atom.exponent.substitute(mapping)
                term = term * base ** e
            result = result + term
        return result

    def divisible_by(self, n: Size | int) -> bool | None:
        """True when ``self / n`` is a natural-number size for all values of the variables;
        False when both are constants and it is not; None when it cannot be known."""
        n = Size.of(n)
        if n.is_constant and n.value == 0:
            return False
        q = self / n
        if self.is_constant and n.is_constant:
            return Fraction(q.value).denominator == 1
        if all(c.denominator == 1 and all(e > 0 for _, e in m) for m, c in q._terms.items()):
            return True
        return None

    def __int__(self) -> int:
        if not self.is_integer_constant:
            raise TypeError(f"the size {self} is not a whole number")
        return int(self.value)

    def __index__(self) -> int:
        return self.__int__()

    def __eq__(self, other) -> bool:
        if isinstance(other, int | Fraction) and not isinstance(other, bool):
            other = Size.const(other)
        if not isinstance(other, Size):
            return NotImplemented
        return self._terms == other._terms

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash(frozenset(self._terms.items()))
            if self.is_constant:
                h = hash(self._terms.get((), 0))  # so Size.const(4) hashes like 4
            object.__setattr__(self, "_hash", h)
        return h

    def __lt__(self, other) -> bool:
        other = Size.of(other)
        if not (self.is_constant and other.is_constant):
            raise TypeError(f"cannot order the symbolic sizes {self} and {other}")
        return self.value < other.value

    # --- printing -------------------------------------------------------------------------
    def __str__(self) -> str:
        if not self._terms:
            return "0"
        terms = sorted(self._terms.items(), key=_term_order)
        out = ""
        for i, (m, c) in enumerate(terms):
            text = _term_text(m, abs(c))
            if i == 0:
                out = text if c > 0 else "-" + text
            else:
                out += (" + " if c > 0 else " - ") + text
        return out

    def __repr__(self) -> str:
        return f"Size({str(self)!r})"


_var_cache: dict[str, Size] = {}
_const_cache: dict[int, Size] = {}


def _coerce(x):
    if isinstance(x, Size):
        return x
    if isinstance(x, int | Fraction) and not isinstance(x, bool):
        return Size.const(x)
    return NotImplemented


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    if not a:
        return b
    if not b:
        return a
    powers: dict = {}
    for atom, e in a + b:
        powers[atom] = powers.get(atom, 0) + e
    kept = ((atom, e) for atom, e in powers.items() if e)
    return tuple(sorted(kept, key=lambda p: _atom_key(p[0])))


@dataclass(frozen=True)
class _Div:
    """``num / den`` for a divisor that is not a monomial and does not divide exactly."""

    num: Size
    den: Size

    def sort_key(self) -> str:
        return "~" + str(self)

    def __str__(self) -> str:
        return f"({self.num})/({self.den})"

    @property
    def base(self) -> Size:
        return self.num

    @property
    def exponent(self) -> Size:
        return self.den


def _atom_value(atom, env: Mapping[str, int]) -> Fraction:
    if isinstance(atom, str):
        if atom not in env:
            raise ValueError(f"the size variable {atom} has no value")
        return Fraction(env[atom])
    if isinstance(atom, _Div):
        return Fraction(atom.num.evaluate(env)) / Fraction(atom.den.evaluate(env))
    return Fraction(atom.base.evaluate(env)) ** int(atom.exponent.evaluate(env))


def _term_order(item):
    m, c = item
    degree = sum(e for _, e in m)
    return (-degree, [(_atom_key(a), -e) for a, e in m])


def _term_text(m: Monomial, c: Fraction) -> str:
    num = [_factor(a, e) for a, e in m if e > 0]
    den = [_factor(a, -e) for a, e in m if e < 0]
    if c.numerator != 1 or not num:
        num.insert(0, str(c.numerator))
    if c.denominator != 1:
        den.insert(0, str(c.denominator))
    text = "*".join(num)
    if den:
        text += "/" + ("*".join(den) if len(den) == 1 else "(" + "*".join(den) + ")")
    return text


def _factor(atom, e: int) -> str:
    if isinstance(atom, _Div):
        base = f"(({atom.num})/({atom.den}))"
        return base if e == 1 else f"{base}^{e}"
    if isinstance(atom, str):
        return atom if e == 1 else f"{atom}^{e}"
    return str(atom) if e == 1 else f"({atom})^{e}"


# --- parsing ------------------------------------------------------------------------------------

def parse_size(text: str) -> Size:
    """Parse the printed form of a size: numbers, names, + - * / ^ (right-associative,
    tightest), unary minus and parentheses; ``×`` and ``·`` are accepted for ``*``."""
    return _SizeParser(text).parse()


class _SizeParser:
    def __init__(self, text: str):
        self.text = text.replace("×", "*").replace("·", "*")
        self.i = 0

    def parse(self) -> Size:
        self.skip()
        if self.i >= len(self.text):
            raise SizeSyntaxError(self.text, self.i, "a size")
        s = self.sum()
        self.skip()
        if self.i < len(self.text):
            raise SizeSyntaxError(self.text, self.i, "an operator or the end")
        return s

    def skip(self) -> None:
        while self.i < len(self.text) and self.text[self.i] in " \t":
            self.i += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.i] if self.i < len(self.text) else ""

    def sum(self) -> Size:
        s = self.product()
        while self.peek() in ("+", "-") and self.peek():
            op = self.text[self.i]
            self.i += 1
            t = self.product()
            s = s + t if op == "+" else s - t
        return s

    def product(self) -> Size:
        s = self.unary()
        while self.peek() in ("*", "/") and self.peek():
            op = self.text[self.i]
            self.i += 1
            t = self.unary()
            s = s * t if op == "*" else s / t
        return s

    def unary(self) -> Size:
        if self.peek() == "-":
            self.i += 1
            return -self.unary()
        return self.power()

    def power(self) -> Size:
        base = self.atom()
        if self.peek() == "^":
            self.i += 1
            return base ** self.unary()
        return base

    def atom(self) -> Size:
        ch = self.peek()
        start = self.i
        if ch.isdigit():
            while self.i < len(self.text) and self.text[self.i].isdigit():
                self.i += 1
            return Size.const(int(self.text[start:self.i]))
        if ch and (ch.isalpha() or ch == "_"):
            while self.i < len(self.text) and (self.text[self.i].isalnum()
                                               or self.text[self.i] == "_"):
                self.i += 1
            return Size.var(self.text[start:self.i])
        if ch == "(":
            self.i += 1
            s = self.sum()
            if self.peek() != ")":
                raise SizeSyntaxError(self.text, self.i, "')'")
            self.i += 1
            return s
        raise SizeSyntaxError(self.text, self.i, "a number, a name or '('")


def divisors_between(size: Size, low: int, high: int) -> list[int]:
    """Candidate split factors: divisors of a constant size in [low, high], or the powers of
    two in [low, high] that a symbolic size is known to be divisible by."""
    if size.is_integer_constant:
        n = int(size.value)
        return [d for d in range(max(low, 1), min(high, n) + 1) if n % d == 0]
    out = []
    d = 1
    while d <= high:
        if d >= low and size.divisible_by(d):
            out.append(d)
        d *= 2
    return out
