"""Macro rules: named sequences of basic rules (ICFP 2015 Sect. 6.1). Applying a macro is
one step of a derivation, and its expansion into basic rules stays visible. Each macro is a
strategy (``rewriting.strategies``) that names the functions it rewrites by what they are."""

from __future__ import annotations

from ..rewriting.macro import macro_rule
from ..rewriting.match import array_length, divides, map_of, pair, prim
from ..rewriting.strategies import at_site, element, fmap, last_element, parent, rule, seq
from ..sizes import Size
from .algorithmic import REDUCE
from .rule import Refused, RuleParam, Site, powers_of_two_dividing

ONE = Size.const(1)


def _chunks(site: Site, chunk: Size, of_next: bool) -> Size | Refused:
    """The number of chunks of ``chunk`` elements the input has."""
    length = array_length(site, of_next=of_next)
    if length is None:
        return Refused("the input length is not known here")
    return divides(chunk, length, f"chunks of {chunk}") or length / chunk


def fused_chunks(parts: Size, chunk: Size, strided: bool = False):
    """ICFP Fig. 10 on the composition ``reduce f z ∘ map g`` at the focus; with ``strided``,
    the input is first read with the stride of the number of chunks, so that neighbouring
    sequential reductions read neighbouring elements (ICFP Fig. 11, GPUs)."""
    reorder = [
        element("reducePart", rule("partial-reorder")),                  # 6d (3)
        element("reorder", rule("reorder-commute-back")),                # 6b
        element("reorder", rule("reorder→reorderStride", s=parts)),      # 7c
    ] if strided else []
    return seq(
        element("reduce", rule("reduce-partial", n=parts)),              # (1) 6d
        *reorder,
        element("reducePart", rule("partial-split", j=ONE)),             # (2) 6d
        last_element("map", rule("split-join", n=chunk)),                # (3) 6c
        element("split", rule("split-join-cancel")),                     # (4) 6e
        element("map", rule("map-fusion")),                              # (5) 6f
        element("map", fmap(seq(                                         # in each chunk:
            element("map", rule("map→mapSeq")),                          # (6) 7a
            element("reducePart", rule("partial-reduce")),               # (7) 6d
            element("reduce", rule("reduce→reduceSeq")),                 # (7) 7b
            element("reduceSeq", rule("reduceSeq-mapSeq-fusion"))))))    # (8) 6f


REDUCE_OF_MAP = pair(prim("reduce", "f", "z"), map_of("g"), why="it rewrites reduce f z ∘ map g")
reduce_of_map, a_reduce = REDUCE_OF_MAP.refusal, REDUCE.refusal  # as their strategies check them


def map_reduce_fusion(strided: bool = False):
    def expand(p):
        def build(site: Site):
            shape = reduce_of_map(site)
            if shape is not None:
                return shape
            parts = _chunks(site, p["chunk"], of_next=True)
            if isinstance(parts, Refused):
                return parts
            return parent(fused_chunks(parts, p["chunk"], strided))
        return at_site(build)
    return expand


def _fused_chunk_sizes(site: Site) -> list[Size]:
    return powers_of_two_dividing(array_length(site, of_next=True))


MAP_REDUCE_FUSION = macro_rule(
    "map-reduce-fusion",
    "reduce f z ∘ map g → reduce f z ∘ join ∘ map (reduceSeq (λ(acc, x). f (acc, g x)) z) "
    "∘ split I", "ICFP Sect. 6.1, Fig. 10", map_reduce_fusion(),
    params=(RuleParam("chunk", "elements each sequential reduction takes (I)",
                      _fused_chunk_sizes),),
    pair=True, lhs=REDUCE_OF_MAP,
    doc="Fig. 10 as one step: 6d, 6d, 6c, 6e, 6f, 7a, 6d, 7b, 6f.")

MAP_REDUCE_FUSION_STRIDED = macro_rule(
    "map-reduce-fusion-strided",
    "reduce f z ∘ map g → reduce f z ∘ join ∘ map (reduceSeq (λ(acc, x). f (acc, g x)) z) "
    "∘ split I ∘ reorderStride (N/I)", "ICFP Sect. 6.1, Fig. 10, 11",
    map_reduce_fusion(strided=True),
    params=(RuleParam("chunk", "elements each sequential reduction takes (I)",
                      _fused_chunk_sizes),),
    pair=True, lhs=REDUCE_OF_MAP,
    doc="Fig. 10 with the reordering of Fig. 11's GPU kernels: 6d, 6d, 6b, 7c, 6d, 6c, 6e, "
        "6f, 7a, 6d, 7b, 6f. Sequential reduction k reads elements k, k + N/I, k + 2N/I, …, "
        "so neighbouring work-items read neighbouring elements (coalesced on a GPU).")


def reduce_chunks(strided: bool = False):
    """The first steps of ICFP Fig. 10 on ``reduce f z`` alone: a parallel first stage of
    sequential reductions of chunks; with ``strided``, chunk k holds elements k, k + N/I,
    k + 2N/I, …"""
    def expand(p):
        def build(site: Site):
            shape = a_reduce(site)
            if shape is not None:
                return shape
            parts = _chunks(site, p["chunk"], of_next=False)
            if isinstance(parts, Refused):
                return parts
            reorder = [
                element("reducePart", rule("partial-reorder")),                # 6d (3)
                element("reorder", rule("reorder→reorderStride", s=parts)),    # 7c
            ] if strided else []
            return seq(
                rule("reduce-partial", n=parts),                               # 6d (1)
                *reorder,
                element("reducePart", rule("partial-split", j=ONE)),           # 6d (2)
                element("map", fmap(seq(rule("partial-reduce"),                # 6d (1)
                                        rule("reduce→reduceSeq")))))           # 7b
        return at_site(build)
    return expand


def _chunk_sizes(site: Site) -> list[Size]:
    return powers_of_two_dividing(array_length(site))


REDUCE_CHUNKS = macro_rule(
    "reduce-chunks",
    "reduce f z → reduce f z ∘ join ∘ map (reduceSeq f z) ∘ split I",
    "ICFP Sect. 6.1, Fig. 10 (1)-(2)", reduce_chunks(),
    params=(RuleParam("chunk", "elements each sequential reduction takes (I)",
                      _chunk_sizes),), lhs=REDUCE,
    doc="A reduction's parallel first stage as one step: 6d, 6d, 6d, 7b. The reduce left "
        "in front takes N/I partial results (another stage, or a sequential one).")

REDUCE_CHUNKS_STRIDED = macro_rule(
    "reduce-chunks-strided",
    "reduce f z → reduce f z ∘ join ∘ map (reduceSeq f z) ∘ split I ∘ reorderStride (N/I)",
    "ICFP Sect. 6.1, Fig. 10 (1)-(2), Fig. 11", reduce_chunks(strided=True),
    params=(RuleParam("chunk", "elements each sequential reduction takes (I)",
                      _chunk_sizes),), lhs=REDUCE,
    doc="reduce-chunks with the reordering of Fig. 11's GPU kernels: 6d, 6d, 7c, 6d, 6d, "
        "7b. Neighbouring sequential reductions read neighbouring elements (coalesced).")

RULES = [MAP_REDUCE_FUSION, MAP_REDUCE_FUSION_STRIDED, REDUCE_CHUNKS, REDUCE_CHUNKS_STRIDED]
