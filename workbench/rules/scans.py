"""Rules for ``scan`` (SkelCL's scan skeleton): its lowering to a sequential scan in one
work-item, to the work-efficient scan of a work-group's array by its work-items
(``scanLocal``), and the decomposition of a scan into blocks that makes it parallel across
work-groups: every block is scanned on its own, and the block's offset (the exclusive scan of
the blocks' totals) is combined with each of its elements."""

from __future__ import annotations

from ..expr import Apply, Expr, Lambda, Prim, Var, fresh_name
from ..rewriting.match import array_length, divides, matches, prim
from ..sizes import Size
from .builders import combine
from .renaming import renaming
from .rule import Refused, RuleParam, Site, basic_rule, powers_of_two_dividing

SCAN_SEQ = renaming("scan", "scanSeq", "f z", "opencl", "Lift (ScanSeq)")


def _in_a_workgroup(site: Site) -> Refused | None:
    levels = [level for level, _ in site.context]
    if "workgroup" not in levels:
        return Refused("the work-items of a work-group scan together: it must be inside a "
                       "mapWorkgroup")
    if set(levels) & {"local", "warp", "lane", "seq", "global"}:
        return Refused("a work-group's scan is the code of the whole group, not of one of "
                       "its work-items (it is inside a mapLocal, mapWarp, mapLane or mapSeq)")
    n = array_length(site)
    if n is not None and n.is_integer_constant and int(n) & (int(n) - 1):
        return Refused(f"the tree of the scan needs a power-of-two length, not {n}")
    return None


SCAN_LOCAL = renaming("scan", "scanLocal", "f z", "opencl", "Blelloch's work-efficient scan",
                      note="   (in a mapWorkgroup)", condition=_in_a_workgroup)


@basic_rule(
    "scan-blocks",
    "scan f z → λxs. join (map (λ(offset, b). map (λx. f (offset, x)) (scan f z b)) "
    "(zip (take K (pad 1 0 z (scan f z (join (map (reduce f z) (split B xs)))))) "
    "(split B xs)))", "algorithmic", "SkelCL scan, Blelloch",
    params=(RuleParam("b", "elements per block (B)", lambda s: powers_of_two_dividing(
        array_length(s), 2, 1024)),),
    doc="A scan of blocks of B: the totals of the blocks are reduced and scanned (a scan of "
        "N/B elements), shifted right by one with z (the offset of each block), and each "
        "block's own scan is combined with its offset. f must be associative with z neutral, "
        "as for reduce.")
@matches(prim("scan", "f", "z", why="it rewrites scan f z"))
def SCAN_BLOCKS(m, site: Site, p) -> Expr | Refused:
    f, z = m.f, m.z
    n = array_length(site)
    b = p["b"]
    bad = divides(b, n, f"blocks of {b}")
    if bad:
        return bad
    if n is None:
        return Refused("the input length is not known here")
    blocks = n / b
    avoid = f.free_vars() | z.free_vars()
    xs, o, blk, x = (fresh_name(name, avoid) for name in ("xs", "offset", "blk", "x"))
    split = Apply(Prim("split", (b,)), (Var(xs),))
    totals = Apply(Prim("map", (Prim("reduce", (f, z)),)), (split,))
    joined_totals = Apply(Prim("join"), (totals,))
    offsets = Apply(Prim("take", (blocks,)), (Apply(Prim("pad", (Size.const(1), Size.const(0),
                                                                 z)), (
        Apply(Prim("scan", (f, z)), (joined_totals,)),)),))
    shift = Lambda((x,), combine(f, Var(o), Var(x)))
    per_block = Lambda(((o, blk),), Apply(Prim("map", (shift,)), (
        Apply(Prim("scan", (f, z)), (Var(blk),)),)))
    body = Apply(Prim("join"), (Apply(Prim("map", (per_block,)), (
        Apply(Prim("zip"), (offsets, split)),)),))
    return Lambda((xs,), body)


RULES = [SCAN_SEQ, SCAN_LOCAL, SCAN_BLOCKS]
