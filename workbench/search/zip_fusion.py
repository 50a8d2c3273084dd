"""Computations side by side fused through the zip that joins them (``zip_fusion``): the
start program with its zips of maps, of joined rows and of reductions made one map and one
reduction (``rules/zips.py``), so that what were several kernels is one.

GESUMMV as Lift writes it, ``vecAdd (mvAlpha A x α) (mvAlpha B x β)``, is three kernels by
the default mapping (``A x``, ``B x``, their sum): on an H200 the guided search's best was
0.68 times a hand-written kernel that reads a row of A and of B in one loop. Fused here it is
one map over the rows of A and B zipped, each pair of rows one reduction with a pair
accumulator: a map of reductions over its own elements, which a work-group per row
(``rows.row_groups``) then takes as the hand-written kernel does.

The steps are basic rules applied in a fixed order until none applies (as
``rules.normalisation`` does): β and the inlining of a value used once (the library's helper
functions), compositions applied written as applications, then the fusions; last, each
reduction applied to a map written back as a composition (``(reduce f z ∘ map g) xs``, the
shape the reduction rules take). A map fused into another map only where that does not
compute anything twice. No proposal where no zip was fused.
"""

from __future__ import annotations

from collections import Counter

from ..expr import Apply, Compose, Expr, Lambda, Prim, TupleExpr, Var, subterm, walk
from ..layout import mapped_layout
from ..primitives.families import FOLDS
from ..rewriting.application import Rewrite, lookup_rule, rewrites
from ..rewriting.step import Step
from ..types import Type
from .rows import row_groups

# the widths of the vectors each reduction of the fused program is read in (on a CPU: PoCL's
# GESUMMV with both rows' reductions in float16s ran as fast as the hand-written kernel)
LANE_WIDTHS = (8, 16)
# the rules tried, in this order; the first that applies (outermost first) is taken
FUSING = ("β-reduction", "inline-once", "compose-apply", "zip-join", "map-join",
          "zip-map-fusion", "zip-reduce-fusion", "map-fusion-apply")
ZIP_RULES = frozenset({"zip-join", "zip-map-fusion", "zip-reduce-fusion"})
STEPS_LIMIT = 80  # a program's fusion takes a few dozen steps (GESUMMV's: 21)


def zip_fusion(expr: Expr, types: tuple[Type, ...], pairs: bool = True
               ) -> tuple[Expr, list[Step]] | None:
    """The program with its zips fused (``FUSING``, then the reductions composed with their
    maps: ``composed_reductions``) and the steps; None where no zip was fused. Without
    ``pairs``, reductions side by side are left as they are (each its own loop, which
    ``map-reduce-vectorize`` takes), not fused into one with a pair accumulator."""
    rules = FUSING if pairs else tuple(r for r in FUSING if r != "zip-reduce-fusion")
    current, steps, joined = expr, [], False
    for _ in range(STEPS_LIMIT):
        step = _next_fusion(current, types, rules)
        if step is None:
            break
        joined = joined or _joins_computations(step, current)
        current, steps = step.result, steps + [step.bare()]
    if not joined:
        return None
    composed, more = composed_reductions(current, types)
    return composed, steps + more


def fused_proposals(expr: Expr, types: tuple[Type, ...], rows: bool, lanes: bool,
                    widths: tuple[int, ...] | None = None) -> list[tuple[Expr, list[Step]]]:
    """What the guided search measures of the fused program (``fused_first``): its reductions
    side by side fused into one with a pair accumulator, and with ``rows`` that program's
    maps of reductions a work-group per row (``rows.row_groups``: one kernel, both rows'
    sums halved in local memory together), and the reductions left side by side, each a
    tree of the row's group read in float4s (a pair accumulator has no vectors); with
    ``lanes``, the reductions left side by side, each read in vectors of ``LANE_WIDTHS``
    lanes (those of the device's ``widths``). Each with its steps from ``expr``; none where
    no zip joins two computations."""
    found = []
    paired = zip_fusion(expr, types)
    if paired is not None:
        found.append(paired)
        if rows:
            found += [(e, paired[1] + more)
                      for e, more in row_groups(paired[0], types, widths)]
    side = zip_fusion(expr, types, pairs=False) if lanes or rows else None
    if side is not None and rows:  # float4 loads, each reduction a tree of the group
        found += [(e, side[1] + more) for e, more in
                  row_groups(side[0], types, widths, side_by_side=True)
                  if any(s.rule == "map-reduce-vectorize" for s in more)]
    if side is not None and lanes:
        for width in LANE_WIDTHS:
            if not widths or width in widths:
                vectorised = in_vectors(side[0], types, width)
                if vectorised is not None:
                    found.append((vectorised[0], side[1] + vectorised[1]))
    return found


def in_vectors(expr: Expr, types: tuple[Type, ...], width: int
               ) -> tuple[Expr, list[Step]] | None:
    """Every ``reduce f z ∘ map g`` of the program read in vectors of ``width`` lanes
    (``map-reduce-vectorize``, the last first), and the steps; None where none is."""
    current, steps = expr, []
    for _ in range(STEPS_LIMIT):
        found = [r for r in rewrites(current, *types,
                                     rules=[lookup_rule("map-reduce-vectorize")])
                 if r.params["n"].is_integer_constant and int(r.params["n"].value) == width]
        if not found:
            break
        current, steps = found[-1].result, steps + [found[-1].bare()]
    return (current, steps) if steps else None


