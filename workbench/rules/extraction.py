"""Kernel extraction (Futhark thesis, chapter "Kernel Extraction", rules G1–G7) as rewrite
rules over this IR. A GPU kernel is a perfect nest of maps; these rules turn a nest of
parallel patterns with sequential code in between into perfect nests:

- G1–G3 (``map-nest→kernel``): a perfect nest of maps becomes one kernel, its (up to three)
  outer maps over the dimensions of the global grid;
- G4 (``map-fission``, held by ``interchange``, and ``map-distribution``): a map is
  distributed over a composition, or over a parallel computation inside its body
  (Futhark's let-bound ``a0``: the map computes all of them first, the rest of the body
  then reads them, zipped with the map's elements);
- G5 (``reduce-map-interchange``): a reduction with a vector operator on replicated neutral
  elements becomes a map of scalar reductions over the transposed input (a segmented
  reduction);
- G6 (``rearrange-distribution``): ``map (rearrange p)`` is one ``rearrange`` of the outer
  array, with the permutation extended (``transpose→rearrange`` and back connect it with
  ``transpose``);
- G7 (``map-loop-interchange``, ``map-iterate-interchange``): a map of a loop becomes a loop
  of maps; the map's variant values (its elements) are zipped in.

Each is an equation of the interpreter (a soundness test each, tests/test_rules.py); which to
apply where is the moderate-flattening strategy's business (``flattening``).
"""

from __future__ import annotations

from ..expr import (
    Apply,
    Compose,
    Expr,
    Lambda,
    Prim,
    Var,
    compose,
    fresh_name,
    substitute,
    walk,
)
from ..rewriting.match import kind, map_of, matches, prim
from ..sizes import Size
from .lambdas import BETA as BETA_REDUCTION
from .lambdas import ETA_REDUCTION, plumbing
from .rule import Refused, Rule, RuleParam, Site, basic_rule

MAP = prim("map")
PARALLEL = ("map", "reduce", "scan", "reducePart", "iterate", "loop", "opMap", "allPairs")


def is_parallel(e: Expr) -> bool:
    """Whether an expression contains a parallel pattern (a SOAC, in Futhark's terms)."""
    return any(isinstance(n, Prim) and n.name in PARALLEL for _, n in walk(e))


# --- G1–G3: a perfect map nest is one kernel --------------------------------------------------

def inner_map(f: Expr):
    """The map directly inside a map's function f (``map g``, or ``λx. map g v`` with v a
    view of the lambda's variables: Futhark's map nest context), and how to put a
    replacement of it back in f; None if f is no such map."""
    match f:
        case Prim("map"):
            return f, lambda new: new
        case Lambda(params, Apply(Prim("map") as inner, (view,))) if plumbing(view):
            return inner, lambda new: Lambda(params, Apply(new, (view,)))
    return None


def nest_depth(node: Expr) -> int:
    """How many maps are perfectly nested at a node (``map (map f)``: 2), at most 3."""
    depth = 0
    while MAP.fits(node) and depth < 3:
        depth += 1
        found = inner_map(node.args[0])
        if found is None:
            break
        node = found[0]
    return depth


@basic_rule(
    "map-nest→kernel", "map (map (… f)) → mapGlobal (d-1) (mapGlobal (d-2) (… f))",
    "opencl", "Futhark G1–G3",
    doc="A perfect nest of maps (up to three deep) becomes one kernel over a grid of as many "
        "dimensions, the innermost map on dimension 0; what the nest's body computes stays "
        "sequential code of each work-item.")
@matches(map_of(why="it rewrites a high-level map (the outer map of a nest)"))
def MAP_NEST_TO_KERNEL(m, site: Site, p) -> Expr | Refused:
    node = site.node
    if site.context:
        return Refused("a kernel's maps are outermost: this map is inside an OpenCL map")
    depth = nest_depth(node)

    def lower(e: Prim, level: int) -> Expr:
        f = e.args[0]
        if level < depth - 1:
            inner, put_back = inner_map(f)
            f = put_back(lower(inner, level + 1))
        return Prim("mapGlobal", (depth - 1 - level, f))
    return lower(node, 0)


