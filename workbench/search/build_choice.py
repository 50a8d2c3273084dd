"""OpenCL build options as a searched choice (``search(..., build_options=[...])``): off
unless the user allows some (``device.build_options``: ``-cl-fast-relaxed-math``,
``-cl-mad-enable``, …), since a kernel built with them may compute other numbers.

Where allowed, they are a choice of every strategy alike: the strategy searches the kernels
built as ``run`` builds them, with part of the budget (and of the time limit) kept back
(``kept_back``); then the fastest kernels it measured (``BEST_KERNELS``) are each measured
again built with each set of the allowed options (``build_options.option_sets``: each one
alone, then all of them). A kernel built with options is a candidate of its own: its key
and its record name them (``Record.build_options``), a replay answers it from the record
that does, and it is checked against the interpreter like every other (a kernel that
relaxed math makes wrong is logged as wrong and never becomes the best). The best, options
and all, is what the result reports (``SearchResult.build_options``) and re-times.
"""

from __future__ import annotations

from contextlib import contextmanager

from ..device.build_options import option_sets, options_text
from .log import Record

BEST_KERNELS = 2  # the strategy's fastest kernels measured again with the options
TIME_SHARE = 0.2  # of a time limit, kept back for them


def options_key(key: str, options) -> str:
    """A candidate's key with the build options it is built with (none: the key as it is,
    so that a candidate built without options keys as before they were a choice)."""
    text = options_text(options)
    return f"{key} | {text}" if text else key


def kept_back(budget: int, allowed: tuple[str, ...]) -> int:
    """Candidates of a search's budget kept back for its best kernels built with the allowed
    options: as many as they make, at most a quarter of the budget (none without options,
    or with a budget too small to share)."""
    if not allowed:
        return 0
    return min(BEST_KERNELS * len(option_sets(allowed)), budget // 4)


@contextmanager
def strategy_share(ctx, allowed: tuple[str, ...]):
    """The strategy's share of the search: the budget less the candidates ``kept_back`` and
    the time limit less ``TIME_SHARE`` of it; both given back afterwards."""
    budget, deadline = ctx.budget, ctx.deadline
    if allowed:
        ctx.budget = budget - kept_back(budget, allowed)
        if deadline is not None and ctx.time_limit:
            ctx.deadline = deadline - TIME_SHARE * ctx.time_limit
    try:
        yield
    finally:
        ctx.budget, ctx.deadline = budget, deadline


def best_kernels(ctx, count: int = BEST_KERNELS) -> list[Record]:
    """The fastest correct kernels the search measured without build options, each once,
    fastest first."""
    plain = [r for r in ctx.records if r.measured and not r.build_options]
    return sorted(plain, key=lambda r: (r.kernel_ms, r.key))[:count]


def measure_with_options(ctx, allowed: tuple[str, ...]) -> None:
    """The best kernels (``best_kernels``) measured built with each set of the allowed
    options, as many as the budget leaves; those a resumed log holds are not measured
    again."""
    if not allowed:
        return
    ctx.drain()
    jobs = []
    for record in best_kernels(ctx):
        for options in option_sets(allowed):
            key = options_key(record.key, options)
            if key in ctx.cache or len(jobs) >= ctx.left():
                continue
            job = ctx.job.of_candidate(key, record.expression, [],
                                       {"build_options": list(options)}, ctx.cutoff_ms())
            jobs.append({**job, "steps": record.steps or []})
    for finished in ctx.evaluator.evaluate(jobs):
        ctx.take(finished)
