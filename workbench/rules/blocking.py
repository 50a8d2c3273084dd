"""The four macro rules of CASES 2016 for matrix multiplication: 1-D blocking, 2-D blocking,
tiling and tiling of the innermost loop (Lift's apply1DRegisterBlocking,
apply2DRegisterBlocking, tileMapMap and finishTiling). Each is one step of a derivation
and a strategy over basic rules (``interchange``, ``algorithmic``) whose steps ``expand``
lists: the slides' "register blocking as a series of rewrites".

A macro first rewrites its site into the form its optimisation needs (moving a ``join``
out of a map, η-expanding, turning compositions into applications), then applies the
rewrites that block or tile. It names the places it rewrites by what they are (the body of
a lambda, the function a map applies, the reduction among a composition's functions),
never by number. It works on a copy of the site (``rewriting.macro``), so its steps can be
replayed anywhere; when a basic step does not apply, the macro is refused with that
step's number, rule, place and reason.

- **1-D blocking (k)** at ``map (λa. map (λb. R a b) ys) xs`` (R a reduction): k rows at a
  time; the column loop runs over the k rows together, reducing into an array of k.
- **2-D blocking (k, l)**: k rows and l columns at a time; the accumulator is a k×l block.
- **tiling (m, n)** at ``map (λa. map (λb. e) ys) xs``: the output in m×n tiles
  (``untile``), each tile's rows and columns as two inner maps.
- **tiling of the innermost loop (s)** at two nested maps whose body reduces (the maps of a
  tile): the reduction in chunks of s, the loop over chunks outside both maps, its
  accumulator the whole tile.
"""

from __future__ import annotations

from ..expr import Apply, Compose, Expr, Prim, walk
from ..layout import mapped_layout
from ..primitives.families import FOLDS
from ..rewriting.macro import macro_rule
from ..rewriting.match import app, composed, kind, lam, map_of, prim
from ..rewriting.strategies import (
    State,
    Strategy,
    applied_function,
    argument,
    body,
    check,
    element,
    find,
    fmap,
    function,
    next_function,
    optional,
    parent,
    previous_function,
    rule,
    seq,
    shown,
)
from ..sizes import Size
from ..types import ArrayType
from .rule import Refused, RuleParam, Site, powers_of_two_dividing

# --- recognising the parts of a program -------------------------------------------------------

REDUCTION = prim(FOLDS)
ZIP = app(prim("zip"), rest="_")
MAP = prim("map")
MAP_OVER = app(MAP, "_")  # map f xs
LAMBDA_MAP = map_of(lam("_"))  # map (λx. e)
# λa. map (λb. e) ys, ys not depending on a
INDEPENDENT_INNER_MAP = lam("a", app(map_of(lam("_")), "ys")).where(
    lambda m: m.a not in m.ys.free_vars(), "the inner map's array depends on {a}")
MAP_MAP = map_of(MAP)
TRANSPOSE = prim("transpose")
REDUCTION_OF_MAP = app(REDUCTION, MAP_OVER)
REDUCTION_OF_ZIP = app(REDUCTION, ZIP)
TRANSPOSED_ZIP_MAP = app(TRANSPOSE, app(map_of(lam("_", ZIP)), "_"))
# map f (map g xs) where both maps compute (maps of layouts are views)
COMPUTED_MAP_OF_MAP = app(prim("map", name="f"), app(prim("map", name="g"), "_")).where(
    lambda m: mapped_layout(m.f) is None and mapped_layout(m.g) is None, "a map of a layout")
MAP_ZIP_OF_MAP = app(MAP, app(prim("zip"), rest="arrays")).where(
    lambda m: any(MAP_OVER.fits(a) for a in m.arrays), "no argument of the zip is a map")

map_over, lambda_map = MAP_OVER.fits, LAMBDA_MAP.fits


def _reduces(e: Expr) -> bool:
    return any(REDUCTION.fits(n) for _, n in walk(e))


# --- the shared parts of the strategies ----------------------------------------------------------

