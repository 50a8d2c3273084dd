"""The basic rules of register blocking and tiling (the matrix-multiplication slides'
"register blocking as a series of rewrites"; CASES 2016 Sect. 4): map interchange, map
fission, the interchange of a map with a reduction (whose accumulator becomes an array),
transpositions, the fusion of a reduction with the map before it, fusion into a zip, the
splitting of a reduction into chunks, 2-D split/join (``tile``/``untile``), and the small
steps that move between applied and composed forms (η and β, from ``lambdas``, are listed
with them as ``eta`` and ``beta``).

Each equation is an identity of the reference semantics and is property-tested in
``tests/test_rules.py``; each left-hand side is a pattern (``rewriting.match``), and a rule refuses
(with the reason) where the pattern or a side condition — a variable that must not occur,
a size that must divide — does not hold.
"""

from __future__ import annotations

from ..expr import (
    Apply,
    Compose,
    Expr,
    Lambda,
    Lit,
    Prim,
    TupleExpr,
    Var,
    compose,
    substitute,
)
from ..primitives.families import FOLDS
from ..rewriting.match import (
    app,
    array_length,
    composed,
    divides,
    lam,
    map_of,
    matches,
    pair,
    prim,
)
from ..sizes import Size
from ..types import ArrayType
from .builders import call, fresh, project, typed_literal
from .lambdas import BETA_NAMED_BETA, ETA_EXPANSION
from .rule import Refused, RuleParam, Site, basic_rule, powers_of_two_dividing

SLIDES = "matrix-multiplication slides (register blocking)"


# --- map interchange -------------------------------------------------------------------------

_INNER_MAP = app(map_of(lam("b", "e", why="the inner map's function must be a lambda λb. …")),
                 "ys", why="the outer map's body must be a map applied to an array: "
                           "λa. map (λb. e) ys")


@basic_rule(
    "map-interchange",
    "map (λa. map (λb. f a b) ys) xs → transpose (map (λb. map (λa. f a b) xs) ys)",
    "algorithmic", SLIDES,
    doc="Swap two nested maps over independent arrays (the slides' "
        "Map(a ⇒ Map(b ⇒ f(a, b))) → Transpose() ∘ Map(b ⇒ Map(a ⇒ f(a, b))), with the "
        "arrays written out).")
@matches(app(map_of(lam("a", _INNER_MAP, why="the outer map's function must be a lambda λa. …")),
             "xs", why="it rewrites map (λa. map (λb. e) ys) xs (a map applied to an array)")
         .where(lambda m: m.a not in m.ys.free_vars(),
                "the inner map's array depends on {a}, the outer map's variable"))
def MAP_INTERCHANGE(m, site: Site, p) -> Expr:
    a, b, e, xs, ys = m.a, m.b, m.e, m.xs, m.ys
    if b in xs.free_vars():  # λb would capture it
        new_b = fresh(b, e, xs, ys)
        e, b = substitute(e, b, Var(new_b)), new_b
    swapped = Apply(Prim("map", (Lambda((b,), Apply(Prim("map", (Lambda((a,), e),)),
                                                     (xs,))),)), (ys,))
    return Apply(Prim("transpose"), (swapped,))


# --- map fission -----------------------------------------------------------------------------

def _fission_cuts(site: Site) -> list:
    match site.node:
        case Prim("map", (Compose(fns),)):
            return [Size.const(k) for k in range(1, len(fns))]
        case Prim("map", (Lambda((str(),), _),)):
            return [Size.const(1)]
    return []


@basic_rule(
    "map-fission", "map (f ∘ g) → map f ∘ map g   (also map (λx. f e) → map f ∘ map (λx. e))",
    "algorithmic", f"{SLIDES}; Futhark G4 (ICFP Fig. 6f, reversed)",
    params=(RuleParam("at", "how many functions of the composition the outer map keeps "
                     "(1 for a lambda)", _fission_cuts, kind="int"),))
@matches(map_of(why="it rewrites a high-level map f"))
def MAP_FISSION(m, site: Site, p) -> Expr | Refused:
    k = int(p["at"])
    match m.f:
        case Compose(fns):
            if not 1 <= k < len(fns):
                return Refused(f"the cut is between two of the {len(fns)} functions: 1 to "
                               f"{len(fns) - 1}, not {k}")
            return compose(Prim("map", (compose(*fns[:k]),)),
                           Prim("map", (compose(*fns[k:]),)))
        case Lambda((str(x),), body):
            if k != 1:
                return Refused(f"a lambda λx. g e is cut once (at 1), not at {k}")
            if not (isinstance(body, Apply) and len(body.args) == 1):
                return Refused("the lambda's body must apply a function to one value: λx. g e")
            g, (e,) = body.fn, body.args
            if x in g.free_vars():
                return Refused(f"the function applied last, {g}, depends on {x}")
            return compose(Prim("map", (g,)), Prim("map", (Lambda((x,), e),)))
    return Refused("the function must be a composition f ∘ g or a lambda λx. g e")


