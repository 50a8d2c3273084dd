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
from ..expr import Expr, UserFun, walk
from ..notation.c_syntax import CBodyError, tokenize
from .log import Record

BEST_KERNELS = 2  # the strategy's fastest kernels measured again with the options
TIME_SHARE = 0.2  # of a time limit, kept back for them


def options_key(key: str, options) -> str:
    """A candidate's key with the build options it is built with (none: the key as it is,
    so that a candidate built without options keys as before they were a choice)."""
    text = options_text(options)
    return f"{key} | {text}" if text else key


def kept_back(budget: int, allowed: tuple[str, ...], start: Expr | None = None) -> int:
    """Candidates of a search's budget kept back for its best kernels built with the allowed
    options (those ``tried_sets`` tries for the search's ``start`` where given): as many as
    they make, at most a quarter of the budget (none without options, or with a budget too
    small to share)."""
    sets = option_sets(allowed) if start is None else tried_sets(start, allowed)
    if not sets:
        return 0
    return min(BEST_KERNELS * len(sets), budget // 4)


@contextmanager
def strategy_share(ctx, allowed: tuple[str, ...]):
    """The strategy's share of the search: the budget less the candidates ``kept_back`` and
    the time limit less ``TIME_SHARE`` of it; both given back afterwards."""
    budget, deadline = ctx.budget, ctx.deadline
    if allowed:
        ctx.budget = budget - kept_back(budget, allowed, ctx.start)
        if deadline is not None and ctx.time_limit:
            ctx.deadline = deadline - TIME_SHARE * ctx.time_limit
    try:
        yield
    finally:
        ctx.budget, ctx.deadline = budget, deadline


SINGLE_PRECISION_CONSTANT = ("-cl-single-precision-constant",)


def double_constants(expr: Expr) -> bool:
    """Whether a user function of ``expr`` written in C holds a constant C reads as a
    double (``0.5`` without ``f``); the rewrites keep the user functions as they are, so
    the search's start answers for every candidate."""
    return any(isinstance(node, UserFun) and node.c_body and _doubles(node.name, node.c_body)
               for _, node in walk(expr))


def _doubles(function: str, text: str) -> bool:
    """Whether C text holds a double constant (a macro's too: ``#define A 0.5``)."""
    try:
        tokens = tokenize(function, text)
    except CBodyError:
        return False
    return any(t.num_type == "double" or (t.kind == "directive" and _doubles(function, t.text))
               for t in tokens)


def tried_sets(start: Expr, allowed: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The option sets the best kernels are measured with (``option_sets``), less
    ``-cl-single-precision-constant`` alone where no C body has a double constant (the
    kernel would be the same kernel, named as built with it)."""
    sets = option_sets(allowed)
    if double_constants(start):
        return sets
    return [s for s in sets if s != SINGLE_PRECISION_CONSTANT]


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
        for options in tried_sets(ctx.start, allowed):
            key = options_key(record.key, options)
            if key in ctx.cache or len(jobs) >= ctx.left():
                continue
            job = ctx.job.of_candidate(key, record.expression, [],
                                       {"build_options": list(options)}, ctx.cutoff_ms())
            jobs.append({**job, "steps": record.steps or []})
    for finished in ctx.evaluator.evaluate(jobs):
        ctx.take(finished)
