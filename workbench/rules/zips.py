"""Fusion through zips: two computations over arrays of the same length, each a kernel of its
own where they meet in a ``zip``, become one computation over the zip of their inputs.

GESUMMV (``α A x + β B x``) is written as two matrix-vector products whose results a map adds
element by element: three kernels by the default mapping. Read forwards, these rules give
the program one map over the rows of A and B together, and each pair of rows one reduction
with a pair accumulator (the hand-written kernel's loop: both dot products in one pass):

- ``inline-once``: a lambda applied to a computed argument it uses once, outside any function
  (so that inlining computes it exactly as often as before: once);
- ``zip-join``: ``zip (join xs) (join ys) → join (map (λq. zip q.0 q.1) (zip xs ys))``, rows
  of equal length (the inverse of ``split-zip`` on joined arrays);
- ``map-join``: ``map f (join xs) → join (map (map f) xs)`` (``split-join`` and its
  cancellation in one step, on an applied map);
- ``zip-map-fusion``: ``zip (map g xs) (map h ys) → map (λq. (g q.0, h q.1)) (zip xs ys)``
  (map fusion into a zip, every mapped argument at once; an argument that is not mapped is
  passed through);
- ``zip-reduce-fusion``: ``zip (reduce f z xs) (reduce g w ys) → reduce (λ(a, b). (f (a.0,
  b.0), g (a.1, b.1))) (z, w) (zip xs ys)`` (both folds in one pass, a tuple accumulator).

Each is an identity of the reference semantics (property-tested in ``tests/test_zips.py``); a
rule refuses, with the reason, where lengths differ or the shape does not fit.
``search/zip_fusion.py`` applies them where a program's zips meet such computations.
"""

from __future__ import annotations

from ..errors import WorkbenchError
from ..expr import Apply, Expr, Lambda, Lit, Prim, TupleExpr, Var, substitute
from ..primitives.families import FOLDS
from ..rewriting.match import app, kind, map_of, matches, prim
from ..typecheck import Checker
from ..types import ArrayType, ScalarType, TupleType
from .builders import call, fresh, project
from .rule import Refused, Site, basic_rule

ZIP_FUSION = "map fusion through a zip (ICFP Fig. 6f on a zip's arguments)"


# --- inlining a value used once ---------------------------------------------------------------

def _data_uses(e: Expr, name: str) -> int | None:
    """How many times ``name`` occurs free in ``e``, where every occurrence is a value
    computed once per evaluation of ``e`` (an argument of applications, tuples and
    arithmetic, not inside a function: a lambda, a composition, a primitive's parameter);
    None where one is inside a function."""
    if isinstance(e, Var):
        return 1 if e.name == name else 0
    if name not in e.free_vars():
        return 0
    if isinstance(e, Apply):
        if name in e.fn.free_vars():
            return None
        parts = e.args
    elif isinstance(e, TupleExpr):
        parts = e.items
    elif isinstance(e, Lit):
        return 0
    elif isinstance(e, Lambda | Prim) or not e.children():
        return None
    else:  # arithmetic on values
        parts = e.children()
    counts = [_data_uses(p, name) for p in parts]
    return None if None in counts else sum(counts)


@basic_rule(
    "inline-once", "(λx. e) a → e[x := a]   (x used once in e, outside any function)",
    "simplification", "λ-calculus (β-reduction of a linear let)",
    doc="β-reduction for an argument that computes something: allowed where the parameter "
        "is used once and not inside a function (a map's, a reduction's), so the inlined "
        "argument is computed once, as before.")
@matches(app(kind(Lambda, name="f"), rest="args",
             why="it rewrites (λx. e) a, a lambda applied to its arguments"))
