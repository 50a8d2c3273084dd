"""Automatic search for fast kernels (SPEC 8): strategies that choose rewrites and their
numerical parameters, candidates measured in isolated workers (or on a Dask cluster), an
append-only log that makes searches resumable and replayable, and the best correct kernel
with the derivation that produced it.

    >>> from workbench.search import search                      # doctest: +SKIP
    >>> result = search(parse("reduce (+) 0 ∘ map abs"), xs, budget=40)
    >>> result.best, result.best_kernel_ms, result.derivation

Candidates run on random inputs of the given arrays' types (their values are not shipped to
the workers); every kernel is checked against the interpreter, and a wrong, failing or
timed-out candidate is logged with its outcome and never becomes the best.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..derivation import Derivation, _definitions_of
from ..domain import ranges_of, ranges_text, with_ranges
from ..errors import WorkbenchError
from ..expr import Expr
from ..expr import Path as NodePath
from ..notation import parse_type
from ..semantics import prepare_inputs
from ..types import Type, free_size_vars
from .evaluation import (
    ExecutorEvaluator,
    InlineEvaluator,
    PoolEvaluator,
    ReplayEvaluator,
    job_key,
)
from .log import Log, LogError, read
from .space import Move, replay
from .strategies import STRATEGIES


@dataclass
class SearchResult:
    best: Expr | None
    best_kernel_ms: float | None
    derivation: Derivation | None
    log: list[dict]
    evaluated: int
    strategy: str
    fixed: list[int] = field(default_factory=list)  # evaluations after which a step was fixed
    best_record: dict | None = None
    seconds: float = 0.0

    def as_json(self) -> dict:
        return {"best": {"expression": str(self.best) if self.best is not None else None,
                         "kernel_ms": self.best_kernel_ms,
                         "derivation": self.best_record.get("steps") if self.best_record
                         else None},
                "evaluated": self.evaluated, "strategy": self.strategy, "fixed": self.fixed,
                "seconds": self.seconds,
                "failures": sum(1 for r in self.log if not r.get("correct"))}


class Context:
    """What a strategy sees: the start, the budget, and ``measure``."""

    def __init__(self, start, types, sizes, budget, evaluator, log, device, seed, at,
                 repeat, progress, batch, strategy):
        self.start, self.types, self.sizes, self.budget = start, types, sizes, budget
        self.evaluator, self.log, self.device, self.seed, self.at = (evaluator, log, device,
                                                                     seed, at)
        self.repeat, self.progress, self.batch, self.strategy = (repeat, progress, batch,
                                                                 strategy)
        self.definitions = _definitions_of(start)
        self.ranges = ranges_text(ranges_of(start)) if ranges_of(start) is not None else None
        self.cache = log.by_key()
        self.records: list[dict] = []
        self.seen: set[str] = set()
        self.fixed: list[int] = []
        self.started = time.time()

    def left(self) -> int:
        return self.budget - len(self.records)

    def fix(self, steps: list[Move]) -> None:
        self.fixed.append(len(self.records))

    def measure(self, candidates: list[tuple[Expr, list[Move]]]) -> list[dict]:
        """Records for the candidates, in their order: from the log when they were measured
        before (a resumed search), else measured now and appended to the log. The search's
        records (``SearchResult.log``) are in the order candidates finished, as in the log
        file."""
        jobs, order = [], []
        for expr, steps in candidates:
            text = str(expr)
            key = job_key(text, self.sizes, self.device)
            order.append(key)
            if key in self.cache or key in {j["key"] for j in jobs}:
                continue
            jobs.append({"key": key, "expression": text, "definitions": self.definitions,
                         "types": [str(t) for t in self.types], "ranges": self.ranges,
                         "sizes": self.sizes,
                         "device": self.device, "seed": self.seed, "repeat": self.repeat,
                         "steps": [s.as_json() for s in steps]})
        for record in self.evaluator.evaluate(jobs):
            record.setdefault("finished", time.time())
            record["strategy"] = self.strategy
            self.cache[record["key"]] = record
            self.log.append(record)
            self._count(record)  # in the order they finish, as in the log file
        out = []
        for key in order:
            record = self.cache[key]
            self._count(record)  # measured before (a resumed search)
            out.append(record)
        return out

    def _count(self, record: dict) -> None:
        if record["key"] not in self.seen:
            self.seen.add(record["key"])
            self.records.append(record)
            if self.progress is not None:
                self.progress(record)


def _types(expr: Expr, arrays) -> tuple[list[Type], dict[str, int]]:
    if arrays and all(isinstance(a, str | Type) for a in arrays):
        types = [parse_type(a) if isinstance(a, str) else a for a in arrays]
    else:
        _, types = prepare_inputs(expr, arrays)
    unbound = sorted({n for t in types for n in free_size_vars(t)})
    if unbound:
        raise WorkbenchError(f"search needs concrete input sizes (arrays, or types such as "
                             f"[float]_1048576); {', '.join(unbound)} is not known")
    return list(types), {}


def search(expr: Expr | Derivation, *arrays, strategy: str = "mcts", budget: int = 40,
           device: str | None = None, executor=None, log: str | Path | None = None,
           progress=None, seed: int = 0, at: NodePath | str | None = None,
           timeout: float = 60.0, workers: int | None = None, repeat: int = 10,
           sizes: dict[str, int] | None = None, replay_log: str | Path | list | None = None
           ) -> SearchResult:
    """Search for the fastest correct kernel of ``expr`` on ``device``.

    ``arrays`` are example inputs (or their concrete types as text); ``strategy`` one of
    ``STRATEGIES``; ``budget`` the number of distinct candidates measured; ``executor`` a
    ``concurrent.futures`` executor or a Dask ``Client`` (default: local worker processes,
    ``workers`` of them, each candidate limited to ``timeout`` seconds); ``log`` a JSON-lines
    file that makes the search resumable; ``replay_log`` answers from a recorded log instead
    of running anything; ``progress(record)`` is called as each candidate finishes; ``at``
    restricts the rewrites to the subtree at that path. A ``Derivation`` starts the search
    from its current step."""
    from ..errors import parse_path

    start_time = time.time()
    if strategy not in STRATEGIES:
        raise WorkbenchError(f"unknown strategy {strategy!r} (known: "
                             f"{', '.join(STRATEGIES)})")
    if budget < 1:
        raise WorkbenchError("the budget must be at least one candidate")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise WorkbenchError(f"repeat = {repeat!r}: give a whole number of runs, at least 1")
    derivation = expr if isinstance(expr, Derivation) else None
    start = derivation.current if derivation is not None else expr
    if derivation is not None and ranges_of(start) is None:
        start = with_ranges(start, ranges_of(derivation.start))  # the inputs' ranges
    types, _ = _types(start, arrays)
    if isinstance(at, str):
        at = parse_path(at)
    run_log = Log(log)
    if replay_log is not None:
        records = replay_log if isinstance(replay_log, list) else read(replay_log)
        evaluator = ReplayEvaluator(records)
    elif executor is not None:
        evaluator = ExecutorEvaluator(executor, timeout)
    elif workers == 0:
        evaluator = InlineEvaluator()
    else:
        evaluator = PoolEvaluator(workers or max(1, min(4, (os.cpu_count() or 2))), timeout)
    size_env = dict(sizes or {})
    ctx = Context(start, tuple(types), size_env, budget, evaluator, run_log, device, seed, at,
                  repeat, progress, batch=getattr(evaluator, "workers", 4), strategy=strategy)
    try:
        STRATEGIES[strategy](ctx)
    finally:
        evaluator.close()
    good = [r for r in ctx.records if r.get("correct") and r.get("kernel_ms") is not None]
    best_record = min(good, key=lambda r: r["kernel_ms"]) if good else None
    best = best_derivation = None
    if best_record is not None:
        steps = [Move(s["rule"], _path(s["path"]), s["params"]) for s in best_record["steps"]]
        best_derivation = Derivation(start, *types, name=getattr(start, "definition_name", ""))
        if derivation is not None:
            best_derivation = derivation
        for s in steps:
            best_derivation.apply(s.rule, s.path, **s.params)
        best = best_derivation.current
    return SearchResult(best, best_record["kernel_ms"] if best_record else None,
                        best_derivation, ctx.records, len(ctx.records), strategy, ctx.fixed,
                        best_record, time.time() - start_time)


def _path(text: str) -> NodePath:
    from ..errors import parse_path

    return parse_path(text)


__all__ = ["search", "SearchResult", "STRATEGIES", "Log", "LogError", "read", "replay",
           "ReplayEvaluator", "PoolEvaluator", "ExecutorEvaluator", "InlineEvaluator"]
