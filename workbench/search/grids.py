"""Grids of work-items for the map nests of a program (``grids``): every element of a 2-D or
3-D nest of maps its own work-item, the innermost map — the dimension contiguous in memory —
on OpenCL dimension 0, so that neighbouring work-items read neighbouring addresses (on a GPU
their reads coalesce). This is Futhark's kernel extraction G1–G3 (``map-nest→kernel``),
after a stencil's pads on its result are moved onto its input (``pad-map-interchange``), so
that the kernel writes the result through its layouts with no copy after it.

Each 2-D nest is also put on grids whose work-items compute 2, 4 or 8 neighbouring rows of
a column each (``rows_per_work_item``): a stencil's neighbouring outputs share their loads.

The default lowering puts only the outermost map on work-items (a 3-D stencil at 256³: 256
work-items, each looping over 256×256 points), and the walks of a search reach a grid only
one map at a time, each ``map→mapGlobal`` taking the lowest free dimension (the outermost
map on dimension 0, the wrong way round for memory). The guided search measures these
mappings first where asked (its option ``grids_first``).
"""

from __future__ import annotations

from ..expr import Compose, Expr, Prim, compose, subterm, walk
from ..layout import as_composition, mapped_layout, rearranges_only
from ..rewriting.application import lookup_rule, rewrites
from ..rewriting.match import prim
from ..rewriting.site import Refused
from ..rewriting.step import Step
from ..rewriting.strategies import (
    State,
    Strategy,
    element,
    find,
    fmap,
    next_function,
    rule,
    rule_at,
    seq,
)
from ..rules.extraction import nest_depth
from ..types import Type

MAP = prim("map")
PADS_MOVED_AT_MOST = 8  # pad-map-interchange moves every pad before a map in one step
LAYOUTS_SPLIT_AT_MOST = 8  # a map's layouts split off, one level of a nest at a time


def pads_moved(expr: Expr, types: tuple[Type, ...]) -> tuple[Expr, list[Step]]:
    """The expression with its result's pads moved onto its input, one
    ``pad-map-interchange`` after another while one applies, and the steps."""
    rule = lookup_rule("pad-map-interchange")
    steps: list[Step] = []
    for _ in range(PADS_MOVED_AT_MOST):
        found = rewrites(expr, *types, rules=[rule])
        if not found:
            break
        expr = found[0].result
        steps.append(found[0].bare())
    return expr, steps


def layouts_split(expr: Expr, types: tuple[Type, ...]) -> tuple[Expr, list[Step]]:
    """The expression with each map whose function ends in a layout split in two
    (``map-fission``: ``map (join ∘ map f) → map join ∘ map (map f)``), one after another
    while one applies, and the steps. SkelCL writes a stencil's row as ``join ∘ map
    (λnbh. reduce …)`` (its reduction's result is an array of one): the split makes the
    rows and their pixels one nest of maps, which a grid takes, and leaves the joins as
    layouts the kernel writes through."""
    rule = lookup_rule("map-fission")
    steps: list[Step] = []
    for _ in range(LAYOUTS_SPLIT_AT_MOST):
        found = [r for r in rewrites(expr, *types, rules=[rule])
                 if ends_in_layout(subterm(expr, r.path))]
        if not found:
            break
        expr = found[0].result
        steps.append(found[0].bare())
    return expr, steps


def ends_in_layout(node: Expr) -> bool:
    """Whether a map's function is a layout after a function that computes (``map (join ∘
    map f)``)."""
    if not MAP.fits(node):
        return False
    f = as_composition(node.args[-1])
    return isinstance(f, Compose) and rearranges_only(f.fns[0], True) and \
        not rearranges_only(compose(*f.fns[1:]) if len(f.fns) > 2 else f.fns[1], True)