# --- the interchange of a map with a reduction ------------------------------------------------

@basic_rule(
    "map-reduce-interchange",
    "map (reduce f z) → transpose ∘ reduce (λ(acc, x). map f (zip acc x)) (replicate n z) "
    "∘ transpose", "algorithmic", SLIDES,
    doc="n reductions of m elements become one reduction of m arrays of n elements: its "
        "accumulator is an array (a register block). The slides leave the transposition "
        "of the input and the initial value implicit. Also for reduceSeq (Futhark G5).")
@matches(map_of(prim(FOLDS, "f", "z", name="reduction"),
                why="it rewrites map (reduce f z) or map (reduceSeq f z)"))
def MAP_REDUCE_INTERCHANGE(m, site: Site, p) -> Expr | Refused:
    f, z = m.f, m.z
    n = array_length(site)
    if n is None:
        return Refused("the input length is not known here")
    acc, x = fresh("acc", f, z), fresh("x", f, z)
    op = Lambda(((acc, x),), Apply(Prim("map", (f,)), (Apply(Prim("zip"), (Var(acc),
                                                                            Var(x))),)))
    init = Apply(Prim("replicate", (n,)), (typed_literal(z, site),))
    return compose(Prim("transpose"), Prim(m.reduction.name, (op, init)), Prim("transpose"))


# --- transpositions ---------------------------------------------------------------------------

MAP_OF_MAP = map_of(map_of(), why="it rewrites map (map f)")


@basic_rule(
    "transpose-map-map", "map (map f) → transpose ∘ map (map f) ∘ transpose", "algorithmic",
    SLIDES)
@matches(MAP_OF_MAP)
def TRANSPOSE_MAP_MAP(m, site: Site, p) -> Expr:
    return compose(Prim("transpose"), site.node, Prim("transpose"))


@basic_rule(
    "transpose-transpose", "transpose ∘ transpose → id", "simplification", SLIDES,
    pair=True)
@matches(pair(prim("transpose"), prim("transpose"), why="it rewrites transpose ∘ transpose"))
def TRANSPOSE_TRANSPOSE(m, site: Site, p) -> list:
    return []


# --- fusion -----------------------------------------------------------------------------------

@basic_rule(
    "reduce-map-fusion", "reduce f z ∘ map g → reduceSeq (λ(acc, x). f (acc, g x)) z",
    "algorithmic", SLIDES + "; ICFP Fig. 6f", pair=True,
    doc="The fused operator takes an accumulator and an element of another type, so the "
        "reduction is a sequential fold (reduceSeq) from here on.")
@matches(pair(prim(FOLDS, "f", "z"), map_of("g"), why="it rewrites reduce f z ∘ map g"))
def REDUCE_MAP_FUSION(m, site: Site, p) -> list:
    f, z, g = m.f, m.z, m.g
    acc, x = fresh("acc", f, g, z), fresh("x", f, g, z)
    body = call(f, TupleExpr((Var(acc), call(g, Var(x)))))
    return [Prim("reduceSeq", (Lambda(((acc, x),), body), z))]


_MAPPED = app(map_of("g"), "ys")


@basic_rule(
    "map-zip-fusion",
    "map f (zip xs (map g ys)) → map (λq. f (q.0, g q.1)) (zip xs ys)", "algorithmic",
    SLIDES + " (map fusion through a zip)")
@matches(app(map_of(), app(prim("zip"), rest="arrays", name="zipped",
                           why="the map's array must be a zip"),
             why="it rewrites map f (zip … (map g ys) …)"))
def MAP_ZIP_FUSION(m, site: Site, p) -> Expr | Refused:
    f, args = m.f, list(m.arrays)
    k = next((i for i, a in enumerate(args) if _MAPPED.fits(a)), None)
    if k is None:
        return Refused("no argument of the zip is a map g ys")
    mapped = _MAPPED.match(args[k])
    g, ys = mapped.g, mapped.ys
    q = fresh("q", f, m.zipped)
    items = tuple(call(g, project(Var(q), i)) if i == k else project(Var(q), i)
                  for i in range(len(args)))
    args[k] = ys
    return Apply(Prim("map", (Lambda((q,), call(f, TupleExpr(items))),)),
                 (Apply(Prim("zip"), tuple(args)),))


