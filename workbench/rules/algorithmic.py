"""Algorithmic rules (ICFP 2015 Fig. 6; PACT Fig. "algorithmic rules"): iterate
decomposition, reorder commutativity, split-join, the five reduce rules, cancellation and
fusion. Each is proved in ICFP Sect. 5.3 / [40] and property-tested in tests/rules; each
left-hand side is a pattern (``rewriting.match``)."""

from __future__ import annotations

from ..expr import (
    Expr,
    Prim,
    compose,
)
from ..rewriting.match import array_length, divides, map_of, matches, pair, prim
from ..sizes import Size
from .builders import fused_operator
from .rule import (
    IDENTITY,
    Refused,
    Rule,
    RuleParam,
    Site,
    basic_rule,
    fractions_of,
    powers_of_two_dividing,
)

__all__ = ["RULES", "REDUCE", "integer_root"]


# --- (a) iterate decomposition ---------------------------------------------------------------

def _first_parts(site: Site) -> list[Size]:
    """1 to n - 1 for ``iterate n f`` with a known n."""
    match site.node:
        case Prim("iterate", (n, _)) if n.is_integer_constant:
            return [Size.const(i) for i in range(1, int(n.value))]
    return []


@basic_rule(
    "iterate-decomposition", "iterate (m + n) f → iterate m f ∘ iterate n f", "algorithmic",
    "ICFP Fig. 6a", tags=frozenset({IDENTITY}),
    params=(RuleParam("m", "iterations of the first part", _first_parts),))
@matches(prim("iterate", "n", "f", why="it rewrites iterate n f"))
def ITERATE_DECOMPOSITION(match, site: Site, p) -> Expr | Refused:
    n, f, m = match.n, match.f, p["m"]
    if not (n.is_integer_constant and m.is_integer_constant and 0 < m.value < n.value):
        return Refused(f"m must be between 1 and {n} - 1")
    return compose(Prim("iterate", (m, f)), Prim("iterate", (n - m, f)))


# iterate 1 f = f: Fig. 9's iterate applies f once. Walks leave such loops behind (a
# reducePart of two split by partial-iterate with k = 1); a found kernel is tidied with it.
@basic_rule("iterate-once", "iterate 1 f → f", "simplification", "ICFP Fig. 6a, 9",
            tags=frozenset({IDENTITY}))
@matches(prim("iterate", "n", "f", why="it rewrites iterate 1 f"))
def ITERATE_ONCE(match, site: Site, p) -> Expr | Refused:
    if match.n != Size.const(1):
        return Refused(f"it iterates {match.n} times, not once")
    return match.f


# --- (b) reorder commutativity --------------------------------------------------------------

@basic_rule(
    "reorder-commute", "map f ∘ reorder → reorder ∘ map f", "algorithmic", "ICFP Fig. 6b",
    pair=True)
@matches(pair(map_of(), prim("reorder"), why="it rewrites map f ∘ reorder"))
def REORDER_COMMUTE_LEFT(m, site: Site, p):
    return [site.next, site.node]


@basic_rule(
    "reorder-commute-back", "reorder ∘ map f → map f ∘ reorder", "algorithmic", "ICFP Fig. 6b",
    pair=True, tags=frozenset({IDENTITY}))
@matches(pair(prim("reorder"), map_of(), why="it rewrites reorder ∘ map f"))
def REORDER_COMMUTE_RIGHT(m, site: Site, p):
    return [site.next, site.node]


# --- (c) split-join ---------------------------------------------------------------------------

@basic_rule(
    "split-join", "map f → join ∘ map (map f) ∘ split n", "algorithmic", "ICFP Fig. 6c",
    params=(RuleParam("n", "chunk size", lambda s: powers_of_two_dividing(
        array_length(s))),))
@matches(map_of(why="it rewrites a high-level map f"))
def SPLIT_JOIN(m, site: Site, p) -> Expr | Refused:
    n = p["n"]
    bad = divides(n, array_length(site), f"split {n}")
    if bad:
        return bad
    f = m.f
    return compose(Prim("join"), Prim("map", (Prim("map", (f,)),)), Prim("split", (n,)))


# --- (d) the five reduce rules ---------------------------------------------------------------

REDUCE = prim("reduce", "f", "z", why="it rewrites reduce f z")
REDUCE_PART = prim("reducePart", "f", "z", "n", why="it rewrites reducePart f z n")


