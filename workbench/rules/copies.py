"""Copies into local, private and global memory for a work-group's reduction (CASES 2016
Sect. 5.2, "the usage of local and private memory"; Lift's addIdForCurrentValueInReduce,
implementIdAsDeepCopy, toLocal/toPrivate/toGlobal): each rule adds an identity — a copy —
and says where it lives.

- ``local-copy``: a part of the reduction's element (a tile of A or B) copied into local
  memory by the work-group, ``l1 × l0`` work-items a round, before the operator reads it
  (walked transposed, or each of its elements transposed, so that neighbouring work-items
  read neighbouring elements of global memory; or walked so but stored as it is, written
  through the inverse);
- ``private-accumulator``: the reduction's initial value computed into private memory by
  the local maps that own its parts (each work-item's register block);
- ``copy-out``: the reduction's result copied to global memory by those same local maps;
- ``private-vectors``: a part of the element that each step reads (a column of the A tile, a
  row of the B tile) copied into private memory as vectors (``splitVec``/``joinVec``): one
  wide load (a ``float4``) in place of several narrow ones, where the part lies contiguous;
- ``prefetch``: the local copies of the element made one step ahead, through the private
  memory of the work-items that copy them (double buffering of k-tiles: the code generator
  loads the next step's tiles while the work-group computes on this step's).
"""

from __future__ import annotations

from ..expr import Apply, Compose, Expr, Lambda, Prim, Var, compose, fresh_name, substitute
from ..layout import rearranges_only
from ..rewriting.match import app, kind, matches, prim
from ..sizes import Size
from ..types import ArrayType, ScalarType
from .builders import fresh, pair_operator, project
from .rule import Refused, RuleParam, Site, basic_rule

TO_PRIVATE, TO_GLOBAL = prim("toPrivate"), prim("toGlobal")
VECTOR = 4  # the width of the vectors a tile is interleaved by (local-copy's t = 4)


def _shape(t) -> list[Size]:
    out = []
    while isinstance(t, ArrayType):
        out.append(t.size)
        t = t.elem
    return out


def _ids(levels: int, inner: str = "mapSeqUnroll") -> Expr:
    """``mapSeqUnroll (… (mapSeqUnroll id))`` over ``levels`` array levels."""
    f: Expr = Prim("id")
    for _ in range(levels):
        f = Prim(inner, (f,))
    return f


def local_copy(v: Expr, shape: list[Size], l1: Size, l0: Size, width: int = 1) -> Expr:
    """``v`` (an array of the given lengths) copied into local memory by l1 × l0 work-items
    a round: flattened, cut into rounds of l1 × l0 elements (with ``width``, of vectors of
    that many consecutive elements, each copied whole), copied, put back in shape."""
    flat = v
    for _ in shape[1:]:
        flat = Apply(Prim("join"), (flat,))
    if width > 1:
        flat = Apply(Prim("splitVec", (Size.const(width),)), (flat,))
    rounds = Prim("mapSeq", (Prim("mapLocal", (1, Prim("mapLocal", (0, Prim("id"))))),))
    copied = Apply(Prim("toLocal", (rounds,)),
                   (Apply(Prim("split", (l1,)), (Apply(Prim("split", (l0,)), (flat,)),)),))
    out: Expr = Apply(Prim("join"), (Apply(Prim("join"), (copied,)),))
    if width > 1:
        out = Apply(Prim("joinVec"), (out,))
    for n in reversed(shape[1:]):
        out = Apply(Prim("split", (n,)), (out,))
    return out


def _walked_transposed(v: Expr, shape: list[Size], l1: Size, l0: Size) -> Expr:
    """``v`` (an array of matrices) copied into local memory as it is, the work-items
    walking each matrix transposed (``map transpose v``, flattened, in rounds of l1 × l0):
    the copy is written through the inverse, so that each element lands where it is in v."""
    _, rows, cols = shape
    flat = Apply(Prim("join"), (Apply(Prim("join"), (Apply(Prim("map", (Prim("transpose"),)),
                                                            (v,)),)),))
    rounds = Prim("mapSeq", (Prim("mapLocal", (1, Prim("mapLocal", (0, Prim("id"))))),))
    back = compose(Prim("map", (Prim("transpose"),)), Prim("split", (cols,)),
                   Prim("split", (rows,)), Prim("join"), Prim("join"), rounds)
    return Apply(Prim("toLocal", (back,)),
                 (Apply(Prim("split", (l1,)), (Apply(Prim("split", (l0,)), (flat,)),)),))


