"""Futhark's moderate flattening (the kernel-extraction chapter) as a strategy built from the
combinators of ``strategies`` and the rules G1–G7 of ``extraction``:

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

from ..expr import Expr, Lambda, Prim, walk
from ..layout import rearranges_only
from ..types import Type
from .extraction import is_parallel, parallel_subterms, unchained
from .match import is_prim
from .rule import Refused
from .strategies import State, Strategy, attempt, choice, repeat, rule_at, seq


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
    return {} if is_prim(node, "reduce") else None


def _loop_with_inner_parallelism(node: Expr) -> dict | None:
    """A map of a loop whose stages compute in parallel (G7's side condition)."""
    if not is_prim(node, "map"):
        return None
    g = node.args[0]
    if isinstance(g, Lambda):
        g = g.body
    for _, inner in walk(g):
        if is_prim(inner, "loop") or is_prim(inner, "iterate"):
            f = inner.args[1]
            body = f.body if isinstance(f, Lambda) else f
            return {} if is_parallel(body) else None
    return None


def _iterate_with_inner_parallelism(node: Expr) -> dict | None:
    match node:
        case Prim("map", (Prim("iterate", (_, f)),)) if is_parallel(f):
            return {}
    return None


def _distributable(node: Expr) -> dict | None:
    if is_prim(node, "map") and isinstance(node.args[0], Lambda) and len(node.args[0].params) == 1 \
            and parallel_subterms(unchained(node.args[0].body), frozenset()):
        return {"k": 0}
    return None


def _fissionable(node: Expr) -> dict | None:
    from ..expr import Compose

    if not (is_prim(node, "map") and isinstance(node.args[0], Compose)):
        return None
    fns = node.args[0].fns
    for k in range(1, len(fns)):
        if any(map(is_parallel, fns[:k])) and any(map(is_parallel, fns[k:])):
            return {"at": k}
    return None


def _kernel_nest(node: Expr) -> dict | None:
    if is_prim(node, "map") and not rearranges_only(node.args[0], True):
        return {}
    return None


def _plumbing_let(node: Expr) -> dict | None:
    from ..expr import Apply

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
    where("rearrange-distribution", lambda node: {} if is_prim(node, "map") else None),
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
