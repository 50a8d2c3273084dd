"""The expression IR: immutable, hashable nodes with structural equality up to renaming.

Programs are point-free pipelines of primitives (ICFP 2015, Sect. 3) glued with composition
and lambdas, plus a small scalar language for user functions. A rewrite returns a new tree
that shares the untouched subtrees; nothing in a node is ever mutated after construction
(types are computed by ``typecheck``, never stored on nodes).

Nodes are addressed by *paths*: tuples of child numbers from the root, in the order given by
``children`` (printed ``0.1.2``; see ``errors.format_path``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .errors import ArgumentError, WorkbenchError, shown
from .sizes import Size

Path = tuple[int, ...]
# The printer of the notation, installed by ``notation.printer`` (which builds on this
# module): expressions print as the papers write them without the core importing it.
_PRINTER: list[Callable[..., str]] = []  # (expr, width=None) -> text


def use_printer(printer: Callable[[Expr], str]) -> None:
    """Print expressions with ``printer`` (``notation.printer.to_text``)."""
    _PRINTER[:] = [printer]
# A lambda parameter: a name, or a (possibly nested) tuple pattern such as (acc, x).
Pattern = str | tuple


@dataclass(frozen=True)
class Signature:
    """What a program file says of a definition besides its body: its name, its declared
    type (a ``types.Type``) and the ranges its random inputs are drawn from (``domain``).
    An expression read from a program file carries its definition's signature, and every
    rewrite of it keeps the signature (``keep_signature``)."""

    name: str = "expression"
    type: object = None
    ranges: tuple | None = None


def signature_of(expr: Expr) -> Signature | None:
    """The signature ``expr`` carries (None for an expression not read as a definition)."""
    return expr.__dict__.get("_signature") if isinstance(expr, Expr) else None


def with_signature(expr: Expr, signature: Signature | None) -> Expr:
    """A copy of ``expr`` that carries ``signature`` (the expression itself for None). The
    signature is not part of the expression's structure: equality and hashing ignore it."""
    if signature is None or signature_of(expr) == signature:
        return expr
    import copy

    out = copy.copy(expr)
    object.__setattr__(out, "_signature", signature)
    return out


def keep_signature(new: Expr, old: Expr) -> Expr:
    """``new`` (a rewrite of ``old``) carrying ``old``'s signature."""
    return with_signature(new, signature_of(old))