@basic_rule(
    "map-fusion-apply", "map f (map g xs) → map (λx. f (g x)) xs", "algorithmic",
    SLIDES + "; ICFP Fig. 6f",
    doc="Map fusion on an applied map (the slides' Map(f) ∘ Map(g) → Map(f ∘ g)), the "
        "composition of the two functions written out.")
@matches(app(map_of(), app(map_of("g"), "xs", why="the array must itself be a map: "
                                                  "map f (map g xs)"),
             why="it rewrites map f (map g xs)"))
def MAP_FUSION_APPLY(m, site: Site, p) -> Expr:
    f, g, xs = m.f, m.g, m.xs
    x = fresh("x", f, g)
    return Apply(Prim("map", (Lambda((x,), call(f, call(g, Var(x)))),)), (xs,))


# --- zips and transpositions -------------------------------------------------------------------

_ZIPPING = lam("x", app(prim("zip"), "first", "second",
                        why="the map's function must zip two arrays: λx. zip c (e x)"),
               name="fn", why="the map's function must be a lambda λx. zip …")


@basic_rule(
    "zip-transpose",
    "transpose (map (λx. zip c (e x)) xs) → map (λp. map (λv. (p.0, v)) p.1) "
    "(zip c (transpose (map e xs)))", "algorithmic", "Lift (mapMapTransposeZip)",
    doc="The array zipped with every element of xs is zipped once, with the transposed "
        "rest (so that it is read once per step of a reduction, not once per element).")
@matches(app(prim("transpose"), app(map_of(_ZIPPING), "xs", why="the transposed array must be "
                                                               "a map applied to an array"),
             why="it rewrites transpose (map (λx. zip c (e x)) xs)"))
def ZIP_TRANSPOSE(m, site: Site, p) -> Expr | Refused:
    fn, x, xs, first, second = m.fn, m.x, m.xs, m.first, m.second
    if x not in first.free_vars():
        fixed, varying, k = first, second, 1
    elif x not in second.free_vars():
        fixed, varying, k = second, first, 0
    else:
        return Refused(f"both arrays of the zip depend on {x}")
    # transpose (map (λx. zip c (e x)) xs)[j][i] = (c[j], e(xs[i])[j])
    pv, v = fresh("p", fn, xs), fresh("e", fn, xs)
    pair_ = (project(Var(pv), 0), Var(v)) if k == 1 else (Var(v), project(Var(pv), 1))
    inner_map = Apply(Prim("map", (Lambda((v,), TupleExpr(pair_)),)), (project(Var(pv), k),))
    rows = xs if varying == Var(x) else Apply(Prim("map", (Lambda((x,), varying),)), (xs,))
    columns = Apply(Prim("transpose"), (rows,))
    zipped = (fixed, columns) if k == 1 else (columns, fixed)
    return Apply(Prim("map", (Lambda((pv,), inner_map),)), (Apply(Prim("zip"), zipped),))


@basic_rule(
    "split-zip", "split n (zip xs ys) → map (λq. zip q.0 q.1) (zip (split n xs) (split n ys))",
    "algorithmic", "Lift (splitIntoZip)")
@matches(app(prim("split", "n"), app(prim("zip"), rest="arrays",
                                     why="the split array must be a zip"),
             why="it rewrites split n (zip xs ys)"))
def SPLIT_ZIP(m, site: Site, p) -> Expr:
    n, arrays = m.n, m.arrays
    q = fresh("q", site.node)
    chunks = Apply(Prim("zip"), tuple(project(Var(q), i) for i in range(len(arrays))))
    return Apply(Prim("map", (Lambda((q,), chunks),)),
                 (Apply(Prim("zip"), tuple(Apply(Prim("split", (n,)), (a,))
                                           for a in arrays)),))


# --- reductions in chunks ----------------------------------------------------------------------

@basic_rule(
    "reduce-split",
    "reduce f z → reduceSeq (λ(acc, chunk). at 0 (reduceSeq f acc chunk)) z ∘ split s",
    "algorithmic", "CASES 2016 (tiling of the innermost loop)",
    params=(RuleParam("s", "elements per chunk", lambda s: powers_of_two_dividing(
        array_length(s))),),
    doc="A reduction as a sequential loop over chunks, each reduced starting from the "
        "accumulator so far (also for reduceSeq: a left fold splits anywhere). The inner "
        "reduction's one result is its element 0 (``join`` of it for an array accumulator).")
