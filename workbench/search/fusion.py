"""Each element's fold over a mapped array fused (``fusion``): the start program with every
fold (``reduce`` or ``reduceSeq``) inside a map whose array is the result of a ``map``
(Lift's molecular dynamics: ``reduceSeq (λforce n. updateF …) 0.0 (map (λi. at i particles)
p.1)``, each atom's forces over the positions its neighbour list indexes) made one
sequential fold whose operator applies the map's function (``apply-compose`` where the fold
is applied to the map, then ``reduce-map-fusion``, ICFP Fig. 6f).

The default completion writes such a mapped array into private memory before the fold reads
it (128 float4s per work-item for MD at Lift's size: 0.57 times the hand-written kernel on an
H200, which loops over the neighbour list reading each position through it, as the fused
fold does). Both rules are left out of the walks, so no walk fuses; the guided search
measures the fused program first where asked (its option ``fusion_first``, on by default),
on a GPU also with its outermost map's elements on work-groups of 128 work-items
(``fused_mappings``), as the hand-written kernel runs them.
Only a fold applied to the map is fused: where the two are composed (``reduce f z ∘ map g``,
N-body's and GESUMMV's), the code generator already reads each element where the fold takes
it, and the fused program would be the same kernel measured again. Folds are fused the last
first, so that rewriting one leaves the places of those before it as they were; a fold
outside every map is left as it is (fused, it would be one work-item's loop over the whole
array).
"""

from __future__ import annotations

from ..expr import Expr, subterm, walk
from ..primitives.families import FOLDS
from ..rewriting.application import Rewrite, lookup_rule, rewrites
from ..rewriting.match import app, map_of, prim
from ..rewriting.site import Refused
from ..rewriting.step import Step
from ..rewriting.strategies import State, find, rule, rule_at, seq
from ..types import Type
from .grids import inside_maps
from .space import within

# a fold applied to a map's result: composed first (``apply-compose``), then fused
FOLD_OF_MAP = app(prim(FOLDS, "f", "z"), app(map_of("g"), "xs"))
MAP = prim("map")
FUSIONS_AT_MOST = 16  # folds fused in one program (each rewrite is typed again)
# work-items of a group where the fused program's outermost map is given work-groups (the
# hand-written MD kernel's 128: at Lift's 12288 atoms, 96 groups for an H200's 132 cores,
# where a group as large as a driver may choose leaves most of them idle)
GROUP_ITEMS = (128,)


def fused_mappings(expr: Expr, types: tuple[Type, ...], groups: bool
                   ) -> list[tuple[Expr, list[Step]]]:
    """The program with its folds over mapped arrays fused (``fused_folds``) and, with
    ``groups``, that program with its outermost map's elements on work-groups of each of
    ``GROUP_ITEMS`` work-items (``on_groups``), each with its steps; none where no fold is
    fused."""
    fused = fused_folds(expr, types)
    if fused is None:
        return []
    found = [fused]
    for items in GROUP_ITEMS if groups else ():
        grouped = on_groups(fused[0], types, items)
        if grouped is not None:
            found.append((grouped[0], fused[1] + grouped[1]))
    return found


def on_groups(expr: Expr, types: tuple[Type, ...], items: int
              ) -> tuple[Expr, list[Step]] | None:
    """The outermost map split into chunks of ``items`` elements (``split-join``), the map of
    the chunks on work-groups (``map→mapWorkgroup``: the default completion puts each chunk's
    elements on the group's work-items), and the steps; None where a step does not apply
    (``items`` does not divide the map's length)."""
    inside = inside_maps(expr)
    outer = next(((path, node) for path, node in walk(expr) if path not in inside
                  and MAP.fits(node)), None)
    if outer is None:
        return None
    path, node = outer
    chunks = find(lambda n: MAP.fits(n) and n.args[0] == node,
                  rule("map→mapWorkgroup", dim=0), what="the map of the chunks")
    done = seq(rule_at("split-join", path, n=items), chunks)(State(expr, tuple(types)))
    if isinstance(done, Refused):
        return None
    return done.expr, [s.bare() for s in done.steps]


def fused_folds(expr: Expr, types: tuple[Type, ...]) -> tuple[Expr, list[Step]] | None:
    """The program with each fold inside a map over a mapped array fused with that map, and
    the steps; None where there is none."""
    current, steps = expr, []
    for _ in range(FUSIONS_AT_MOST):
        done = _fuse_last(current, types)
        if done is None:
            break
        current, steps = done[0], steps + done[1]
    return (current, steps) if steps else None


def _fuse_last(expr: Expr, types: tuple[Type, ...]) -> tuple[Expr, list[Step]] | None:
    """The last fold (in pre-order) inside a map applied to a map's result, composed with
    that map and fused; None where there is none."""
    inside = inside_maps(expr)
    composed = [r for r in rewrites(expr, *types, rules=[lookup_rule("apply-compose")])
                if r.path in inside and FOLD_OF_MAP.fits(subterm(expr, r.path))]
    if not composed:
        return None
    last = max(composed, key=lambda r: r.path)
    fused = _first(r for r in rewrites(last.result, *types,
                                       rules=[lookup_rule("reduce-map-fusion")])
                   if within(r.path, last.path))
    return (fused.result, [last.bare(), fused.bare()]) if fused is not None else None


def _first(found) -> Rewrite | None:
    return next(iter(found), None)