_OPERATOR = "it rewrites a reduction's operator λ(acc, x). e"


def _pair_parameter(f: Lambda) -> bool:
    """``λ(acc, x). e`` (one parameter, a pair of names) or ``λacc x. e`` (curried: the rules
    take it as ``λ(acc, x). e`` where a fold applies it to one pair, ``pair_operator``)."""
    match f.params:
        case ((str(), str()),) | (str(), str()):
            return True
    return False


def _operator(m, site: Site) -> Lambda | Refused:
    """The operator the pattern found, as ``λ(acc, x). e`` (``pair_operator``)."""
    node = pair_operator(m.op, site)
    if node is None:
        return Refused("the curried λacc x. e is no reduction's operator here (it is not "
                       "applied to one pair)")
    return node


# a reduction's operator λ(acc, x). e, the node the rules that copy its operands rewrite
OPERATOR = kind(Lambda, name="op", why=_OPERATOR).where(lambda m: _pair_parameter(m.op),
                                                         _OPERATOR)


def _nodes(e: Expr):
    yield e
    for c in e.children():
        yield from _nodes(c)


def _replace(e: Expr, old: Expr, new: Expr) -> Expr:
    if e == old:
        return new
    kids = e.children()
    if not kids:
        return e
    if isinstance(e, Lambda) and set(e.names()) & old.free_vars():
        return e  # the name is bound again here
    return e.with_children(tuple(_replace(c, old, new) for c in kids))


def _part(site: Site, k: int):
    """The type of component k of the element of the reduction whose operator is here."""
    if site.typing is None or not site.typing.args:
        return None
    element = site.typing.args[0].items[1] if hasattr(site.typing.args[0], "items") else None
    if not hasattr(element, "items") or not 0 <= k < len(element.items):
        return None
    return element.items[k]


def _read(node: Lambda, k: int, what: str) -> tuple[Expr, str] | Refused:
    """``x.k`` in the operator ``λ(acc, x). e``, and a fresh name for a copy of it
    (``Atile``, ``Bvec``, …)."""
    _, x = node.params[0]
    use = project(Var(x), k)
    if not any(n == use for n in _nodes(node.body)):
        return Refused(f"the operator does not read {x}.{k}")
    taken = set(node.body.free_vars()) | {n for e in _nodes(node.body) if isinstance(e, Lambda)
                                          for n in e.names()}
    return use, fresh_name("AB"[k] + what if k < 2 else f"{what}{k}", taken)


def _bound(node: Lambda, use: Expr, name: str, copy: Expr) -> Expr | Refused:
    """The operator with ``use`` read from ``name``, bound to ``copy`` each step."""
    body = _replace(node.body, use, Var(name))
    if name in body.free_vars() and substitute(body, name, use) != node.body:
        return Refused("a name clash")  # pragma: no cover (fresh names)
    return Lambda(node.params, Apply(Lambda((name,), body), (copy,)))


def _group(site: Site, level: int) -> list[Size]:
    """The work-group's shape as the accumulator gives it (its first two lengths: the local
    maps of dimensions 1 and 0 that update it)."""
    t = site.typing.args[0] if site.typing is not None and site.typing.args else None
    acc = t.items[0] if hasattr(t, "items") and t.items else None
    shape = _shape(acc)
    return [shape[level]] if len(shape) > level else []


