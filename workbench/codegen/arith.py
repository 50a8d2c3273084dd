"""Integer index arithmetic for generated code.

Views turn ``split``, ``join``, ``reorderStride``, ``transpose`` … into index expressions
with ``/`` and ``%``. Left alone these pile up (``((i/4)*4 + i%4)``); here they are kept in
a canonical form — a sum of integer multiples of products of atoms, where an atom is a
variable or a floor division / remainder that could not be simplified — and simplified
with what is known about the range of each variable (a loop index ``i`` lies in
``[0, extent)``). So ``(i/n)*n + i%n`` becomes ``i`` and ``(j*4 + k)/4`` becomes ``j`` when
``0 <= k < 4``, and such expressions never reach the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

INF = float("inf")


@dataclass(frozen=True)
class Var:
    """An index variable with its range ``[0, extent)`` (extent None: unknown, >= 0)."""

    name: str
    extent: int | None = None


@dataclass(frozen=True)
class Opaque:
    """An integer the index arithmetic cannot see into, in ``[0, extent)``: the result of
    an index function (``gather``), a value read at run time (``at``), a clamp (``padClamp``).
    ``value`` is a kernel IR value (``ir``); ``to_c`` prints it with the printer it is given."""

    value: object
    extent: int | None = None


@dataclass(frozen=True)
class Div:
    num: Index
    den: int


@dataclass(frozen=True)
class Mod:
    num: Index
    den: int


Atom = Var | Opaque | Div | Mod
Monomial = tuple  # sorted tuple of atoms (with repetition for powers)


def _key(atom: Atom) -> str:
    return repr(atom)


class Index:
    """An immutable integer expression in canonical form."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[Monomial, int]):
        object.__setattr__(self, "terms", {m: c for m, c in terms.items() if c})

    def __setattr__(self, *_):
        raise AttributeError("index expressions are immutable")

    def __reduce__(self):  # pickled by its terms (a compiled program travels to a worker)
        return Index, (self.terms,)

    # construction
    @staticmethod
    def of(x: int | Index | Var | Opaque) -> Index:
        if isinstance(x, Index):
            return x
        if isinstance(x, Var | Opaque):
            return Index({(x,): 1})
        return Index({(): int(x)})

    # arithmetic
    def __add__(self, other) -> Index:
        other = Index.of(other)
        terms = dict(self.terms)
        for m, c in other.terms.items():
            terms[m] = terms.get(m, 0) + c
        return _recombine(Index(terms))

    __radd__ = __add__

    def __neg__(self) -> Index:
        return Index({m: -c for m, c in self.terms.items()})

    def __sub__(self, other) -> Index:
        return self + (-Index.of(other))

    def __rsub__(self, other) -> Index:
        return Index.of(other) - self

    def __mul__(self, other) -> Index:
        other = Index.of(other)
        terms: dict[Monomial, int] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                m = m1 + m2
                if len(m) > 1:  # (an atom's key is its repr, which is slow to print)
                    m = tuple(sorted(m, key=_key))
                terms[m] = terms.get(m, 0) + c1 * c2
        return _recombine(Index(terms))

    __rmul__ = __mul__

    def __floordiv__(self, d: int) -> Index:
        return divide(self, d)

    def __mod__(self, d: int) -> Index:
        return remainder(self, d)

    def __eq__(self, other) -> bool:
        if isinstance(other, int | Var):
            other = Index.of(other)
        return isinstance(other, Index) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))

    @property
    def constant(self) -> int | None:
        if all(m == () for m in self.terms):
            return self.terms.get((), 0)
        return None

    def bounds(self) -> tuple[float, float]:
        """An interval that contains every value of the expression."""
        lo = hi = 0.0
        for m, c in self.terms.items():
            mlo, mhi = 1.0, 1.0
            for atom in m:
                alo, ahi = atom_bounds(atom)
                candidates = [mlo * alo, mlo * ahi, mhi * alo, mhi * ahi]
                candidates = [0.0 if x != x else x for x in candidates]  # inf * 0
                mlo, mhi = min(candidates), max(candidates)
            tlo, thi = sorted((c * mlo, c * mhi))
            lo, hi = lo + tlo, hi + thi
        return lo, hi

    def atoms(self):
        """Every atom of the expression, those inside divisions and remainders included."""
        for m in self.terms:
            for atom in m:
                yield atom
                if isinstance(atom, Div | Mod):
                    yield from atom.num.atoms()

    def variables(self) -> set[str]:
        return {a.name for a in self.atoms() if isinstance(a, Var)}

    def substitute(self, values: dict[str, int | Index], opaque=None) -> Index:
        """The expression with the named variables replaced (and simplified again);
        ``opaque`` rewrites the value of each opaque atom (where the variables may occur
        too)."""
        atoms = list(self.atoms())
        if not values or not ({a.name for a in atoms if isinstance(a, Var)} & set(values)
                              or (opaque and any(isinstance(a, Opaque) for a in atoms))):
            return self
        total = Index.of(0)
        for m, c in self.terms.items():
            term = Index.of(c)
            for atom in m:
                term = term * _substitute_atom(atom, values, opaque)
            total = total + term
        return total

    def evaluate(self, env: dict[str, int]) -> int:
        total = 0
        for m, c in self.terms.items():
            v = c
            for atom in m:
                v *= atom_value(atom, env)
            total += v
        return total

    def __str__(self) -> str:
        return to_c(self)

    def __repr__(self) -> str:
        return f"Index({to_c(self)!r})"