def INLINE_ONCE(m, site: Site, p) -> Expr | Refused:
    f, args = m.f, m.args
    if len(args) != len(f.params) or not all(isinstance(q, str) for q in f.params):
        return Refused("the lambda's parameters are not one plain name per argument")
    if len(set(f.params)) != len(f.params):
        return Refused("the lambda names two parameters alike")
    body = f.body
    for name in f.params:
        uses = _data_uses(body, name)
        if uses is None:
            return Refused(f"{name} is used inside a function of the body (inlined there it "
                           f"would be computed once per call)")
        if uses > 1:
            return Refused(f"{name} is used {uses} times (inlined it would be computed "
                           f"{uses} times)")
    renamed = {}
    for name in f.params:  # the parameters first renamed apart from the arguments
        new = fresh(name, body, *args, *(Var(n) for n in f.params))
        renamed[name] = new
        body = substitute(body, name, Var(new))
    for name, arg in zip(f.params, args):
        body = substitute(body, renamed[name], arg)
    return body


# --- zips of joined arrays, maps of joined arrays --------------------------------------------

def _type(e: Expr, site: Site):
    """The type of the value ``e`` in the site's scope (None where it cannot be told)."""
    if site.typing is None:
        return None
    try:
        return Checker(e, None, record=False).value(e, dict(site.typing.env), ())
    except WorkbenchError:
        return None


_JOINED = app(prim("join"), "xs")


@basic_rule(
    "zip-join", "zip (join xs) (join ys) → join (map (λq. zip q.0 q.1) (zip xs ys))   (rows "
    "of equal length)", "algorithmic", "Lift (splitIntoZip), read backwards on joined arrays",
    doc="The zip of arrays joined from rows of the same length k is the join of the zips of "
        "their rows: element i·k + j of both comes from row i, element j.")
@matches(app(prim("zip"), rest="arrays", why="it rewrites zip (join xs) (join ys)"))
def ZIP_JOIN(m, site: Site, p) -> Expr | Refused:
    arrays = m.arrays
    if len(arrays) < 2 or not all(_JOINED.fits(a) for a in arrays):
        return Refused("every array of the zip must be a join: zip (join xs) (join ys)")
    rows = tuple(_JOINED.match(a).xs for a in arrays)
    types = [_type(r, site) for r in rows]
    if not all(isinstance(t, ArrayType) and isinstance(t.elem, ArrayType) for t in types):
        return Refused("the joined arrays' types are not known here")
    if len({t.size for t in types}) != 1 or len({t.elem.size for t in types}) != 1:
        shapes = ", ".join(f"{t.size} rows of {t.elem.size}" for t in types)
        return Refused(f"the joined arrays' rows differ in number or length ({shapes})")
    q = fresh("q", *rows)
    zipped_rows = Apply(Prim("zip"), tuple(project(Var(q), i) for i in range(len(rows))))
    return Apply(Prim("join"), (Apply(Prim("map", (Lambda((q,), zipped_rows),)),
                                      (Apply(Prim("zip"), rows),)),))


@basic_rule(
    "map-join", "map f (join xs) → join (map (map f) xs)", "algorithmic",
    "ICFP Fig. 6c, 6e (split-join, then split ∘ join cancelled)",
    doc="A map over a joined array maps each of its rows.")
@matches(app(map_of(), app(prim("join"), "xs", why="the map's array must be a join"),
             why="it rewrites map f (join xs)"))
def MAP_JOIN(m, site: Site, p) -> Expr:
    return Apply(Prim("join"), (Apply(Prim("map", (Prim("map", (m.f,)),)), (m.xs,)),))


# --- maps and reductions zipped ----------------------------------------------------------------

_MAPPED = app(map_of("g"), "ys")


@basic_rule(
    "zip-map-fusion", "zip (map g xs) (map h ys) → map (λq. (g q.0, h q.1)) (zip xs ys)",
    "algorithmic", ZIP_FUSION,
    doc="The zip of mapped arrays is one map over the zip of their inputs (an argument of the "
        "zip that is not mapped is passed through): a consumer of the zip then fuses with "
        "one map.")
