"""A work-group per row for a program's maps of reductions (``rows``): the start program with
every map whose function reduces an array built from its own element (a matrix-vector
product's rows: GESUMMV, gemv, ATAX) lowered onto work-groups (``map→mapWorkgroup``), each
row's reduction a work-group's reduction (``workgroup-map-reduce``, or ``workgroup-reduce``
where no map precedes it): the work-items read the row strided, neighbouring work-items
neighbouring elements (coalesced on a GPU), then halve their partial sums in local memory.
Where the row is contiguous, also in vectors (``map-reduce-vectorize`` first: each
work-item's loads of ``VECTOR_WIDTH`` elements at once).

The descent reaches a work-group per row only one map and one reduction at a time, and a
program with two such maps (GESUMMV's ``A x`` and ``B x``) needs both: measured below the
first, the second still reduces each row in one work-item, which is what the search kept
(0.40 times the hand-written kernel on an H200). The guided search measures these mappings
first where asked (its option ``rows_first``, on by default on a GPU).

GESUMMV fused through its zip (``zip_fusion.zip_fusion``) is one map over pairs of rows: with a
pair accumulator its one reduction takes a group as any row does; with its two reductions
left side by side (``side_by_side``, asked by the fusion's proposals only) each is a tree of
the group, read in float4s.

A map of reductions over an array every element shares (N-body's bodies, MRI-Q's k-space
samples) is left to ``shared-tiling`` (the guided option ``tiles_first``): a work-group per
element would read the whole shared array once per element.
"""

from __future__ import annotations

from ..expr import Apply, Compose, Expr, Lambda, Prim, subterm, walk
from ..rewriting.application import Rewrite, lookup_rule, rewrites
from ..rewriting.step import Step
from ..types import Type
from .grids import inside_maps
from .space import is_constant, within

# (lanes of each load, or 1 for none; work-items of a row's group): the first the way
# fast matrix-vector products are written on GPUs (float4 loads, 256 work-items)
ROW_GROUPS = ((4, 256), (1, 256), (4, 128))
DISTRIBUTION = "strided"  # neighbouring work-items read neighbouring elements of a row
# a row's reduction, the fused one where a map precedes it (else the vectors' lanes would be
# reduced by a group, not the row)
REDUCTIONS = ("workgroup-map-reduce", "workgroup-reduce")


def row_groups(expr: Expr, types: tuple[Type, ...], widths: tuple[int, ...] | None = None,
               side_by_side: bool = False) -> list[tuple[Expr, list[Step]]]:
    """For each (lanes, work-items) of ``ROW_GROUPS`` whose vectors the device runs
    (``widths``, its probed vector widths; None: any), the program with every map of
    reductions over its elements a work-group per row (``row_group_mapping``) and the steps;
    none where no map's reduction takes that group. With ``side_by_side``, also maps whose
    function computes several such reductions side by side (GESUMMV fused through its zip
    without a pair accumulator: ``zip_fusion.zip_fusion``), each a reduction of the group."""
    found = []
    for lanes, local in ROW_GROUPS:
        if lanes > 1 and widths and lanes not in widths:
            continue
        mapped = row_group_mapping(expr, types, lanes, local, side_by_side)
        if mapped is not None and all(str(mapped[0]) != str(e) for e, _ in found):
            found.append(mapped)
    return found


def row_group_mapping(expr: Expr, types: tuple[Type, ...], lanes: int, local: int,
                      side_by_side: bool = False) -> tuple[Expr, list[Step]] | None:
    """The program with each map of reductions over its elements (``row_maps``) a
    work-group per row of ``local`` work-items (loads of ``lanes`` elements), the last map
    first (rewriting one leaves the places of those before it as they were), and the
    steps; None where no map takes it."""
    current, steps = expr, []
    for path in sorted(row_maps(expr, side_by_side), reverse=True):
        done = row_group(current, types, path, lanes, local, _reductions(
            subterm(expr, path).args[-1]) if side_by_side else 1)
        if done is not None:
            current, steps = done[0], steps + done[1]
    return (current, steps) if steps else None