# --- G4: map fission and distribution ---------------------------------------------------------

def parallel_subterms(body: Expr, bound: frozenset[str]) -> list[Expr]:
    """The outermost applications of parallel patterns inside a map's body (the body itself
    excepted) that use none of the variables bound inside the body: they may use the map's
    own variable, so the map can compute them first (Futhark's let-bound ``a0``)."""
    found: list[Expr] = []

    def visit(e: Expr, inner: frozenset[str], top: bool) -> None:
        if not top and isinstance(e, Apply) and is_parallel(e.fn) and \
                not (e.free_vars() & inner):
            found.append(e)
            return
        if isinstance(e, Lambda):
            inner = inner | set(e.names())
        for c in e.children():
            visit(c, inner, False)
    visit(body, bound, True)
    return found


_ONE_PARAMETER = "it rewrites map (λx. e) (one parameter)"
ONE_PARAMETER_MAP = map_of(kind(Lambda, name="f"), why=_ONE_PARAMETER).where(
    lambda m: len(m.f.params) == 1, _ONE_PARAMETER)


def unchained(body: Expr) -> Expr:
    """``(f ∘ g ∘ h) x`` as ``f (g (h x))``: each application a place to distribute at."""
    match body:
        case Apply(Compose((first, *rest)), args):
            return Apply(first, (unchained(Apply(compose(*rest), args)),))
    return body


def let_reduced(e: Expr) -> Expr:
    """``(λv. e) a`` with a variable a is e with v renamed a: the let Futhark binds a0 with
    (its name is kept for what the let bound)."""
    match e:
        case Apply(Lambda((str(v),), body), (Var() as a,)):
            return let_reduced(substitute(body, v, a))
    children = e.children()
    if not children:
        return e
    return e.with_children(tuple(let_reduced(c) for c in children))


def _replace_subterm(e: Expr, old: Expr, new: Expr) -> Expr:
    if e is old or e == old:
        return new
    children = e.children()
    if not children:
        return e
    return e.with_children(tuple(_replace_subterm(c, old, new) for c in children))


def _distribution_candidates(site: Site) -> list:
    m = ONE_PARAMETER_MAP.match(site.node)
    if isinstance(m, Refused):
        return []
    return [Size.const(k) for k in range(len(parallel_subterms(unchained(m.f.body),
                                                               frozenset())))]


@basic_rule(
    "map-distribution", "map (λx. e[P x]) → λxs. map (λ(a, x). e[a]) (zip (map (λx. P x) xs) xs)",
    "algorithmic", "Futhark G4",
    params=(RuleParam("k", "which parallel computation of the body (0: the first)",
                      _distribution_candidates, kind="int"),),
    doc="The map first computes the parallel part P of its body for every element (a map "
        "nest of its own, a kernel), then the rest of the body reads the results zipped with "
        "the elements (without the zip when the rest does not use the element).")
@matches(ONE_PARAMETER_MAP)
def MAP_DISTRIBUTION(m, site: Site, p) -> Expr | Refused:
    f = m.f
    (x,) = f.params
    f = Lambda(f.params, unchained(f.body))
    candidates = parallel_subterms(f.body, frozenset())
    if not candidates:
        return Refused("the map's body computes nothing in parallel to distribute over")
    k = int(p["k"])
    if not 0 <= k < len(candidates):
        return Refused(f"the body has {len(candidates)} parallel computations, not {k + 1}")
    inner = candidates[k]
    avoid = f.free_vars() | {n for _, e in walk(f) if isinstance(e, Lambda) for n in e.names()}
    a = fresh_name("a", avoid | {x})
    rest = let_reduced(_replace_subterm(f.body, inner, Var(a)))
    x_names = {x} if isinstance(x, str) else set(Lambda((x,), Var(a)).names())
    first = Prim("map", (Lambda((x,), inner),))
    if not (rest.free_vars() & x_names):  # the rest reads only the computed values
        return compose(Prim("map", (Lambda((a,), rest),)), first)
    xs = fresh_name("xs", avoid | {a})
    zipped = Apply(Prim("zip"), (Apply(first, (Var(xs),)), Var(xs)))
    return Lambda((xs,), Apply(Prim("map", (Lambda(((a, x),), rest),)), (zipped,)))