def enable(name: str) -> Strategy:
    """Move the layout primitives applied last out of the map at the focus (``map (λa. join
    (map …))`` → ``map join ∘ map (λa. map …)``), writing a composition applied to one array
    as applications first; the focus ends at the map left to block."""

    def run(state: State):
        for _ in range(16):
            node = state.node
            if not lambda_map(node):
                return Refused(f"{name}: it rewrites a map of a lambda, not {shown(node)}")
            match node.args[0].body:
                case inner if map_over(inner):
                    return state
                case Apply(Compose(), (_,)) as inner if _reaches_map(inner):
                    state = fmap(body(rule("compose-apply")))(state)
                case Apply(f, (arg,)) if _layout(f) and _reaches_map(arg):
                    state = seq(rule("map-fission", at=1), next_function())(state)
                case _:
                    return state
            if isinstance(state, Refused):
                return state
        return state

    return run


def _layout(f: Expr) -> bool:
    return isinstance(f, Prim) and f.decl.layout is not None


def _reaches_map(e: Expr) -> bool:
    """``e`` is a map applied to an array, seen through layout primitives."""
    while not map_over(e):
        match e:
            case Apply(Compose(fns), (_,)):  # layouts, then a map: (join ∘ map f ∘ split n) ys
                first = next((f for f in fns if not _layout(f)), None)
                return first is not None and MAP.fits(first)
            case Apply(f, (arg,)) if _layout(f):
                e = arg
            case _:
                return False
    return True


def split_rows(k: Size) -> Strategy:
    """split-join and η on the map at the focus; the focus ends at ``map F xs`` (the map over
    one chunk, inside the lambda over chunks)."""

    def run(state: State):
        f = state.node.args[0]
        inside = bool(state.focus) and isinstance(parent()(state).node, Compose)
        chunks = find(lambda n: MAP_MAP.fits(n) and n.args[0].args[0] is f,
                      what="the map of chunks")
        return seq(rule("split-join", n=k), *([parent()] if inside else []), chunks,
                   rule("eta"), fmap(), body())(state)

    return run


def pull_reduction(name: str) -> Strategy:
    """At ``map (λx. … reduce f z (… zip …)) xs`` (the focus): the reduction moved out of the
    map, its accumulator an array of the map's length, the map's other work fused into it."""
    fission = rule("map-fission", at=1)

    def separate(state: State):
        # fission until the map of the lambda keeps only the zip it reads
        for _ in range(8):
            last = _functions(state)[-1]
            if not lambda_map(last) or ZIP.fits(last.args[0].body):
                break
            state = applied_function(_last, fission)(state)
            if isinstance(state, Refused):
                return state
            while _first_map_of_composition(_functions(state)) is not None:
                state = applied_function(_first_map_of_composition, fission)(state)
                if isinstance(state, Refused):
                    return state
        return state

    def transpositions(state: State):
        # maps of maps after the reduction: transposed through, the transpositions cancel
        while _map_map_after_transpose(_functions(state)) is not None:
            state = applied_function(_map_map_after_transpose, seq(
                rule("transpose-map-map"), previous_function(rule("transpose-transpose"))))(
                state)
            if isinstance(state, Refused):
                return state
        return state

    def run(state: State):
        if _reduction(_functions(state)) is None:
            return Refused(f"{name}: no reduction to move out of the map (map (reduce f z) "
                           f"after fission)")
        return applied_function(_reduction, rule("map-reduce-interchange"))(state)

    def as_application(state: State):
        if isinstance(state.node.fn, Compose):
            return rule("compose-apply")(state)
        return state

    return seq(
        separate, run, transpositions, as_application,
        # transpose (map (λx. zip …) xs): the zip of the transposed rows
        find(TRANSPOSED_ZIP_MAP.fits, rule("zip-transpose"), what="the zip the reduction reads"),
        _repeat_while(COMPUTED_MAP_OF_MAP.fits, rule("map-fusion-apply")),
        optional(REDUCTION_OF_MAP.fits, seq(rule("apply-compose"),
                                        function(element(REDUCTION.fits,
                                                         rule("reduce-map-fusion"))))),
        optional(MAP_ZIP_OF_MAP.fits, rule("map-zip-fusion")))


def _repeat_while(pred, s: Strategy) -> Strategy:
    """``s`` at the first node that satisfies ``pred``, as long as there is one."""

    def run(state: State):
        while any(pred(node) for _, node in walk(state.node)):
            state = find(pred, s)(state)
            if isinstance(state, Refused):
                return state
        return state

    return run


