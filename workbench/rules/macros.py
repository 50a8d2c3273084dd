"""Macro rules: named sequences of basic rules (ICFP 2015 Sect. 6.1). Applying a macro is
one step of a derivation, and its expansion into basic rules stays visible."""

from __future__ import annotations

from functools import partial

from ..expr import Compose, Expr
from ..sizes import Size
from .algorithmic import array_length, divides, is_prim
from .rule import Refused, Rule, RuleParam, Site, powers_of_two_dividing
from .strategies import State, Step, rule_at, seq


def map_reduce_fusion_steps(chunk: Size, length: Size, strided: bool = False) -> list[Step]:
    """The basic steps of ICFP Fig. 10 on ``reduce f z ∘ map g`` (at paths 0 and 1); with
    ``strided``, the input is first read with the stride of the number of chunks, so that
    neighbouring sequential reductions read neighbouring elements (ICFP Fig. 11, GPUs)."""
    parts = length / chunk
    reorder = [
        Step("partial-reorder", (1,), {}),                    # 6d (3)
        Step("reorder-commute-back", (2,), {}),               # 6b
        Step("reorder→reorderStride", (3,), {"s": parts}),    # 7c
    ] if strided else []
    return [
        Step("reduce-partial", (0,), {"n": parts}),            # (1) 6d
        *reorder,
        Step("partial-split", (1,), {"j": Size.const(1)}),    # (2) 6d
        Step("split-join", (4,), {"n": chunk}),               # (3) 6c
        Step("split-join-cancel", (3,), {}),                  # (4) 6e
        Step("map-fusion", (2,), {}),                         # (5) 6f
        Step("map→mapSeq", (2, 0, 1), {}),                    # (6) 7a
        Step("partial-reduce", (2, 0, 0), {}),                # (7) 6d
        Step("reduce→reduceSeq", (2, 0, 0), {}),              # (7) 7b
        Step("reduceSeq-mapSeq-fusion", (2, 0, 0), {}),       # (8) 6f
    ]


def _map_reduce_fusion(site: Site, p) -> list | Refused:
    return pair_result(expand_map_reduce_fusion(site, p))


def _map_reduce_fusion_strided(site: Site, p) -> list | Refused:
    return pair_result(expand_map_reduce_fusion(site, p, strided=True))


def pair_result(expansion: State | Refused) -> list | Refused:
    """A pair rule's result: the functions that replace the pair."""
    if isinstance(expansion, Refused):
        return expansion
    final = expansion.expr
    return list(final.fns) if isinstance(final, Compose) else [final]


def _fused_chunk_sizes(site: Site) -> list[Size]:
    return powers_of_two_dividing(array_length(site, of_next=True))


def expand_map_reduce_fusion(site: Site, p, strided: bool = False) -> State | Refused:
    if not (is_prim(site.node, "reduce") and is_prim(site.next, "map")):
        return Refused("it rewrites reduce f z ∘ map g")
    return _expand(Compose((site.node, site.next)), site.next_typing,
                   array_length(site, of_next=True), p["chunk"],
                   lambda chunk, length: map_reduce_fusion_steps(chunk, length, strided))


def _expand(local: Expr, typing, length: Size | None, chunk: Size, steps) -> State | Refused:
    """Run the basic steps ``steps(chunk, length)`` on ``local`` (typed by ``typing``)."""
    if length is None:
        return Refused("the input length is not known here")
    bad = divides(chunk, length, f"chunks of {chunk}")
    if bad:
        return bad
    return seq(*(rule_at(s.rule, s.path, **s.params) for s in steps(chunk, length)))(
        State(local, tuple(typing.args)))


MAP_REDUCE_FUSION = Rule(
    "map-reduce-fusion",
    "reduce f z ∘ map g → reduce f z ∘ join ∘ map (reduceSeq (λ(acc, x). f (acc, g x)) z) "
    "∘ split I", "macro", "ICFP Sect. 6.1, Fig. 10", _map_reduce_fusion,
    params=(RuleParam("chunk", "elements each sequential reduction takes (I)",
                      _fused_chunk_sizes),),
    pair=True,
    doc="Fig. 10 as one step: 6d, 6d, 6c, 6e, 6f, 7a, 6d, 7b, 6f.")