# --- G5: reduce–map interchange ----------------------------------------------------------------

def _vector_operator(f: Expr) -> Expr | None:
    """g when f is ``λ(a, b). map g (zip a b)`` (or ``λa b. …``) and g uses neither a nor b."""
    match f:
        case Lambda(((str(a), str(b)),) | (str(a), str(b)),
                    Apply(Prim("map", (g,)), (Apply(Prim("zip"), (Var(x), Var(y))),))) \
                if (x, y) == (a, b) and not g.free_vars() & {a, b}:
            return g
    return None


@basic_rule(
    "reduce-map-interchange",
    "reduce (λ(a, b). map g (zip a b)) (replicate k z) → transpose ∘ map (reduce g z) ∘ transpose",
    "algorithmic", "Futhark G5",
    doc="A reduction whose operator adds whole rows becomes a segmented reduction: one scalar "
        "reduction per column of the transposed input.")
@matches(prim("reduce", "f", "init",
              why="it rewrites reduce (λ(a, b). map g (zip a b)) (replicate k z)"))
def REDUCE_MAP_INTERCHANGE(m, site: Site, p) -> Expr | Refused:
    g = _vector_operator(m.f)
    if g is None:
        return Refused("the operator is not a vector operator λ(a, b). map g (zip a b)")
    match m.init:
        case Apply(Prim("replicate"), (z,)):
            pass
        case _:
            return Refused("the neutral element is not replicate k z (G5 assumes a replicated "
                           "one)")
    return compose(Prim("transpose"), Prim("map", (Prim("reduce", (g, z)),)), Prim("transpose"))


# --- G6: rearrange distribution -----------------------------------------------------------

@matches(map_of(prim("rearrange", "perm"), why="it rewrites map (rearrange p)"))
def _rearrange_distribute(m, site: Site, p) -> Expr:
    return Prim("rearrange", ((Size.const(0), *(q + 1 for q in m.perm)),))


@matches(prim("rearrange", "perm", why="it rewrites rearrange (0, p+1)"))
def _rearrange_undistribute(m, site: Site, p) -> Expr | Refused:
    perm = m.perm
    if not perm or perm[0] != 0 or len(perm) < 3:
        return Refused("the permutation must keep the outer dimension first and permute two "
                       "or more others: rearrange (0, …)")
    return Prim("map", (Prim("rearrange", (tuple(q - 1 for q in perm[1:]),)),))


@matches(prim("transpose", why="it rewrites transpose"))
def _transpose_to_rearrange(m, site: Site, p) -> Expr:
    return Prim("rearrange", ((Size.const(1), Size.const(0)),))


@matches(prim("rearrange", "perm", why="it rewrites rearrange (1, 0)")
         .where(lambda m: tuple(m.perm) == (1, 0), "it rewrites rearrange (1, 0)"))
def _rearrange_to_transpose(m, site: Site, p) -> Expr:
    return Prim("transpose")


REARRANGE = [
    Rule("rearrange-distribution", "map (rearrange p) → rearrange (0, 1+p₀, …, 1+pₙ)",
         "algorithmic", "Futhark G6", _rearrange_distribute),
    Rule("rearrange-undistribution", "rearrange (0, 1+p₀, …, 1+pₙ) → map (rearrange p)",
         "algorithmic", "Futhark G6 (reversed)", _rearrange_undistribute),
    Rule("transpose→rearrange", "transpose → rearrange (1, 0)", "algorithmic", "Futhark G6",
         _transpose_to_rearrange),
    Rule("rearrange→transpose", "rearrange (1, 0) → transpose", "algorithmic", "Futhark G6",
         _rearrange_to_transpose),
]


# --- G7: map–loop interchange --------------------------------------------------------------

def _loop_parts(f: Expr):
    """(stage variable, value variable, body) of a loop's function ``λi w. e``."""
    match f:
        case Lambda((str(i), str(w)), body):
            return i, w, body
        case Lambda((str(i),), body):
            w = fresh_name("w", f.free_vars() | {i})
            return i, w, Apply(body, (Var(w),))
    return None