def _functions(state: State) -> tuple[Expr, ...]:
    """The functions of ``(f ∘ g ∘ …) xs`` (or ``f xs``) at the focus, outermost first."""
    fn = state.node.fn
    return fn.fns if isinstance(fn, Compose) else (fn,)


def _last(fns) -> int:
    return len(fns) - 1


def _first(pattern):
    """Which of the functions is the first of the pattern's shape (None: none is)."""
    return lambda fns: next((i for i, fn in enumerate(fns) if pattern.fits(fn)), None)


_first_map_of_composition = _first(map_of(kind(Compose)))
_reduction = _first(map_of(REDUCTION))  # the map of a reduction among the functions


def _map_map_after_transpose(fns) -> int | None:
    """The first map of maps past the function after the reduction, when a transpose comes
    before it."""
    names = [_name(fn) for fn in fns]
    start = _reduction_index(names) + 2
    found = next((j for j in range(start, len(fns)) if names[j] == "map-map"), None)
    return found if found is not None and names[found - 1] == "transpose" else None


def _name(fn: Expr) -> str:
    if TRANSPOSE.fits(fn):
        return "transpose"
    if REDUCTION.fits(fn):
        return "reduce"
    if MAP_MAP.fits(fn):
        return "map-map"
    return "other"


def _reduction_index(names: list[str]) -> int:
    return names.index("reduce") if "reduce" in names else len(names)


# --- the four macros ------------------------------------------------------------------------------

def block_rows(name: str, k: Size) -> Strategy:
    """1-D blocking of the map at the focus."""

    def interchange(state: State):
        # map (λa. R) xs, inside the interchanged map
        if INDEPENDENT_INNER_MAP.fits(state.node.fn.args[0]):
            return seq(rule("map-interchange"), argument(), function(), fmap(), body())(state)
        return state

    return seq(enable(name),
               check(lambda n: _reduces(n.args[0]),
                     f"{name}: the map computes no reduction whose accumulator could hold a "
                     f"block"),
               split_rows(k), interchange, pull_reduction(name))


def innermost_map(node: Expr) -> bool:
    """A map whose body reduces, with no other such map inside it (the column loop left
    after blocking the rows)."""
    if not (lambda_map(node) and _reduces(node.args[0].body)):
        return False
    return not any(lambda_map(m) and _reduces(m.args[0].body)
                   for _, m in walk(node.args[0].body))


def one_d_blocking(p) -> Strategy:
    return block_rows("1d-blocking", p["k"])


def two_d_blocking(p) -> Strategy:
    """The columns blocked by l, then the rows by k: the accumulator is k rows of l
    columns, its rows outermost (each row of the block is l neighbouring elements)."""
    name = "2d-blocking"

    def columns(state: State):
        if not lambda_map(state.node):
            return Refused(f"{name}: it rewrites a map of a lambda, not {shown(state.node)}")
        return fmap(body(find(innermost_map, block_rows(name, p["l"]), missing=(
            f"{name}: no map over columns inside the map over rows"))))(state)

    return seq(columns, block_rows(name, p["k"]))


def tiling(p) -> Strategy:
    name = "tiling"
    return seq(
        enable(name),
        check(lambda n: INDEPENDENT_INNER_MAP.fits(n.args[0]),
              f"{name}: it tiles two nested maps over independent arrays: "
              f"map (λa. map (λb. e) ys) xs"),
        split_rows(p["m"]),                      # the focus: map F xs, F = λa. map (λb. e) ys
        function(fmap(body(seq(function(rule("split-join", n=p["n"])),
                               rule("compose-apply"))))),
        function(rule("map-fission", at=1)),
        function(next_function(fmap(body(function(rule("eta")))))),
        rule("compose-apply"),
        argument(rule("map-interchange")),
        # join ∘ map (λas. map join (transpose …)) ∘ split m  →  untile ∘ map (λas. …) ∘ split m
        parent(), parent(),                      # the map over chunks of rows
        rule("map-fission", at=1),
        next_function(rule("map-fission", at=1)),
        rule("map-fusion"),
        previous_function(rule("untile")))