def grid_mappings(expr: Expr, types: tuple[Type, ...]) -> list[tuple[Expr, list[Step]]]:
    """One mapping per nest of two or three maps that computes (not a map of layouts): the
    nest on a grid of as many global dimensions, innermost map on dimension 0, after the
    pads are moved (and, where that leaves no such nest, the layouts at the end of maps'
    functions split off: ``layouts_split``); with the steps from ``expr``. What is left
    high-level is for the default completion."""
    moved, steps, nests = nests_to_grid(expr, types)
    return [(e, steps + s) for e, s in _grids(moved, nests, types)]


def nests_to_grid(expr: Expr, types: tuple[Type, ...]) -> tuple[Expr, list[Step], list]:
    """``expr`` with its pads moved (and, where that leaves no nest of maps that computes,
    its layouts split off), the steps, and its outermost nests of two or three maps that
    compute (``map-nest→kernel``'s rewrites)."""
    moved, steps = pads_moved(expr, types)
    nests = outermost_nests(moved, types)
    if not nests:
        split, more = layouts_split(moved, types)
        if more:
            moved, steps, nests = split, steps + more, outermost_nests(split, types)
    return moved, steps, nests


def outermost_nests(moved: Expr, types: tuple[Type, ...]) -> list:
    """``map-nest→kernel``'s rewrites of the nests of two or three maps of ``moved`` that
    compute: the outermost ones only (the inner maps of a 3-D nest are a 2-D nest too), and
    none inside another map (its grid would be nested in the map's work-items: a dead
    end)."""
    nests = [r for r in rewrites(moved, *types, rules=[lookup_rule("map-nest→kernel")])
             if nest_depth(subterm(moved, r.path)) >= 2
             and mapped_layout(subterm(moved, r.path)) is None]
    inside = inside_maps(moved)
    return [r for r in nests if r.path not in inside]


def _grids(moved: Expr, outermost: list, types: tuple[Type, ...]
           ) -> list[tuple[Expr, list[Step]]]:
    """The grids of the outermost nests of ``moved``, and the steps to each."""
    blocked = [found for r in outermost if nest_depth(subterm(moved, r.path)) == 2
               for rows in ROWS_PER_WORK_ITEM
               if (found := rows_per_work_item(moved, r.path, rows, types)) is not None]
    return [(r.result, [r.bare()]) for r in outermost] + blocked


def inside_maps(expr: Expr) -> set[tuple]:
    """The paths of the nodes below a map (of any level): a grid there would be nested in the
    map's work-items."""
    return {path for at, node in walk(expr) if isinstance(node, Prim) and node.decl.is_map
            for path, _ in walk(node, at) if path != at}


# Rows of a 2-D nest's result each work-item computes in the blocked grids.
ROWS_PER_WORK_ITEM = (2, 4, 8)


def rows_per_work_item(expr: Expr, path: tuple, rows: int, types: tuple[Type, ...]
                       ) -> tuple[Expr, list[Step]] | None:
    """The 2-D nest ``map (map f)`` at ``path`` on a grid whose work-items each compute
    ``rows`` neighbouring rows of one column (``split-join``, ``transpose-map-map``, the
    rows' map unrolled): on a GPU the loads of neighbouring rows are shared (a 3×3 stencil
    reads (rows + 2)·3 values for its rows, not 9·rows) and neighbouring work-items still
    read neighbouring addresses. None where a step does not apply (the rows do not divide
    the nest's length)."""
    nest = subterm(expr, path)
    column = seq(fmap(rule("map→mapSeqUnroll")), rule("map→mapGlobal", dim=0))
    # after split-join, the map over the blocks of rows applies the nest to each block
    blocks = find(lambda n: MAP.fits(n) and n.args[0] == nest,
                  seq(fmap(seq(rule("transpose-map-map"), element("map", column))),
                      rule("map→mapGlobal", dim=1)), what="the map of the blocks")
    done = seq(rule_at("split-join", path, n=rows), blocks)(State(expr, tuple(types)))
    if isinstance(done, Refused):
        return None
    return done.expr, [s.bare() for s in done.steps]


