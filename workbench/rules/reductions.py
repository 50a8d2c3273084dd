"""Parallel reductions as the hardware wants them (ICFP Sect. 6.1 macro rules; the
reduction case study's versions): a fused sequential reduction, a work-group's reduction
as a tree in local memory, and the two-stage reduction whose second stage is parallel too.

How work is distributed is an explicit parameter: ``chunked`` (each work-item reduces one
contiguous chunk: what a CPU core streams best) or ``strided`` (neighbouring work-items
read neighbouring elements, ``reorderStride``: coalesced on a GPU, ICFP Fig. 11).

Each macro is a strategy over basic rules (``Rule.expand``: a derivation shows its
expansion), naming the functions it rewrites by what they are; the rule itself builds the
same result directly, so that listing the rewrites of a node with its many parameter
choices stays fast (the tests check that both agree).
"""

from __future__ import annotations

from ..expr import Apply, BinOp, Expr, Lambda, Prim, TupleExpr, Var, compose
from ..rewriting.macro import macro_rule
from ..rewriting.match import array_length, divides, matches, prim
from ..rewriting.strategies import at_site, element, fmap, last_element, parent, rule, seq
from ..sizes import Size
from .algorithmic import REDUCE
from .builders import fused_operator, project
from .macros import REDUCE_OF_MAP, reduce_of_map
from .renaming import renaming
from .rule import Refused, RuleParam, Site, basic_rule
from .vectors import NEUTRAL, lanes_may_start_at, operator_of

DISTRIBUTIONS = ("chunked", "strided")
GROUPS = (2, 4, 16, 64, 256, 1024, 4096, 16384)
LOCAL_SIZES = (32, 64, 128, 256)  # work-groups of a two-stage reduction's first stage
TREE_SIZES = (2, 4, 8, 16, 32, 64, 128, 256)  # of a work-group's reduction
# loops up to this length are worth unrolling (a vector's lanes, a pair, a K-means point's
# 34 features: on PoCL its kernel with the distance's loop, whose float additions LLVM may
# not reorder, is 3 times slower than with the 34 steps written out)
UNROLL_LIMIT = 48
MAP = prim("map")


def _log2(n: int) -> int | None:
    return n.bit_length() - 1 if n > 0 and n & (n - 1) == 0 else None


def _const(n: int) -> Size:
    return Size.const(n)


def _may_split(length: Size, n: int, at_least: int = 1) -> bool:
    """Whether chunks of ``length / n`` (at least ``at_least`` long) may be right: known
    to be for a number, not known not to be for a length in size variables."""
    if length.divisible_by(n) is False:
        return False
    quotient = length / _const(n)
    return not quotient.is_integer_constant or int(quotient.value) >= at_least


def _operator(node: Expr) -> tuple[Expr, Expr] | Refused:
    """``(f, z)`` of a ``reduce f z`` that may be reduced in parallel partial results, each
    starting at z (z neutral for f, or f idempotent)."""
    m = REDUCE.match(node)
    if isinstance(m, Refused):
        return m
    f, z = m.f, m.z
    op = _lane_operator(f)
    if op is None:
        return Refused(f"the operator {f} must be (+), (*), min or max (or mapVec of one): "
                       f"the partial results are combined in another order")
    return lanes_may_start_at(op, z) or (f, z)


def _componentwise(node: Expr) -> tuple[Expr, Expr] | Refused:
    """``(f, z)`` of a ``reduce f z`` whose operator combines tuples component by component,
    each with one of (+), (*), min, max (``λ(a, b). (a.0 + b.0, a.1 + b.1)``: two reductions
    fused, ``zip-reduce-fusion``), each component of z one its partial results may start at:
    partial results of a work-group's tree combine componentwise in another order."""
    m = REDUCE.match(node)
    if isinstance(m, Refused):
        return m
    f, z = m.f, m.z
    ops = _component_operators(f)
    if ops is None or not (isinstance(z, TupleExpr) and len(z.items) == len(ops)):
        return Refused(f"the operator {f} must be (+), (*), min or max, or combine tuples "
                       f"component by component with them (and z a tuple)")
    return next((bad for op, zi in zip(ops, z.items) if (bad := lanes_may_start_at(op, zi))),
                (f, z))