@matches(app(prim("zip"), rest="arrays", why="it rewrites zip (map g xs) (map h ys)"))
def ZIP_MAP_FUSION(m, site: Site, p) -> Expr | Refused:
    arrays = m.arrays
    mapped = [_MAPPED.match(a) if _MAPPED.fits(a) else None for a in arrays]
    if len(arrays) < 2 or not any(mapped):
        return Refused("no array of the zip is a map g xs")
    q = fresh("q", *arrays)
    items = tuple(call(found.g, project(Var(q), i)) if found else project(Var(q), i)
                  for i, found in enumerate(mapped))
    inputs = tuple(found.ys if found else a for a, found in zip(arrays, mapped))
    return Apply(Prim("map", (Lambda((q,), TupleExpr(items)),)), (Apply(Prim("zip"), inputs),))


_REDUCED = app(prim(FOLDS, "f", "z", name="reduction"), "xs")


def _typed_initial(z: Expr, t) -> Expr:
    """An integer literal initial value written as a float where its reduction computes
    floats (in the tuple, nothing else tells its type)."""
    element = t.elem if isinstance(t, ArrayType) else None
    if isinstance(element, ScalarType) and element.name in ("float", "double") and \
            isinstance(z, Lit) and isinstance(z.value, int) and not isinstance(z.value, bool):
        return Lit(float(z.value))
    return z


@basic_rule(
    "zip-reduce-fusion", "zip (reduce f z xs) (reduce g w ys) → reduce (λ(a, b). (f (a.0, "
    "b.0), g (a.1, b.1))) (z, w) (zip xs ys)   (xs, ys of equal length)", "algorithmic",
    "ICFP Fig. 6f (fusion), for reductions side by side: a tuple accumulator",
    doc="Two reductions of arrays of the same length are one reduction of their zip whose "
        "accumulator holds both: each component folds its own elements in the same order.")
@matches(app(prim("zip"), rest="arrays", why="it rewrites zip (reduce f z xs) (reduce g w ys)"))
def ZIP_REDUCE_FUSION(m, site: Site, p) -> Expr | Refused:
    arrays = m.arrays
    if len(arrays) < 2 or not all(_REDUCED.fits(a) for a in arrays):
        return Refused("every array of the zip must be a reduction: zip (reduce f z xs) "
                       "(reduce g w ys)")
    found = [_REDUCED.match(a) for a in arrays]
    kinds = {r.reduction.name for r in found}
    if len(kinds) != 1:
        return Refused(f"the reductions are of different kinds ({', '.join(sorted(kinds))})")
    types = [_type(r.xs, site) for r in found]
    if not all(isinstance(t, ArrayType) for t in types):
        return Refused("the reduced arrays' types are not known here")
    if len({t.size for t in types}) != 1:
        lengths = ", ".join(str(t.size) for t in types)
        return Refused(f"the reduced arrays differ in length ({lengths})")
    results = [_type(a, site) for a in arrays]
    if not all(isinstance(t, ArrayType) and not isinstance(t.elem, TupleType | ArrayType)
               for t in results):
        return Refused("each reduction must compute one scalar (its accumulator is a "
                       "component of the pair)")
    a, b = fresh("a", *arrays), fresh("b", *arrays)
    body = TupleExpr(tuple(call(r.f, TupleExpr((project(Var(a), i), project(Var(b), i))))
                           for i, r in enumerate(found)))
    z = TupleExpr(tuple(_typed_initial(r.z, t) for r, t in zip(found, results)))
    op = Lambda(((a, b),), body)
    return Apply(Prim(kinds.pop(), (op, z)),
                 (Apply(Prim("zip"), tuple(r.xs for r in found)),))


RULES = [INLINE_ONCE, ZIP_JOIN, MAP_JOIN, ZIP_MAP_FUSION, ZIP_REDUCE_FUSION]

__all__ = ["RULES"]
