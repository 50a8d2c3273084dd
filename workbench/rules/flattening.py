"""Futhark's moderate flattening (the kernel-extraction chapter) as a strategy built from the
combinators of ``rewriting.strategies`` and the rules G1–G7 of ``extraction``:

1. repeatedly, outermost first: inline lets of data plumbing (β-reduction) and drop
   λx. f x (η-reduction); interchange a reduction with a vector operator into a segmented
   reduction (G5); move a loop out of a map when its body has inner parallelism (G7;
   otherwise the loop stays sequential inside the kernel, as Futhark keeps Mandelbrot's);
   distribute a map around the parallel computations of its body (G4) and over a
   composition whose parts both compute in parallel; distribute rearranges (G6);
2. then make every outermost perfect map nest one kernel (G1–G3).

What is left inside a kernel is sequential code of its work-items (the default lowering).
"""

from __future__ import annotations

from collections.abc import Callable

from ..expr import Apply, Compose, Expr, Lambda, Prim, walk
from ..layout import rearranges_only
from ..rewriting.strategies import State, Strategy, attempt, choice, repeat, rule_at, seq
from ..types import Type
from .extraction import is_parallel, parallel_subterms, unchained
from .rule import Refused


def where(rule: str, wanted: Callable[[Expr], dict | None]) -> Strategy:
    """Apply a rule at the first node, outermost first, for which ``wanted(node)`` gives
    parameters (None: not here) and where the rule applies with them."""

    def run(state: State):
        for path, node in walk(state.expr):
            params = wanted(node)
            if params is None:
                continue
            result = rule_at(rule, path, **params)(state)
            if not isinstance(result, Refused):
                return result
        return Refused(f"{rule} applies nowhere it is wanted")

    return run


def _vector_reduce(node: Expr) -> dict | None:
    return {} if isinstance(node, Prim) and node.name == "reduce" else None


def _loop_with_inner_parallelism(node: Expr) -> dict | None:
    """A map of a loop whose stages compute in parallel (G7's side condition)."""
    match node:
        case Prim("map", (Lambda(_, g) | g,)):
            for _, inner in walk(g):
                match inner:
                    case Prim("loop" | "iterate", (_, Lambda(_, body) | body)):
                        return {} if is_parallel(body) else None
    return None


def _iterate_with_inner_parallelism(node: Expr) -> dict | None:
    match node:
        case Prim("map", (Prim("iterate", (_, f)),)) if is_parallel(f):
            return {}
    return None


def _distributable(node: Expr) -> dict | None:
    match node:
        case Prim("map", (Lambda((_,), body),)) \
                if parallel_subterms(unchained(body), frozenset()):
            return {"k": 0}
    return None


def _fissionable(node: Expr) -> dict | None:
    match node:
        case Prim("map", (Compose(fns),)):
            for k in range(1, len(fns)):
                if any(map(is_parallel, fns[:k])) and any(map(is_parallel, fns[k:])):
                    return {"at": k}
    return None


def _map(node: Expr) -> dict | None:
    return {} if isinstance(node, Prim) and node.name == "map" else None


def _kernel_nest(node: Expr) -> dict | None:
    match node:
        case Prim("map", (f,)) if not rearranges_only(f, True):
            return {}
    return None


def _plumbing_let(node: Expr) -> dict | None:
    return {} if isinstance(node, Apply) and isinstance(node.fn, Lambda) else None


def _eta_form(node: Expr) -> dict | None:
    return {} if isinstance(node, Lambda) and len(node.params) == 1 else None


DISTRIBUTE = choice(
    where("β-reduction", _plumbing_let),
    where("η-reduction", _eta_form),
    where("reduce-map-interchange", _vector_reduce),
    where("map-loop-interchange", _loop_with_inner_parallelism),
    where("map-iterate-interchange", _iterate_with_inner_parallelism),
    where("map-distribution", _distributable),
    where("map-fission", _fissionable),
    where("rearrange-distribution", _map),
)

MODERATE_FLATTENING = seq(repeat(DISTRIBUTE, limit=64),
                          attempt(repeat(where("map-nest→kernel", _kernel_nest), limit=64)))


def moderate_flattening(expr: Expr, *input_types: Type | str) -> State:
    """The expression after moderate flattening, with the steps that did it."""
    from ..typecheck import as_type

    state = MODERATE_FLATTENING(State(expr, tuple(as_type(t) for t in input_types)))
    if isinstance(state, Refused):  # pragma: no cover - repeat and attempt never refuse
        raise ValueError(state.reason)
    return state


__all__ = ["MODERATE_FLATTENING", "DISTRIBUTE", "moderate_flattening", "where"]