def _component_operators(f: Expr) -> tuple[str, ...] | None:
    """The operators of ``λ(a, b). (a.0 ⊕ b.0, a.1 ⊗ b.1, …)``, each (+), (*), min or max
    (None for any other function)."""
    if not (isinstance(f, Lambda) and len(f.params) == 1 and isinstance(f.params[0], tuple)
            and len(f.params[0]) == 2 and all(isinstance(p, str) for p in f.params[0])
            and isinstance(f.body, TupleExpr)):
        return None
    a, b = (Var(p) for p in f.params[0])
    ops = []
    for k, item in enumerate(f.body.items):
        sides = {project(a, k), project(b, k)}
        match item:
            case BinOp(op, left, right) if op in NEUTRAL and {left, right} == sides:
                ops.append(op)
            case Apply(Prim(("min" | "max") as op, ()), (TupleExpr((left, right)),)) \
                    if {left, right} == sides:
                ops.append(op)
            case _:
                return None
    return tuple(ops)


def _lane_operator(f: Expr) -> str | None:
    """The operator of ``f`` (of the function ``mapVec f`` applies to each lane)."""
    match f:
        case Prim("mapVec", (*_, lane)):
            return operator_of(lane)
    return operator_of(f)


def _distribution(p) -> str | Refused:
    d = str(p["distribution"])
    if d not in DISTRIBUTIONS:
        return Refused(f"the distribution is chunked or strided, not {d}")
    return d


# --- a work-group's reduction: a tree in local memory ---------------------------------------

def tree(f: Expr, z: Expr, local: int) -> list[Expr]:
    """The L partial results of a work-group (in local memory) reduced by halving them
    log2 L times, pairs summed by L/2, L/4, … work-items (ICFP Fig. 10's iterate), then
    the last one by one work-item."""
    step = compose(Prim("join"), Prim("mapLocal", (0, Prim("reduceSeqUnroll", (f, z)))),
                   Prim("split", (_const(2),)))
    return [Prim("reduceSeq", (f, z)), Prim("iterate", (_const(_log2(local)), step))]


def first_stage(f_item: Expr, z: Expr, length: Size, local: int, distribution: str,
                space: str, level: str) -> list[Expr]:
    """``local`` work-items (or work-groups) each reduce a chunk of length/local with
    ``f_item``; strided: work-item j reads elements j, j + local, j + 2·local, …"""
    chunk = length / _const(local)
    per_item = Prim(level, (0, Prim("reduceSeq", (f_item, z))))
    if space:
        per_item = Prim(space, (per_item,))
    out = [Prim("join"), per_item, Prim("split", (chunk,))]
    if distribution == "strided":
        out.append(Prim("reorderStride", (_const(local),)))
    return out


def workgroup_reduce(f: Expr, z: Expr, g: Expr | None, length: Size, local: int,
                     distribution: str) -> list[Expr]:
    """The functions of a work-group's reduction of ``length`` elements (fusing ``map g``
    into the per-work-item reductions when given)."""
    f_item = f if g is None else fused_operator(f, g)
    return [*tree(f, z, local),
            *first_stage(f_item, z, length, local, distribution, "toLocal", "mapLocal")]


def workgroup_reduce_steps(local: int, chunk: Size, distribution: str, fused: bool):
    """The strategy of ``workgroup(-map)-reduce`` on ``reduce f z [∘ map g]`` at the focus
    (inside a ``mapWorkgroup``)."""
    strided = "-strided" if distribution == "strided" else ""
    first = rule(f"map-reduce-fusion{strided}", chunk=chunk) if fused else \
        rule(f"reduce-chunks{strided}", chunk=chunk)                   # 6d 6c 6e 6f 7a 7b
    in_pairs = element("iterate", fmap(element("map", fmap(seq(
        rule("partial-reduce"),                                        # 6d (2)
        rule("reduce→reduceSeq"),                                      # 7b
        rule("reduceSeq→reduceSeqUnroll"))))))                         # unrolled pairs
    tree = seq(
        element("map", rule("map→mapLocal", dim=_const(0))),           # 7a
        element("mapLocal", rule("toLocal")),                          # 7d
        element("reduce", rule("reduce-partial", n=_const(1))),        # 6d (1)
        element("reducePart", rule("partial-iterate", k=_const(_log2(local)))),  # 6d (4)
        in_pairs,
        element("iterate", fmap(element("map", rule("map→mapLocal", dim=_const(0))))),  # 7a
        element("reduce", rule("reduce→reduceSeq")))                   # 7b
    return seq(first, parent(tree) if fused else tree)


