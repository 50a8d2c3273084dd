"""Sketch-guided equality saturation (Koehler, Trinder and Steuwer): one saturation per
sketch (``notation.sketch``), each grown from the program the last one extracted, each
stopped as soon as the e-graph holds a program of the sketch's shape; that program is
extracted with its derivation, and the derivations, one after another, rewrite the start
into the last sketch's program.

    >>> reached = sketch_guided(mm, types, ["contains(untile)"])           # doctest: +SKIP
    >>> reached[-1].program, reached[-1].steps
"""

from __future__ import annotations

import time
import tracemalloc
from dataclasses import dataclass, field

from ..errors import WorkbenchError
from ..expr import Expr
from ..notation.sketch import Contains, Hole, Shape, Sketch, head_fits, parse_sketch, type_fits
from .egraph import EGraph, ENode, NoDerivation
from .rule import Rule
from .step import Step


class SketchFinder:
    """Terms of an e-graph's e-classes that have a sketch's shape (None where none has)."""

    def __init__(self, graph: EGraph):
        self.graph = graph
        self.smallest = graph.smallest()
        self.memo: dict[tuple[int, int], Expr | None] = {}
        self.visiting: set[tuple[int, int]] = set()

    def smallest_term(self, c: int) -> Expr:
        return self.graph._term(self.graph.find(c), None, 0, frozenset(), self.smallest)

    def find(self, sketch: Sketch, c: int) -> Expr | None:
        key = (id(sketch), self.graph.find(c))
        if key in self.visiting:
            return None  # a cycle: the e-class is being looked through above
        if key not in self.memo:
            self.visiting.add(key)
            try:
                self.memo[key] = self._find(sketch, key[1])
            finally:
                self.visiting.discard(key)
        return self.memo[key]

    def _find(self, sketch: Sketch, c: int) -> Expr | None:
        if c not in self.smallest:
            return None  # no finite term (only cycles)
        if isinstance(sketch, Hole):
            return self.smallest_term(c) if self._typed(sketch, c) else None
        nodes = self.graph.members[c]
        if isinstance(sketch, Shape):
            return next((t for n in nodes if (t := self._shaped(sketch, n)) is not None), None)
        found = self.find(sketch.inner, c)
        for n in nodes:
            if found is not None:
                break
            found = self._window(sketch.inner, n) or self._below(sketch, n)
        return found

    def _typed(self, hole: Hole, c: int) -> bool:
        if hole.type is None:
            return True
        context = self.graph.members[c][0].context
        return len(context) == 4 and type_fits(hole.type, context[1])

    def _shaped(self, sketch: Shape, n: ENode) -> Expr | None:
        template = self.graph.templates[n.head]
        if len(sketch.children) != len(n.children) or not head_fits(sketch.node, template):
            return None
        kids = []
        for s, k in zip(sketch.children, n.children):
            kids.append(self.find(s, k))
            if kids[-1] is None:
                return None
        return self.graph.build(n, kids)

    def _window(self, sketch: Sketch, n: ENode) -> Expr | None:
        """A composition of more functions than the sketch's, with a run of its functions of
        the sketch's shape."""
        if not isinstance(sketch, Shape) or n.head[0] != "Compose" or \
                sketch.node.__class__.__name__ != "Compose" or \
                len(n.children) <= len(sketch.children):
            return None
        k = len(sketch.children)
        for i in range(len(n.children) - k + 1):
            run = [self.find(s, c) for s, c in zip(sketch.children, n.children[i:i + k])]
            if all(t is not None for t in run):
                kids = [self.smallest_term(c) for c in n.children]
                kids[i:i + k] = run
                return self.graph.build(n, kids)
        return None

    def _below(self, sketch: Contains, n: ENode) -> Expr | None:
        for i, k in enumerate(n.children):
            inner = self.find(sketch, k)
            if inner is not None:
                kids = [self.smallest_term(c) for c in n.children]
                kids[i] = inner
                return self.graph.build(n, kids)
        return None


@dataclass
class SketchReached:
    """One sketch's saturation: the program of its shape extracted (None: not reached), the
    steps from the program it started from, and what the growth cost."""

    sketch: Sketch
    program: Expr | None
    steps: list[Step] = field(default_factory=list)
    nodes: int = 0
    classes: int = 0
    rounds: int = 0
    seconds: float = 0.0
    peak_bytes: int = 0

    @property
    def reached(self) -> bool:
        return self.program is not None

    def as_json(self) -> dict:
        return {"sketch": str(self.sketch), "reached": self.reached,
                "program": None if self.program is None else str(self.program),
                "steps": [s.as_json() for s in self.steps], "nodes": self.nodes,
                "classes": self.classes, "rounds": self.rounds,
                "seconds": round(self.seconds, 3), "peak_bytes": self.peak_bytes}


def reach(start: Expr, types: tuple, sketch: Sketch, rules: list[Rule], rounds: int = 6,
          node_limit: int = 20000, seconds: float = 10.0, memory: bool = False
          ) -> SketchReached:
    """One saturation from ``start`` until the graph holds a program of ``sketch``'s shape
    (or a limit), that program extracted with its derivation; with ``memory``, the peak of
    the memory Python allocated meanwhile is measured too (``tracemalloc``, which slows the
    growth about twofold)."""
    began = time.time()
    tracing = memory and not tracemalloc.is_tracing()
    if tracing:
        tracemalloc.start()
    try:
        graph = EGraph(start, types, rules)
        found: list[Expr | None] = [SketchFinder(graph).find(sketch, graph.root)]
        if found[0] is None:
            def holds(g: EGraph) -> bool:
                found[0] = SketchFinder(g).find(sketch, g.root)
                return found[0] is not None
            graph.saturate(rounds=rounds, node_limit=node_limit, seconds=seconds, until=holds)
        steps = graph.derive(found[0]) if found[0] is not None else []
        peak = tracemalloc.get_traced_memory()[1] if memory else 0
    except NoDerivation:
        found, steps, peak = [None], [], tracemalloc.get_traced_memory()[1] if memory else 0
    finally:
        if tracing:
            tracemalloc.stop()
    return SketchReached(sketch, found[0], steps, len(graph.nodes), len(graph.members),
                         len(graph.rounds), time.time() - began, peak)


def sketch_guided(start: Expr, types, sketches: list[str | Sketch], rules: list[Rule],
                  **limits) -> list[SketchReached]:
    """One saturation per sketch, each from the program the last extracted; stops at the
    first sketch not reached. The steps of each, in order, rewrite ``start`` into the last
    program reached."""
    if not sketches:
        raise WorkbenchError("sketch_guided needs at least one sketch")
    parsed = [parse_sketch(s) if isinstance(s, str) else s for s in sketches]
    out, current = [], start
    for sketch in parsed:
        done = reach(current, tuple(types), sketch, rules, **limits)
        out.append(done)
        if not done.reached:
            break
        current = done.program
    return out
