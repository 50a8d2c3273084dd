"""A reduction over an array shared by every element of a map, tiled through local memory
for the whole work-group (the all-pairs scheme of SkelCL's ``allpairs`` and of every fast
N-body code; CASES 2016 Sect. 5.2's local tiles, in one dimension):

- ``map-fold-interchange``: the map over the elements moves inside the sequential loop over
  the shared array, ``map (λp. reduceSeq f z ys) xs`` becoming one reduceSeq over ys whose
  accumulator holds every element's (the matrix-multiplication slides' reduce–map
  interchange, for an array the elements share rather than each their own);
- ``group-copy``: the element of such a loop (a tile of the shared array) copied into local
  memory by all the work-items of the group together, before the operator reads it (the
  code generator puts the barriers before and after);
- ``shared-tiling``: the whole scheme as one step: the elements in groups of L (a
  work-group each), the shared array walked in tiles of T, each tile copied to local
  memory by the group, each work-item reducing its own accumulator over the tile.
"""

from __future__ import annotations

from ..expr import Apply, Compose, Expr, Lambda, Prim, TupleExpr, Var, compose, substitute
from ..rewriting.macro import macro_rule
from ..rewriting.match import app, kind, lam, map_of, matches
from ..rewriting.strategies import (
    argument,
    at_site,
    body,
    element,
    find,
    fmap,
    function,
    last_element,
    left_choice,
    repeat,
    rule,
    seq,
    try_,
)
from ..sizes import Size
from ..types import ArrayType
from .builders import call, fresh, pair_operator, typed_literal
from .lambdas import plumbing
from .renaming import renaming
from .rule import BLOCKING, Refused, RuleParam, Site, basic_rule, powers_of_two_dividing, tagged

ALLPAIRS = "SkelCL allpairs (local tiles); CASES 2016 Sect. 5.2 (local memory)"

# --- the interchange of a map with a fold over a shared array ---------------------------------

_SHARED_FOLD = app(map_of(lam("p", "e", why="the map's function must be a lambda λp. …")), "xs",
                   why="it rewrites map (λp. (… ∘ reduceSeq f z ∘ …) ys) xs (a map applied to "
                       "an array)")


def _fold_split(e: Expr):
    """``(post, fold, pre, ys)`` for a body ``(post… ∘ reduceSeq f z ∘ pre…) ys`` (the
    rightmost sequential fold), or None."""
    match e:
        case Apply(Compose(fns), (ys,)):
            folds = [i for i, f in enumerate(fns) if isinstance(f, Prim) and f.name == "reduceSeq"]
            if folds:
                i = folds[-1]
                return fns[:i], fns[i], fns[i + 1:], ys
        case Apply(Prim("reduceSeq") as fold, (ys,)):
            return (), fold, (), ys
    return None


@basic_rule(
    "map-fold-interchange",
    "map (λp. (g ∘ reduceSeq f z ∘ h) ys) xs → map (λ(r, p). g r) (zip (transpose (reduceSeq "
    "(λ(accs, y). map (λ(acc, p). f (acc, y)) (zip accs xs)) (replicate n z) (h ys))) xs)",
    "algorithmic", f"{ALLPAIRS}; matrix-multiplication slides (reduce–map interchange)",
    doc="The fold every element p runs over the same array ys (which does not depend on p) "
        "becomes one fold over ys whose accumulator holds the n elements' accumulators: each "
        "step updates all of them with the same element of ys. What p does with its result "
        "(g) follows, zipped with the elements.")
