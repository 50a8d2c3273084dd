"""Register blocking and constant memory proposed to a search (``proposals``): the start
program with every map of reductions over a shared array computing k outputs per work-item
(``block-outputs``, k of ``OUTPUTS_PER_ITEM``, strided), and with the inputs that
every work-item reads inside a map's function in constant memory (``input→toConstant``), each
with the steps from the start.

Both rules are left out of the walks (blocking, another seed), so the walks' candidates and
the recorded searches stay what they were; the guided search measures these proposals
first where asked (its options ``blocked_first`` and ``constant_first``). The maps of
reductions are blocked at the places the start has them, the last first, so that blocking
one leaves the places of the others as they were (and the map over chunks it makes, itself
a map of reductions, is not blocked again).
"""

from __future__ import annotations

from ..expr import Apply, Expr, Lambda, Prim, Var, fresh_name, substitute, walk
from ..rewriting.application import lookup_rule, rewrites
from ..rewriting.site import Refused
from ..rewriting.step import Step
from ..rewriting.strategies import State, element, parent, rule, seq
from ..rules.outputs import substitute_all
from ..sizes import Size
from ..types import Type
from .grids import inside_maps
from .space import is_constant, within

OUTPUTS_PER_ITEM = (4, 8)
# a work-item's outputs n/k apart: neighbouring work-items read neighbouring elements (on a
# GPU their reads coalesce; on PoCL GESUMMV's rows at 512 ran 1.3-1.4 times faster strided
# than one per work-item, chunked 1.0-1.3); the other distribution is left to the walks'
# budget, a proposal taking a candidate of it
DISTRIBUTION = "strided"


def blocked_mappings(expr: Expr, types: tuple[Type, ...]) -> list[tuple[Expr, list[Step]]]:
    """For each k of ``OUTPUTS_PER_ITEM``, the program with each of its maps of reductions
    computing k outputs per work-item (where k divides its length), strided
    (``DISTRIBUTION``), and the steps; none where no map of reductions is blocked."""
    return [found for k in OUTPUTS_PER_ITEM
            if (found := blocked_mapping(expr, types, k, DISTRIBUTION)) is not None]


def blocked_mapping(expr: Expr, types: tuple[Type, ...], k: int, distribution: str
                    ) -> tuple[Expr, list[Step]] | None:
    """The program with each of its maps of reductions computing k outputs per work-item
    (``distribution``: chunked or strided), the last first, and the steps; None where k
    divides the length of none."""
    rule = lookup_rule("block-outputs")
    sites = sorted({r.path for r in rewrites(expr, *types, rules=[rule])}, reverse=True)
    current, steps = expr, []
    for path in sites:
        found = [r for r in rewrites(current, *types, rules=[rule], at=path)
                 if r.path == path and r.params["distribution"] == distribution
                 and is_constant(r.params["k"], k)]
        if found:
            current, steps = found[0].result, steps + [found[0].bare()]
    return (current, steps) if steps else None


def vector_blocked_mappings(expr: Expr, types: tuple[Type, ...], widths: tuple[int, ...]
                            ) -> list[tuple[Expr, list[Step]]]:
    """For each width n of ``widths`` (widest first) and k of ``OUTPUTS_PER_ITEM`` (most
    first), the program with each of its maps of reductions computing k neighbouring outputs
    per work-item in vectors of n lanes (``vector_blocked_mapping``), and the steps."""
    return [found for n in sorted(widths, reverse=True)
            for k in sorted(OUTPUTS_PER_ITEM, reverse=True)
            if (found := vector_blocked_mapping(expr, types, n, k)) is not None]


def vector_blocked_mapping(expr: Expr, types: tuple[Type, ...], n: int, k: int
                           ) -> tuple[Expr, list[Step]] | None:
    """The program with each map of reductions (``block-outputs``' places, the last first)
    reducing in vectors of n lanes (``map-reduce-vectorize`` inside it), then computing k
    outputs per work-item, chunked, their k vector accumulators together
    (``block-vector-outputs``: GEMV's rows k at a time in float-n loads, as CPU libraries
    write it); None where no map takes both steps."""
    vectorize, block = lookup_rule("map-reduce-vectorize"), lookup_rule("block-vector-outputs")
    sites = sorted({r.path for r in rewrites(expr, *types, rules=[lookup_rule("block-outputs")])},
                   reverse=True)
    current, steps = expr, []
    for path in sites:
        lanes = [r for r in rewrites(current, *types, rules=[vectorize])
                 if within(r.path, path) and is_constant(r.params.get("n"), n)]
        for r in lanes[:1]:
            found = [b for b in rewrites(r.result, *types, rules=[block], at=path)
                     if b.path == path and is_constant(b.params.get("k"), k)
                     and b.params["distribution"] == "chunked"]
            if found:
                current, steps = found[0].result, steps + [r.bare(), found[0].bare()]
    return (current, steps) if steps else None


