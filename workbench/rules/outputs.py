"""More outputs per work-item: register blocking of any map of reductions over a shared array
(CASES 2016 Sect. 5.1's 1-D blocking, which the ``blocking`` macros apply to matrix
multiplication's ``map (λa. map (λb. R a b) ys) xs``, for one output per element of ``xs``).

``map (λx. post (reduce ⊕ z (map (λy. g x y) ys))) xs`` — GEMV's and GESUMMV's rows, ATAX,
MRI-Q's ``computeQ`` over the k-space samples, N-body's accelerations, K-means' distances —
computes its outputs k at a time::

    join ∘ map (λxs_k. map post (transpose (reduceSeq (λ(accs, y). map (λq. q.0 ⊕ g q.1 y)
                                                                    (zip accs xs_k))
                                               (replicate k z) ys))) ∘ split k

One sequential reduction over ``ys`` keeps the k accumulators together (a private array of
k: the code generator keeps a reduction's array accumulator in private memory), so each
element of ``ys`` is read once for k outputs instead of once for each. The reduced array may
also zip ``x`` itself with shared arrays (``zip row vector``: GEMV's rows); then the k rows
are read a column at a time (``zip (transpose xs_k) vector``). A sequential reduction
(``reduceSeq f z``, K-means' argmin) is blocked the same way, its operator applied to each
accumulator.
"""

from __future__ import annotations

from ..expr import Apply, Compose, Expr, Lambda, Prim, Section, TupleExpr, Var, compose, substitute
from ..primitives.families import FOLDS
from ..rewriting.match import array_length, divides, map_of, matches
from ..sizes import Size
from ..types import ArrayType
from .builders import call, combine, fresh, project, simplify, typed_literal
from .rule import Refused, RuleParam, Site, basic_rule, powers_of_two_dividing

CASES = "CASES 2016 Sect. 5.1 (1-D register blocking), for any map of reductions"
SHAPE = "map (λx. reduce ⊕ z (map (λy. g x y) ys)) xs"


def _applied_fully(f: Expr) -> Expr:
    """``(λa. e) v`` written out (a function made by applying a lambda to all its
    parameters: gemv's ``(λa. map (*a)) α``)."""
    match f:
        case Apply(Lambda(params, body), args) if len(params) == len(args) and \
                all(isinstance(p, str) for p in params):
            return _applied_fully(substitute_all(body, params, args))
    return f


def substitute_all(body: Expr, names, values) -> Expr:
    """``body`` with each of ``names`` replaced by its value at once (a value that names
    another of them is not replaced again)."""
    fresh_names = []
    for name in names:
        fresh_names.append(fresh(name, body, *values, *map(Var, fresh_names)))
        body = substitute(body, name, Var(fresh_names[-1]))
    for name, value in zip(fresh_names, values):
        body = substitute(body, name, value)
    return body


def chain(e: Expr) -> tuple[list[Expr], Expr]:
    """``e`` as functions applied one after the other to a value: ``f1 (f2 (… v))`` or
    ``(f1 ∘ f2 ∘ …) v`` gives ``([f1, f2, …], v)``; a lambda given all its parameters
    (``(λxs ys. e) v w``) is applied."""
    fns: list[Expr] = []
    e = _applied_fully(e)
    while isinstance(e, Apply) and len(e.args) == 1:
        fn, (arg,) = _applied_fully(e.fn), e.args
        match fn:
            case Compose(parts):
                fns.extend(_applied_fully(p) for p in parts[:-1])
                e = _applied_fully(Apply(parts[-1], (arg,)))
            case Prim() | Section() | Lambda():
                fns.append(fn)
                e = arg
            case _:
                break
    return fns, e


class Blockable:
    """The parts of ``map (λx. post (R (maps ys))) xs``: the element's name ``x``, the
    functions applied after the reduction (``post``, outermost first), the reduction (a
    ``reduce`` or ``reduceSeq``), the maps applied before it (outermost first) and the array
    they read (``ys``), written as the zip of its ``parts`` when it is one."""

    def __init__(self, x: str, post: list[Expr], reduction: Prim, maps: list[Expr], ys: Expr,
                 lanes: Size | None = None):
        self.x, self.post, self.reduction, self.maps, self.ys = x, post, reduction, maps, ys
        self.lanes = lanes  # the reduction's vectors' lanes (``vector_blockable``), or None
        zipped = isinstance(ys, Apply) and isinstance(ys.fn, Prim) and ys.fn.name == "zip"
        self.parts = ys.args if zipped else None

    def own(self, part: Expr) -> bool:
        return part == Var(self.x)

    def why_not_shared(self) -> str | None:
        """Why the reduced array is not shared by all the outputs (None: it is)."""
        if self.x not in self.ys.free_vars():
            return None
        if self.parts is not None and all(self.own(a) or self.x not in a.free_vars()
                                          for a in self.parts):
            return None
        return (f"the reduced array {self.ys} depends on {self.x} (other than as an array "
                f"zipped with shared ones): the outputs share no array to read once for k")