@matches(_SHARED_FOLD)
def MAP_FOLD_INTERCHANGE(m, site: Site, p) -> Expr | Refused:
    x, e, xs = m.p, m.e, m.xs
    if not isinstance(x, str):
        return Refused("the map's parameter must be one name")
    parts = _fold_split(e)
    if parts is None:
        return Refused("the map's body must be a sequential fold applied to an array: "
                       "(… ∘ reduceSeq f z ∘ …) ys")
    post, fold, pre, ys = parts
    f, z = fold.args
    shared = compose(*pre, Prim("id")) if pre else None
    for what, part in (("array", ys), ("initial value", z)) + (
            (("functions before it", shared),) if shared is not None else ()):
        if x in part.free_vars():
            return Refused(f"the fold's {what} depends on {x}, the map's element: it is not "
                           f"shared by the elements")
    if not plumbing(xs):
        return Refused("the map's array must be a variable or a view of variables (it is "
                       "read twice)")
    result = site.typing.result if site.typing is not None else None
    if not isinstance(result, ArrayType):
        return Refused("the map's type is not known here")
    accs, y, acc = fresh("accs", e, xs), fresh("y", e, xs), fresh("acc", e, xs)
    step = Lambda(((acc, x),), call(f, TupleExpr((Var(acc), Var(y)))))
    op = Lambda(((accs, y),), Apply(Prim("map", (step,)), (Apply(Prim("zip"), (Var(accs),
                                                                                xs)),)))
    data = Apply(compose(*pre), (ys,)) if pre else ys
    init = Apply(Prim("replicate", (result.size,)), (typed_literal(z, site),))
    folded = Apply(Prim("transpose"), (Apply(Prim("reduceSeq", (op, init)), (data,)),))
    if not post:
        return folded
    r = fresh("r", e, xs)
    rest = Lambda(((r, x),), Apply(compose(*post), (Var(r),)))
    return Apply(Prim("map", (rest,)), (Apply(Prim("zip"), (folded, xs)),))


# --- the group's copy of a fold's element ----------------------------------------------------

def _pair_operator(f: Lambda) -> bool:
    """``λ(acc, x). e``, or ``λacc x. e`` (curried: taken as ``λ(acc, x). e`` where a fold
    applies it to one pair, ``pair_operator``)."""
    match f.params:
        case ((str(), str()),) | (str(), str()):
            return True
    return False


OPERATOR = kind(Lambda, name="op", why="it rewrites a fold's operator λ(acc, x). e").where(
    lambda m: _pair_operator(m.op), "it rewrites a fold's operator λ(acc, x). e")


def _element_type(site: Site):
    t = site.typing.args[0] if site.typing is not None and site.typing.args else None
    items = getattr(t, "items", None)
    return items[1] if items and len(items) == 2 else None


def _group_sizes(site: Site) -> list[Size]:
    t = _element_type(site)
    if not isinstance(t, ArrayType):
        return []
    return powers_of_two_dividing(t.size, 2, 1024, proper=False)


def group_copy(x: Expr, length: Size, items: Size) -> Expr:
    """``x`` (an array of ``length`` elements) copied into local memory by ``items``
    work-items, one element each a round."""
    if length == items:
        return Apply(Prim("toLocal", (Prim("mapLocal", (0, Prim("id"))),)), (x,))
    rounds = Prim("toLocal", (Prim("mapSeq", (Prim("mapLocal", (0, Prim("id"))),)),))
    return Apply(Prim("join"), (Apply(rounds, (Apply(Prim("split", (items,)), (x,)),)),))


@basic_rule(
    "group-copy",
    "λ(acc, x). e → λ(acc, x). (λt. e[t/x]) (toLocal (mapLocal id) x)   (in a mapWorkgroup)",
    "memory", f"{ALLPAIRS}; ICFP Fig. 7d",
    params=(RuleParam("l", "work-items of the group that copy it (each one element a round)",
                      _group_sizes),),
    doc="The element of a work-group's fold (a tile of an array all the group's work-items "
        "read) copied into local memory by the l work-items together, each step: the global "
        "memory is read once per group, not once per work-item.")
