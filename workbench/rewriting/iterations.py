"""Equality saturation watched iteration by iteration: the e-graph (``rewriting.egraph``)
grown one round at a time and, after each round, what it holds — its e-classes and
e-nodes, how many e-classes the round created and merged, the rules that fired (how many
merges each made), the program an extraction picks from the root e-class with the steps
that derive it from the start, and, for sketch-guided saturation
(``rewriting.sketching``), which sketch the round grew towards and whether it was reached.

The accounting holds round by round: the e-classes after a round are those before, plus
those it created, minus those it merged; a merge is a rule's (``fired``) or congruence's,
restored when the graph is rebuilt. Iteration 0 is the start, before any round.

The extraction (``Extractor``) ranks terms of the root e-class, best first; the first
whose derivation is found is the iteration's program (where a sketch is reached, its
program, costed by the same extraction). By default it is the smallest term (fewest
nodes, ``SmallestTerm``); ``search.extraction`` ranks by a device's cost model. The core
never imports Jupyter: the widget's e-graph panel (``widgets.egraph_panel``) shows these
reports.

    >>> report = saturation_report(parse("reduce (+) 0 ∘ map abs"), ("[float]_64",),
    ...                            walk_rules(), rounds=2)          # doctest: +SKIP
    >>> [(i.nodes, i.classes, i.fired) for i in report.iterations]  # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ..errors import WorkbenchError
from ..expr import Expr, Path
from .egraph import EGraph, NoDerivation, nodes_of
from .rule import Rule
from .sketching import Sketch, SketchFinder, parse_sketch
from .step import Step

# how many of an extraction's terms are tried, best first, for one whose derivation is found
DERIVATIONS_TRIED = 12


@dataclass(frozen=True)
class Extraction:
    """A term an extraction picked, with its cost in ``unit`` (lower is better)."""

    term: Expr
    cost: float
    unit: str


class Extractor(Protocol):
    """An extraction: ranks terms of a graph's root e-class, best first (``__call__``), and
    costs any term in its ``unit`` (``cost``: None for a term it cannot cost)."""

    unit: str

    def __call__(self, graph: EGraph) -> list[Extraction]: ...

    def cost(self, term: Expr) -> float | None: ...


class SmallestTerm:
    """The root e-class's smallest term (fewest nodes)."""

    unit = "nodes"

    def cost(self, term: Expr) -> float:
        return float(nodes_of(term))

    def __call__(self, graph: EGraph) -> list[Extraction]:
        term = graph.term(graph.root)
        return [Extraction(term, self.cost(term), self.unit)]


class CountingEGraph(EGraph):
    """An e-graph that counts its merges of two distinct e-classes (``unions``)."""

    def __post_init__(self):
        self.unions = 0
        super().__post_init__()

    def union(self, a: int, b: int) -> int:
        self.unions += self.find(a) != self.find(b)
        return super().union(a, b)


@dataclass
class Iteration:
    """What the graph holds after one round (``number`` 0: the start)."""

    number: int
    nodes: int
    classes: int
    created: int  # e-classes the round created
    merged: int  # e-classes the round merged into others (by rules and by congruence)
    fired: dict[str, int]
    seconds: float  # growing the graph (the extraction after it not counted)
    program: Expr
    cost: float | None
    unit: str
    steps: list[Step] | None  # from the report's start to ``program`` (None: not found)
    sketch: str | None = None  # the sketch this round grew towards
    reached: bool | None = None  # whether the graph holds a program of its shape

    @property
    def congruences(self) -> int:
        """Merges made by congruence, not by a rule."""
        return self.merged - sum(self.fired.values())

    def as_json(self) -> dict:
        return {"number": self.number, "nodes": self.nodes, "classes": self.classes,
                "created": self.created, "merged": self.merged, "fired": dict(self.fired),
                "seconds": round(self.seconds, 4), "program": str(self.program),
                "cost": self.cost, "unit": self.unit,
                "steps": None if self.steps is None else [s.as_json() for s in self.steps],
                "sketch": self.sketch, "reached": self.reached}


@dataclass
class SaturationReport:
    """The iterations of one saturation (or one per sketch, one after another) from
    ``start``, and why it ended."""

    start: Expr
    types: tuple
    sketches: list[str] = field(default_factory=list)
    iterations: list[Iteration] = field(default_factory=list)
    stopped: str = ""

    def fired_total(self) -> dict[str, int]:
        """Each rule's merges over every iteration."""
        total: dict[str, int] = {}
        for it in self.iterations:
            for rule, n in it.fired.items():
                total[rule] = total.get(rule, 0) + n
        return total

    @property
    def last(self) -> Iteration | None:
        return self.iterations[-1] if self.iterations else None

    def reached(self) -> list[str]:
        """The sketches reached, in order."""
        return list(dict.fromkeys(it.sketch for it in self.iterations if it.reached))

    def as_json(self) -> dict:
        return {"start": str(self.start), "types": [str(t) for t in self.types],
                "sketches": list(self.sketches), "stopped": self.stopped,
                "fired": self.fired_total(),
                "iterations": [it.as_json() for it in self.iterations]}


@dataclass
class Limits:
    """When growing stops: ``rounds`` per saturation (per sketch), ``nodes`` e-nodes in one
    graph, ``seconds`` for the whole report, or ``cancel()`` becoming true (asked before
    each round: a round started ends, within the other limits)."""

    rounds: int = 4
    nodes: int = 3000
    seconds: float = 60.0
    cancel: Callable[[], bool] = lambda: False

    def __post_init__(self):
        if self.rounds < 1 or self.nodes < 1 or self.seconds <= 0:
            raise WorkbenchError(f"saturation limits must be positive: rounds {self.rounds}, "
                                 f"nodes {self.nodes}, seconds {self.seconds}")
        self.deadline = time.time() + self.seconds


