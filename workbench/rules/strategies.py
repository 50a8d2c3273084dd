"""Strategy combinators in the spirit of ELEVATE: ``seq``, ``choice``, ``attempt`` (try),
``repeat``, ``top_down``, ``bottom_up`` and ``normalize`` build rewriting strategies from
named rules. A strategy maps a ``State`` (expression, input types, the steps taken so far)
to a new state or a ``Refused``; the steps it took are recorded, so a macro rule built from
strategies shows its expansion step by step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..expr import Expr, Path, keep_signature, subterm, walk
from ..types import Type
from .rule import Refused
from .step import Step


@dataclass(frozen=True)
class State:
    expr: Expr
    input_types: tuple[Type, ...] = ()
    steps: tuple[Step, ...] = ()


Strategy = Callable[[State], "State | Refused"]


def rule_at(rule: str, path: Path, **params) -> Strategy:
    """Apply one rule at one path."""

    def run(state: State):
        from .rewriting import RewriteRefused, apply

        try:
            new = apply(state.expr, rule, path, *state.input_types, **params)
        except RewriteRefused as err:
            return Refused(err.reason)
        return State(new, state.input_types, state.steps + (Step(rule, path, dict(params)),))

    return run


def anywhere(rule: str, order: str = "top-down", **params) -> Strategy:
    """Apply a rule at the first path (pre- or post-order) where it applies."""

    def run(state: State):
        paths = [p for p, _ in walk(state.expr)]
        if order == "bottom-up":
            paths.reverse()
        for path in paths:
            result = rule_at(rule, path, **params)(state)
            if not isinstance(result, Refused):
                return result
        return Refused(f"{rule} applies nowhere")

    return run


def top_down(rule: str, **params) -> Strategy:
    return anywhere(rule, "top-down", **params)


def bottom_up(rule: str, **params) -> Strategy:
    return anywhere(rule, "bottom-up", **params)


def seq(*strategies: Strategy) -> Strategy:
    def run(state: State):
        for s in strategies:
            state = s(state)
            if isinstance(state, Refused):
                return state
        return state

    return run


def choice(*strategies: Strategy) -> Strategy:
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


def attempt(strategy: Strategy) -> Strategy:
    """ELEVATE's try: the strategy's result, or the state unchanged."""

    def run(state: State):
        result = strategy(state)
        return state if isinstance(result, Refused) else result

    return run


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


def normalize(rule: str, **params) -> Strategy:
    """Apply a rule anywhere until it applies nowhere."""
    return repeat(top_down(rule, **params))


def everywhere(choose: Callable, limit: int = 100_000) -> Strategy:
    """One sweep over the expression, outermost node first: at each node, the rule that
    ``choose(site)`` names for it (``(rule, params)``, or None) is applied when it applies.
    Refused when nothing applied. ELEVATE's ``topDown`` visits one node; this visits them
    all in one pass, so that lowering n nodes costs one type annotation, not n: a rewrite
    that keeps the node's children (``map → mapGlobal``) leaves every other node's path
    and type as they were; after one that does not, the sweep ends (``repeat`` starts the
    next one)."""

    def run(state: State):
        from .rewriting import annotation_of, coerce_params, lookup_rule, site_at, try_rule

        expr, steps = state.expr, list(state.steps)
        note = annotation_of(expr, state.input_types)
        for path, _ in list(walk(expr))[:limit]:
            site = site_at(expr, path, note)
            chosen = choose(site)
            if chosen is None:
                continue
            rule, params = chosen
            found = lookup_rule(rule)
            result = try_rule(found, site, coerce_params(found, params), note,
                              state.input_types)
            if isinstance(result, Refused):
                continue
            steps.append(Step(rule, path, dict(params)))
            local = subterm(result, path)
            expr = result
            if len(local.children()) != len(site.node.children()) or any(
                    a is not b for a, b in zip(local.children(), site.node.children())):
                break  # paths or types below changed: annotate again
        if len(steps) == len(state.steps):
            return Refused("no rule chosen applies anywhere")
        return State(keep_signature(expr, state.expr), state.input_types, tuple(steps))

    return run