@matches(OPERATOR)
def GROUP_COPY(m, site: Site, p) -> Expr | Refused:
    node, items = pair_operator(m.op, site), p["l"]
    if node is None:
        return Refused("the curried λacc x. e is no fold's operator here (it is not applied "
                       "to one pair)")
    levels = [level for level, _ in site.context]
    if "workgroup" not in levels:
        return Refused("the fold is not inside a work-group's map (mapWorkgroup): no group "
                       "shares the copy")
    if levels[-1] != "workgroup":
        return Refused(f"the fold runs inside a {levels[-1]} map: each work-item has its own, "
                       f"the group cannot copy its element together")
    t = _element_type(site)
    if not isinstance(t, ArrayType):
        return Refused("the fold's element is not an array (a tile to copy)")
    if t.size.divisible_by(items) is False:
        return Refused(f"{items} work-items do not divide the tile's {t.size} elements")
    _, x = node.params[0]
    if x not in node.body.free_vars():
        return Refused(f"the operator does not read {x}")
    t_name = fresh("tile", node.body, Var(x))
    inner = Lambda((t_name,), substitute(node.body, x, Var(t_name)))
    return Lambda(node.params, Apply(inner, (group_copy(Var(x), t.size, items),)))


# --- a work-item's fold over a tile, unrolled ---------------------------------------------------

TILE_UNROLL_LIMIT = 256  # the code generator writes out at most this many copies of a body
TILE_SIZES = (32, 64, 128, 256)  # the macro's tiles (T): a warp to a large work-group


def _tile_fold(site: Site) -> Refused | None:
    """A work-item's fold (inside a local map) over a tile of known length, at most
    ``TILE_UNROLL_LIMIT``."""
    levels = [level for level, _ in site.context]
    if "local" not in levels:
        return Refused("the fold is not a work-item's (inside a mapLocal): no tile of a "
                       "work-group")
    t = site.input
    if not isinstance(t, ArrayType) or not t.size.is_integer_constant:
        return Refused("the tile's length is not a known number")
    if int(t.size.value) > TILE_UNROLL_LIMIT:
        return Refused(f"a tile of {t.size} elements: at most {TILE_UNROLL_LIMIT} are "
                       f"written out")
    return None


TILE_UNROLL = renaming(
    "reduceSeq", "reduceSeqUnroll", "f z", "opencl", f"{ALLPAIRS}; Lift unrolled patterns",
    name="tile-unroll", note=f"   (a work-item's fold over a tile, length ≤ {TILE_UNROLL_LIMIT})",
    condition=_tile_fold,
    doc="Each work-item's fold over the tile its group copied, as straight-line code: its "
        "reads of the tile at constant offsets, and the interactions of successive elements "
        "(independent but for the accumulator) free to interleave (N-body on an H200: 12.4 "
        "to 14.2 TFLOP/s unrolled, 9.0 as a loop). Longer than reduceSeq→reduceSeqUnroll "
        "allows: a tile is as long as a work-group is wide.")


# --- the whole scheme ------------------------------------------------------------------------

def _shared_fold_at(n: Expr) -> bool:
    """A reduceSeq whose operator maps over the zip of its accumulators (what
    map-fold-interchange makes)."""
    return (isinstance(n, Prim) and n.name == "reduceSeq" and isinstance(n.args[0], Lambda)
            and isinstance(n.args[0].body, Apply) and isinstance(n.args[0].body.fn, Prim)
            and n.args[0].body.fn.name in ("map", "mapLocal"))


def _chunked(tile: Size):
    """At a map's body ``(… ∘ reduce f z ∘ map g) ys``: the reduction in tiles of ``tile``
    (reduce-split), the map moved into each tile and fused into the loop over tiles."""
    into_tiles = seq(
        function(last_element("map", rule("split-join", n=tile))),         # ICFP 6c
        function(element("split", rule("split-join-cancel"))),             # ICFP 6e
        function(element("reduceSeq", rule("reduce-map-fusion"))))         # ICFP 6f
    return seq(
        repeat(rule("apply-compose"), limit=8),
        function(left_choice(element("reduce", rule("reduce-split", s=tile)),
                             element("reduceSeq", rule("reduce-split", s=tile)))),
        try_(into_tiles))


def operator(s):
    """``s`` at the operator of the fold at the focus (the first lambda below it, in
    pre-order: its operator comes before its initial value and its array)."""
    return find(lambda n: isinstance(n, Lambda) and _pair_operator(n), s,
                what="the fold's operator λ(acc, x). e")