# Work-groups (columns, rows) of the group grids, and the rows of a column each work-item of
# them computes: on an H200 SkelCL's blur at 4096² took 0.0483 ms on groups of 256x1 and 128x2
# with 4 rows a work-item (0.0490 on 64x4), 0.0497-0.0542 with 8, 0.0555-0.0566 with 2 and
# 0.072-0.085 with one point a work-item, where the best grid of mapGlobal took 0.0526 and a
# copy of the same bytes 0.0363 (benchmarks/results/blur_study_h200.md)
GROUP_SHAPES = ((256, 1), (128, 2), (64, 4))
GROUP_ROWS = (4,)


def group_mappings(expr: Expr, types: tuple[Type, ...]) -> list[tuple[Expr, list[Step]]]:
    """Each 2-D nest of ``grid_mappings`` on 2-D work-groups of each of ``GROUP_SHAPES``,
    its work-items computing each of ``GROUP_ROWS`` rows of a column
    (``on_work_groups``), with the steps from ``expr``: on a GPU a group's rows read
    coalesced and its neighbouring rows share their loads in the cache, where a grid of
    ``mapGlobal`` leaves the group's shape to the driver."""
    moved, steps, nests = nests_to_grid(expr, types)
    return [(found[0], steps + found[1]) for r in nests
            if nest_depth(subterm(moved, r.path)) == 2
            for shape in GROUP_SHAPES for rows in GROUP_ROWS
            if (found := on_work_groups(moved, r.path, shape, rows, types)) is not None]


def on_work_groups(expr: Expr, path: tuple, shape: tuple[int, int], rows: int,
                   types: tuple[Type, ...]) -> tuple[Expr, list[Step]] | None:
    """The 2-D nest ``map (map f)`` at ``path`` on work-groups of ``shape`` (columns, rows):
    ``tile-split-join`` tiles it, the tiles' maps go onto the work-groups' dimensions 1 and
    0 and their elements' onto the work-items' (``map→mapWorkgroup``, ``map→mapLocal``),
    innermost map on dimension 0. With ``rows`` > 1 each work-item computes that many
    neighbouring rows of its column (unrolled): ``split-join`` on the rows first, the map of
    the blocks of rows made a nest of blocks, columns and rows (``blocks_by_column``), and
    the blocks and columns tiled. None where a step does not apply (the tile or the rows do
    not divide the nest)."""
    columns, lines = shape
    levels = [rule("map→mapWorkgroup", dim=1), rule("map→mapWorkgroup", dim=0),
              rule("map→mapLocal", dim=1), rule("map→mapLocal", dim=0)]
    if rows > 1:
        levels.append(rule("map→mapSeqUnroll"))
    lowered = levels[-1]
    for level in reversed(levels[:-1]):
        lowered = seq(level, fmap(lowered))
    # each rewrite leaves its focus on the first function it wrote (tile-split-join: the
    # untile before the tiles' maps; split-join: the join before the blocks' map)
    tiled = seq(rule("tile-split-join", m=lines, n=columns), next_function(lowered))
    steps = tiled if rows == 1 else \
        seq(rule("split-join", n=rows), next_function(blocks_by_column(tiled)))
    done = steps(State(expr, tuple(types), (), tuple(path)))
    if isinstance(done, Refused):
        return None
    return done.expr, [s.bare() for s in done.steps]


def blocks_by_column(then: Strategy) -> Strategy:
    """At the map of the blocks of rows that ``split-join`` made of a 2-D nest (``map (map
    (map f))``: blocks, rows of a block, columns): the rows and columns interchanged inside
    it (``transpose-map-map``), the transposes taken out of it (``map-fission`` twice), and
    ``then`` at the nest of three maps left (blocks, columns, rows of a block)."""
    return seq(fmap(rule("transpose-map-map")), rule("map-fission", at=1),
               next_function(seq(rule("map-fission", at=1), then)))