@matches(prim(FOLDS, "f", "z", why="it rewrites reduce f z or reduceSeq f z"))
def REDUCE_SPLIT(m, site: Site, p) -> Expr | Refused:
    s = p["s"]
    bad = divides(s, array_length(site), f"chunks of {s}")
    if bad:
        return bad
    f, z = m.f, typed_literal(m.z, site)
    acc, chunk = fresh("acc", f, z), fresh("chunk", f, z)
    partial = Apply(Prim("reduceSeq", (f, Var(acc))), (Var(chunk),))
    result = site.typing.result if site.typing is not None else None
    if isinstance(result, ArrayType) and isinstance(result.elem, ArrayType):
        partial = Apply(Prim("join"), (partial,))  # an array accumulator: [[X]_n]_1 → [X]_n
    else:
        partial = Apply(Prim("at"), (Lit(0), partial))  # the one element of [A]_1
    op = Lambda(((acc, chunk),), partial)
    return compose(Prim("reduceSeq", (op, z)), Prim("split", (s,)))


# --- tile and untile ---------------------------------------------------------------------------

@basic_rule(
    "untile", "join ∘ map (map join ∘ transpose) → untile", "simplification",
    "matrix-multiplication slides (Untile); Lift Untile2D", pair=True)
@matches(pair(prim("join"), map_of(composed(map_of(prim("join")), prim("transpose"),
                                            why="the map's function must be map join ∘ "
                                                "transpose")),
              why="it rewrites join ∘ map (map join ∘ transpose)"))
def UNTILE_INTRO(m, site: Site, p) -> list:
    return [Prim("untile")]


def _matrix(site: Site) -> ArrayType | None:
    t = site.typing.args[0] if site.typing is not None and site.typing.args else None
    return t if isinstance(t, ArrayType) and isinstance(t.elem, ArrayType) else None


def _tile_sizes(site: Site, which: int) -> list:
    t = _matrix(site)
    if t is None:
        return []
    return powers_of_two_dividing(t.size if which == 0 else t.elem.size)


@basic_rule(
    "tile-split-join", "map (map f) → untile ∘ map (map (map (map f))) ∘ tile m n",
    "algorithmic", "matrix-multiplication slides (Tile, Untile; a 2-D split-join)",
    params=(RuleParam("m", "rows of a tile", lambda s: _tile_sizes(s, 0)),
            RuleParam("n", "columns of a tile", lambda s: _tile_sizes(s, 1))))
@matches(MAP_OF_MAP)
def TILE_SPLIT_JOIN(m, site: Site, p) -> Expr | Refused:
    rows, columns = p["m"], p["n"]
    t = _matrix(site)
    if t is None:
        return Refused("the input must be a matrix")
    bad = divides(rows, t.size, f"tiles of {rows} rows") or \
        divides(columns, t.elem.size, f"tiles of {columns} columns")
    if bad:
        return bad
    four = Prim("map", (Prim("map", (Prim("map", (Prim("map", (m.f,)),)),)),))
    return compose(Prim("untile"), four, Prim("tile", (rows, columns)))


# --- applied and composed forms ------------------------------------------------------------------

@basic_rule(
    "compose-apply", "(f ∘ g) x → f (g x)", "simplification", "definition of ∘")
@matches(app(composed(rest="fns"), "x", why="it rewrites (f ∘ g) x"))
def COMPOSE_TO_APPLY(m, site: Site, p) -> Expr:
    out = m.x
    for f in reversed(m.fns):
        out = Apply(f, (out,))
    return out


_NOT_APPLIED = ("the argument must itself be a function (not a lambda) applied to one value: "
                "f (g x)")


@basic_rule(
    "apply-compose", "f (g x) → (f ∘ g) x", "simplification", "definition of ∘")
@matches(app("f", app("g", "x", why=_NOT_APPLIED), why="it rewrites f (g x)")
         .where(lambda m: not isinstance(m.f, Lambda) and not isinstance(m.g, Lambda),
                _NOT_APPLIED))
def APPLY_TO_COMPOSE(m, site: Site, p) -> Expr:
    return Apply(compose(m.f, m.g), (m.x,))


ETA, BETA = ETA_EXPANSION, BETA_NAMED_BETA

RULES = [MAP_INTERCHANGE, MAP_FISSION, MAP_REDUCE_INTERCHANGE, TRANSPOSE_MAP_MAP,
         TRANSPOSE_TRANSPOSE, REDUCE_MAP_FUSION, MAP_FUSION_APPLY, MAP_ZIP_FUSION, ZIP_TRANSPOSE,
         SPLIT_ZIP, REDUCE_SPLIT, UNTILE_INTRO, TILE_SPLIT_JOIN, COMPOSE_TO_APPLY,
         APPLY_TO_COMPOSE, ETA, BETA]

__all__ = ["RULES"]