def saturation_report(start: Expr, types: tuple, rules: list[Rule], *,
                      sketches: list[str | Sketch] = (), extract: Extractor | None = None,
                      rounds: int = 4, nodes: int = 3000, seconds: float = 60.0,
                      cancel: Callable[[], bool] | None = None,
                      on_iteration: Callable[[Iteration], None] | None = None,
                      accept: Callable[[Expr], bool] | None = None,
                      inside: Callable[[Path], bool] | None = None) -> SaturationReport:
    """Grow ``start``'s e-graph by ``rules`` round by round (with ``sketches``: one
    saturation per sketch, each from the program the last reached, as
    ``sketching.sketch_guided``), reporting each round (``on_iteration`` is called with
    each as it is made) until saturation, a limit, ``cancel()``, or a sketch not reached."""
    parsed = [parse_sketch(s) if isinstance(s, str) else s for s in sketches]
    limits = Limits(rounds, nodes, seconds, cancel or (lambda: False))
    names = [s.strip() if isinstance(s, str) else str(s) for s in sketches]  # as written
    report = SaturationReport(start, tuple(types), names)
    grower = _Grower(report, rules, extract or SmallestTerm(), limits, on_iteration, accept,
                     inside)
    if not parsed:
        report.stopped = grower.grow(start, [], None, None)
        return report
    current, prefix = start, []
    for sketch, name in zip(parsed, names):
        why = grower.grow(current, prefix, sketch, name)
        last = report.last
        if not last.reached or last.steps is None:
            report.stopped = (f"sketch {name} not reached: {why}" if not last.reached else
                              f"the program of sketch {name} has no derivation found")
            break
        current, prefix = last.program, last.steps
    else:
        report.stopped = "every sketch reached"
    return report


@dataclass
class _Grower:
    report: SaturationReport
    rules: list[Rule]
    extract: Extractor
    limits: Limits
    on_iteration: Callable[[Iteration], None] | None
    accept: Callable[[Expr], bool] | None
    inside: Callable[[Path], bool] | None

    def grow(self, start: Expr, prefix: list[Step], sketch: Sketch | None,
             name: str | None) -> str:
        """One saturation from ``start`` (whose steps from the report's start are
        ``prefix``) towards ``sketch`` (written ``name``), its rounds reported; why it
        stopped."""
        began = time.time()
        graph = CountingEGraph(start, self.report.types, self.rules, accept=self.accept,
                               inside=self.inside)
        found: list[Expr | None] = [None]

        def holds(g: EGraph) -> bool:
            found[0] = SketchFinder(g).find(sketch, g.root)
            return found[0] is not None

        if sketch is not None:
            holds(graph)
        self._record(graph, prefix, name, found[0], (0, 0, began))
        for _ in range(self.limits.rounds):
            why = self._why_stop(graph, found[0])
            if why:
                return why
            before = (len(graph.parent), graph.unions, time.time())
            # a sketch is looked for during the round too (``EGraph.grow``'s ``until``)
            done = graph.grow(self.limits.nodes, self.limits.deadline,
                              None if sketch is None else holds)
            if sketch is not None:
                holds(graph)
            self._record(graph, prefix, name, found[0], before, done.fired)
        rounds = self.limits.rounds
        return self._why_stop(graph, found[0]) or f"{rounds} round{'s' if rounds != 1 else ''}"

    def _why_stop(self, graph: EGraph, found: Expr | None) -> str:
        if found is not None:
            return "sketch reached"
        if self.limits.cancel():
            return "cancelled"
        if graph.saturated():
            return "saturated"
        if len(graph.nodes) >= self.limits.nodes:
            return f"node limit ({self.limits.nodes} e-nodes)"
        if time.time() > self.limits.deadline:
            return f"time limit ({self.limits.seconds:g} s)"
        return ""

    def _record(self, graph: CountingEGraph, prefix: list[Step], sketch: str | None,
                found: Expr | None, before: tuple, fired: dict | None = None) -> None:
        created_before, unions_before, began = before
        number, seconds = len(self.report.iterations), time.time() - began
        picked = (Extraction(found, self.extract.cost(found), self.extract.unit)
                  if found is not None else None)
        program, cost, unit, steps = _extracted(graph, self.extract, picked)
        it = Iteration(number, len(graph.nodes), len(graph.members),
                       len(graph.parent) - created_before,
                       graph.unions - unions_before, dict(fired or {}), seconds,
                       program, cost, unit, None if steps is None else prefix + steps,
                       sketch,
                       None if sketch is None else found is not None)
        self.report.iterations.append(it)
        if self.on_iteration is not None:
            self.on_iteration(it)


def _extracted(graph: EGraph, extract: Extractor, found: Extraction | None
               ) -> tuple[Expr, float | None, str, list[Step] | None]:
    """The program, its cost, the cost's unit and its derivation in ``graph``: the sketch's
    program where one was found, else the extraction's best term whose derivation is
    found (the graph's start when none is)."""
    ranked = [found] if found is not None else extract(graph)
    for choice in ranked[:DERIVATIONS_TRIED]:
        try:
            return choice.term, choice.cost, choice.unit, graph.derive(choice.term)
        except NoDerivation:
            continue
    if found is not None:
        return found.term, found.cost, found.unit, None
    unit = ranked[0].unit if ranked else ""
    return graph.start, None, unit, []