# Work-groups of one work-item each that stream a chunk of a vectorised reduction: a few
# chunks per core of a small CPU (on PoCL 3.1 with 2 cores, asum at 2^22 floats in float16s
# ran in 0.16 ms with 16, 0.16 with 4 and 0.17 with 2 such chunks; PoCL runs each
# work-group as a task of its own)
REDUCTION_CHUNKS = 16


def vector_reductions(expr: Expr, types: tuple[Type, ...], widths: tuple[int, ...],
                      chunks: int = REDUCTION_CHUNKS) -> list[tuple[Expr, list[Step]]]:
    """For each width n of ``widths`` (widest first), the program with each of its
    reductions of a map that no map encloses (a whole program's sum: asum, dot) reducing in
    vectors of n lanes (``map-reduce-vectorize``), then in two stages, ``chunks``
    work-groups of one work-item each streaming a contiguous chunk of vectors into one
    vector accumulator, one work-item adding their results (``two-stage-reduction``, local
    1, chunked: as CPU libraries write a sum), and the steps."""
    return [found for n in sorted(widths, reverse=True)
            if (found := vector_reduction(expr, types, n, chunks)) is not None]


def vector_reduction(expr: Expr, types: tuple[Type, ...], n: int, chunks: int
                     ) -> tuple[Expr, list[Step]] | None:
    """The program with each reduction of a map outside every map (the last first) in
    vectors of n lanes and two stages of ``chunks`` chunks (``vector_reductions``), and the
    steps; None where none takes both steps (n or the chunks do not divide its length)."""
    inside = inside_maps(expr)
    sites = sorted({r.path for r in rewrites(expr, *types,
                                              rules=[lookup_rule("map-reduce-vectorize")])
                    if r.path not in inside}, reverse=True)
    # the vectorised reduction, ``reduce (mapVec f) z``, among the functions it joined
    in_two_stages = parent(element(_reduces_vectors, rule(
        "two-stage-reduction", groups=Size.const(chunks), local=Size.const(1),
        distribution="chunked")))
    current, steps = expr, []
    for path in sites:
        done = seq(rule("map-reduce-vectorize", n=Size.const(n)),
                   in_two_stages)(State(current, tuple(types), focus=path))
        if not isinstance(done, Refused):
            current, steps = done.expr, steps + [s.bare() for s in done.steps]
    return (current, steps) if steps else None


def _reduces_vectors(f: Expr) -> bool:
    return isinstance(f, Prim) and f.name == "reduce" and isinstance(f.args[0], Prim) \
        and f.args[0].name == "mapVec"


def shared_inputs(expr: Expr) -> list[str]:
    """The program's inputs read inside the function of a map (every work-item reads them,
    not only its own elements: MRI-Q's k-space samples, a convolution's weights, K-means'
    centroids), in the order of the program's parameters."""
    if not isinstance(expr, Lambda):
        return []
    body = applied(expr.body)
    return [p for p in expr.params if isinstance(p, str) and _read_inside_a_map(body, p)]


def applied(e: Expr) -> Expr:
    """``e`` with each lambda given all its parameters applied (GESUMMV's ``(λmatrix vector
    alpha. …) A x alpha``: its input x is read where the lambda reads ``vector``)."""
    kids = e.children()
    if kids:
        e = e.with_children(tuple(applied(c) for c in kids))
    match e:
        case Apply(Lambda(params, body), args) if len(params) == len(args) and \
                all(isinstance(p, str) for p in params):
            return applied(substitute_all(body, params, args))
    return e


def _read_inside_a_map(body: Expr, name: str) -> bool:
    """Whether the free variable ``name`` is read inside a map's function (its free
    occurrences renamed first to a name no inner binder has: an inner ``λy`` is not the
    input ``y``)."""
    taken = {n.name for _, n in walk(body) if isinstance(n, Var)} | \
        {b for _, n in walk(body) if isinstance(n, Lambda) for b in n.names()}
    free = fresh_name(f"{name}_input", taken)
    body = substitute(body, name, Var(free))
    return any(isinstance(node, Prim) and node.decl.is_map and node.args
               and free in node.args[-1].free_vars() for _, node in walk(body))


def constant_inputs(expr: Expr, types: tuple[Type, ...]) -> tuple[Expr, list[Step]] | None:
    """The program with each of its shared inputs that ``input→toConstant`` takes in constant
    memory (the first ones while they fit together), and the steps; None where none goes."""
    rule = lookup_rule("input→toConstant")
    current, steps = expr, []
    for name in shared_inputs(expr):
        found = [r for r in rewrites(current, *types, rules=[rule], at=())
                 if r.params["input"] == name]
        if found:
            current, steps = found[0].result, steps + [found[0].bare()]
    return (current, steps) if steps else None


def with_constant_inputs(expr: Expr, steps: list[Step], types: tuple[Type, ...]
                         ) -> tuple[Expr, list[Step]] | None:
    """``expr`` (reached by ``steps``) with its shared inputs in constant memory too, or
    None where none goes."""
    more = constant_inputs(expr, types)
    return None if more is None else (more[0], steps + more[1])