def _workgroup_choice(site: Site, p, fused: bool) -> tuple | Refused:
    """``(f, z, length, local, distribution)`` of a work-group reduction here."""
    if fused and not MAP.fits(site.next):
        return reduce_of_map(site)
    found = _operator(site.node)
    if isinstance(found, Refused):
        found = _componentwise(site.node)
    if isinstance(found, Refused):
        return found
    levels = [level for level, _ in site.context]
    if not levels or levels[-1] != "workgroup":
        return Refused("a work-group's reduction stands directly inside a mapWorkgroup")
    length = array_length(site, of_next=fused)
    if length is None:
        return Refused("it reduces an array")
    local, distribution = int(p["local"]), _distribution(p)
    if isinstance(distribution, Refused):
        return distribution
    if _log2(local) is None or local < 2:
        return Refused(f"the work-items of a tree reduction are a power of two (at least 2), "
                       f"not {local}")
    return divides(_const(local), length, f"{local} work-items") or \
        (*found, length, local, distribution)


def _workgroup_rewrite(fused: bool):
    def rewrite(site: Site, p):
        found = _workgroup_choice(site, p, fused)
        if isinstance(found, Refused):
            return found
        f, z, length, local, distribution = found
        fns = workgroup_reduce(f, z, site.next.args[0] if fused else None, length,
                               local, distribution)
        return fns if fused else compose(*fns)

    return rewrite


def _expand_workgroup(fused: bool):
    def expand(p):
        def build(site: Site):
            found = _workgroup_choice(site, p, fused)
            if isinstance(found, Refused):
                return found
            _, _, length, local, distribution = found
            return workgroup_reduce_steps(local, length / _const(local), distribution, fused)
        return at_site(build)

    return expand


def _local_candidates(fused: bool, sizes=TREE_SIZES):
    def candidates(site: Site) -> list[Size]:
        length = array_length(site, of_next=fused)
        if length is None:
            return []
        return [_const(n) for n in sizes if _may_split(length, n)]

    return candidates


def _distributions(site: Site) -> list[str]:
    return list(DISTRIBUTIONS)


LOCAL = RuleParam("local", "work-items of the work-group (a power of two)",
                  _local_candidates(False))
DISTRIBUTION = RuleParam("distribution", "chunked (each work-item a contiguous chunk) or "
                         "strided (neighbouring work-items read neighbouring elements)",
                         _distributions, kind="choice")

WORKGROUP_REDUCE = macro_rule(
    "workgroup-reduce",
    "reduce f z → reduceSeq f z ∘ iterate (log L) (join ∘ mapLocal (reduceSeqUnroll f z) ∘ "
    "split 2) ∘ join ∘ toLocal (mapLocal (reduceSeq f z)) ∘ split (N/L)",
    "ICFP Sect. 6.1, Fig. 10; reduction listings 5.8, 5.13", _expand_workgroup(False),
    rewrite=_workgroup_rewrite(False), params=(LOCAL, DISTRIBUTION),
    doc="A work-group's reduction: L work-items each reduce a chunk into local memory, then "
        "a tree halves them log L times. reduce-chunks, 7a, 7d, 6d, 6d (4), 6d, 7b, unroll, "
        "7a, 7b.")

WORKGROUP_MAP_REDUCE = macro_rule(
    "workgroup-map-reduce",
    "reduce f z ∘ map g → reduceSeq f z ∘ iterate (log L) (join ∘ mapLocal (reduceSeqUnroll "
    "f z) ∘ split 2) ∘ join ∘ toLocal (mapLocal (reduceSeq (λ(acc, x). f (acc, g x)) z)) ∘ "
    "split (N/L)", "ICFP Sect. 6.1, Fig. 10", _expand_workgroup(True),
    rewrite=_workgroup_rewrite(True), params=(
        RuleParam("local", LOCAL.doc, _local_candidates(True)), DISTRIBUTION),
    pair=True,
    doc="workgroup-reduce with map g fused into the work-items' reductions (gemv's rows: one "
        "work-group per row). map-reduce-fusion, 7a, 7d, 6d, 6d (4), 6d, 7b, unroll, 7a, 7b.")


# --- the two-stage reduction ---------------------------------------------------------------