class Expr:
    """Base class of all nodes.

    Equality and hashing use a canonical key in which bound variables are replaced by their
    binding position (de Bruijn style), so ``λx. x`` equals ``λy. y``.
    """

    __slots__ = ()

    # The parts of the signature (``signature_of``), as attributes; absent (AttributeError)
    # on an expression that carries none.
    @property
    def definition_name(self) -> str:
        return self._signature_part("name")

    @property
    def declared_type(self):
        return self._signature_part("type")

    @property
    def input_ranges(self):
        return self._signature_part("ranges")

    def _signature_part(self, part: str):
        signature = self.__dict__.get("_signature")
        value = getattr(signature, part) if signature is not None else None
        if value is None:
            raise AttributeError(part)
        return value

    def children(self) -> tuple[Expr, ...]:
        return ()

    def with_children(self, children: tuple[Expr, ...]) -> Expr:
        return self

    def _key(self, bound: tuple[str, ...]) -> tuple:
        raise NotImplementedError

    def key(self) -> tuple:
        cached = self.__dict__.get("_cached_key")
        if cached is None:
            cached = self._key(())
            object.__setattr__(self, "_cached_key", cached)
        return cached

    def key_in(self, bound: tuple[str, ...]) -> tuple:
        # A subtree whose free variables are not bound above it has the closed key.
        if not bound or not (self.free_vars() & set(bound)):
            return self.key()
        return self._key(bound)

    def free_vars(self) -> frozenset[str]:
        cached = self.__dict__.get("_cached_free")
        if cached is None:
            cached = self._free_vars()
            object.__setattr__(self, "_cached_free", cached)
        return cached

    def _free_vars(self) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for child in self.children():
            out |= child.free_vars()
        return out

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Expr):
            return NotImplemented
        return self.key() == other.key()

    def __hash__(self) -> int:
        cached = self.__dict__.get("_cached_hash")
        if cached is None:
            cached = hash(self.key())
            object.__setattr__(self, "_cached_hash", cached)
        return cached

    def __str__(self) -> str:
        """The notation, as the paper writes it (the printer of ``notation``), printed once
        per node (a search keys its candidates, their completions and their moves by their
        text, and asked for the same expressions' texts thousands of times)."""
        if not _PRINTER:
            return self.structure()
        text = self.__dict__.get("_cached_text")
        if text is None:
            text = _PRINTER[0](self)
            object.__setattr__(self, "_cached_text", text)
        return text

    def __getstate__(self) -> dict:
        """The fields (and signature) without what is cached: a hash of strings is of the
        process that computed it, and an expression sent to another process (a search's
        workers) travels lighter."""
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_cached_")}

    def __repr__(self) -> str:
        """The notation (``parse('map abs')``); ``structure()`` shows the node classes."""
        return f"parse({str(self)!r})"

    def structure(self) -> str:
        """The tree as node classes and their fields, e.g.
        ``Prim(name='map', args=(Prim(name='abs', args=()),))``."""
        from dataclasses import fields

        def show(value) -> str:
            if isinstance(value, Expr):
                return value.structure()
            if isinstance(value, tuple):
                inner = ", ".join(show(v) for v in value)
                return f"({inner},)" if len(value) == 1 else f"({inner})"
            return repr(value)

        parts = ", ".join(f"{f.name}={show(getattr(self, f.name))}" for f in fields(self)
                          if f.repr)
        return f"{type(self).__name__}({parts})"

    def _repr_markdown_(self) -> str:
        """One line in code style; longer than a cell's width, laid out on lines in a code
        block (the printer's ``width``)."""
        text = str(self)
        if len(text) <= 100 or not _PRINTER:
            return f"`{text}`"
        return f"```\n{_PRINTER[0](self, width=100)}\n```"

    def size(self) -> int:
        """Number of nodes in the tree."""
        return 1 + sum(child.size() for child in self.children())


def _pattern_names(pattern: Pattern) -> tuple[str, ...]:
    if isinstance(pattern, str):
        return (pattern,)
    return tuple(name for item in pattern for name in _pattern_names(item))


def _pattern_shape(pattern: Pattern):
    return "_" if isinstance(pattern, str) else tuple(_pattern_shape(p) for p in pattern)


@dataclass(frozen=True, eq=False, repr=False)
class Var(Expr):
    name: str

    def _key(self, bound):
        for depth, name in enumerate(reversed(bound)):
            if name == self.name:
                return ("bound", depth)
        return ("var", self.name)

    def _free_vars(self):
        return frozenset((self.name,))


@dataclass(frozen=True, eq=False, repr=False)
class Lit(Expr):
    """A numeric or boolean literal. ``0`` is an int literal, ``0.0`` (or ``0.0f``) a float."""

    value: int | float | bool

    def __post_init__(self):
        # Every expression prints to text that parses back equal: no infinite or NaN float
        # (the notation has no spelling for them) and no whole number past 64 bits.
        v = self.value
        if isinstance(v, float) and not math.isfinite(v) or \
                isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 63:
            shown = repr(v) if isinstance(v, float) else f"a number of {v.bit_length()} bits"
            raise WorkbenchError(f"a literal must be a finite number within 64 bits, not "
                                 f"{shown}")

    def _key(self, bound):
        return ("lit", type(self.value).__name__, self.value)