@basic_rule(
    "local-copy",
    "λ(acc, x). e → λ(acc, x). (λt. e[t/x.k]) (toLocal (mapSeq (mapLocal 1 (mapLocal 0 id))) "
    "… x.k)", "memory", "CASES 2016 Sect. 5.2 (local memory); ICFP Fig. 7d",
    params=(RuleParam("k", "the component of the element to copy", lambda s: [0, 1], "int"),
            RuleParam("t", "the order in which the work-items copy it: 0 as it is, 1 "
                      "transposed, 2 each element transposed (so that neighbouring work-items "
                      "read neighbouring elements of global memory), 3 transposed and each "
                      "element transposed (so that neighbouring work-items of the operator "
                      "read neighbouring elements of local memory), 4 as 3 but by vectors of "
                      f"{VECTOR} elements (neighbouring work-items read neighbouring vectors), "
                      "5 stored as it is but walked with each element transposed (read as 2 "
                      "reads global memory, written back through the transposition), 6 as 4 "
                      f"with each vector copied whole (one load and one store of {VECTOR})",
                      lambda s: [0, 1, 2, 3, 4, 5, 6], "int"),
            RuleParam("l1", "work-items of dimension 1", lambda s: _group(s, 0)),
            RuleParam("l0", "work-items of dimension 0", lambda s: _group(s, 1))),
    doc="A part of the reduction's element read from local memory: the work-group copies it "
        "there, l1 × l0 work-items a round, each step of the reduction.")
@matches(OPERATOR)
def LOCAL_COPY(m, site: Site, p) -> Expr | Refused:
    node = _operator(m, site)
    if isinstance(node, Refused):
        return node
    k, transposed, l1, l0 = int(p["k"]), int(p["t"]), p["l1"], p["l0"]
    if site.typing is None or not site.typing.args:
        return Refused("the operator's types are not known here")
    part = _part(site, k)
    if part is None:
        return Refused(f"the element has no component {k}")
    shape = _shape(part)
    if len(shape) < 2:
        return Refused(f"component {k} of the element is not an array of arrays ({part})")
    total = Size.const(1)
    for n in shape:
        total = total * n
    if total.divisible_by(l1 * l0) is False:
        return Refused(f"{l1}×{l0} work-items do not divide the {total} elements of the copy")
    read = _read(node, k, "tile")
    if isinstance(read, Refused):
        return read
    use, t = read
    if transposed not in (0, 1, 2, 3, 4, 5, 6):
        return Refused(f"t is 0 (as it is), 1 (transposed), 2 (each element transposed), 3 "
                       f"(both), 4 (both, by vectors of {VECTOR}), 5 (as it is, walked as 2) "
                       f"or 6 (as 4, each vector copied whole), not {transposed}")
    if transposed >= 2 and len(shape) < 3:
        return Refused(f"component {k} is not an array of matrices: its elements cannot be "
                       f"transposed")
    if transposed in (4, 6) and (len(shape) != 3 or shape[2].divisible_by(VECTOR) is False):
        return Refused(f"interleaving by vectors needs an array of matrices whose rows {VECTOR} "
                       f"divides ({part})")
    if transposed == 5:
        if len(shape) != 3:
            return Refused(f"walking each element transposed and storing it as it is needs an "
                           f"array of matrices ({part})")
        return _bound(node, use, t, _walked_transposed(use, shape, l1, l0))
    # the order the copy walks the part (neighbouring work-items copy neighbouring elements
    # of it), read back through the inverse: 1 transposes the part, 2 each of its elements,
    # 3 both (the part's outer two levels, then each element's: its innermost level first),
    # 4 as 3 with each element's rows cut into vectors first (kept whole)
    each = Prim("map", (Prim("transpose"),))
    vectors = Prim("map", (Prim("map", (Prim("split", (Size.const(VECTOR),)),)),))
    source: Expr = use
    if transposed in (4, 6):
        source = Apply(vectors, (source,))
        shape = [shape[0], shape[1], shape[2] / VECTOR, Size.const(VECTOR)]
    if transposed in (1, 3, 4, 6):
        source = Apply(Prim("transpose"), (source,))
        shape = [shape[1], shape[0], *shape[2:]]
    if transposed in (2, 3, 4, 6):
        source = Apply(each, (source,))
        shape = [shape[0], shape[2], shape[1], *shape[3:]]
    if transposed == 6:
        total_vectors = total / VECTOR
        if total_vectors.divisible_by(l1 * l0) is False:
            return Refused(f"{l1}×{l0} work-items do not divide the {total_vectors} vectors of "
                           f"the copy")
    copy = local_copy(source, shape, l1, l0, VECTOR if transposed == 6 else 1)
    if transposed in (2, 3, 4, 6):
        copy = Apply(each, (copy,))
    if transposed in (1, 3, 4, 6):
        copy = Apply(Prim("transpose"), (copy,))
    if transposed in (4, 6):
        copy = Apply(Prim("map", (Prim("map", (Prim("join"),)),)), (copy,))
    return _bound(node, use, t, copy)


