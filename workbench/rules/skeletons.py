"""Rules for the skeletons of P2CL and SkelCL: the operation map as split, map and join
(P2CL Sect. 4.2.1), SkelCL's allpairs as two maps (SkelCL Def. 3.9), and P2CL's pattern
fusion (Table 8.1): an operation that P2CL runs as a kernel of its own (a gather or scatter
in its data-arrangement kernel, here a copy ``map id`` next to it) fused with its neighbour."""

from __future__ import annotations

from ..expr import Expr, Prim, compose
from ..rewriting.match import array_length, matches, prim
from .rule import Refused, Site, basic_rule


@basic_rule("opMap→split-join", "opMap n f → join ∘ map f ∘ split (N/n)", "algorithmic",
            "P2CL operation map (Sect. 4.2.1)")
@matches(prim("opMap", "n", "f", why="it rewrites opMap n f"))
def OP_MAP(m, site: Site, p) -> Expr | Refused:
    n, f = m.n, m.f
    length = array_length(site)
    if length is None:
        return Refused("the input length is not known here")
    return compose(Prim("join"), Prim("map", (f,)), Prim("split", (length / n,)))


@basic_rule("allPairs→maps", "allPairs f → λxs ys. map (λx. map (λy. f x y) ys) xs",
            "algorithmic", "SkelCL allpairs (Def. 3.9)")
@matches(prim("allPairs", "f", why="it rewrites allPairs f"))
def ALL_PAIRS(m, site: Site, p) -> Expr:
    from ..primitives.skeletons import all_pairs_expansion

    return all_pairs_expansion(m.f)


COMPUTING = ("map", "mapGlobal", "mapWorkgroup", "mapSeq", "reduce", "reduceSeq", "scan")


def _copy(node: Expr) -> bool:
    match node:
        case Prim("map" | "mapGlobal" | "mapSeq", (*_, Prim("id"))):
            return True
    return False


@basic_rule(
    "copy-elimination", "f ∘ map id → f,  map id ∘ f → f   (f a map or reduction)",
    "algorithmic", "P2CL pattern fusion (Table 8.1)", pair=True,
    doc="P2CL runs a gather or scatter that it cannot fuse as a data-arrangement kernel of "
        "its own; here that kernel is the copy next to the layout primitive, and fusing is "
        "removing it: the neighbouring map or reduction reads (gather→map, gather→reduce) or "
        "writes (map→scatter) through the layout primitive's view.")
def COPY_ELIMINATION(site: Site, p) -> list | Refused:
    match site.node, site.next:
        case (Prim(name) as f, copy) if name in COMPUTING and _copy(copy):
            return [f]  # f ∘ map id: f reads what the copy would have written
        case (copy, Prim(name) as f) if name in COMPUTING and _copy(copy):
            return [f]  # map id ∘ f: f writes where the copy would have
    return Refused("it removes a copy (map id) next to a map or reduction")


RULES = [OP_MAP, ALL_PAIRS, COPY_ELIMINATION]