def _element_and_body(f: Expr) -> tuple[str, Expr]:
    """The name of a map's element and the body of its function applied to it."""
    if isinstance(f, Lambda) and len(f.params) == 1 and isinstance(f.params[0], str):
        return f.params[0], f.body
    x = fresh("x", f)
    return x, call(f, Var(x))


def blockable(f: Expr) -> Blockable | Refused:
    """The map's function taken apart (``Blockable``), or why it is not of the shape."""
    x, body = _element_and_body(f)
    fns, value = chain(body)
    r = next((i for i, fn in enumerate(fns) if isinstance(fn, Prim) and fn.name in FOLDS),
             None)
    if r is None:
        return Refused(f"the map's function computes no reduction (not a reduction of "
                       f"products): it rewrites {SHAPE}")
    after = r + 1
    while after < len(fns) and isinstance(fns[after], Prim) and fns[after].name == "map":
        after += 1
    for fn in reversed(fns[after:]):  # what the maps read: applied to the array again
        value = Apply(fn, (value,))
    shape = Blockable(x, fns[:r], fns[r], fns[r + 1:after], value)
    why = shape.why_not_shared()
    return Refused(why) if why is not None else shape


def blocked(shape: Blockable, k: Size, site: Site, strided: bool = False) -> Expr:
    """``join ∘ map (λxs_k. …) ∘ split k``: the k reductions of a chunk as one; ``strided``:
    ``join ∘ transpose ∘ map (λxs_k. …) ∘ transpose ∘ split (n/k)``, chunk j holding
    elements j, j + n/k, j + 2n/k, … (on a GPU neighbouring work-items then read
    neighbouring elements)."""
    everything = [shape.ys, *shape.post, *shape.maps, shape.reduction]
    chunk, accs, y, q = (fresh(n, *everything) for n in ("xs", "accs", "y", "q"))
    f, z = shape.reduction.args[0], shape.reduction.args[1]
    own = [i for i, a in enumerate(shape.parts or ()) if shape.own(a)]
    # the element of ys as the operator sees it: the shared parts from y, x's own from q
    zipped = [Var(accs)]
    uses_x = any(shape.x in e.free_vars() for e in (f, *shape.maps))
    element_of_x = Var(chunk)
    if uses_x:
        zipped.append(element_of_x)
    slot = {i: len(zipped) + j for j, i in enumerate(own)}
    zipped += [project(Var(y), i) for i in own]
    if shape.parts is None:
        element: Expr = Var(y)
    else:
        element = TupleExpr(tuple(project(Var(q), slot[i]) if i in slot else project(Var(y), i)
                                  for i in range(len(shape.parts))))
    value = element
    for g in reversed(shape.maps):
        value = call(g.args[0], value)
    # the accumulators alone, or zipped with what each output reads of its own
    acc = project(Var(q), 0) if len(zipped) > 1 else Var(q)
    step = combine(f, acc, value) if isinstance(f, Section) else call(f, TupleExpr((acc, value)))
    if uses_x:
        step = substitute(step, shape.x, project(Var(q), 1))
    each = Apply(Prim("zip"), tuple(zipped)) if len(zipped) > 1 else Var(accs)
    operator = Lambda(((accs, y),), Apply(Prim("map", (Lambda((q,), simplify(step)),)),
                                          (each,)))
    reads = _reads(shape, Var(chunk), slot, site)
    init = Apply(Prim("replicate", (k,)), (typed_literal(z, site),))
    outputs: Expr = Apply(Prim("transpose"), (Apply(Prim("reduceSeq", (operator, init)),
                                                    (reads,)),))
    if shape.post:
        outputs = _after(shape, outputs, Var(chunk))
    each_chunk = Prim("map", (Lambda((chunk,), outputs),))
    if strided:
        parts = array_length(site) / k
        return compose(Prim("join"), Prim("transpose"), each_chunk, Prim("transpose"),
                       Prim("split", (parts,)))
    return compose(Prim("join"), each_chunk, Prim("split", (k,)))