@basic_rule(
    "map-loop-interchange",
    "map (λx. loop n (λi w. e) (s x)) → λxs. loop n (λi ws. map (λ(x, w). e) (zip xs ws)) "
    "(map s xs)", "algorithmic", "Futhark G7",
    doc="The loop goes outside, each of its stages a map over all elements (a kernel per "
        "stage); what the loop body reads of the map's element is zipped in.")
@matches(map_of("g", why="it rewrites map (loop n f) or map (λx. loop n f e)"))
def MAP_LOOP_INTERCHANGE(m, site: Site, p) -> Expr | Refused:
    g = m.g
    match g:
        case Prim("loop", (n, f)):  # map (loop n f) → loop n (λi ws. map (f i) ws)
            parts = _loop_parts(f)
            if parts is None:
                return Refused("the loop's function is not λi w. e")
            i, w, body = parts
            ws = fresh_name("ws", f.free_vars() | {i, w})
            return Prim("loop", (n, Lambda((i, ws), Apply(Prim("map", (Lambda((w,), body),)),
                                                           (Var(ws),)))))
        case Lambda((x,), Apply(Prim("loop", (n, f)), (init,))):
            pass
        case _:
            return Refused("the map's function is not a loop, nor λx. loop n f e")
    parts = _loop_parts(f)
    if parts is None:
        return Refused("the loop's function is not λi w. e")
    i, w, body = parts
    x_names = set(Lambda((x,), init).names()) if not isinstance(x, str) else {x}
    avoid = g.free_vars() | x_names | {i, w} | {n_ for _, e in walk(g) if isinstance(e, Lambda)
                                               for n_ in e.names()}
    xs, ws = fresh_name("xs", avoid), fresh_name("ws", avoid)
    start = Var(xs) if isinstance(x, str) and init == Var(x) else \
        Apply(Prim("map", (Lambda((x,), init),)), (Var(xs),))
    if not (body.free_vars() & x_names):  # the loop does not read the element: no zip
        stage = Lambda((i, ws), Apply(Prim("map", (Lambda((w,), body),)), (Var(ws),)))
        return Lambda((xs,), Apply(Prim("loop", (n, stage)), (start,)))
    zipped = Apply(Prim("zip"), (Var(xs), Var(ws)))
    stage = Lambda((i, ws), Apply(Prim("map", (Lambda(((x, w),), body),)), (zipped,)))
    return Lambda((xs,), Apply(Prim("loop", (n, stage)), (start,)))


@basic_rule(
    "map-iterate-interchange", "map (iterate n f) → iterate n (map f)", "algorithmic",
    "Futhark G7")
@matches(map_of(prim("iterate", "n", "f"), why="it rewrites map (iterate n f)"))
def MAP_ITERATE_INTERCHANGE(m, site: Site, p) -> Expr:
    return Prim("iterate", (m.n, Prim("map", (m.f,))))


# --- β and η (``lambdas``): Futhark's let-floating of data plumbing --------------------------

BETA, ETA = BETA_REDUCTION, ETA_REDUCTION


@basic_rule(
    "iterate→loop", "iterate n f → loop n (λi. f)", "algorithmic",
    "Futhark loop, P2CL stage-generate",
    doc="An iterate is a loop whose stages do not use their number.")
@matches(prim("iterate", "n", "f", why="it rewrites iterate n f"))
def ITERATE_TO_LOOP(m, site: Site, p) -> Expr:
    n, f = m.n, m.f
    i = fresh_name("i", f.free_vars())
    return Prim("loop", (n, Lambda((i,), f)))


RULES = [MAP_NEST_TO_KERNEL, MAP_DISTRIBUTION, REDUCE_MAP_INTERCHANGE, *REARRANGE,
         MAP_LOOP_INTERCHANGE, MAP_ITERATE_INTERCHANGE, ITERATE_TO_LOOP, BETA, ETA]

__all__ = ["RULES", "is_parallel", "nest_depth", "parallel_subterms"]
