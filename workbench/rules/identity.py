"""Identity rules (PACT Fig. "simplification rules"): introduce ``id`` next to a function,
remove it again, and implement ``id`` on arrays as a copy ``map id`` — the way to place a
copy into local or global memory (``toLocal (mapLocal (mapSeq id))`` in Listing 5.8)."""

from __future__ import annotations

from ..expr import Compose, Expr, Prim
from ..rewriting.match import matches, prim
from ..types import ArrayType
from .rule import IDENTITY, Refused, Rule, Site


def _is_function_position(site: Site) -> Refused | None:
    if site.typing is None or not site.typing.args:
        return Refused("it applies to a function (a node that is applied to data)")
    if not isinstance(site.typing.args[0], ArrayType):
        return Refused("identities are introduced next to functions on arrays")
    if isinstance(site.node, Compose):
        return Refused("apply it to one function of the composition")
    return None


def _intro_after(site: Site, p):
    bad = _is_function_position(site)
    return bad or Compose((site.node, Prim("id")))


def _intro_before(site: Site, p):
    bad = _is_function_position(site)
    return bad or Compose((Prim("id"), site.node))


def _elim(site: Site, p):
    match site.node, site.next:
        case f, Prim("id"):
            return [f]
        case Prim("id"), f:
            return [f]
    return Refused("it removes an id next to a function")


@matches(prim("id", why="it rewrites id"))
def _id_to_map(m, site: Site, p) -> Expr | Refused:
    t = site.typing.args[0] if site.typing and site.typing.args else None
    if not isinstance(t, ArrayType):
        return Refused("only an id on arrays can become a copy")
    return Prim("map", (Prim("id"),))


RULES = [
    Rule("id-after", "f → f ∘ id", "simplification", "PACT Fig. simplification",
         _intro_after, tags=frozenset({IDENTITY})),
    Rule("id-before", "f → id ∘ f", "simplification", "PACT Fig. simplification",
         _intro_before, tags=frozenset({IDENTITY})),
    Rule("id-elim", "f ∘ id → f,  id ∘ f → f", "simplification", "PACT Fig. simplification",
         _elim, pair=True),
    Rule("id→map", "id → map id (a copy)", "memory", "Lift (implement id as a copy)",
         _id_to_map, tags=frozenset({IDENTITY})),
]


