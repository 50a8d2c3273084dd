"""Equality saturation as a strategy (``egraph``): the start grown into an e-graph by the
rules the walks take and the macro rules (``rewriting.egraph``: every rule at every e-node,
round after round, to saturation or a limit of rounds, e-nodes or seconds), then terms of
the graph extracted, completed by the default lowering and ranked by the device's
calibrated cost model, the guided search's (``guided.Candidates``; the user's calibration of
the device, else its shipped prior); the best predicted are derived — the ordinary steps
that rewrite the start into them — and measured, a batch at a time, several shapes a batch
(``next_batch``), the model fitted again after each batch. A term whose steps cannot be
found is not a candidate.

Version 4 (``derive_late``, on by default; version 3's logs replay with it off): the whole
search fits a time limit of 60 s at the paper's sizes. The graph grows within 0.3 of the
time the search has (``growth_share``; 0.5 before), the terms are drawn once
(``rewriting.egraph.Draw``: gemv's 1,500 draws took 20 of its 30 s of extraction),
completed (in completing processes on a host of many cores: ``many_cores``) within half the
time then left, and a term is derived only once its kernel is taken for a batch: version 3
derived every term before completing it, 267 of gemv's at 4096 × 4096 in 32 s for 69
kernels, and measured none within 60 s. No batch begins that would end past the time limit
(``in_time``). With ``first`` below ``extract``, the best predicted of the first kernels are
measured while the rest are completed, ``DRAWS`` for each candidate measured.

Version 3 (``derivable``, on by default; version 2's logs replay with it off): a
composition's functions are e-classes apart from other functions (``EGraph.chains``: a
function of a composition whose e-class held a composition built terms no e-node has,
which did not derive: 933 of 1,398 of asum's terms drawn at 65,536 floats), a term is
derived by every route its origins give (``rewriting.routes``), and each term is derived
before it is completed, so that every kernel ranked has its derivation (version 2 dropped
those found without one after ranking them).

Version 2 (version 1's logs do not replay): the graph applies pair rules at a composition
(``EGraph._pair_rewrites``: version 1 never fused ``reduce (mapVec f) ∘ map (mapVec g)``,
whose two functions first met other neighbours), holds 6,000 e-nodes (3,000), the terms
completed are of as many shapes as drawn (``diverse``), ranked by the calibrated model (the
prior), and a batch puts a shape's repeats back.

The graph's rounds (rules fired, e-nodes, e-classes, seconds) are reported in the result's
``details["egraph"]``. The limits that make a search replayable are ``rounds`` and
``nodes``: ``seconds`` (and the search's time limit) may stop the growth earlier on a slower
host, and a replay then meets other candidates.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from dataclasses import replace

from ..rewriting.egraph import EGraph, NoDerivation
from ..rewriting.rule import BLOCKING, IDENTITY, OTHER_SEED
from .guided import Candidate, Candidates, GuidedState, completing_processes
from .processes import EAGER
from .space import fits_device, walk_rules, within


def saturation_rules(macros: bool = True) -> list:
    """The rules the graph grows by: those random walks take, and (with ``macros``) the
    blocking and tiling macros of CASES 2016 (a macro is one rule here: its expansion is
    its own derivation)."""
    from ..rules import rules

    chosen = walk_rules()
    if macros:
        chosen += [r for r in rules if r.category == "macro" and BLOCKING in r.tags
                   and not r.tags & {IDENTITY, OTHER_SEED} and r not in chosen]
    return chosen


def basic_rules() -> list:
    """The rules walks take that are no macro (the paper's unguided setting: no fusion,
    chunking, reduction tree, blocking or tiling is one rule; each is grown step by step
    from the basic rules, where they reach it)."""
    return [r for r in walk_rules() if r.category != "macro"]


def grown(ctx, rounds: int, nodes: int, seconds: float, macros: bool,
          chains: bool = True, share: float = 0.5) -> EGraph:
    """The start's e-graph, grown within the limits (and ``share`` of the time the search's
    time limit leaves: the terms extracted are completed and measured in the rest)."""
    accept = lambda e: fits_device(e, ctx.vector_widths)  # noqa: E731
    graph = EGraph(ctx.start, ctx.types, saturation_rules(macros), accept=accept,
                   inside=(lambda path: within(path, ctx.at)), chains=chains)
    limit = seconds if ctx.deadline is None else min(seconds,
                                                     (ctx.deadline - time.time()) * share)
    return graph.saturate(rounds=rounds, node_limit=nodes, seconds=max(limit, 0.0))


# terms drawn from the graph for each one completed: the draws are cheaper than a completion
# (the default lowering, compiled), and one shape drawn at many split sizes crowds
# out the others (dot at 65536: its fastest shape on PoCL, a sequential vector reduction,
# drawn 4 times in 1,559 distinct terms of 205 shapes)
DRAWS = 5


def diverse(terms, count: int) -> list:
    """At most ``count`` of ``terms``: one of each shape (``shape_of``) in the order drawn,
    then a second of each, and so on."""
    by_shape: dict[str, list] = {}
    for term in terms:
        by_shape.setdefault(shape_of(term), []).append(term)
    out, layer = [], 0
    while len(out) < count and any(len(ts) > layer for ts in by_shape.values()):
        out += [ts[layer] for ts in by_shape.values() if len(ts) > layer]
        layer += 1
    return out[:count]


def ranked_candidates(graph: EGraph, pool: Candidates, extract: int, seed,
                      deadline: float | None = None, derivable: bool = True
                      ) -> tuple[list[tuple[Candidate, object, list | None]], int]:
    """Kernels of the graph's terms, taken in the order ``diverse`` puts them (as many
    shapes as drawn), completed by the default lowering until ``extract`` kernels are
    found or ``DRAWS * extract`` terms tried (gemv's terms are mostly of maps the default
    lowering cannot nest; or until the search's ``deadline``), one per kernel, with the
    term each completes and (``derivable``) its derivation — a term without one is not
    completed — predicted fastest first; and how many terms did not derive."""
    found: dict[str, tuple[Candidate, object, list | None]] = {}
    drawn, unreached = list(graph.sample(DRAWS * extract, seed)), 0
    for term in diverse(drawn, len(drawn)):
        if len(found) >= extract or deadline is not None and time.time() > deadline:
            break
        steps = derivation(graph, term) if derivable else None
        if derivable and steps is None:
            unreached += 1
            continue
        done = pool.complete(term, [])
        if done is not None and str(done.expr) not in found:
            found[str(done.expr)] = (done, term, steps)
    return sorted(found.values(), key=lambda found: found[0].predicted_ms), unreached


def derivation(graph: EGraph, term, routes: bool = True) -> list | None:
    """The steps that derive ``term`` from the graph's start (None: none found)."""
    try:
        return graph.derive(term, routes)
    except NoDerivation:
        return None


def derived(graph: EGraph, candidate: Candidate, term, steps: list | None,
            routes: bool = False) -> Candidate | None:
    """The candidate with the steps from the start (its term's derivation, found now where
    ``steps`` is None: by every route with ``routes``, as version 4 derives a candidate
    once it is to be measured; by the first as version 2 did), then the completion); None
    when no derivation is found."""
    steps = derivation(graph, term, routes=routes) if steps is None else steps
    return None if steps is None else replace(candidate, steps=steps + candidate.steps)


# A shape's k-th candidate of a batch ranks as if predicted DIVERSITY^k times slower: the
# model's first predictions are rough, and the graph holds each program at every split size,
# so a batch ranked by prediction alone measures one shape at a dozen sizes (asum at 65536:
# the first 14 predicted were one shape); a shape the refitted model predicts far faster
# still comes back.
DIVERSITY = 1.25


def shape_of(expr) -> str:
    """An expression's text with its sizes left out: ``split 4`` and ``split 8`` alike."""
    return re.sub(r"\b\d+\b", "n", str(expr))


def next_batch(ctx, graph: EGraph, ranked: list, state: GuidedState, shapes: Counter,
               routes: bool = False) -> tuple[list, int]:
    """The next candidates to measure, predicted fastest first with each shape's
    repeats put back (``DIVERSITY``), derived (by every route with ``routes``; those whose
    derivation is not found counted); ``ranked`` loses those taken."""
    batch, unreached = [], 0
    while ranked and len(batch) < min(ctx.batch, ctx.left()):
        pick = min(range(len(ranked)), key=lambda i: state.model.predict(
            ranked[i][0].features) * DIVERSITY ** shapes[shape_of(ranked[i][0].expr)])
        candidate = derived(graph, *ranked.pop(pick), routes=routes)
        if candidate is None:
            unreached += 1
        elif not ctx.measured(candidate.expr):
            shapes[shape_of(candidate.expr)] += 1
            batch.append(state.candidate(ctx, candidate))
    return batch, unreached


class Extraction:
    """The graph's terms, in the order ``diverse`` puts them (as many shapes as drawn),
    completed by the default lowering a few at a time (``more``), as version 4 extracts
    them: a term is derived only once its kernel is to be measured (``next_batch``), and
    terms are completed in the search's completing processes where it has them
    (``Candidates.prefetch``), a chunk at a time; while candidates run, the next chunk is
    completed ahead (``ahead``: the completions cached, the choices unchanged)."""

    def __init__(self, graph: EGraph, pool: Candidates, extract: int, seed):
        self.pool, self.extract = pool, extract
        drawn = list(graph.sample(DRAWS * extract, seed))
        self.terms = diverse(drawn, len(drawn))
        self.next = 0  # the terms before it are completed
        self.ahead_at = 0  # ... and those before it completed ahead (``ahead``)
        self.lookahead = Candidates(pool.ctx, pool.state, ahead=True)
        self.found: set[str] = set()
        processes = pool.state.processes
        self.chunk = 4 * processes.count if processes is not None else 8

    def done(self) -> bool:
        return self.next >= len(self.terms) or len(self.found) >= self.extract

    def more(self, count: int, deadline: float | None = None) -> list[tuple]:
        """Up to ``count`` new kernels (``(candidate, term, None)``: their derivation is
        found when they are measured), from the next terms, until the search's
        ``deadline``."""
        out: list[tuple] = []
        while len(out) < count and not self.done():
            if deadline is not None and time.time() > deadline:
                break
            if self.next % self.chunk == 0:
                self.pool.prefetch(self.terms[self.next:self.next + self.chunk])
            term = self.terms[self.next]
            self.next += 1
            done = self.pool.complete(term, [])
            if done is not None and str(done.expr) not in self.found:
                self.found.add(str(done.expr))
                out.append((done, term, None))
        return out

    def ahead(self) -> bool:
        """One completion of a term not completed yet (``Context.measure``'s ``idle``);
        False when none is left."""
        self.ahead_at = max(self.ahead_at, self.next)
        if self.ahead_at >= len(self.terms) or len(self.found) >= self.extract:
            return False
        self.lookahead.complete(self.terms[self.ahead_at], [])
        self.ahead_at += 1
        return True


def measured_while_extracted(ctx, graph: EGraph, state: GuidedState, extract: int,
                             first: int, strength: float) -> tuple[int, int]:
    """Version 4's extraction and measurement: ``first`` kernels completed and ranked
    (within half the time the search's time limit leaves), then, after each batch
    measured (the next terms completed while it runs), the model refitted and ``DRAWS``
    kernels more for each candidate measured, up to ``extract``; how many kernels were
    extracted and how many candidates did not derive."""
    began = time.time()
    extraction = Extraction(graph, Candidates(ctx, state), extract, ctx.seed)
    halfway = None if ctx.deadline is None else (began + ctx.deadline) / 2
    ranked, unreached, shapes = extraction.more(first, halfway), 0, Counter()
    ctx.details["egraph"]["extraction seconds"] = round(time.time() - began, 2)
    batches: list[float] = []  # the seconds each batch took
    while (ranked or not extraction.done()) and ctx.left() > 0 and in_time(ctx, batches):
        if not ranked:
            ranked = extraction.more(first, ctx.deadline)
            continue
        began = time.time()
        batch, missed = next_batch(ctx, graph, ranked, state, shapes, routes=True)
        unreached += missed
        ctx.details["egraph"] |= {"kernels extracted": len(extraction.found),
                                  "not derived": unreached}
        if batch:
            ctx.measure(batch, extraction.ahead)
        state.refit(ctx, strength)
        ranked += extraction.more(DRAWS * len(batch), ctx.deadline)
        batches.append(time.time() - began)
    return len(extraction.found), unreached


def in_time(ctx, batches: list[float]) -> bool:
    """Whether a batch taking as long as the longest of the last three ends before the
    search's time limit (one started later runs past it: the limit is checked as a
    candidate finishes; by the batches' mean, searches of a 60-s limit ran 61-63 s);
    without a time limit, always."""
    if ctx.deadline is None or not batches:
        return True
    return time.time() + max(batches[-3:]) <= ctx.deadline


def egraph(ctx, rounds: int = 4, nodes: int = 6000, seconds: float = 60.0,
           extract: int = 300, macros: bool = True, strength: float = 2.0,
           derivable: bool = True, derive_late: bool = True, growth_share: float = 0.3,
           first: int = 300) -> dict:
    """Grow (within ``growth_share`` of the search's time limit), extract and measure:
    version 4 (``derive_late``) completes ``first`` kernels (all it extracts: dot's 300
    took 5 s at 2^24 floats on a loaded host, where its first 40 held none of the vector
    reductions the 300 did), measures the best predicted a batch at a time, deriving each
    as it is taken, and completes more between batches (``measured_while_extracted``);
    version 3 completes ``extract`` kernels of terms that derive (``derivable``; else as
    version 2 did) before it measures any. Ranked by the cost model (the device's
    calibrated one, as the guided search's), several shapes a batch."""
    state = GuidedState.of(ctx)
    state.processes = completing_processes(ctx) if derive_late and many_cores() else None
    try:
        graph = grown(ctx, rounds, nodes, seconds, macros, derivable, growth_share)
        ctx.details["egraph"] = graph.summary()  # what a search cut by its time limit reports
        if derive_late:
            kernels, unreached = measured_while_extracted(ctx, graph, state, extract,
                                                          first, strength)
        else:
            kernels, unreached = measured_after_extraction(ctx, graph, state, extract,
                                                           derivable, strength)
    finally:
        if state.processes is not None:
            state.processes.close()
    report = ctx.details["egraph"] | graph.summary() | {"kernels extracted": kernels,
                                                        "not derived": unreached}
    ctx.details["egraph"] = report
    return report


def many_cores() -> bool:
    """Whether the host has the cores for completing processes that start with the search,
    their imports overlapping the growth (``processes.EAGER``); on fewer, processes started
    when the first terms are completed cost the search more than they save (on two cores
    they share them with the process that measures)."""
    return (os.cpu_count() or 1) >= EAGER


def measured_after_extraction(ctx, graph: EGraph, state: GuidedState, extract: int,
                              derivable: bool, strength: float) -> tuple[int, int]:
    """Versions 2 and 3's extraction and measurement: ``extract`` kernels completed and
    ranked (``ranked_candidates``), then measured a batch at a time, the model refitted
    after each; how many kernels were extracted and how many did not derive."""
    pool = Candidates(ctx, state)
    ranked, unreached = ranked_candidates(graph, pool, extract, ctx.seed, ctx.deadline,
                                          derivable)
    kernels, shapes = len(ranked), Counter()
    while ranked and ctx.left() > 0:
        batch, missed = next_batch(ctx, graph, ranked, state, shapes)
        unreached += missed
        if batch:
            ctx.measure(batch)
        state.refit(ctx, strength)
    return kernels, unreached
