"""Left-hand sides of rules, stated once as patterns (as tinygrad's ``UPat`` or RISE's
``case App(App(map(), f), …)``), matched with the first mismatch reported.

A pattern is built from ``prim`` (``map_of``), ``app``, ``lam``, ``composed``, ``kind`` and
``pair``; a string in a pattern captures the sub-term there under that name (``"_"``
matches anything and captures nothing). Each part may carry ``why``: the refusal reason
when the node there does not have that shape. A part without one refuses with the reason
of the nearest enclosing part that has one, so a pattern says once, at each level, what was
expected::

    MAP_OF_MAP = app(prim("map", lam("a", app(prim("map", "g"), "ys"),
                                     why="the outer map's body must be a map applied to "
                                         "an array")),
                     "xs", why="it rewrites map (λa. map g ys) xs")

``where(test, why)`` adds a side condition, tested on the captures once the shape fits; its
reason is a format string over them (``"the inner array depends on {a}"``). ``matches``
turns a pattern into a rule's rewrite function: ``@matches(LHS)`` on ``def _r(m, site,
p)`` calls it with the captures (``m.xs``) only where the node fits, and returns the
``Refused`` reason everywhere else. A ``pair`` pattern matches a node and its right
neighbour in a composition (the pair rules).

A pattern is also a predicate (``fits``, for a strategy's ``find``) and a macro's left-hand
side (``refusal``). What rules ask of the site's types (``array_length``, ``divides``) is
here too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..expr import Apply, Compose, Lambda, Prim
from ..sizes import Size
from ..types import ArrayType
from .site import Refused, Site

# --- what rules ask of the site's types ------------------------------------------------------

def array_length(site: Site, of_next: bool = False) -> Size | None:
    """The length of the array the node (or its right neighbour) is applied to."""
    typing = site.next_typing if of_next else site.typing
    if typing is None or not typing.args or not isinstance(typing.args[0], ArrayType):
        return None
    return typing.args[0].size


def divides(n: Size, length: Size | None, what: str) -> Refused | None:
    """The refusal when ``n`` is no whole positive number or does not divide ``length``."""
    if length is None:
        return None
    if n.is_constant and (n.value <= 0 or not n.is_integer_constant):
        return Refused(f"{what}: {n} is not a positive whole number")
    if length.divisible_by(n) is False:
        return Refused(f"{what}: {n} does not divide the array length {length}")
    return None


# --- patterns --------------------------------------------------------------------------------

class Match(dict):
    """The captures of a successful match, by name (``m["xs"]`` or ``m.xs``)."""

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class _Mismatch(Exception):
    """The node does not fit; ``reason`` is None until a part with a ``why`` gives one."""

    def __init__(self, reason: str | None = None):
        self.reason = reason


@dataclass(frozen=True)
class Pattern:
    """A shape of a term; subclasses say what fits (``_fit``), this class handles ``why``,
    capturing the whole node (``name``) and the side conditions (``where``)."""

    why: str | None = field(default=None, kw_only=True)
    name: str | None = field(default=None, kw_only=True)
    conditions: tuple = field(default=(), kw_only=True)

    def where(self, test: Callable[[Match], bool], why: str) -> Pattern:
        """This pattern with a side condition on its captures; ``why`` is formatted with
        them when ``test`` fails."""
        from dataclasses import replace

        return replace(self, conditions=(*self.conditions, (test, why)))

    def match(self, node) -> Match | Refused:
        """The captures, or the reason the node does not fit."""
        captures = Match()
        try:
            self.fit(node, captures)
        except _Mismatch as miss:
            return Refused(miss.reason or "it does not have the rule's shape")
        return captures

    def fits(self, node) -> bool:
        """Whether the node has this shape (the pattern as a predicate, for ``find``)."""
        return not isinstance(self.match(node), Refused)

    def refusal(self, site: Site) -> Refused | None:
        """Why the site's node (with its right neighbour, for a ``pair``) does not have this
        shape; None where it has (a macro's left-hand side, ``macro_rule(lhs=…)``)."""
        m = self.match((site.node, site.next) if isinstance(self, _Pair) else site.node)
        return m if isinstance(m, Refused) else None

    def fit(self, node, captures: Match) -> None:
        try:
            self._fit(node, captures)
        except _Mismatch as miss:
            if miss.reason is None and self.why is not None:
                miss.reason = self.why
            raise
        if self.name is not None:
            _capture(self.name, node, captures)
        for test, why in self.conditions:
            if not test(captures):
                raise _Mismatch(why.format_map(captures))

    def _fit(self, node, captures: Match) -> None:
        raise NotImplementedError


def _capture(name: str, value, captures: Match) -> None:
    if name == "_":
        return
    if name in captures and captures[name] != value:
        raise _Mismatch()  # a name used twice stands for equal sub-terms
    captures[name] = value


def _fit(part, node, captures: Match) -> None:
    """Fit one part of a pattern: a Pattern, a capture name, or a value to equal."""
    if isinstance(part, Pattern):
        part.fit(node, captures)
    elif isinstance(part, str):
        _capture(part, node, captures)
    elif part != node:
        raise _Mismatch()


def _fit_all(parts: tuple, rest: str | None, nodes: tuple, captures: Match) -> None:
    if len(nodes) < len(parts) or (rest is None and len(nodes) != len(parts)):
        raise _Mismatch()
    for part, node in zip(parts, nodes):
        _fit(part, node, captures)
    if rest is not None:
        _capture(rest, tuple(nodes[len(parts):]), captures)


@dataclass(frozen=True)
class _Prim(Pattern):
    names: frozenset[str] = frozenset()
    args: tuple | None = None

    def _fit(self, node, captures):
        if not (isinstance(node, Prim) and node.name in self.names):
            raise _Mismatch()
        if self.args is not None:
            _fit_all(self.args, None, node.args, captures)


@dataclass(frozen=True)
class _Apply(Pattern):
    fn: object = "_"
    args: tuple = ()
    rest: str | None = None

    def _fit(self, node, captures):
        if not isinstance(node, Apply):
            raise _Mismatch()
        if len(node.args) < len(self.args) or (self.rest is None
                                                and len(node.args) != len(self.args)):
            raise _Mismatch()
        _fit(self.fn, node.fn, captures)
        _fit_all(self.args, self.rest, node.args, captures)


@dataclass(frozen=True)
class _Lambda(Pattern):
    param: str = "_"
    body: object = "_"

    def _fit(self, node, captures):
        if not (isinstance(node, Lambda) and len(node.params) == 1
                and isinstance(node.params[0], str)):
            raise _Mismatch()
        _capture(self.param, node.params[0], captures)
        _fit(self.body, node.body, captures)


@dataclass(frozen=True)
class _Compose(Pattern):
    fns: tuple = ()
    rest: str | None = None

    def _fit(self, node, captures):
        if not isinstance(node, Compose):
            raise _Mismatch()
        _fit_all(self.fns, self.rest, node.fns, captures)


@dataclass(frozen=True)
class _Kind(Pattern):
    types: tuple = ()

    def _fit(self, node, captures):
        if not isinstance(node, self.types):
            raise _Mismatch()


@dataclass(frozen=True)
class _Pair(Pattern):
    first: object = "_"
    second: object = "_"

    def _fit(self, node, captures):
        first, second = node
        _fit(self.first, first, captures)
        _fit(self.second, second, captures)


def prim(names: str | Iterable[str], *args, why: str | None = None,
         name: str | None = None) -> Pattern:
    """A primitive of one of ``names`` (``"reduce"``, ``("reduce", "reduceSeq")`` or a family
    of ``primitives.families``); with ``args``, its arguments one by one (``prim("split",
    "n")``)."""
    names = frozenset((names,) if isinstance(names, str) else names)
    return _Prim(names=names, args=args or None, why=why, name=name)


def app(fn, *args, rest: str | None = None, why: str | None = None,
        name: str | None = None) -> Pattern:
    """``fn`` applied to exactly ``args`` (with ``rest``: to at least those, the others
    captured as a tuple under that name)."""
    return _Apply(fn=fn, args=args, rest=rest, why=why, name=name)


def lam(param: str, body="_", *, why: str | None = None, name: str | None = None) -> Pattern:
    """``λx. e``, one parameter that is a name (captured as a string under ``param``)."""
    return _Lambda(param=param, body=body, why=why, name=name)


def composed(*fns, rest: str | None = None, why: str | None = None,
             name: str | None = None) -> Pattern:
    """A composition ``f ∘ g ∘ …`` of exactly these functions (or at least, with ``rest``)."""
    return _Compose(fns=fns, rest=rest, why=why, name=name)


def kind(*types: type, why: str | None = None, name: str | None = None) -> Pattern:
    """Any node of these IR classes (``kind(Lambda, name="f")``)."""
    return _Kind(types=types, why=why, name=name)


def pair(first, second, *, why: str | None = None) -> Pattern:
    """A node and its right neighbour in a composition (``first ∘ second``)."""
    return _Pair(first=first, second=second, why=why)


def map_of(f="f", *, why: str | None = None, name: str | None = None) -> Pattern:
    """A high-level ``map f``."""
    return prim("map", f, why=why, name=name)


def matches(lhs: Pattern):
    """A rule's rewrite function from a function of the captures: ``@matches(LHS)`` over
    ``def _rewrite(m, site, p)``, which is called only where the node (with its right
    neighbour, for a ``pair``) fits ``lhs``."""

    def wrap(rewrite: Callable) -> Callable:
        def rule(site: Site, p):
            node = (site.node, site.next) if isinstance(lhs, _Pair) else site.node
            m = lhs.match(node)
            return m if isinstance(m, Refused) else rewrite(m, site, p)

        rule.lhs = lhs
        rule.__name__ = rule.__qualname__ = getattr(rewrite, "__name__", "rule")
        rule.__doc__ = rewrite.__doc__
        return rule

    return wrap