@basic_rule(
    "reduce-partial", "reduce f z → reduce f z ∘ reducePart f z n", "algorithmic",
    "ICFP Fig. 6d (1)",
    params=(RuleParam("n", "number of partial results", lambda s: powers_of_two_dividing(
        array_length(s)) + fractions_of(array_length(s))),))
@matches(REDUCE)
def REDUCE_TO_PARTIAL(m, site: Site, p) -> Expr | Refused:
    n = p["n"]
    bad = divides(n, array_length(site), f"reducePart to {n} results")
    if bad:
        return bad
    return compose(site.node, Prim("reducePart", (m.f, m.z, n)))


def _results(site: Site) -> Size | None:
    """n of ``reducePart f z n``, the number of results."""
    match site.node:
        case Prim("reducePart", (_, _, n)):
            return n
    return None


def _partial_partial_candidates(site: Site) -> list:
    n = _results(site)
    if n is None:
        return []
    return [m for m in powers_of_two_dividing(array_length(site)) if m.divisible_by(n)
            and m != n]


@basic_rule(
    "partial-partial", "reducePart f z n → reducePart f z n ∘ reducePart f z m", "algorithmic",
    "ICFP Fig. 6d (1), for reducePart",
    params=(RuleParam("m", "intermediate number of results", _partial_partial_candidates),),
    doc="Fig. 6d (1) applied to each of the n reductions a reducePart performs.")
@matches(REDUCE_PART)
def PARTIAL_PARTIAL(match, site: Site, p) -> Expr | Refused:
    f, z, n = match.f, match.z, match.n
    m = p["m"]
    length = array_length(site)
    bad = divides(m, length, f"reducePart to {m} results")
    if bad:
        return bad
    if m.divisible_by(n) is False:
        return Refused(f"{n} results must come from {m} by whole chunks "
                       f"({n} does not divide {m})")
    return compose(site.node, Prim("reducePart", (f, z, m)))


@basic_rule(
    "partial-reduce", "reducePart f z 1 → reduce f z", "algorithmic", "ICFP Fig. 6d (2)")
@matches(prim("reducePart", "f", "z", "n", why="it rewrites reducePart f z 1")
         .where(lambda m: m.n == 1, "it rewrites reducePart f z 1"))
def PARTIAL_TO_REDUCE(m, site: Site, p) -> Expr:
    return Prim("reduce", (m.f, m.z))


@basic_rule(
    "partial-reorder", "reducePart f z n → reducePart f z n ∘ reorder", "algorithmic",
    "ICFP Fig. 6d (3)", tags=frozenset({IDENTITY}))
@matches(REDUCE_PART)
def PARTIAL_REORDER(m, site: Site, p) -> Expr:
    return compose(site.node, Prim("reorder"))


def integer_root(value: int, k: int) -> int | None:
    r = round(value ** (1 / k))
    for c in (r - 1, r, r + 1):
        if c >= 2 and c ** k == value:
            return c
    return None


def _iterate_candidates(site: Site) -> list:
    n, length = _results(site), array_length(site)
    if n is None or length is None or not (length / n).is_integer_constant:
        return []
    ratio = int((length / n).value)
    return [Size.const(k) for k in range(1, 21) if integer_root(ratio, k)]


@basic_rule(
    "partial-iterate", "reducePart f z n → iterate k (join ∘ map (reducePart f z 1) ∘ split I)"
    "   (input I^k × n)", "algorithmic", "ICFP Fig. 6d (4)",
    params=(RuleParam("k", "number of iterations", _iterate_candidates),))
@matches(REDUCE_PART)
def PARTIAL_ITERATE(m, site: Site, p) -> Expr | Refused:
    f, z, n = m.f, m.z, m.n
    length = array_length(site)
    k = p["k"]
    if not (k.is_integer_constant and 1 <= int(k) <= 64):
        return Refused(f"the number of iterations is a whole number from 1 to 64, not {k}")
    if length is None or not (length / n).is_integer_constant:
        return Refused("the ratio of input length to results must be a known number")
    ratio = int((length / n).value)
    factor = integer_root(ratio, int(k.value))
    if factor is None:
        return Refused(f"{ratio} (= {length}/{n}) is not a {k}-th power of a whole number")
    # Each iteration reduces chunks of `factor` elements: written with split/join so that
    # the iterated function does not depend on the size (ICFP Fig. 6d (4)).
    step = compose(Prim("join"), Prim("map", (Prim("reducePart", (f, z, Size.const(1))),)),
                   Prim("split", (Size.const(factor),)))
    return Prim("iterate", (k, step))