def _reads(shape: Blockable, chunk: Var, own: dict, site: Site) -> Expr:
    """What the blocked reduction reads: the shared array, or the zip of its shared parts
    with the k elements' own part a column at a time (``transpose xs_k``); in vectors of
    ``shape.lanes`` where the reduction reads vectors (each of the k rows split into
    vectors through one view: ``transpose (split (m/n) (splitVec n (join xs_k)))``)."""
    n = shape.lanes
    if n is None:
        shared = lambda a: a  # noqa: E731
    else:
        shared = lambda a: Apply(Prim("splitVec", (n,)), (a,))  # noqa: E731
    if shape.parts is None:
        return shared(shape.ys)
    if n is None:
        columns: Expr = Apply(Prim("transpose"), (chunk,))
    else:
        row = site.typing.args[0].elem.size / n
        columns = Apply(Prim("transpose"), (Apply(Prim("split", (row,)), (Apply(
            Prim("splitVec", (n,)), (Apply(Prim("join"), (chunk,)),)),)),))
    return Apply(Prim("zip"), tuple(columns if i in own else shared(a)
                                    for i, a in enumerate(shape.parts)))


def _after(shape: Blockable, outputs: Expr, chunk: Var) -> Expr:
    """The functions applied after the reduction, applied to each of the k results (beside
    its element of x where they read it)."""
    post = compose(*shape.post)
    if shape.x not in post.free_vars():
        return Apply(Prim("map", (post,)), (outputs,))
    p = fresh("p", post, outputs)
    each = Apply(substitute(post, shape.x, project(Var(p), 1)), (project(Var(p), 0),))
    return Apply(Prim("map", (Lambda((p,), each),)), (Apply(Prim("zip"), (outputs, chunk)),))


def _outputs_per_item(site: Site, shape_of=None) -> list[Size]:
    """The outputs per work-item to try where the map's function is of the shape
    ``shape_of`` (``blockable`` unless given) takes apart: powers of two dividing its array."""
    if not isinstance(site.node, Prim) or site.node.name != "map" or \
            isinstance((shape_of or blockable)(site.node.args[0]), Refused):
        return []
    return powers_of_two_dividing(array_length(site), 2, 16)


DISTRIBUTIONS = ("chunked", "strided")


def _blocking(site: Site, p) -> tuple[Size, bool] | Refused:
    """``k`` outputs per work-item and whether strided, as the parameters give them, or
    why they do not fit the map's array."""
    k, distribution = p["k"], str(p["distribution"])
    if distribution not in DISTRIBUTIONS:
        return Refused(f"the distribution is chunked or strided, not {distribution}")
    length = array_length(site)
    if length is None:
        return Refused("the length of the map's array is not known here")
    too_few = divides(k, length, f"{k} outputs per work-item")
    if too_few is not None:
        return too_few
    return k, distribution == "strided"


def _distributions(site: Site) -> list[str]:
    return list(DISTRIBUTIONS)


@basic_rule(
    "block-outputs",
    "map (λx. reduce ⊕ z (map (λy. g x y) ys)) xs → join ∘ map (λxs_k. transpose (reduceSeq "
    "(λ(accs, y). map (λq. q.0 ⊕ g q.1 y) (zip accs xs_k)) (replicate k z) ys)) ∘ split k",
    "algorithmic", CASES,
    params=(RuleParam("k", "outputs per work-item (reductions over ys together)",
                      _outputs_per_item),
            RuleParam("distribution", "chunked (each work-item k neighbouring outputs) or "
                      "strided (outputs j, j + n/k, …: neighbouring work-items read "
                      "neighbouring elements)", _distributions, kind="choice")),
    doc="k outputs at a time, their k accumulators reduced together over the shared array "
        "(in private memory), so each of its elements is read once per k outputs; the "
        "functions after the reduction map over the k results. The array may zip x itself "
        "with shared arrays (GEMV's zip row vector: the k rows read a column at a time). "
        "Strided, a work-item's k outputs are n/k apart (join ∘ transpose ∘ map … ∘ "
        "transpose ∘ split (n/k)).")
@matches(map_of(why=f"it rewrites a map of reductions over a shared array: {SHAPE}"))
def BLOCK_OUTPUTS(m, site: Site, p) -> Expr | Refused:
    shape = blockable(m.f)
    if isinstance(shape, Refused):
        return shape
    chosen = _blocking(site, p)
    if isinstance(chosen, Refused):
        return chosen
    k, strided = chosen
    return blocked(shape, k, site, strided=strided)


