"""A stencil's result padded on its way out, padded on its way in instead.

PPCG's stencils as Lift writes them (CGO 2018, Hagedorn et al.) pad the stencil's *result*
by clamping it, ``Pad2D(1, 1, Clamp) o Map(Map(f)) o Slide2D(3, 1)``. A pad cannot be
written through (its border elements have no place of their own in its input), so the code
generator adds a copy after the computation: a second pass over the grid. A pad that only
repeats elements of its input (``padClamp``, ``padWrap``, ``padMirror``) commutes with a
map over the levels it pads: element i of ``pad (map f xs)`` is f of element π(i) of xs,
and so is element i of ``map f (pad xs)``. Moved before the map, the pad is read through as
a view, and the stencil writes its result itself (through the scatters that follow); f is
computed again on the border elements, 4(N+1) of (N+2)² in 2-D.

    pad-map-interchange:  P ∘ map^d f → map^d f ∘ P
    (P pads that repeat elements, at levels below d: map (padClamp 1 1) ∘ padClamp 1 1 ∘
    map (map f) in 2-D, every pad of the chain in one step)
"""

from __future__ import annotations

from ..expr import Compose, Expr, Prim
from ..layout import mapped_layout
from ..rewriting.match import kind, matches
from .rule import Refused, Site, basic_rule

# the pads whose every element is an element of their input (Lift's Pad.Boundary.Clamp,
# Wrap and Mirror), unlike ``pad l r v``, whose borders are v
REPEATING_PADS = ("padClamp", "padWrap", "padMirror")


def padded_levels(fn: Expr) -> int | None:
    """How many array levels ``fn`` reaches when it is made only of pads that repeat
    elements (``padClamp`` reaches 1, ``map (padClamp 1 1) ∘ padClamp 1 1`` 2), else
    None."""
    if isinstance(fn, Prim) and fn.name in REPEATING_PADS:
        return 1
    if isinstance(fn, Prim) and fn.name == "map" and len(fn.args) == 1:
        inner = padded_levels(fn.args[0])
        return None if inner is None else inner + 1
    if isinstance(fn, Compose):
        levels = [padded_levels(f) for f in fn.fns]
        return None if None in levels else max(levels)
    return None


def mapped_levels(fn: Expr) -> int:
    """How many maps are nested at the top of ``fn`` (``map (map f)``: 2)."""
    levels = 0
    while isinstance(fn, Prim) and fn.name == "map" and len(fn.args) == 1:
        levels += 1
        fn = fn.args[0]
    return levels


_PADS_THEN_MAP = ("it rewrites P ∘ map f, P pads that repeat elements (clamp, wrap, mirror), "
                  "in a composition")


@basic_rule("pad-map-interchange", "P ∘ map^d f → map^d f ∘ P   (P: clamp/wrap/mirror pads "
            "of levels below d)", "algorithmic", "CGO 2018 (Lift's stencils)")
@matches(kind(Compose, name="chain", why=_PADS_THEN_MAP))
def PAD_MAP_INTERCHANGE(m, site: Site, p) -> Expr | Refused:
    """At a composition, the first map that pads precede: every pad before it (``map
    (padClamp 1 1) ∘ padClamp 1 1`` in 2-D) moves after it in one step."""
    fns = m.chain.fns
    refusal = Refused("no map in the composition follows pads that repeat elements "
                      "(padClamp, padWrap, padMirror; a constant pad's borders are no element "
                      "of the map's)")
    for at, computation in enumerate(fns):
        if at == 0 or mapped_levels(computation) == 0:
            continue
        first = at
        while first > 0 and padded_levels(fns[first - 1]) is not None:
            first -= 1
        if first == at:
            continue
        pads = fns[first:at]
        levels, depth = max(padded_levels(f) for f in pads), mapped_levels(computation)
        if mapped_layout(computation) is not None:
            refusal = Refused("the map after the pads only rearranges: it is read through as "
                              "a view already")
        elif levels > depth:
            refusal = Refused(f"the pads reach {levels} levels and the map only {depth}: the "
                              f"pad would reach inside f")
        else:
            return Compose((*fns[:first], computation, *pads, *fns[at + 1:]))
    return refusal


RULES = [PAD_MAP_INTERCHANGE]