def _split_candidates(site: Site) -> list:
    n = _results(site)
    if n is None:
        return []
    if n.is_integer_constant:
        values = int(n.value)
        return [Size.const(d) for d in range(1, values + 1) if values % d == 0 and
                (d & (d - 1)) == 0][:12]
    return [Size.const(1)]


@basic_rule(
    "partial-split", "reducePart f z (J×K) → join ∘ map (reducePart f z J) ∘ split (I×J)",
    "algorithmic", "ICFP Fig. 6d (5)",
    params=(RuleParam("j", "results per chunk", _split_candidates),))
@matches(REDUCE_PART)
def PARTIAL_SPLIT(m, site: Site, p) -> Expr | Refused:
    f, z, n = m.f, m.z, m.n
    j = p["j"]
    if n.divisible_by(j) is False:
        return Refused(f"{j} does not divide the number of results {n}")
    length = array_length(site)
    chunk = (length / (n / j)) if length is not None else None
    if chunk is None:
        return Refused("the input length is not known here")
    return compose(Prim("join"), Prim("map", (Prim("reducePart", (f, z, j)),)),
                   Prim("split", (chunk,)))


# --- (e) cancellation ------------------------------------------------------------------------

def _cancel(outer: str, inner: str):
    @matches(pair(prim(outer), prim(inner), why=f"it rewrites {outer} ∘ {inner}"))
    def rewrite(m, site: Site, p):
        if outer.startswith("split"):  # split n ∘ join: the chunks must have length n
            t = site.next_typing.args[0] if site.next_typing else None
            if t is not None and t.elem.size != site.node.args[0]:
                return Refused(f"the joined chunks have length {t.elem.size}, not "
                               f"{site.node.args[0]}")
        return []

    return rewrite


CANCELLATIONS = [
    Rule("join-split", "join ∘ split n → id", "simplification", "ICFP Fig. 6e",
         _cancel("join", "split"), pair=True),
    Rule("split-join-cancel", "split n ∘ join → id", "simplification", "ICFP Fig. 6e",
         _cancel("split", "join"), pair=True),
    Rule("joinVec-splitVec", "joinVec ∘ splitVec n → id", "simplification", "ICFP Fig. 6e",
         _cancel("joinVec", "splitVec"), pair=True),
    Rule("splitVec-joinVec", "splitVec n ∘ joinVec → id", "simplification", "ICFP Fig. 6e",
         _cancel("splitVec", "joinVec"), pair=True),
]


# --- (f) fusion ------------------------------------------------------------------------------

FUSABLE_MAPS = ("map", "mapSeq")


_TWO_MAPS = "it rewrites map f ∘ map g (two maps of the same kind)"


@basic_rule("map-fusion", "map f ∘ map g → map (f ∘ g)", "algorithmic", "ICFP Fig. 6f",
            pair=True)
@matches(pair(prim(FUSABLE_MAPS, name="first"), prim(FUSABLE_MAPS, name="second"), why=_TWO_MAPS)
         .where(lambda m: m.first.name == m.second.name, _TWO_MAPS))
def MAP_FUSION(m, site: Site, p) -> list:
    node, nxt = m.first, m.second
    return [Prim(node.name, (compose(node.args[-1], nxt.args[-1]),))]


@basic_rule(
    "reduceSeq-mapSeq-fusion", "reduceSeq f z ∘ mapSeq g → reduceSeq (λ(acc, x). f (acc, g x)) z",
    "algorithmic", "ICFP Fig. 6f", pair=True)
@matches(pair(prim("reduceSeq", "f", "z"), prim("mapSeq", "g"),
              why="it rewrites reduceSeq f z ∘ mapSeq g"))
def REDUCE_SEQ_FUSION(m, site: Site, p) -> list:
    return [Prim("reduceSeq", (fused_operator(m.f, m.g), m.z))]


RULES = [ITERATE_DECOMPOSITION, ITERATE_ONCE, REORDER_COMMUTE_LEFT, REORDER_COMMUTE_RIGHT,
         SPLIT_JOIN,
         REDUCE_TO_PARTIAL, PARTIAL_PARTIAL, PARTIAL_TO_REDUCE, PARTIAL_REORDER,
         PARTIAL_ITERATE, PARTIAL_SPLIT,
         *CANCELLATIONS, MAP_FUSION, REDUCE_SEQ_FUSION]