def innermost_tiling(p) -> Strategy:
    name = "innermost-tiling"
    chunked = seq(                               # at reduceSeq f z (zip x y)
        function(rule("reduce-split", s=p["s"])),
        rule("compose-apply"),
        argument(rule("split-zip")),
        rule("apply-compose"),
        function(element(REDUCTION.fits, rule("reduce-map-fusion"))))
    return seq(
        check(app(map_of(INDEPENDENT_INNER_MAP), "_").fits,
              f"{name}: it tiles the reduction inside two nested maps over independent "
              f"arrays: map (λa. map (λb. … reduce …) ys) xs"),
        check(lambda n: _reduces(n.fn.args[0].body), f"{name}: the maps compute no reduction"),
        function(fmap(body(seq(                  # map (λb. R) ys
            function(fmap(body(seq(_fold_over_zip(name), chunked)))),
            pull_reduction(name))))),
        pull_reduction(name))


def _fold_over_zip(name: str) -> Strategy:
    """Inside the body at the focus: the focus on ``reduceSeq f z`` applied to ``zip x y`` (a
    reduction fused with the map before it first)."""
    return seq(
        optional(composed(REDUCTION, MAP).fits, element(REDUCTION.fits,
                                                        rule("reduce-map-fusion"))),
        find(REDUCTION_OF_ZIP.fits,
             missing=f"{name}: no reduction of a zip (reduce f z (zip x y)) inside the maps"))


def _sizes(which: str):
    """Block and tile sizes worth trying: powers of two dividing the lengths they cut."""
    def candidates(site: Site) -> list[Size]:
        t = site.typing.args[0] if site.typing is not None and site.typing.args else None
        if which == "rows" and isinstance(t, ArrayType):
            return powers_of_two_dividing(t.size, 2, 64)
        return [Size.const(2 ** i) for i in range(1, 7)]
    return candidates


BLOCKING_1D = macro_rule(
    "1d-blocking", "map (λa. map (λb. R a b) ys) xs → join (map (λas. transpose (map (λb. "
    "transpose (reduceSeq (λ(acc, p). map … (zip acc p.0)) (replicate k z) (zip (transpose "
    "as) b))) ys)) (split k xs))", "CASES 2016 Sect. 5.1; slides (register blocking)",
    one_d_blocking, (RuleParam("k", "rows per block", _sizes("rows")),),
    doc="split-join, η, map interchange, map fission, reduce–map interchange, transpositions, "
        "zip-transpose, map fusion, reduce–map fusion, map–zip fusion.")

BLOCKING_2D = macro_rule(
    "2d-blocking", "map (λa. map (λb. R a b) ys) xs → … reduceSeq over a k×l block …",
    "CASES 2016 Sect. 5.1; Lift apply2DRegisterBlocking", two_d_blocking,
    (RuleParam("k", "rows per block", _sizes("rows")),
     RuleParam("l", "columns per block", _sizes("columns"))),
    doc="1-D blocking of the columns, then of the rows: the accumulator is a block of k rows "
        "of l columns.")

TILING = macro_rule(
    "tiling", "map (λa. map (λb. e) ys) xs → untile (map (λas. map (λbs. map (λa. map (λb. "
    "e) bs) as) (split n ys)) (split m xs))", "CASES 2016 Sect. 5.1; slides (Tile, Untile)",
    tiling, (RuleParam("m", "rows per tile", _sizes("rows")),
             RuleParam("n", "columns per tile", _sizes("columns"))),
    doc="split-join on both maps, map interchange, map fission and fusion, untile.")

INNERMOST_TILING = macro_rule(
    "innermost-tiling", "map (λa. map (λb. reduce … (zip a b)) bs) as → reduceSeq (λ(acc, "
    "x). map (λ(r, a). map (λ(c, b). reduceSeq … c (zip a b)) (zip r x.1)) (zip acc x.0)) … "
    "(zip (transpose (map (split s) as)) (transpose (map (split s) bs)))",
    "CASES 2016 Sect. 5.1; Lift finishTiling", innermost_tiling,
    (RuleParam("s", "elements of the reduction per chunk", _sizes("chunk")),),
    doc="The reduction in chunks of s (reduce-split, split-zip), its loop over chunks moved "
        "out of both maps (reduce–map interchange twice): the slides' TiledMultiply.")

RULES = [BLOCKING_1D, BLOCKING_2D, TILING, INNERMOST_TILING]
