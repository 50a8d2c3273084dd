"""Recorded winners as seeds, never as answers (SPEC 8: the search adapts to the device at
hand). A search given ``seeds`` — a log of a search on another device, driver or code
generator, a ``SearchResult``, a ``Derivation``, or a list of them — measures their best
candidates here first, then runs its strategy. The seeds' recorded times only order them
(each source's fastest first); a seed's record in this search is its measurement on this
device, so nothing measured elsewhere is ever this search's best.

Each seed is its derivation applied again from the search's start at the search's input
types (its default completion may choose other sizes there); a seed that no longer applies
(another program, sizes its splits do not divide) is left out, and said so in the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..derivation import Derivation
from ..errors import WorkbenchError, parse_path
from ..rules.lowering import lower
from .log import Record, read_log
from .result import SearchResult
from .space import Step, replay, terminal

SHARE = 4  # seeds take at most a quarter of the budget (one at least)


@dataclass
class Seeds:
    """The seeds' candidates at the search's start, best first (``(expression, steps)``),
    and how many seeds were left out (they no longer apply here)."""

    candidates: list[tuple] = field(default_factory=list)
    left_out: int = 0

    def steps_json(self) -> list[dict]:
        """What a log's header keeps of them: each one's steps, in order (a replay of the
        log measures them first again)."""
        return [{"steps": [s.as_json() for s in steps]} for _, steps in self.candidates]


def seed_limit(budget: int) -> int:
    return max(1, budget // SHARE)


def seeds_of(start, types, seeds, budget: int) -> Seeds:
    """The candidates of ``seeds`` at ``start`` and ``types``: each source's in order (a
    log's or result's correct records, fastest first), equal expressions once, at most
    ``seed_limit(budget)``."""
    out, seen, left_out = Seeds(), set(), 0
    for steps in _steps_of_all(seeds):
        if len(out.candidates) >= seed_limit(budget):
            break
        candidate = _at_start(start, types, steps)
        if candidate is None:
            left_out += 1
            continue
        if str(candidate[0]) not in seen:
            seen.add(str(candidate[0]))
            out.candidates.append(candidate)
    out.left_out = left_out
    return out


def _steps_of_all(seeds) -> list[list]:
    sources = list(seeds) if isinstance(seeds, list | tuple) else [seeds]
    return [steps for source in sources for steps in _steps_of(source)]


def _steps_of(source) -> list[list]:
    """The step lists of one source, best first: a log file's or a result's correct
    records by their recorded time (of their own device), a derivation's steps, a record's
    steps."""
    if isinstance(source, Derivation):
        return [[s.bare() for s in source.steps]]
    if isinstance(source, SearchResult):
        return _by_time(source.log)
    if isinstance(source, str | Path):
        return _by_time(read_log(source).records)
    if isinstance(source, Record):
        return [source.steps or []]
    if isinstance(source, dict) and isinstance(source.get("steps"), list):
        return [source["steps"]]  # a record's object, or a header's seed
    raise WorkbenchError(f"seeds = {source!r}: give a search log's path, a SearchResult, a "
                         f"Derivation, a record with steps, or a list of them")


def _by_time(records) -> list[list]:
    correct = [Record.of(r) for r in records]
    correct = [r for r in correct if r.measured and r.steps is not None]
    return [r.steps for r in sorted(correct, key=lambda r: r.kernel_ms)]


def _at_start(start, types, steps) -> tuple | None:
    """A seed's expression and steps from the search's start (completed by the default
    lowering where its steps stop short of a kernel), or None where they do not apply."""
    try:
        steps = [s if isinstance(s, Step) else
                 Step(s["rule"], parse_path(s["path"]), s.get("params", {})) for s in steps]
        expr = replay(start, types, steps)
        if not terminal(expr):
            expr, completed = lower(expr, *types)
            steps = steps + [s.bare() for s in completed]
    except (WorkbenchError, KeyError, TypeError, ValueError):
        return None
    return expr, steps