@dataclass(frozen=True, eq=False, repr=False)
class Lambda(Expr):
    """``λx. e``, ``λ(acc, x). e`` (a tuple pattern) or ``λxs ys. e`` (curried)."""

    params: tuple[Pattern, ...]
    body: Expr

    def __post_init__(self):
        if not self.params:
            raise ValueError("a lambda needs at least one parameter")

    def names(self) -> tuple[str, ...]:
        return tuple(n for p in self.params for n in _pattern_names(p))

    def children(self):
        return (self.body,)

    def with_children(self, children):
        return Lambda(self.params, children[0])

    def _key(self, bound):
        shape = tuple(_pattern_shape(p) for p in self.params)
        return ("lam", shape, self.body.key_in(bound + self.names()))

    def _free_vars(self):
        return self.body.free_vars() - set(self.names())


@dataclass(frozen=True, eq=False, repr=False)
class Apply(Expr):
    """Application ``f a b``; nested applications are flattened (``(f a) b`` is ``f a b``)."""

    fn: Expr
    args: tuple[Expr, ...]

    def __post_init__(self):
        if isinstance(self.fn, Apply):
            object.__setattr__(self, "args", self.fn.args + tuple(self.args))
            object.__setattr__(self, "fn", self.fn.fn)
        if not self.args:
            raise ValueError("an application needs at least one argument")

    def children(self):
        return (self.fn, *self.args)

    def with_children(self, children):
        return Apply(children[0], tuple(children[1:]))

    def _key(self, bound):
        return ("app", self.fn.key_in(bound), tuple(a.key_in(bound) for a in self.args))


@dataclass(frozen=True, eq=False, repr=False)
class Compose(Expr):
    """``f ∘ g ∘ h``: data flows right to left. Always flat and of length >= 2."""

    fns: tuple[Expr, ...]

    def __post_init__(self):
        flat: list[Expr] = []
        for f in self.fns:
            flat.extend(f.fns if isinstance(f, Compose) else (f,))
        if len(flat) < 2:
            raise ValueError("a composition needs at least two functions (use compose())")
        object.__setattr__(self, "fns", tuple(flat))

    def children(self):
        return self.fns

    def with_children(self, children):
        return compose(*children)

    def _key(self, bound):
        return ("comp", tuple(f.key_in(bound) for f in self.fns))


@dataclass(frozen=True, eq=False, repr=False)
class TupleExpr(Expr):
    items: tuple[Expr, ...]

    def children(self):
        return self.items

    def with_children(self, children):
        return TupleExpr(tuple(children))

    def _key(self, bound):
        return ("tuple", tuple(i.key_in(bound) for i in self.items))


@dataclass(frozen=True, eq=False, repr=False)
class Prim(Expr):
    """A primitive with its static arguments (``split 128``, ``map f``, ``reduce (+) 0``).

    ``args`` follow the primitive's declared parameters (see ``primitives``): a ``Size`` for
    a size parameter, an ``int`` for a dimension or index, an ``Expr`` for a function or
    value. Only the ``Expr`` arguments are children of the node.
    """

    name: str
    args: tuple = ()

    def children(self):
        # kept on the node: walks and paths ask a primitive for its children most of all
        found = self.__dict__.get("_cached_children")
        if found is None:
            found = tuple(a for a in self.args if isinstance(a, Expr))
            object.__setattr__(self, "_cached_children", found)
        return found

    def with_children(self, children):
        it = iter(children)
        return Prim(self.name, tuple(next(it) if isinstance(a, Expr) else a for a in self.args))

    def _key(self, bound):
        return ("prim", self.name, tuple(
            a.key_in(bound) if isinstance(a, Expr) else ("size", a) if isinstance(a, Size)
            else ("sizes", a) if isinstance(a, tuple) else ("int", a) for a in self.args))

    @property
    def decl(self):
        try:
            return _DECLARED[0][self.name]
        except IndexError:  # the first call: ``primitive`` imports this module
            from .primitive import PRIMITIVES

            _DECLARED.append(PRIMITIVES)
            return PRIMITIVES[self.name]


# ``primitive.PRIMITIVES`` (the declarations by name), once looked up: a search asks for
# primitives' declarations hundreds of thousands of times, and an import statement each
# time was a tenth of its code generation
_DECLARED: list[dict] = []