@basic_rule(
    "private-accumulator",
    "reduceSeq f z → reduceSeq f (toPrivate (mapLocal 1 (mapLocal 0 (mapSeqUnroll … id))) z)",
    "memory", "CASES 2016 Sect. 5.2 (private memory); Lift toPrivate",
    doc="The accumulator of a work-group's reduction in private memory: each work-item holds "
        "the part its local maps write (its register block).")
@matches(prim("reduceSeq", "f", "z", why="it rewrites reduceSeq f z"))
def PRIVATE_ACCUMULATOR(m, site: Site, p) -> Expr | Refused:
    f, z = m.f, m.z
    if site.typing is None or not isinstance(site.typing.result, ArrayType):
        return Refused("the reduction's type is not known here")
    shape = _shape(site.typing.result.elem)
    if len(shape) < 2:
        return Refused("the accumulator is not an array of arrays (one part per work-item)")
    if isinstance(z, Apply) and any(TO_PRIVATE.fits(n) for n in _nodes(z)):
        return Refused("the initial value is already computed into private memory")
    locals_ = Prim("mapLocal", (1, Prim("mapLocal", (0, _ids(len(shape) - 2)))))
    copy = Prim("toPrivate", (locals_,))
    return Prim("reduceSeq", (f, Apply(copy, (z,))))


@basic_rule(
    "copy-out",
    "reduceSeq f z xs → toGlobal (mapSeq (mapLocal 1 (mapLocal 0 (mapSeqUnroll … id)))) "
    "(reduceSeq f z xs)", "memory", "CASES 2016 Sect. 5.2; Lift toGlobal",
    doc="The result of a work-group's reduction written to global memory by the local maps "
        "that own its parts.")
@matches(app(prim("reduceSeq"), rest="_",
             why="it rewrites a reduction applied to an array: reduceSeq f z xs"))
def COPY_OUT(m, site: Site, p) -> Expr | Refused:
    node = site.node
    if site.typing is None or not isinstance(site.typing.result, ArrayType):
        return Refused("the reduction's type is not known here")
    shape = _shape(site.typing.result)
    if len(shape) < 3:
        return Refused("the result is not an array of arrays of arrays")
    locals_ = Prim("mapLocal", (1, Prim("mapLocal", (0, _ids(len(shape) - 3)))))
    copy = Prim("toGlobal", (Prim("mapSeq", (locals_,)),))
    return Apply(copy, (node,))


def invariants(root: Expr) -> list[tuple]:
    """The paths of the arrays a program's maps read that depend only on its inputs (``split
    4 (transpose b)`` inside ``λa b. map (λrow. …) a``), outermost first: values a kernel of
    their own can compute once."""
    if not isinstance(root, Lambda):
        return []
    inputs = set(root.names())
    out: list[tuple] = []

    def visit(e: Expr, path: tuple, inside: bool) -> None:
        if inside and isinstance(e, Apply) and e.free_vars() and e.free_vars() <= inputs \
                and not any(TO_GLOBAL.fits(n) for n in _nodes(e)):
            out.append(path)
            return
        for i, child in enumerate(e.children()):
            visit(child, path + (i,), inside or isinstance(e, Lambda) and e is not root)

    visit(root.body, (0,), False)
    return out


@basic_rule(
    "pack",
    "λxs. e[c] → λxs. (λp. e[map transpose p]) (toGlobal (mapGlobal 1 (mapGlobal 0 (mapSeq "
    "id))) (map transpose c))", "memory",
    "Lift (copies into global memory); the packed panels of BLAS libraries",
    params=(RuleParam("k", "which array that depends only on the inputs (outermost first)",
                      lambda s: list(range(len(invariants(s.node)))), "int"),
            RuleParam("t", "1: each element copied transposed", lambda s: [0, 1], "int")),
    doc="An array the maps read that depends only on the program's inputs is computed once, "
        "by a kernel of its own, into global memory — each of its elements transposed with "
        "t = 1, so that what a work-item reads in sequence lies in sequence (B's panels of a "
        "matrix multiplication, packed).")