def _mapped_tile(n: Expr) -> bool:
    """``reduceSeq f acc (map g t)``: a fold of a mapped tile (composed next, so that the code
    generator fuses the map into the loop)."""
    return (isinstance(n, Apply) and isinstance(n.fn, Prim) and n.fn.name == "reduceSeq"
            and len(n.args) == 1 and isinstance(n.args[0], Apply)
            and isinstance(n.args[0].fn, Prim) and n.args[0].fn.name == "map")


def shared_tiling(p):
    tile, items = p.get("t"), p.get("l")

    def build(site: Site):
        bad = _SHARED_FOLD.refusal(site)  # the shape first, as the left-hand side says it
        if bad is None and (tile is None or items is None):
            bad = Refused("give the tile's length t and the group's work-items l")
        bad = bad or _refusal(site, tile, items)
        if bad is not None:
            return bad
        in_group = seq(
            function(fmap(body(_chunked(tile)))),                           # tiles of T
            rule("map-fold-interchange"),                                   # the loop outside
            find(_shared_fold_at, operator(body(function(rule("map→mapLocal", dim=0))))),
            find(_shared_fold_at, operator(rule("group-copy", l=items))),   # the group's copy
            try_(function(rule("map→mapLocal", dim=0))),                    # what follows
            try_(find(_mapped_tile, rule("apply-compose"))))
        return seq(
            function(rule("split-join", n=items)),                          # groups of L
            rule("compose-apply"),
            argument(function(rule("eta"))),
            argument(function(rule("map→mapWorkgroup", dim=0))),
            argument(function(fmap(body(in_group)))))
    return at_site(build)


def _refusal(site: Site, tile: Size, items: Size) -> Refused | None:
    t = site.typing.result if site.typing is not None else None
    if isinstance(t, ArrayType) and t.size.divisible_by(items) is False:
        return Refused(f"groups of {items} do not divide the {t.size} elements")
    if tile.divisible_by(items) is False:
        return Refused(f"{items} work-items do not divide tiles of {tile} (each copies one "
                       f"element a round)")
    if site.context:
        return Refused("the map is inside another parallel map: it must be the kernel's "
                       "outermost")
    return None


def _tile_sizes(site: Site) -> list[Size]:
    return [Size.const(n) for n in TILE_SIZES]


def _group_items(site: Site) -> list[Size]:
    t = site.typing.result if site.typing is not None else None
    return powers_of_two_dividing(t.size if isinstance(t, ArrayType) else None, 32, 256)


SHARED_TILING = macro_rule(
    "shared-tiling",
    "map (λp. (g ∘ reduce f z ∘ map (h p)) ys) xs → join (mapWorkgroup (λps. mapLocal (λ(r, p)."
    " g r) (zip (transpose (reduceSeq (λ(accs, c). (λt. mapLocal (λ(acc, p). at 0 (reduceSeq "
    "… acc (map (h p) t))) (zip accs ps)) (toLocal (mapLocal id) c)) (replicate L z) (split T "
    "ys))) ps)) (split L xs))", ALLPAIRS, shared_tiling,
    params=(RuleParam("t", "elements of the shared array per tile (T)", _tile_sizes),
            RuleParam("l", "work-items per group (L), each one element of xs", _group_items)),
    lhs=_SHARED_FOLD,
    doc="All-pairs tiling as one step: split-join, eta, reduce-split, split-join, "
        "split-join-cancel, reduce-map-fusion, map-fold-interchange, group-copy, the maps "
        "lowered to mapWorkgroup and mapLocal. Each work-group of L work-items walks the "
        "shared array in tiles of T, copies each tile into local memory together (barriers "
        "before and after), and each work-item folds its own accumulator over the tile.")

RULES = [tagged(MAP_FOLD_INTERCHANGE, BLOCKING), tagged(GROUP_COPY, BLOCKING),
         tagged(TILE_UNROLL, BLOCKING), tagged(SHARED_TILING, BLOCKING)]