MAP_REDUCE_FUSION_STRIDED = Rule(
    "map-reduce-fusion-strided",
    "reduce f z ∘ map g → reduce f z ∘ join ∘ map (reduceSeq (λ(acc, x). f (acc, g x)) z) "
    "∘ split I ∘ reorderStride (N/I)", "macro", "ICFP Sect. 6.1, Fig. 10, 11",
    _map_reduce_fusion_strided,
    params=(RuleParam("chunk", "elements each sequential reduction takes (I)",
                      _fused_chunk_sizes),),
    pair=True,
    doc="Fig. 10 with the reordering of Fig. 11's GPU kernels: 6d, 6d, 6b, 7c, 6d, 6c, 6e, "
        "6f, 7a, 6d, 7b, 6f. Sequential reduction k reads elements k, k + N/I, k + 2N/I, …, "
        "so neighbouring work-items read neighbouring elements (coalesced on a GPU).")


def reduce_chunks_steps(chunk: Size, length: Size, strided: bool = False) -> list[Step]:
    """The first steps of ICFP Fig. 10 on ``reduce f z`` alone (at the root): a parallel
    first stage of sequential reductions of chunks; with ``strided``, chunk k holds elements
    k, k + N/I, k + 2N/I, …"""
    parts = length / chunk
    reorder = [
        Step("partial-reorder", (1,), {}),                    # 6d (3)
        Step("reorder→reorderStride", (2,), {"s": parts}),    # 7c
    ] if strided else []
    return [
        Step("reduce-partial", (), {"n": parts}),              # 6d (1)
        *reorder,
        Step("partial-split", (1,), {"j": Size.const(1)}),    # 6d (2)
        Step("partial-reduce", (2, 0), {}),                   # 6d (1)
        Step("reduce→reduceSeq", (2, 0), {}),                 # 7b
    ]


def expand_reduce_chunks(site: Site, p, strided: bool = False) -> State | Refused:
    if not is_prim(site.node, "reduce"):
        return Refused("it rewrites reduce f z")
    return _expand(site.node, site.typing, array_length(site), p["chunk"],
                   lambda chunk, length: reduce_chunks_steps(chunk, length, strided))


def _reduce_chunks(site: Site, p) -> Expr | Refused:
    return _final(expand_reduce_chunks(site, p))


def _reduce_chunks_strided(site: Site, p) -> Expr | Refused:
    return _final(expand_reduce_chunks(site, p, strided=True))


def _final(expansion: State | Refused) -> Expr | Refused:
    return expansion if isinstance(expansion, Refused) else expansion.expr


def _chunk_sizes(site: Site) -> list[Size]:
    return powers_of_two_dividing(array_length(site))


REDUCE_CHUNKS = Rule(
    "reduce-chunks",
    "reduce f z → reduce f z ∘ join ∘ map (reduceSeq f z) ∘ split I", "macro",
    "ICFP Sect. 6.1, Fig. 10 (1)-(2)", _reduce_chunks,
    params=(RuleParam("chunk", "elements each sequential reduction takes (I)",
                      _chunk_sizes),),
    doc="A reduction's parallel first stage as one step: 6d, 6d, 6d, 7b. The reduce left "
        "in front takes N/I partial results (another stage, or a sequential one).")

REDUCE_CHUNKS_STRIDED = Rule(
    "reduce-chunks-strided",
    "reduce f z → reduce f z ∘ join ∘ map (reduceSeq f z) ∘ split I ∘ reorderStride (N/I)",
    "macro", "ICFP Sect. 6.1, Fig. 10 (1)-(2), Fig. 11", _reduce_chunks_strided,
    params=(RuleParam("chunk", "elements each sequential reduction takes (I)",
                      _chunk_sizes),),
    doc="reduce-chunks with the reordering of Fig. 11's GPU kernels: 6d, 6d, 7c, 6d, 6d, "
        "7b. Neighbouring sequential reductions read neighbouring elements (coalesced).")

# each macro's expansion into basic steps (rules.expansion)
MACROS = {MAP_REDUCE_FUSION.name: expand_map_reduce_fusion,
          MAP_REDUCE_FUSION_STRIDED.name: partial(expand_map_reduce_fusion, strided=True),
          REDUCE_CHUNKS.name: expand_reduce_chunks,
          REDUCE_CHUNKS_STRIDED.name: partial(expand_reduce_chunks, strided=True)}
RULES = [MAP_REDUCE_FUSION, MAP_REDUCE_FUSION_STRIDED, REDUCE_CHUNKS, REDUCE_CHUNKS_STRIDED]