def PACK(site: Site, p) -> Expr | Refused:
    root = site.node
    if site.path or not isinstance(root, Lambda):
        return Refused("it rewrites a whole program λxs. e")
    places = invariants(root)
    k, t = int(p["k"]), int(p["t"])
    if not 0 <= k < len(places):
        return Refused(f"the program reads {len(places)} arrays that depend only on its "
                       f"inputs inside its maps; there is no number {k}")
    path = places[k]
    from ..expr import replace, subterm
    from ..typecheck import annotate

    value = subterm(root, path)
    note = annotate(root, *site.typing.args) if site.typing is not None and site.typing.args \
        else None
    typing = note.typings.get(path) if note is not None else None
    shape = _shape(typing.result) if typing is not None else []
    if t and len(shape) < 3:
        return Refused("copying each element transposed needs an array of matrices")
    if len(shape) < 2:
        return Refused(f"the array to copy ({value}) must have two levels at least")
    name = fresh("packed", root.body)
    source = Apply(Prim("map", (Prim("transpose"),)), (value,)) if t else value
    read: Expr = Apply(Prim("map", (Prim("transpose"),)), (Var(name),)) if t else Var(name)
    inner = _ids(len(shape) - 2, "mapSeq")
    copy = Apply(Prim("toGlobal", (Prim("mapGlobal", (1, Prim("mapGlobal", (0, inner)))),)),
                 (source,))
    body = replace(root, path, read).body
    return Lambda(root.params, Apply(Lambda((name,), body), (copy,)))


WIDTHS = (2, 4, 8, 16)  # OpenCL's vector widths


def _widths(site: Site) -> list[int]:
    parts = [_part(site, k) for k in (0, 1)]
    return [w for w in WIDTHS if any(isinstance(t, ArrayType) and t.size.divisible_by(w)
                                     is not False for t in parts)] or list(WIDTHS)


@basic_rule(
    "private-vectors",
    "λ(acc, x). e → λ(acc, x). (λv. e[v/x.k]) (joinVec (toPrivate (mapSeqUnroll id) "
    "(splitVec w x.k)))", "memory",
    "ICFP Fig. 5 (splitVec, joinVec); Lift's vectorised copies (asVector, toPrivate)",
    params=(RuleParam("k", "the component of the element to read", lambda s: [0, 1], "int"),
            RuleParam("w", "the vector width", _widths, "int")),
    doc="A part of the reduction's element (an array of scalars) read into private memory as "
        "vectors of w, once each step, before the operator uses it: one wide load in place of "
        "w narrow ones. The part must lie contiguous in memory (code generation says where it "
        "does not).")
@matches(OPERATOR)
def PRIVATE_VECTORS(m, site: Site, p) -> Expr | Refused:
    node = _operator(m, site)
    if isinstance(node, Refused):
        return node
    k, w = int(p["k"]), int(p["w"])
    if w not in WIDTHS:
        return Refused(f"w is a width of OpenCL's vectors ({', '.join(map(str, WIDTHS))}), "
                       f"not {w}")
    part = _part(site, k)
    if part is None:
        return Refused(f"the element has no component {k} (or its type is not known here)")
    if not isinstance(part, ArrayType) or not isinstance(part.elem, ScalarType):
        return Refused(f"component {k} of the element is not an array of scalars ({part})")
    if part.size.divisible_by(w) is False:
        return Refused(f"{w} does not divide the {part.size} elements of component {k}")
    read = _read(node, k, "vec")
    if isinstance(read, Refused):
        return read
    use, v = read
    copy = Apply(Prim("joinVec"), (Apply(Prim("toPrivate", (Prim("mapSeqUnroll", (Prim("id"),)),)),
                                         (Apply(Prim("splitVec", (Size.const(w),)), (use,)),)),))
    return _bound(node, use, v, copy)