def lane_sums_unrolled(expr: Expr, types: tuple[Type, ...]) -> tuple[Expr, list[Step]] | None:
    """A completed program with the sum of each vector's lanes (``reduceSeq f z ∘ joinVec``,
    what ``map-reduce-vectorize`` ends in) unrolled (``reduceSeq→reduceSeqUnroll``), and the
    steps; None where it has none. The loop over the lanes goes through private memory (the
    vector stored, then its lanes added one by one); written out, the lanes are read from
    the vector's register: on PoCL 3.1 GESUMMV at 512 rows, both rows' reductions in
    float16s, went from 0.86 to 0.88-0.94 times its hand-written kernel so (medians of
    interleaved rounds; 0.84 to 0.96 by the fastest runs)."""
    unroll = lookup_rule("reduceSeq→reduceSeqUnroll")
    current, steps = expr, []
    for path in sorted(_lane_sums(expr), reverse=True):  # the last first: the others stay
        found = [r for r in rewrites(current, *types, rules=[unroll], at=path) if r.path == path]
        if found:
            current, steps = found[0].result, steps + [found[0].bare()]
    return (current, steps) if steps else None


def _lane_sums(expr: Expr) -> list[tuple]:
    """The paths of the sequential reductions applied to a ``joinVec``'s result."""
    return [at + (i,) for at, node in walk(expr) if isinstance(node, Compose)
            for i, (f, g) in enumerate(zip(node.fns, node.fns[1:]))
            if _is_prim(f, "reduceSeq") and _is_prim(g, "joinVec")]


def _is_prim(f: Expr, name: str) -> bool:
    return isinstance(f, Prim) and f.name == name


def _joins_computations(step: Rewrite, before: Expr) -> bool:
    """Whether the step fuses computations through a zip: rows or reductions always, maps
    where one of them computes something (a map that only rearranges its elements, such as
    a stencil's neighbourhoods, is read as a view whether fused or not)."""
    if step.rule not in ZIP_RULES:
        return False
    if step.rule != "zip-map-fusion":
        return True
    return any(isinstance(a, Apply) and isinstance(a.fn, Prim) and a.fn.name == "map"
               and mapped_layout(a.fn) is None for a in subterm(before, step.path).args)


def _next_fusion(expr: Expr, types: tuple[Type, ...], names: tuple[str, ...]
                 ) -> Rewrite | None:
    """The first rewrite in the order of ``names`` (a map fused into another only where that
    computes nothing twice: ``_computes_once``)."""
    found = rewrites(expr, *types, rules=[lookup_rule(name) for name in names])
    for name in names:
        for r in found:
            if r.rule == name and (name != "map-fusion-apply" or
                                   _computes_once(subterm(expr, r.path))):
                return r
    return None


def _computes_once(node: Expr) -> bool:
    """Whether ``map f (map g xs)`` fused computes each part of ``g``'s result once: ``f``
    uses its element (or each component of a tuple that ``g`` computes) at most once, where
    that part is more than a variable or a component of one."""
    f, g = node.fn.args[0], node.args[0].fn.args[0]
    if not (isinstance(f, Lambda) and len(f.params) == 1 and isinstance(f.params[0], str)):
        return True  # applied once to each element
    whole, parts = _uses(f.body, f.params[0])
    result = g.body if isinstance(g, Lambda) else None
    if not isinstance(result, TupleExpr):
        return _plain(result) or whole + sum(parts.values()) <= 1
    return all(_plain(item) or whole + parts[k] <= 1 for k, item in enumerate(result.items))


def _uses(e: Expr, x: str) -> tuple[int, Counter]:
    """How often ``e`` uses ``x`` whole, and each of its components (``x.k``) by k (a lambda
    that binds ``x`` again hides it)."""
    if e == Var(x):
        return 1, Counter()
    if isinstance(e, Apply) and e.args == (Var(x),) and isinstance(e.fn, Prim) and \
            e.fn.name == "get":
        return 0, Counter({e.fn.args[0]: 1})
    if isinstance(e, Lambda) and x in e.names():
        return 0, Counter()
    whole, parts = 0, Counter()
    for child in e.children():
        w, p = _uses(child, x)
        whole, parts = whole + w, parts + p
    return whole, parts


def _plain(e: Expr | None) -> bool:
    """A variable or a component of one: nothing to compute again."""
    while isinstance(e, Apply) and isinstance(e.fn, Prim) and e.fn.name == "get":
        e = e.args[0]
    return isinstance(e, Var)


def composed_reductions(expr: Expr, types: tuple[Type, ...]) -> tuple[Expr, list[Step]]:
    """``f (g x) → (f ∘ g) x`` wherever the composition holds a reduction (``reduce f z
    (map g xs)`` → ``(reduce f z ∘ map g) xs``, and the map after it), until none is left:
    the form of a dot product the reduction rules and ``rows`` take."""
    current, steps = expr, []
    for _ in range(STEPS_LIMIT):
        step = next((r for r in rewrites(current, *types, rules=[lookup_rule("apply-compose")])
                     if _holds_a_reduction(subterm(r.result, r.path))), None)
        if step is None:
            break
        current, steps = step.result, steps + [step.bare()]
    return current, steps


def _holds_a_reduction(node: Expr) -> bool:
    """Whether the function ``node`` applies is a composition with a reduction in it."""
    fn = getattr(node, "fn", None)
    return isinstance(fn, Compose) and any(isinstance(f, Prim) and f.name in FOLDS
                                           for f in fn.fns)
