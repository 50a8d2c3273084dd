"""Equality saturation as a strategy (``egraph``): the start grown into an e-graph by the
rules the walks take and the macro rules (``rewriting.egraph``: every rule at every e-node,
round after round, to saturation or a limit of rounds, e-nodes or seconds), then terms of
the graph extracted, completed by the default lowering and ranked by the device's cost
model as the guided search ranks its candidates (``guided.Candidates``); the best predicted
are derived — the ordinary steps that rewrite the start into them — and measured, the model
fitted again after each batch. A term whose steps cannot be found is not a candidate.

The graph's rounds (rules fired, e-nodes, e-classes, seconds) are reported in the result's
``details["egraph"]``. The limits that make a search replayable are ``rounds`` and
``nodes``: ``seconds`` (and the search's time limit) may stop the growth earlier on a slower
host, and a replay then meets other candidates.
"""

from __future__ import annotations

import time
from dataclasses import replace

from ..rewriting.egraph import EGraph, NoDerivation
from ..rewriting.rule import BLOCKING, IDENTITY, OTHER_SEED
from .guided import Candidate, Candidates, GuidedState
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


def grown(ctx, rounds: int, nodes: int, seconds: float, macros: bool) -> EGraph:
    """The start's e-graph, grown within the limits (and the search's time limit)."""
    accept = lambda e: fits_device(e, ctx.vector_widths)  # noqa: E731
    graph = EGraph(ctx.start, ctx.types, saturation_rules(macros), accept=accept,
                   inside=(lambda path: within(path, ctx.at)))
    limit = seconds if ctx.deadline is None else min(seconds, ctx.deadline - time.time())
    return graph.saturate(rounds=rounds, node_limit=nodes, seconds=max(limit, 0.0))


def ranked_candidates(graph: EGraph, pool: Candidates, extract: int, seed
                      ) -> list[tuple[Candidate, object]]:
    """The graph's extracted terms completed by the default lowering, one per kernel, with
    the term each completes, predicted fastest first (their steps only the completion's,
    so far)."""
    found: dict[str, tuple[Candidate, object]] = {}
    for term in graph.sample(extract, seed):
        done = pool.complete(term, [])
        if done is not None and str(done.expr) not in found:
            found[str(done.expr)] = (done, term)
    return sorted(found.values(), key=lambda pair: pair[0].predicted_ms)


def derived(graph: EGraph, candidate: Candidate, term) -> Candidate | None:
    """The candidate with the steps from the start (its term's derivation, then the
    completion); None when no derivation is found."""
    try:
        steps = graph.derive(term)
    except NoDerivation:
        return None
    return replace(candidate, steps=steps + candidate.steps)


def egraph(ctx, rounds: int = 4, nodes: int = 3000, seconds: float = 60.0,
           extract: int = 300, macros: bool = True, strength: float = 2.0) -> dict:
    """Grow, extract, rank by the cost model, derive and measure the best predicted."""
    state = GuidedState.of(ctx)
    graph = grown(ctx, rounds, nodes, seconds, macros)
    pool = Candidates(ctx, state)
    ranked = ranked_candidates(graph, pool, extract, ctx.seed)
    kernels, unreached = len(ranked), 0
    while ranked and ctx.left() > 0:
        batch = []
        while ranked and len(batch) < min(ctx.batch, ctx.left()):
            candidate = derived(graph, *ranked.pop(0))
            if candidate is None:
                unreached += 1
            elif not ctx.measured(candidate.expr):
                batch.append(state.candidate(ctx, candidate))
        if batch:
            ctx.measure(batch)
        state.refit(ctx, strength)
        ranked.sort(key=lambda pair: state.model.predict(pair[0].features))
    report = graph.summary() | {"kernels extracted": kernels, "not derived": unreached}
    ctx.details["egraph"] = report
    return report