def two_stage(f: Expr, z: Expr, g: Expr, length: Size, groups: int, local: int,
              distribution: str) -> list[Expr]:
    """The functions of the two-stage reduction of ``reduce f z ∘ map g``."""
    chunk = length / _const(groups)
    if local == 1:  # work-groups of one work-item each reduce a chunk, then one adds them
        return [Prim("reduceSeq", (f, z)),
                *first_stage(fused_operator(f, g), z, length, groups, distribution, "",
                             "mapWorkgroup")]
    second = min(groups, local)
    stage1 = compose(*workgroup_reduce(f, z, g, chunk, local, distribution))
    stage2 = compose(*workgroup_reduce(f, z, None, _const(groups), second, distribution))
    return [Prim("join"), Prim("mapWorkgroup", (0, stage2)), Prim("split", (_const(groups),)),
            Prim("join"), Prim("mapWorkgroup", (0, stage1)), Prim("split", (chunk,))]


def two_stage_steps(groups: int, local: int, length: Size, distribution: str):
    """The strategy of the two-stage reduction on the composition ``reduce f z ∘ map g`` at
    the focus."""
    strided = "-strided" if distribution == "strided" else ""
    chunk = length / _const(groups)
    if local == 1:
        return seq(element("reduce", rule(f"map-reduce-fusion{strided}", chunk=chunk)),
                   element("map", rule("map→mapWorkgroup", dim=_const(0))),
                   element("reduce", rule("reduce→reduceSeq")))
    second = min(groups, local)
    return seq(
        # first stage: a work-group per chunk
        element("reduce", rule("reduce-partial", n=_const(groups))),      # 6d (1)
        element("reducePart", rule("partial-split", j=_const(1))),        # 6d (5)
        last_element("map", rule("split-join", n=chunk)),                 # 6c
        element("split", rule("split-join-cancel")),                      # 6e
        element("map", rule("map-fusion")),                               # 6f
        element("map", fmap(element("reducePart", rule("partial-reduce")))),  # 6d (2)
        element("map", rule("map→mapWorkgroup", dim=_const(0))),          # 7a
        element("mapWorkgroup", fmap(element("reduce", rule(
            "workgroup-map-reduce", local=_const(local), distribution=distribution)))),
        # second stage: one work-group reduces the partial results
        element("reduce", rule("reduce-partial", n=_const(1))),           # 6d (1)
        element("reducePart", rule("partial-split", j=_const(1))),        # 6d (5)
        element("map", fmap(rule("partial-reduce"))),                     # 6d (2)
        element("reduce", rule("reduce-single")),
        element("id", rule("id-elim")),
        element("map", rule("map→mapWorkgroup", dim=_const(0))),          # 7a
        element("mapWorkgroup", fmap(rule(
            "workgroup-reduce", local=_const(second), distribution=distribution))))


def _two_stage_site(site: Site, p) -> tuple | Refused:
    if not MAP.fits(site.next):
        return reduce_of_map(site)
    found = _operator(site.node)
    if isinstance(found, Refused):
        return found
    f, z = found
    length = array_length(site, of_next=True)
    if length is None:
        return Refused("it reduces an array")
    distribution = _distribution(p)
    if isinstance(distribution, Refused):
        return distribution
    groups, local = int(p["groups"]), int(p["local"])
    if _log2(local) is None:
        return Refused(f"the work-items of a group are 1 or a power of two, not {local}")
    if groups < 2:
        return Refused(f"the first stage has at least two partial results, not {groups}")
    if local > 1 and NEUTRAL[_lane_operator(f)] is None:
        return Refused(f"a second stage of work-groups needs z to be the neutral element of "
                       f"the operator (+ with 0, * with 1), not {f} (use local = 1)")
    return divides(_const(groups * local), length, f"{groups} groups of {local} work-items") \
        or (f, z, site.next.args[0], length, groups, local, distribution)


def _two_stage(site: Site, p):
    found = _two_stage_site(site, p)
    return found if isinstance(found, Refused) else two_stage(*found)


def expand_two_stage(p):
    def build(site: Site):
        found = _two_stage_site(site, p)
        if isinstance(found, Refused):
            return found
        _, _, _, length, groups, local, distribution = found
        return parent(two_stage_steps(groups, local, length, distribution))
    return at_site(build)


def _group_candidates(site: Site) -> list[Size]:
    length = array_length(site, of_next=True)
    if length is None:
        return []
    return [_const(g) for g in GROUPS if _may_split(length, g, at_least=2)]


def _two_stage_local(site: Site) -> list[Size]:
    length = array_length(site, of_next=True)
    if length is None:
        return []
    return [_const(1), *(_const(n) for n in LOCAL_SIZES if _may_split(length, 2 * n))]