def row_group(expr: Expr, types: tuple[Type, ...], path: tuple, lanes: int, local: int,
              reductions: int = 1) -> tuple[Expr, list[Step]] | None:
    """The map at ``path`` on work-groups, each of its ``reductions`` (vectorised first where
    ``lanes`` is above 1) a strided work-group reduction of ``local`` work-items (or of the
    most below it that divide the row), the last first; None where a step does not
    apply."""
    mapped = _one(rewrites(expr, *types, rules=[lookup_rule("map→mapWorkgroup")], at=path))
    if mapped is None:
        return None
    current, steps = mapped.result, [mapped.bare()]
    for _ in range(reductions if lanes > 1 else 0):
        vectorised = (_last if reductions > 1 else _one)(
            r for r in rewrites(current, *types, rules=[lookup_rule("map-reduce-vectorize")])
            if within(r.path, path) and is_constant(r.params.get("n"), lanes))
        if vectorised is None:
            return None
        current, steps = vectorised.result, steps + [vectorised.bare()]
    for _ in range(reductions):
        reduced = _one(found for name in REDUCTIONS if (found := _largest_group(
            [r for r in rewrites(current, *types, rules=[lookup_rule(name)])
             if within(r.path, path) and str(r.params.get("distribution")) == DISTRIBUTION],
            local, last=reductions > 1)) is not None)
        if reduced is None:
            return None
        current, steps = reduced.result, steps + [reduced.bare()]
    return current, steps


def _largest_group(found: list[Rewrite], local: int, last: bool = False) -> Rewrite | None:
    """Of the work-group reductions found, the first (or ``last``: of the reduction found
    last, so that rewriting it leaves the places of those before it as they were) with the
    most work-items up to ``local`` (a shorter row takes a smaller group: the group's
    work-items divide it)."""
    sizes = [int(r.params["local"].value) for r in found
             if r.params["local"].is_integer_constant]
    fitting = [n for n in sizes if n <= local]
    largest = [r for r, n in zip(found, sizes) if fitting and n == max(fitting)]
    return (_last if last else _one)(largest)


def row_maps(expr: Expr, side_by_side: bool = False) -> list[tuple]:
    """The paths of the maps, inside no other map, whose function reduces an array built
    from its own element (``reduces_its_element``; with ``side_by_side``, or computes
    several such reductions: ``_reductions``)."""
    inside = inside_maps(expr)
    return [path for path, node in walk(expr)
            if path not in inside and isinstance(node, Prim) and node.name == "map"
            and node.args and (reduces_its_element(node.args[-1]) or
                               side_by_side and _reductions(node.args[-1]) > 1)]


def _reductions(f: Expr) -> int:
    """How many reductions of arrays built from its element ``f`` (``λx. e``) computes
    outside any function of its own: ``(reduce ⊕ z ∘ map g) e`` with ``x`` free in ``e``."""
    if not isinstance(f, Lambda) or len(f.params) != 1:
        return 0
    names = set(f.names())
    return sum(1 for node in _values(f.body) if isinstance(node, Apply) and len(node.args) == 1
               and isinstance(node.fn, Compose) and names & node.args[0].free_vars()
               and any(isinstance(g, Prim) and g.name == "reduce" for g in node.fn.fns))


def _values(e: Expr):
    """``e`` and the values it is computed from, not inside a function."""
    yield e
    parts = e.args if isinstance(e, Apply) else e.children() if not isinstance(
        e, Lambda | Prim | Compose) else ()
    for part in parts:
        yield from _values(part)


def reduces_its_element(f: Expr) -> bool:
    """Whether ``f`` is ``λx. (… ∘ reduce ⊕ z ∘ …) e`` with ``x`` free in ``e``: the
    reduction's array is built from the map's element (a row zipped with a vector), not an
    array every element shares."""
    if not isinstance(f, Lambda) or len(f.params) != 1:
        return False
    body, names = f.body, set(f.names())
    if not isinstance(body, Apply) or len(body.args) != 1:
        return False
    fns = body.fn.fns if isinstance(body.fn, Compose) else (body.fn,)
    return any(isinstance(g, Prim) and g.name == "reduce" for g in fns) and \
        bool(names & body.args[0].free_vars())


def _one(found) -> Rewrite | None:
    return next(iter(found), None)


def _last(found) -> Rewrite | None:
    found = list(found)
    return found[-1] if found else None

