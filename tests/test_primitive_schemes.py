"""Every primitive's declared type scheme agrees with its type-inference function.

A scheme (``(n : size) -> [A]_{n×I} -> [[A]_n]_I``) is read by a small parser here; random
instances of it (type variables as random types, size variables as random numbers) give the
input types and the result type that the scheme promises, and the primitive, applied to
random functions and values of the types its scheme asks for, must be typed to exactly that
result. The few schemes that are prose rather than types are listed with the reason; a new
primitive must have a scheme this test reads or be listed here.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from workbench import typecheck
from workbench.expr import Apply, Lambda, Lit, Prim, TupleExpr
from workbench.primitives import PRIMITIVES
from workbench.sizes import Size
from workbench.types import (
    BOOL,
    DOUBLE,
    FLOAT,
    INT,
    SCALARS,
    ArrayType,
    FunctionType,
    TupleType,
    Type,
    VectorType,
)

# Schemes that are prose, or whose sizes depend on a parameter's length: not read here.
UNREAD = {
    "get": "A_0 × ... × A_n: a tuple of any length",
    "gatherOffsets": "(A, …, A): a tuple as long as the offsets",
    "scatterOffsets": "(A, …, A): a tuple as long as the offsets",
    "rearrange": "prose: an array of rank n, its dimensions permuted",
    "innerJoin": "Lift's notation T[]*[m][n]",
    "innerSplit": "Lift's notation T[]*[m][n]",
    "iterate": "a function parameter generic in a size, (m : size) -> …",
}
NUMBER_TO_NUMBER = "number -> ... -> number"  # the math functions: any numeric type


# --- the schemes' grammar ---------------------------------------------------------------------

TOKEN = re.compile(r"\s*(->|[()\[\]<>{},×·*+\-/^:_]|[A-Za-z][A-Za-z0-9]*|\d+)")


def tokens(text: str) -> list[str]:
    out, i = [], 0
    while i < len(text):
        m = TOKEN.match(text, i)
        assert m, f"cannot read {text[i:]!r}"
        out.append(m.group(1))
        i = m.end()
    return out


class Reader:
    """Types: ``A`` (a variable), ``int``, ``[T]_S``, ``<T>_S``, ``(T, T)``, ``T × T``,
    ``T -> T``; sizes: names, numbers, ``{…}`` with ``+ - × · / ^``. A type is kept as a
    nested tuple: ("var", A), ("scalar", t), ("array"/"vector", T, S), ("tuple", Ts),
    ("fun", T, T); a size as ("num", n), ("name", n) or (op, S, S)."""

    def __init__(self, text: str):
        self.toks = tokens(text)
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, expected=None):
        tok = self.peek()
        assert expected is None or tok == expected, f"expected {expected}, found {tok}"
        self.i += 1
        return tok

    def type(self):
        left = self.product()
        if self.peek() == "->":
            self.take()
            return ("fun", left, self.type())
        return left

    def product(self):
        items = [self.atom()]
        while self.peek() == "×":
            self.take()
            items.append(self.atom())
        return items[0] if len(items) == 1 else ("tuple", tuple(items))

    def atom(self):
        tok = self.take()
        if tok == "(":
            items = [self.type()]
            while self.peek() == ",":
                self.take()
                items.append(self.type())
            self.take(")")
            return items[0] if len(items) == 1 else ("tuple", tuple(items))
        if tok in ("[", "<"):
            elem = self.type()
            self.take("]" if tok == "[" else ">")
            self.take("_")
            return ("array" if tok == "[" else "vector", elem, self.size_atom())
        if tok in SCALARS:
            return ("scalar", tok)
        return ("var", tok)

    def size_atom(self):
        tok = self.take()
        if tok == "{":
            s = self.size_sum()
            self.take("}")
            return s
        return ("num", int(tok)) if tok.isdigit() else ("name", tok)

    def size_sum(self):
        s = self.size_product()
        while self.peek() in ("+", "-"):
            s = (self.take(), s, self.size_product())
        return s

    def size_product(self):
        s = self.size_power()
        while self.peek() in ("×", "·", "*", "/"):
            op = self.take()
            s = ("/" if op == "/" else "*", s, self.size_power())
        return s

    def size_power(self):
        s = self.size_unit()
        if self.peek() == "^":
            self.take()
            s = ("^", s, self.size_unit())
        return s

    def size_unit(self):
        tok = self.take()
        if tok == "(":
            s = self.size_sum()
            self.take(")")
            return s
        return ("num", int(tok)) if tok.isdigit() else ("name", tok)


def slots(scheme: str) -> list:
    """The scheme's arrows at the top level: static parameter groups ("static", names,
    kind text) and types; a result that is a function type is uncurried."""
    parts, depth, start = [], 0, 0
    for m in re.finditer(r"->|[(\[<{]|[)\]>}]", scheme):
        t = m.group()
        if t == "->":
            if depth == 0:
                parts.append(scheme[start:m.start()].strip())
                start = m.end()
        elif t in "([<{":
            depth += 1
        else:
            depth -= 1
    parts.append(scheme[start:].strip())
    out = []
    for part in parts:
        group = re.fullmatch(r"\(\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(.+)\)", part)
        if group:
            out.append(("static", group.group(1).split(), group.group(2)))
        else:
            out.append(Reader(part).type())
    while out[-1][0] == "fun":  # (A -> B) -> (A -> B): the data argument and the result
        last = out.pop()
        out += [last[1], last[2]]
    return out


# --- instances ---------------------------------------------------------------------------------

def size_vars(node, out: set) -> set:
    if isinstance(node, tuple):
        if node[0] == "name":
            out.add(node[1])
        for part in node[1:]:
            size_vars(part, out)
    return out


def type_vars(node, inside_vector=False, out=None) -> dict:
    """Type variables, with whether each stands inside a vector (scalars only there)."""
    out = {} if out is None else out
    if isinstance(node, tuple):
        if node[0] == "var":
            out[node[1]] = out.get(node[1], False) or inside_vector
        elif node[0] in ("array", "vector"):
            type_vars(node[1], inside_vector or node[0] == "vector", out)
        else:
            for part in node[1:]:
                if isinstance(part, tuple) and part and isinstance(part[0], tuple):
                    for p in part:
                        type_vars(p, inside_vector, out)
                else:
                    type_vars(part, inside_vector, out)
    return out


def size_value(s, sizes: dict) -> Fraction:
    kind = s[0]
    if kind == "num":
        return Fraction(s[1])
    if kind == "name":
        return Fraction(sizes[s[1]])
    a, b = size_value(s[1], sizes), size_value(s[2], sizes)
    if kind == "/" and b == 0:
        return Fraction(-1)
    return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else a,
            "^": a ** int(b) if b.denominator == 1 else Fraction(1, 3)}[kind]


class NotNatural(Exception):
    """A size of the instance is not a positive whole number: no instance."""


def make_type(t, types: dict, sizes: dict) -> Type:
    kind = t[0]
    if kind == "var":
        return types[t[1]]
    if kind == "scalar":
        return SCALARS[t[1]]
    if kind == "tuple":
        return TupleType(tuple(make_type(x, types, sizes) for x in t[1]))
    if kind == "fun":
        return FunctionType(make_type(t[1], types, sizes), make_type(t[2], types, sizes))
    n = size_value(t[2], sizes)
    if n.denominator != 1 or n < 1:
        raise NotNatural
    cls = ArrayType if kind == "array" else VectorType
    return cls(make_type(t[1], types, sizes), Size.const(int(n)))


def value_of(t: Type):
    """A closed expression of type t (a float is a cast: a literal takes the type that its
    context expects, which is the type rule's business, not the scheme's)."""
    if t in (FLOAT, DOUBLE):
        return Apply(Prim(t.name), (Lit(2),))
    if t == INT:
        return Lit(2)
    if t == BOOL:
        return Lit(True)
    if isinstance(t, TupleType):
        return TupleExpr(tuple(value_of(x) for x in t.items))
    if isinstance(t, ArrayType):
        return Apply(Prim("replicate", (t.size,)), (value_of(t.elem),))
    raise AssertionError(f"no value of {t}")


def function_of(t: Type) -> Lambda:
    """A function of type t (curried): it ignores its arguments and returns a value."""
    params = []
    while isinstance(t, FunctionType):
        params.append(f"x{len(params)}")
        t = t.result
    return Lambda(tuple(params), value_of(t))


ELEMENTS = st.sampled_from([FLOAT, INT, FLOAT, TupleType((FLOAT, INT)),
                            ArrayType(FLOAT, Size.const(3))])
SCALAR_ELEMENTS = st.sampled_from([FLOAT, INT])
NUMBERS = st.sampled_from([FLOAT, INT, DOUBLE])


def read_names() -> list[str]:
    return sorted(n for n in PRIMITIVES if n not in UNREAD and
                  PRIMITIVES[n].scheme != NUMBER_TO_NUMBER)


@pytest.mark.parametrize("name", sorted(UNREAD))
def test_the_unread_schemes_are_primitives(name):
    assert name in PRIMITIVES


@pytest.mark.parametrize("name", read_names())
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data())
def test_the_type_rule_gives_the_scheme_s_result(name, data):
    decl = PRIMITIVES[name]
    parts = slots(decl.scheme.replace("number", "Num"))
    shapes = [p for p in parts if p[0] != "static"]
    sizes: dict = {}
    for part in parts:
        if part[0] == "static" and part[2] == "size":
            for n in part[1]:
                sizes[n] = data.draw(st.integers(1, 4), label=n)
    for shape in shapes:
        for n in sorted(size_vars(shape, set())):
            if n not in sizes:
                sizes[n] = data.draw(st.integers(1, 8), label=n)
    types: dict = {}
    variables: dict = {}
    for shape in shapes:
        type_vars(shape, out=variables)
    for v, scalar_only in sorted(variables.items()):
        kinds = NUMBERS if v == "Num" else SCALAR_ELEMENTS if scalar_only else ELEMENTS
        types[v] = data.draw(kinds, label=v)
    try:
        instance = [make_type(s, types, sizes) for s in shapes]
    except NotNatural:
        assume(False)
    *arguments, result = instance
    args: list = []
    for param in decl.params:
        if param.kind == "dim":
            args.append(0)
        elif param.kind == "size":
            args.append(Size.const(sizes[param.name]))
        elif param.kind == "fun":
            static = [p for p in parts if p[0] == "static" and p[1] == [param.name]]
            if static:
                t = make_type(Reader(static[0][2]).type(), types, sizes)
            else:
                t = arguments.pop(0)
            args.append(function_of(t))
        elif param.kind == "value":
            args.append(value_of(arguments.pop(0)))
        elif param.kind == "distribution":  # redistribute: its type is the same for each
            args.append(data.draw(st.sampled_from(["block", "copy", "overlap 1"]), label="d"))
        else:
            raise AssertionError(f"{name}: a {param.kind} parameter is not drawn here")
    assert len(arguments) == (decl.arity or 2), \
        f"{name}: {decl.scheme} does not match its parameters and {decl.arity} data arguments"
    node = Prim(name, tuple(args))
    got = typecheck(node, *arguments)
    assert got == result, (f"{node} on {', '.join(map(str, arguments))}: the scheme "
                           f"{decl.scheme} says {result}, the type rule {got}")


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(sorted(n for n, d in PRIMITIVES.items()
                                   if d.scheme == NUMBER_TO_NUMBER)),
       number=st.sampled_from([FLOAT, DOUBLE]))
def test_a_math_function_keeps_a_floating_type(name, number):
    decl = PRIMITIVES[name]
    assert typecheck(Prim(name), *[number] * decl.arity) == number