TWO_STAGE = macro_rule(
    "two-stage-reduction",
    "reduce f z ∘ map g → join ∘ mapWorkgroup (tree) ∘ split G ∘ join ∘ mapWorkgroup "
    "(tree ∘ join ∘ toLocal (mapLocal (reduceSeq (λ(acc, x). f (acc, g x)) z)) ∘ split I) "
    "∘ split (N/G)", "ICFP Sect. 6.1, Fig. 10, 11; reduction listing 5.13",
    expand_two_stage, rewrite=_two_stage, params=(
        RuleParam("groups", "partial results of the first stage (work-groups, or work-items "
                  "when local is 1)", _group_candidates),
        RuleParam("local", "work-items per group (1: each partial result by a work-group of "
                  "one work-item, then one work-item adds them)", _two_stage_local),
        DISTRIBUTION),
    pair=True,
    doc="A reduction in two kernels: G work-groups each reduce a chunk (map g fused) to one "
        "value with a tree in local memory, then one work-group of min(G, L) work-items "
        "reduces the G values the same way. With local = 1: G work-groups of one work-item "
        "each reduce a chunk sequentially, then one work-item adds the G values (what a CPU "
        "wants: a core per work-group, each streaming a chunk).")


# --- small rules the macros use ---------------------------------------------------------------

@basic_rule(
    "reduce-single", "reduce f z → id   (one element, z neutral for f)", "algorithmic",
    "ICFP Fig. 4 (reduce's meaning)",
    doc="Reducing one element with the neutral element leaves it as it is.")
@matches(REDUCE)
def REDUCE_SINGLE(m, site: Site, p) -> Expr | Refused:
    length = array_length(site)
    if length is None or length != _const(1):
        return Refused(f"the input must have one element, it has {length}")
    op = _lane_operator(m.f)
    if op is None or NEUTRAL[op] is None:
        return Refused(f"z must be the neutral element of the operator (+ with 0, * with 1); "
                       f"the operator here is {m.f}")
    problem = lanes_may_start_at(op, m.z)
    return problem or Prim("id")


def expand_map_reduce_seq_fusion(p):
    def build(site: Site):
        return reduce_of_map(site) or parent(seq(
            element("map", rule("map→mapSeq")),                                # 7a
            element("reduce", rule("reduce→reduceSeq")),                       # 7b
            element("reduceSeq", rule("reduceSeq-mapSeq-fusion"))))            # 6f
    return at_site(build)


@matches(REDUCE_OF_MAP)
def _map_reduce_seq_fusion(m, site: Site, p):
    return [Prim("reduceSeq", (fused_operator(m.f, m.g), m.z))]


MAP_REDUCE_SEQ_FUSION = macro_rule(
    "map-reduceSeq-fusion", "reduce f z ∘ map g → reduceSeq (λ(acc, x). f (acc, g x)) z",
    "ICFP Fig. 6f, 7a, 7b", expand_map_reduce_seq_fusion, rewrite=_map_reduce_seq_fusion,
    pair=True,
    doc="One work-item's whole reduction, the map fused into it (no temporary array): 7a, "
        "7b, 6f. On vectors (mapVec f, mapVec g) the result has a vector accumulator.")


def _short(site: Site) -> Refused | None:
    """Unrolling pays for short loops. A length given by sizes (``split (blockSize/128)``)
    is unrolled when code is generated for bound sizes (a long loop then stays a loop:
    codegen.unroll)."""
    length = array_length(site)
    if length is not None and length.is_integer_constant and int(length.value) > UNROLL_LIMIT:
        return Refused(f"unrolling pays for short loops (up to {UNROLL_LIMIT}); this one "
                       f"has {length}")
    return None


UNROLLING = [
    renaming("reduceSeq", "reduceSeqUnroll", "f z", "opencl",
             "Lift unrolled patterns; PACT table 2", note=f"   (length ≤ {UNROLL_LIMIT})",
             condition=_short,
             doc="A short sequential reduction (a vector's lanes, a pair of a tree) as "
                 "straight-line code."),
    renaming("mapSeq", "mapSeqUnroll", "f", "opencl", "Lift unrolled patterns; PACT table 2",
             note=f"   (length ≤ {UNROLL_LIMIT})", condition=_short,
             doc="A short sequential map as straight-line code."),
]


RULES = [MAP_REDUCE_SEQ_FUSION, WORKGROUP_REDUCE, WORKGROUP_MAP_REDUCE, TWO_STAGE, REDUCE_SINGLE,
         *UNROLLING]