def _local_copies(node: Lambda) -> list[Apply]:
    """The copies into local memory of parts of the element in the operator ``λ(acc, x).
    e``: ``toLocal (mapSeq (mapLocal … id)) v``, or that copy written through layout
    primitives (``toLocal (g ∘ mapSeq …)``), where v reads x and no other name the operator
    binds (what ``local-copy`` makes)."""
    acc, x = node.params[0]
    out = []

    def visit(e: Expr, bound: frozenset) -> None:
        if isinstance(e, Apply) and len(e.args) == 1 and _round_copy(e.fn) is not None \
                and x in e.args[0].free_vars() and not e.args[0].free_vars() & bound:
            out.append(e)
            return
        if isinstance(e, Lambda):
            bound = bound | set(e.names())
        for c in e.children():
            visit(c, bound)

    visit(node.body, frozenset({acc}))
    return out


def _round_copy(fn: Expr) -> tuple[Expr, tuple] | None:
    """``toLocal (g ∘ mapSeq L)`` with L one or two local maps of ``id`` and g, if any,
    layout primitives the copy is written through: (L, g's functions), else None."""
    if not (isinstance(fn, Prim) and fn.name == "toLocal"):
        return None
    f = fn.args[0]
    through: tuple = ()
    if isinstance(f, Compose):
        *through, f = f.fns
        if not all(rearranges_only(g) for g in through):
            return None
    match f:
        case Prim("mapSeq", (Prim("mapLocal", (_, Prim("id"))) as one,)):
            return one, tuple(through)
        case Prim("mapSeq", (Prim("mapLocal", (_, Prim("mapLocal", (_, Prim("id"))))) as two,)):
            return two, tuple(through)
    return None


def _prefetched(copy: Apply) -> Expr:
    """``toLocal (g ∘ mapSeq L) v`` with v made ahead into the private memory of the
    work-items that copy it: each holds its own elements of every round, rounds innermost
    (one part per work-item), copied unrolled so that the rounds are registers."""
    locals_, through = _round_copy(copy.fn)
    two = isinstance(locals_.args[1], Prim) and locals_.args[1].name == "mapLocal"
    inner = locals_.args[1] if two else None
    own = Prim("mapLocal", (locals_.args[0], Prim("mapLocal", (inner.args[0], _ids(1))))) \
        if two else Prim("mapLocal", (locals_.args[0], _ids(1)))
    each = Prim("map", (Prim("transpose"),))
    source = Apply(Prim("transpose"), (copy.args[0],))  # [rounds][l1][l0] → [l1][rounds][l0]
    if two:
        source = Apply(each, (source,))  # → [l1][l0][rounds]
    ahead: Expr = Apply(Prim("prefetch", (own,)), (source,))
    if two:
        ahead = Apply(each, (ahead,))
    ahead = Apply(Prim("transpose"), (ahead,))
    rounds = Prim("mapSeqUnroll", (locals_,))
    return Apply(Prim("toLocal", (compose(*through, rounds) if through else rounds,)), (ahead,))


@basic_rule(
    "prefetch",
    "λ(acc, x). e[toLocal (g ∘ mapSeq L) v] → λ(acc, x). e[toLocal (g ∘ mapSeqUnroll L) "
    "(transpose (map transpose (prefetch L' (map transpose (transpose v)))))], "
    "L' = L[mapSeqUnroll id/id]",
    "memory", "double buffering of k-tiles (MAGMA's and CUTLASS's SGEMM); Lift toPrivate",
    doc="The copies into local memory of the reduction's element made ahead: while the "
        "work-group computes on this step's tiles, each work-item loads its elements of the "
        "next step's into private memory (registers), and the step after copies them from "
        "there into local memory, so that the latency of global memory overlaps computation.")
@matches(OPERATOR)
def PREFETCH(m, site: Site, p) -> Expr | Refused:
    node = _operator(m, site)
    if isinstance(node, Refused):
        return node
    copies = _local_copies(node)
    if not copies:
        return Refused("the operator copies no part of its element into local memory by "
                       "rounds of local maps (toLocal (mapSeq (mapLocal … id)) … x.k)")
    body = node.body
    for copy in copies:
        body = _replace(body, copy, _prefetched(copy))
    return Lambda(node.params, body)


RULES = [LOCAL_COPY, PRIVATE_ACCUMULATOR, COPY_OUT, PACK, PRIVATE_VECTORS, PREFETCH]