@dataclass(frozen=True, eq=False, repr=False)
class BinOp(Expr):
    """Infix scalar operator: ``+ - * / % < <= > >= == != && ||``."""

    op: str
    left: Expr
    right: Expr

    def children(self):
        return (self.left, self.right)

    def with_children(self, children):
        return BinOp(self.op, children[0], children[1])

    def _key(self, bound):
        return ("bin", self.op, self.left.key_in(bound), self.right.key_in(bound))


@dataclass(frozen=True, eq=False, repr=False)
class UnOp(Expr):
    """Prefix scalar operator: ``-x`` or ``!x``."""

    op: str
    operand: Expr

    def children(self):
        return (self.operand,)

    def with_children(self, children):
        return UnOp(self.op, children[0])

    def _key(self, bound):
        return ("un", self.op, self.operand.key_in(bound))


@dataclass(frozen=True, eq=False, repr=False)
class Section(Expr):
    """Operator section: ``(+)`` (a function of a pair, ICFP Fig. 13), ``(*a)``, ``(2*)``."""

    op: str
    left: Expr | None = None
    right: Expr | None = None

    def __post_init__(self):
        if self.left is not None and self.right is not None:
            raise ValueError("a section leaves at least one operand out")
        if self.op == "-" and self.right is not None:
            raise ValueError("(-x) is a negation, not a section; write (λy. y - x)")

    def children(self):
        return tuple(x for x in (self.left, self.right) if x is not None)

    def with_children(self, children):
        if self.left is not None:
            return Section(self.op, children[0], None)
        if self.right is not None:
            return Section(self.op, None, children[0])
        return self

    def _key(self, bound):
        return ("sect", self.op, None if self.left is None else self.left.key_in(bound),
                None if self.right is None else self.right.key_in(bound))


@dataclass(frozen=True, eq=False, repr=False)
class UserFun(Expr):
    """A named user function (``mul3``, ``compCallPut``): printed by name, opaque to rewrites.

    Either ``body`` holds its definition in the scalar language, or ``c_body`` and
    ``numpy_fn`` give it as an OpenCL C function body plus a NumPy callable (the escape
    hatch of SPEC 3); ``params`` names the C parameters and ``type`` is then required.
    """

    name: str
    body: Expr | None = None
    type: object = None  # a types.FunctionType, when declared
    c_body: str | None = None
    params: tuple[str, ...] = ()
    numpy_fn: Callable | None = field(default=None, compare=False)

    def __post_init__(self):
        if self.body is None and (self.c_body is None or self.numpy_fn is None):
            raise ValueError(f"user function {self.name!r} needs a body, "
                             "or C code and a NumPy callable")
        if self.body is None and self.type is None:
            raise ValueError(f"user function {self.name!r} given as C code needs its type")

    def _key(self, bound):
        body = self.body.key() if self.body is not None else self.c_body
        return ("fun", self.name, body)

    def _free_vars(self):
        return frozenset()


# --- construction helpers -------------------------------------------------------------------

def compose(*fns: Expr) -> Expr:
    """Compose functions (right to left); one function is returned as it is."""
    if not fns:
        raise ValueError("compose() needs at least one function")
    return fns[0] if len(fns) == 1 else Compose(tuple(fns))


def prim(name: str, *args) -> Prim:
    from .primitive import canonical_name

    return Prim(canonical_name(name), tuple(Size.of(a) if isinstance(a, str) else a for a in args))


# --- traversal ------------------------------------------------------------------------------

def subterm(expr: Expr, path: Path) -> Expr:
    """The node at ``path``; raises ``IndexError``-free ``LookupError`` with the bad step."""
    node = expr
    for depth, step in enumerate(path):
        kids = node.children()
        if not 0 <= step < len(kids):
            from .errors import WorkbenchError, format_path

            shown = str(node) if len(str(node)) <= 60 else str(node)[:57] + "..."
            has = ("no children" if not kids else "1 child (0)" if len(kids) == 1
                   else f"{len(kids)} children (0 to {len(kids) - 1})")
            raise WorkbenchError(
                f"path {format_path(path)} does not exist: node {format_path(path[:depth])} "
                f"`{shown}` has {has}")
        node = kids[step]
    return node