def var(name: str, extent: int | None = None) -> Index:
    return Index.of(Var(name, extent))


def _substitute_atom(atom: Atom, values: dict, opaque) -> Index:
    if isinstance(atom, Var):
        return Index.of(values[atom.name]) if atom.name in values else Index.of(atom)
    if isinstance(atom, Div):
        return divide(atom.num.substitute(values, opaque), atom.den)
    if isinstance(atom, Mod):
        return remainder(atom.num.substitute(values, opaque), atom.den)
    if opaque is not None:
        return Index.of(Opaque(opaque(atom.value), atom.extent))
    return Index({(atom,): 1})


def atom_bounds(atom: Atom) -> tuple[float, float]:
    if isinstance(atom, Var | Opaque):
        return 0.0, (atom.extent - 1 if atom.extent is not None else INF)
    lo, hi = atom.num.bounds()
    if isinstance(atom, Div):
        return (lo // atom.den if lo != -INF else -INF), (hi // atom.den if hi != INF else INF)
    return (0.0, atom.den - 1) if lo >= 0 else (-(atom.den - 1), atom.den - 1)


def atom_value(atom: Atom, env: dict[str, int]) -> int:
    if isinstance(atom, Var):
        return env[atom.name]
    if isinstance(atom, Opaque):
        raise ValueError("an opaque index has no value at generation time")
    n = atom.num.evaluate(env)
    return n // atom.den if isinstance(atom, Div) else n % atom.den


def _split_multiple(a: Index, d: int) -> tuple[Index, Index]:
    """``a = d·q + r`` where ``q`` collects the terms whose coefficient d divides."""
    q: dict = {}
    r: dict = {}
    for m, c in a.terms.items():
        if c % d == 0:
            q[m] = c // d
        else:
            r[m] = c
    return Index(q), Index(r)


def divide(a: Index, d: int) -> Index:
    """Floor division by a positive constant, simplified with the ranges of the variables."""
    if d == 1:
        return a
    if d <= 0:
        raise ValueError("index division by a non-positive number")
    a = Index.of(a)
    if a.constant is not None:
        return Index.of(a.constant // d)
    q, r = _split_multiple(a, d)
    lo, hi = r.bounds()
    if lo >= 0 and hi < d:
        return q  # (d·q + r)/d = q when 0 <= r < d
    if lo >= 0 and r.terms:
        return q + Index({(Div(r, d),): 1}) if q.terms else Index({(Div(r, d),): 1})
    return Index({(Div(a, d),): 1})


def remainder(a: Index, d: int) -> Index:
    if d == 1:
        return Index.of(0)
    a = Index.of(a)
    if a.constant is not None:
        return Index.of(a.constant % d)
    _, r = _split_multiple(a, d)
    lo, hi = r.bounds()
    if lo >= 0 and hi < d:
        return r
    if lo >= 0:
        return Index({(Mod(r, d),): 1})
    return Index({(Mod(a, d),): 1})


def _recombine(e: Index) -> Index:
    """Apply ``d·(x/d) + (x%d) = x`` wherever both parts occur with matching coefficients."""
    terms = dict(e.terms)
    changed = True
    while changed:
        changed = False
        for m, c in list(terms.items()):
            if len(m) == 1 and isinstance(m[0], Mod):
                mod = m[0]
                div_term = (Div(mod.num, mod.den),)
                if terms.get(div_term, 0) == c * mod.den:
                    del terms[m]
                    del terms[div_term]
                    for mm, cc in mod.num.terms.items():
                        terms[mm] = terms.get(mm, 0) + c * cc
                    changed = True
                    break
    return Index({m: c for m, c in terms.items() if c}) if terms != e.terms else e


def to_c(e: Index, opaque=lambda value: f"({value})") -> str:
    """C text of an index expression (integer arithmetic on non-negative values); ``opaque``
    prints an opaque atom's value as one factor."""
    if not e.terms:
        return "0"
    parts = []
    for m, c in sorted(e.terms.items(), key=lambda t: (len(t[0]) == 0, [_key(a) for a in t[0]])):
        factors = [_atom_c(a, opaque) for a in m]
        if abs(c) != 1 or not factors:
            factors.insert(0, str(abs(c)))
        text = "*".join(factors)
        parts.append(("-" if c < 0 else "+", text))
    out = parts[0][1] if parts[0][0] == "+" else "-" + parts[0][1]
    for sign, text in parts[1:]:
        out += f" {sign} {text}"
    return out


def _atom_c(atom: Atom, opaque) -> str:
    if isinstance(atom, Var):
        return atom.name
    if isinstance(atom, Opaque):
        return opaque(atom.value)
    op = "/" if isinstance(atom, Div) else "%"
    return f"(({to_c(atom.num, opaque)}) {op} {atom.den})"
