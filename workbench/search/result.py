"""What a search found (``SearchResult``): the best correct kernel with the derivation that
produced it, every candidate's record (``log``, ``Record``), and what the search says of
itself (why it stopped, failures by kind, crashes, internal errors)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..derivation import Derivation
from ..errors import WorkbenchError
from ..expr import Expr
from ..rates import Rates
from .internal import InternalError
from .log import Record


class NoCorrectKernel(WorkbenchError):
    """A search in which no candidate built, ran and computed what the interpreter does."""


@dataclass
class SearchResult:
    """What a search found. ``best`` is None when no candidate was correct: ``outcome`` then
    says so, ``failures_by_kind`` counts the failures by status and ``first_failure`` holds
    the first one's whole message; ``require_best()`` raises ``NoCorrectKernel`` with all
    of it. ``str(result)`` and a notebook's display say the same."""

    best: Expr | None
    best_kernel_ms: float | None
    derivation: Derivation | None
    log: list[Record]  # one record per evaluated candidate, in the order they finished
    evaluated: int
    strategy: str
    fixed: list[int] = field(default_factory=list)  # evaluations after which a step was fixed
    best_record: Record | None = None
    seconds: float = 0.0
    # how best_kernel_ms was had: "re-timed" (measured again on the device after the
    # search), "recorded" (a replayed log's time), or "logged (…)" when re-timing failed
    timing: str = "recorded"
    budget: int | None = None
    from_log: int = 0  # candidates answered by the log of an earlier run (a resumed search)
    stopped: str = ""  # why the search measured fewer candidates than its budget
    model: dict | None = None  # the guided search's cost model, fitted to its measurements
    details: dict = field(default_factory=dict)  # the strategy's report (cases: phases)
    time_limit: float | None = None  # the wall-clock limit it was given, in seconds
    device: dict | None = None  # the device its times were taken on (name, platform, driver)
    remeasured: int = 0  # candidates of a log of another device or inputs measured again
    seeded: int = 0  # seeds' candidates measured first (``search(seeds=...)``), here
    seeds_left_out: int = 0  # seeds that no longer apply at this search's start
    restarts: int = 0  # worker processes started again after a candidate killed its worker
    lost_seconds: float = 0.0  # time spent on candidates that crashed or ran out of time
    # bugs met while the strategy prepared candidates (``internal``), each with its traceback
    internal_errors: list[InternalError] = field(default_factory=list)
    # the best kernel's time as effective GB/s and GFLOP/s (``workbench.rates``)
    rates: Rates | None = None

    @property
    def records(self) -> list[Record]:
        """The candidates' records (``log``)."""
        return self.log

    @property
    def build_options(self) -> list[str]:
        """The OpenCL build options the best kernel is built with (none unless the search
        was allowed some and chose them): ``run(result.best, ..., build_options=...)``
        builds it so again."""
        return list(self.best_record.build_options or []) if self.best_record else []

    @property
    def failures_by_kind(self) -> dict[str, int]:
        """Failed or wrong candidates counted by outcome (``compile error``, ``timeout``,
        ``wrong result``, ...), the most frequent first."""
        counts: dict[str, int] = {}
        for r in self.log:
            if not r.correct:
                counts[r.failure] = counts.get(r.failure, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))

    @property
    def first_failure(self) -> dict | None:
        """The first failed candidate: its number, status, expression and whole message."""
        for i, r in enumerate(self.log, start=1):
            if not r.correct:
                return {"candidate": i, "status": r.failure,
                        "expression": r.expression if r.expression is not None else "",
                        "message": r.message or ""}
        return None

    @property
    def outcome(self) -> str:
        """One line: what was found, or that nothing correct was."""
        failures = _counted(self.failures_by_kind)
        among = f"among {plural(self.evaluated, 'candidate')}"
        bugs = (f"; {plural(len(self.internal_errors), 'internal error')}"
                if self.internal_errors else "")
        if self.best is None:
            return f"no correct kernel {among}" + (f" ({failures})" if failures else "") + bugs
        ms = f"{self.best_kernel_ms:.4f} ms" if self.best_kernel_ms is not None else "no time"
        return f"best {ms} {among}" + (f"; {failures}" if failures else "") + bugs

    @property
    def timing_text(self) -> str:
        """How the best time was had, in words."""
        logged = self.best_record.kernel_ms if self.best_record else None
        if self.timing == "re-timed" and logged is not None:
            return f"measured again after the search; {logged:.4f} ms when it ran"
        if self.timing == "recorded":
            return "the time recorded in the log"
        return self.timing

    def require_best(self) -> Expr:
        """The best kernel's expression, or ``NoCorrectKernel`` saying why there is none."""
        if self.best is None:
            raise NoCorrectKernel(self._explanation())
        return self.best

    def _explanation(self) -> str:
        lines = [f"search ({self.strategy}): {self.outcome}"]
        first = self.first_failure
        if first is not None:
            lines.append(f"the first failure (candidate {first['candidate']}, "
                         f"{first['status']}): {first['message'] or '(no message)'}")
            lines.append(f"  its expression: {first['expression']}")
        if self.stopped:
            lines.append(f"stopped after {self.evaluated} of {self.budget}: {self.stopped}")
        lines += self._notes()
        return "\n".join(lines)

    def _notes(self) -> list[str]:
        """What else the search says of itself: a resumed log, a time limit, crashes."""
        notes = []
        if self.from_log:
            notes.append(f"resumed: {self.from_log} of the {self.evaluated} candidates "
                         f"were taken from the log")
        if self.remeasured:
            notes.append(f"remeasured: {self.remeasured} candidates of the log measured "
                         f"again on this device and these inputs")
        if self.seeded or self.seeds_left_out:
            notes.append(f"seeds: {plural(self.seeded, 'candidate')} of the seeds measured "
                         f"first, on this device" + (f" ({self.seeds_left_out} no longer "
                                                      f"apply here)" if self.seeds_left_out
                                                      else ""))
        if self.time_limit is not None:
            reached = self.stopped.startswith("the time limit")
            notes.append(f"time limit: {self.time_limit:g} s, "
                         f"{'reached' if reached else 'not reached'} ({self.seconds:.1f} s)")
        if self.restarts or self.lost_seconds:
            notes.append(f"crashes and time-outs: {plural(self.restarts, 'worker')} started "
                         f"again, {self.lost_seconds:.1f} s lost")
        if self.internal_errors:
            first = self.internal_errors[0]
            notes.append(f"{plural(len(self.internal_errors), 'internal error')} (a bug of "
                         f"the workbench; .internal_errors holds their tracebacks), the "
                         f"first in {first.where}: {first.error}")
        return notes

    def __str__(self) -> str:
        if self.best is None:
            return self._explanation()
        lines = [f"search ({self.strategy}): {self.outcome}, {self.seconds:.1f} s"]
        lines.append(f"  {self.best}")
        if self.build_options:
            lines.append(f"  built with {' '.join(self.build_options)}")
        lines.append(f"  ({self.timing_text})")
        if self.stopped:
            lines.append(f"stopped after {self.evaluated} of {self.budget}: {self.stopped}")
        lines += self._notes()
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        if self.best is None:
            head, *rest = self._explanation().split("\n")
            return f"**{head}**\n\n```\n" + "\n".join(rest) + "\n```\n"
        notes = [f"stopped after {self.evaluated} of {self.budget}: {self.stopped}"
                 if self.stopped else "", *self._notes(), f"time: {self.timing_text}"]
        return (f"**search ({self.strategy}): {self.outcome}**, {self.seconds:.1f} s\n\n"
                + "".join(f"- {n}\n" for n in notes if n) + "\n"
                + (self.derivation.to_markdown() if self.derivation is not None else ""))

    def as_json(self) -> dict:
        return {"best": {"expression": str(self.best) if self.best is not None else None,
                         "kernel_ms": self.best_kernel_ms,
                         "logged_kernel_ms": self.best_record.kernel_ms
                         if self.best_record else None,
                         "timing": self.timing,
                         "rates": self.rates.as_json() if self.rates else None,
                         "derivation": self.best_record.steps if self.best_record
                         else None,
                         "build_options": self.build_options},
                "outcome": self.outcome,
                "evaluated": self.evaluated, "budget": self.budget, "strategy": self.strategy,
                "fixed": self.fixed, "seconds": self.seconds,
                "failures": sum(1 for r in self.log if not r.correct),
                "failures_by_kind": self.failures_by_kind,
                "first_failure": self.first_failure,
                "from_log": self.from_log, "stopped": self.stopped, "model": self.model,
                "details": self.details, "time_limit": self.time_limit,
                "device": self.device, "remeasured": self.remeasured,
                "seeded": self.seeded, "seeds_left_out": self.seeds_left_out,
                "restarts": self.restarts, "lost_seconds": self.lost_seconds,
                "internal_errors": [e.as_json() for e in self.internal_errors]}


def _counted(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in counts.items())


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"