def replace(expr: Expr, path: Path, new: Expr) -> Expr:
    """A new tree with the node at ``path`` replaced by ``new`` (untouched subtrees shared)."""
    if not path:
        return new
    kids = list(expr.children())
    subterm(expr, path[:1])  # validates the step
    kids[path[0]] = replace(kids[path[0]], path[1:], new)
    return expr.with_children(tuple(kids))


def walk(expr: Expr, path: Path = ()) -> Iterator[tuple[Path, Expr]]:
    """Every (path, node) in pre-order (from a stack: a nest of generators, one per level,
    took a fifth of a search's time in walks)."""
    stack = [(path, expr)]
    while stack:
        at, node = stack.pop()
        yield at, node
        children = node.children()
        for i in range(len(children) - 1, -1, -1):
            stack.append((at + (i,), children[i]))


def fresh_name(base: str, avoid: set[str] | frozenset[str]) -> str:
    if base not in avoid:
        return base
    i = 1
    while f"{base}{i}" in avoid:
        i += 1
    return f"{base}{i}"


def substitute(expr: Expr, name: str, value: Expr) -> Expr:
    """``expr`` with the free occurrences of ``name`` replaced by ``value``, renaming
    binders that would capture the free variables of ``value``."""
    if name not in expr.free_vars():
        return expr
    if isinstance(expr, Var):
        return value
    if isinstance(expr, Lambda):
        bound = set(expr.names())
        if name in bound:
            return expr
        clash = bound & value.free_vars()
        params, body = expr.params, expr.body
        if clash:
            avoid = set(value.free_vars()) | body.free_vars() | bound
            renaming = {}
            for old in sorted(clash):
                new = fresh_name(old, avoid)
                avoid.add(new)
                renaming[old] = new
                body = substitute(body, old, Var(new))
            params = tuple(_rename_pattern(p, renaming) for p in params)
        return Lambda(params, substitute(body, name, value))
    return expr.with_children(tuple(substitute(c, name, value) for c in expr.children()))


def size_arguments(node: Prim) -> tuple[Size, ...]:
    """The sizes among a primitive's static arguments (those of a tuple of sizes too)."""
    out: list[Size] = []
    for a in node.args:
        if isinstance(a, Size):
            out.append(a)
        elif isinstance(a, tuple):
            out.extend(s for s in a if isinstance(s, Size))
    return tuple(out)


def bind_sizes(expr: Expr, mapping) -> Expr:
    """``expr`` with the size variables of its primitives' size arguments replaced by the
    values in ``mapping`` (``reducePart (+) 0 (N/128)`` with N = 4096 becomes ``... 32``)."""
    if not mapping:
        return expr
    if isinstance(expr, Prim):
        args = tuple(a.substitute(mapping) if isinstance(a, Size) else
                     bind_sizes(a, mapping) if isinstance(a, Expr) else
                     tuple(s.substitute(mapping) for s in a) if isinstance(a, tuple) else a
                     for a in expr.args)
        return expr if args == expr.args else Prim(expr.name, args)
    children = expr.children()
    if not children:
        return expr
    new = tuple(bind_sizes(c, mapping) for c in children)
    if all(a is b for a, b in zip(new, children)):
        return expr
    return expr.with_children(new)


def _rename_pattern(pattern: Pattern, renaming: dict[str, str]) -> Pattern:
    if isinstance(pattern, str):
        return renaming.get(pattern, pattern)
    return tuple(_rename_pattern(p, renaming) for p in pattern)


def expression_argument(value: object, argument: str = "expr") -> Expr:
    """``value``, where it is an expression; an ``ArgumentError`` naming the argument and
    saying how to make one otherwise."""
    if not isinstance(value, Expr):
        raise ArgumentError(f"{argument} = {shown(value)}: give an expression (parse('map "
                            f"abs'), a program of library(...) or load(...)), not "
                            f"{type(value).__name__}", argument)
    return value
