"""Strategy combinators in the spirit of ELEVATE. A strategy maps a ``State`` (expression,
input types, the steps taken so far, and the *focus*: the path where it works) to a new
state or a ``Refused``; the steps it took are recorded, so a macro rule built from
strategies shows its expansion step by step.

- ``rule(name, **params)`` applies one rule at the focus (``rule_at`` at a given path).
- Combinators: ``seq``, ``left_choice`` (``choice``), ``try_`` (``attempt``), ``repeat``.
- Traversals take strategies (or a rule's name): ``top_down(s)``, ``bottom_up(s)``,
  ``all_(s)`` (every child), ``one(s)`` (the first child where it succeeds), ``normalize``.
- Locations say where, by what the node is, never by number: ``body`` (of a lambda),
  ``function`` and ``argument`` (of an application), ``fmap`` (the function a map
  applies), ``element(name)`` / ``last_element(name)`` (the function of a composition that
  is that primitive), ``next_function`` (the function after it), ``parent``, ``find(pred)``
  (the first node below that satisfies ``pred``). ``body(s)`` runs ``s`` there and comes
  back; ``body()`` alone moves the focus there, for the strategies that follow in a
  ``seq``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from ..expr import Apply, Compose, Expr, Lambda, Path, Prim, keep_signature, subterm, walk
from ..primitives.families import STORES_AND_PREFETCH
from ..types import Type
from .site import Refused
from .step import Step


@dataclass(frozen=True)
class State:
    expr: Expr
    input_types: tuple[Type, ...] = ()
    steps: tuple[Step, ...] = ()
    focus: Path = ()  # where ``rule`` applies and locations start from

    @property
    def node(self) -> Expr:
        """The node at the focus."""
        return subterm(self.expr, self.focus)

    def at(self, focus: Path) -> State:
        return dataclasses.replace(self, focus=tuple(focus))


@dataclass(frozen=True)
class StepRefused(Refused):
    """A basic rule that does not apply: which rule, where, and the how-manieth step it
    would have been."""

    rule: str = ""
    path: Path = ()
    number: int = 0


@dataclass(frozen=True)
class NotFound(Refused):
    """``find`` found no node of the kind sought (``what``) below ``path``."""

    what: str = ""
    path: Path = ()


Strategy = Callable[[State], "State | Refused"]


# --- rules ------------------------------------------------------------------------------------

def rule(name: str, **params) -> Strategy:
    """Apply one rule at the focus."""

    def run(state: State):
        from .application import RewriteRefused, apply

        try:
            new = apply(state.expr, name, state.focus, *state.input_types, **params)
        except RewriteRefused as err:
            return StepRefused(err.reason, name, state.focus, len(state.steps) + 1)
        return State(new, state.input_types,
                     state.steps + (Step(name, state.focus, dict(params), new),), state.focus)

    return run


def rule_at(name: str, path: Path, **params) -> Strategy:
    """Apply one rule at one path."""
    return _scoped(lambda state: state.at(path), rule(name, **params))


def _strategy(s: Strategy | str) -> Strategy:
    return rule(s) if isinstance(s, str) else s


# --- combinators ------------------------------------------------------------------------------

def seq(*strategies: Strategy) -> Strategy:
    def run(state: State):
        for s in strategies:
            state = s(state)
            if isinstance(state, Refused):
                return state
        return state

    return run


def left_choice(*strategies: Strategy) -> Strategy:
    """The first strategy that succeeds (ELEVATE's leftChoice)."""

    def run(state: State):
        reasons = []
        for s in strategies:
            result = s(state)
            if not isinstance(result, Refused):
                return result
            reasons.append(result.reason)
        return Refused("; ".join(reasons) or "no strategy")

    return run


choice = left_choice


def try_(strategy: Strategy) -> Strategy:
    """ELEVATE's try: the strategy's result, or the state unchanged."""

    def run(state: State):
        result = strategy(state)
        return state if isinstance(result, Refused) else result

    return run


attempt = try_


def repeat(strategy: Strategy, limit: int = 1000) -> Strategy:
    """Apply until it no longer applies (at most ``limit`` times)."""

    def run(state: State):
        for _ in range(limit):
            result = strategy(state)
            if isinstance(result, Refused):
                return state
            state = result
        return state

    return run


def check(pred: Callable[[Expr], bool], why: str) -> Strategy:
    """The state unchanged when the node at the focus satisfies ``pred``; else ``why``."""

    def run(state: State):
        return state if pred(state.node) else Refused(why)

    return run


def refuse(why: str) -> Strategy:
    return lambda state: Refused(why)


def at_site(build: Callable) -> Strategy:
    """The strategy ``build(site)`` makes from the site at the focus (its type, its
    neighbour in a composition, the maps around it), or the ``Refused`` it returns."""

    def run(state: State):
        from .application import annotation_of, site_at

        site = site_at(state.expr, state.focus, annotation_of(state.expr, state.input_types))
        strategy = build(site)
        return strategy if isinstance(strategy, Refused) else strategy(state)

    return run


# --- traversals -------------------------------------------------------------------------------

def _paths(state: State, order: str) -> list[Path]:
    paths = [p for p, _ in walk(state.node, state.focus)]
    return paths[::-1] if order == "bottom-up" else paths


def anywhere(s: Strategy | str, order: str = "top-down", **params) -> Strategy:
    """``s`` (a strategy, or a rule by name with ``params``) at the first node below the
    focus, in pre-order (``top-down``) or from the innermost (``bottom-up``), where it
    succeeds."""
    strategy = rule(s, **params) if isinstance(s, str) else s
    name = s if isinstance(s, str) else "the strategy"

    def run(state: State):
        for path in _paths(state, order):
            result = strategy(state.at(path))
            if not isinstance(result, Refused):
                return result.at(state.focus)
        return Refused(f"{name} applies nowhere")

    return run


def top_down(s: Strategy | str, **params) -> Strategy:
    return anywhere(s, "top-down", **params)


def bottom_up(s: Strategy | str, **params) -> Strategy:
    return anywhere(s, "bottom-up", **params)


def all_(s: Strategy | str) -> Strategy:
    """``s`` at every child of the focus (ELEVATE's all); refused if it fails at one."""
    strategy = _strategy(s)

    def run(state: State):
        for i in range(len(state.node.children())):
            result = strategy(state.at(state.focus + (i,)))
            if isinstance(result, Refused):
                return result
            state = result.at(state.focus)
        return state

    return run


def one(s: Strategy | str) -> Strategy:
    """``s`` at the first child of the focus where it succeeds (ELEVATE's one)."""
    strategy = _strategy(s)

    def run(state: State):
        for i in range(len(state.node.children())):
            result = strategy(state.at(state.focus + (i,)))
            if not isinstance(result, Refused):
                return result.at(state.focus)
        return Refused("it applies at no child")

    return run


def normalize(s: Strategy | str, **params) -> Strategy:
    """Apply ``s`` (or a rule) anywhere until it applies nowhere."""
    return repeat(top_down(s, **params))


# --- locations ----------------------------------------------------------------------------------

def _scoped(move: Callable[[State], State | Refused], s: Strategy | None) -> Strategy:
    """``move`` alone (``s`` None), or ``s`` where ``move`` leads, back at the focus after."""

    def run(state: State):
        moved = move(state)
        if s is None or isinstance(moved, Refused):
            return moved
        result = s(moved)
        return result if isinstance(result, Refused) else result.at(state.focus)

    return run


def _child(kind: type | Callable[[Expr], bool], what: str, child: Callable[[Expr], int]):
    test = (lambda n: isinstance(n, kind)) if isinstance(kind, type) else kind

    def location(s: Strategy | None = None) -> Strategy:
        def move(state: State):
            node = state.node
            if not test(node):
                return Refused(f"{what} expected, not {shown(node)}")
            return state.at(state.focus + (child(node),))
        return _scoped(move, s)

    return location


# The primitives ``fmap`` enters: the maps the macros rewrite inside of, iterate, and those
# that store their function's results
_TAKING_A_FUNCTION = frozenset({"map", "mapSeq", "mapSeqUnroll", "mapGlobal", "mapWorkgroup",
                                "mapLocal", "mapVec", "iterate"}) | STORES_AND_PREFETCH


def _takes_function(node: Expr) -> bool:
    return isinstance(node, Prim) and bool(node.children()) and node.name in _TAKING_A_FUNCTION


body = _child(Lambda, "a lambda", lambda n: 0)
function = _child(Apply, "an application", lambda n: 0)
fmap = _child(_takes_function, "a map", lambda n: 0)


def argument(s: Strategy | None = None, k: int = 0) -> Strategy:
    """The ``k``-th argument of the application at the focus."""
    return _child(Apply, "an application", lambda n: 1 + k)(s)


def _element(name: str | Callable[[Expr], bool], s: Strategy | None, last: bool) -> Strategy:
    test = name if callable(name) else (lambda f: isinstance(f, Prim) and f.name == name)
    what = "the function sought" if callable(name) else name

    def move(state: State):
        node = state.node
        fns = node.fns if isinstance(node, Compose) else ()
        found = [i for i, f in enumerate(fns) if test(f)]
        if not found:
            return Refused(f"no {what} in {shown(node)}")
        return state.at(state.focus + (found[-1] if last else found[0],))

    return _scoped(move, s)


def element(name: str | Callable[[Expr], bool], s: Strategy | None = None) -> Strategy:
    """The first function of the composition at the focus that is the primitive ``name``
    (or satisfies it, a predicate)."""
    return _element(name, s, last=False)


def last_element(name: str | Callable[[Expr], bool], s: Strategy | None = None) -> Strategy:
    """The last function of the composition at the focus that is ``name``."""
    return _element(name, s, last=True)


def parent(s: Strategy | None = None) -> Strategy:
    def move(state: State):
        if not state.focus:
            return Refused("the whole expression has no parent")
        return state.at(state.focus[:-1])
    return _scoped(move, s)


def next_function(s: Strategy | None = None) -> Strategy:
    """The function applied before the one at the focus: in a composition at the focus, its
    second function; else the next function of the composition the focus stands in."""

    def move(state: State):
        if isinstance(state.node, Compose):
            return state.at(state.focus + (1,))
        outer = subterm(state.expr, state.focus[:-1]) if state.focus else None
        if isinstance(outer, Compose) and state.focus[-1] + 1 < len(outer.fns):
            return state.at(state.focus[:-1] + (state.focus[-1] + 1,))
        return Refused(f"no function after {shown(state.node)}")

    return _scoped(move, s)


def previous_function(s: Strategy | None = None) -> Strategy:
    """The function applied after the one at the focus, in the composition it stands in."""

    def move(state: State):
        outer = subterm(state.expr, state.focus[:-1]) if state.focus else None
        if isinstance(outer, Compose) and state.focus[-1] > 0:
            return state.at(state.focus[:-1] + (state.focus[-1] - 1,))
        return Refused(f"no function before {shown(state.node)}")

    return _scoped(move, s)


def applied_function(pick: Callable[[tuple[Expr, ...]], int | None],
                     s: Strategy | None = None, what: str = "the function sought") -> Strategy:
    """Of the application ``(f ∘ g ∘ …) xs`` (or ``f xs``) at the focus, the function that
    ``pick`` chooses from its functions, outermost first (None: refused)."""

    def move(state: State):
        node = state.node
        if not isinstance(node, Apply):
            return Refused(f"an application expected, not {shown(node)}")
        fns = node.fn.fns if isinstance(node.fn, Compose) else (node.fn,)
        i = pick(fns)
        if i is None:
            return Refused(f"no {what} in {shown(node)}")
        inside = state.focus + (0,)
        return state.at(inside + (i,) if isinstance(node.fn, Compose) else inside)

    return _scoped(move, s)


def find(pred: Callable[[Expr], bool], s: Strategy | None = None, what: str = "",
         missing: str = "") -> Strategy:
    """The first node (in pre-order) at or below the focus that satisfies ``pred``; where
    there is none, refused with ``missing`` (or: ``what`` not found)."""

    def move(state: State):
        for path, node in walk(state.node, state.focus):
            if pred(node):
                return state.at(path)
        if missing:
            return Refused(missing)
        return NotFound(f"{what or 'the node sought'} not found", what or "the node sought",
                        state.focus)

    return _scoped(move, s)


def optional(pred: Callable[[Expr], bool], s: Strategy) -> Strategy:
    """``s`` at the first node at or below the focus that satisfies ``pred``, if there is one
    (the state unchanged if not)."""

    def run(state: State):
        if not any(pred(node) for _, node in walk(state.node)):
            return state
        return find(pred, s)(state)

    return run


def shown(e: Expr) -> str:
    """The node as a refusal quotes it (cut at 60 characters)."""
    text = str(e)
    return f"`{text}`" if len(text) <= 60 else f"`{text[:57]}...`"


# --- one sweep --------------------------------------------------------------------------------

def everywhere(choose: Callable, limit: int = 100_000,
               chosen_at: Callable[[Expr], bool] | None = None) -> Strategy:
    """One sweep over the expression, outermost node first: at each node, the rule that
    ``choose(site)`` names for it (``(rule, params)``, or None) is applied when it applies
    (``chosen_at``: the nodes ``choose`` may name a rule for; at the others it is not asked,
    and their site is not built). Refused when nothing applied. ELEVATE's ``topDown``
    visits one node; this visits them all in one pass, so that lowering n nodes costs one
    type annotation, not n: a rewrite that keeps the node's children (``map → mapGlobal``)
    leaves every other node's path and type as they were; after one that does not, the
    sweep ends (``repeat`` starts the next one)."""

    def run(state: State):
        from .application import annotation_of, coerce_params, lookup_rule, site_at, try_rule

        expr, steps = state.expr, list(state.steps)
        note, annotated = None, False  # at the first node asked (none asked: not at all)
        for path, node in list(walk(expr))[:limit]:
            if chosen_at is not None and not chosen_at(node):
                continue
            if not annotated:
                note, annotated = annotation_of(expr, state.input_types), True
            site = site_at(expr, path, note)
            chosen = choose(site)
            if chosen is None:
                continue
            name, params = chosen
            found = lookup_rule(name)
            result = try_rule(found, site, coerce_params(found, params), note,
                              state.input_types)
            if isinstance(result, Refused):
                continue
            steps.append(Step(name, path, dict(params)))
            local = subterm(result, path)
            expr = result
            if len(local.children()) != len(site.node.children()) or any(
                    a is not b for a, b in zip(local.children(), site.node.children())):
                break  # paths or types below changed: annotate again
        if len(steps) == len(state.steps):
            return Refused("no rule chosen applies anywhere")
        return State(keep_signature(expr, state.expr), state.input_types, tuple(steps),
                     state.focus)

    return run