VECTOR_SHAPE = ("map (λx. post (reduce ⊕ z (joinVec (reduce (mapVec ⊕) z (map (mapVec g) "
                "(splitVec n ys)))))) xs")


def vector_blockable(f: Expr) -> Blockable | Refused:
    """A map's function whose reduction reads vectors (``map-reduce-vectorize``'s
    ``reduce ⊕ z ∘ joinVec ∘ reduce (mapVec ⊕) z ∘ map (mapVec g) ∘ splitVec n``) taken
    apart: the reduction over vectors, the functions after it (the lanes' sum among them),
    and the array before ``splitVec n``; or why it is not of the shape."""
    x, body = _element_and_body(f)
    fns, value = chain(body)
    r = next((i for i, fn in enumerate(fns) if _prim(fn) in FOLDS and fn.args
              and _prim(fn.args[0]) == "mapVec"), None)
    if r is None or r == 0 or _prim(fns[r - 1]) != "joinVec":
        return Refused(f"the map's function reduces no vectors whose lanes it then joins: "
                       f"it rewrites {VECTOR_SHAPE}")
    after = r + 1
    while after < len(fns) and _prim(fns[after]) == "map" and _prim(fns[after].args[0]) \
            == "mapVec":
        after += 1
    if after != len(fns) - 1 or _prim(fns[after]) != "splitVec":
        return Refused(f"the reduction's vectors are not split from the array it reads "
                       f"(splitVec n ys): it rewrites {VECTOR_SHAPE}")
    shape = Blockable(x, fns[:r], fns[r], fns[r + 1:after], value, lanes=fns[after].args[0])
    if any(x in e.free_vars() for e in (fns[r], *shape.maps)):
        return Refused(f"the reduction's operator or maps read {x} itself: in vectors its "
                       f"outputs read only arrays zipped with shared ones")
    why = shape.why_not_shared()
    return Refused(why) if why is not None else shape


def _prim(e: Expr) -> str | None:
    return e.name if isinstance(e, Prim) else None


def _vector_outputs_per_item(site: Site) -> list[Size]:
    return _outputs_per_item(site, vector_blockable)


@basic_rule(
    "block-vector-outputs",
    "map (λx. post (reduce ⊕ z (joinVec (reduce (mapVec ⊕) z (map (mapVec g) (splitVec n "
    "(zip x ys))))))) xs → join ∘ map (λxs_k. map (post ∘ reduce ⊕ z ∘ joinVec) (transpose "
    "(reduceSeq (λ(accs, y). map (λq. mapVec ⊕ (q.0, mapVec g (y.0, q.1))) (zip accs y.1)) "
    "(replicate k z) (zip (splitVec n ys) (transpose (split (m/n) (splitVec n (join "
    "xs_k)))))))) ∘ split k",
    "algorithmic", CASES + "; PACT vectorization",
    params=(RuleParam("k", "outputs per work-item (vector reductions over ys together)",
                      _vector_outputs_per_item),
            RuleParam("distribution", "chunked (each work-item k neighbouring outputs) or "
                      "strided (outputs j, j + n/k, …)", _distributions, kind="choice")),
    doc="block-outputs for a map whose reductions read vectors (after map-reduce-vectorize): "
        "k outputs at a time, their k vector accumulators updated together from one vector of "
        "the shared array (read once per k outputs), each of the k rows (x's own part, "
        "m long) read a vector at a time through a view; the lanes of each accumulator "
        "summed after. GEMV's rows 8 at a time in float16s: how fast CPU kernels are written "
        "(on PoCL 1.1-1.2 times faster than four rows of float16s by hand).")
@matches(map_of(why=f"it rewrites a map of reductions over vectors: {VECTOR_SHAPE}"))
def BLOCK_VECTOR_OUTPUTS(m, site: Site, p) -> Expr | Refused:
    shape = vector_blockable(m.f)
    if isinstance(shape, Refused):
        return shape
    chosen = _blocking(site, p)
    if isinstance(chosen, Refused):
        return chosen
    own = shape.parts is not None and any(shape.own(a) for a in shape.parts)
    elem = site.typing.args[0].elem if own else None
    if own and not isinstance(elem, ArrayType):
        return Refused(f"the map's elements are {elem}, not arrays to read in vectors")
    if own:
        bad = divides(shape.lanes, elem.size, f"splitVec {shape.lanes} of each row")
        if bad is not None:
            return bad
    k, strided = chosen
    return blocked(shape, k, site, strided=strided)


RULES = [BLOCK_OUTPUTS, BLOCK_VECTOR_OUTPUTS]
