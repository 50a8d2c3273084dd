"""Sketch-guided equality saturation (Koehler, Trinder and Steuwer, "Sketch-Guided Equality
Saturation"): sketches, program shapes with holes written in the notation, and one
saturation per sketch, each grown from the program the last one extracted, each stopped as
soon as the e-graph holds a program of the sketch's shape; that program is extracted with
its derivation, and the derivations, one after another, rewrite the start into the last
sketch's program.

A sketch is an expression of the notation in which

- ``?`` is a hole: any term;
- ``?{T}`` is a typed hole: any term whose value has type ``T`` (a size variable of ``T``
  stands for any size: ``?{[[float]_n]_m}`` is any matrix of floats);
- ``contains(s)`` is any term that has a subterm of the shape ``s`` (itself included; a
  composition of k functions is found among the functions of a longer one);
- every other node must be there as written, except that a size variable stands for any
  size (``split n`` is a split by any size), a variable for any variable and a lambda's
  parameters for any parameters of the same number.

``parse_sketch`` refuses malformed text with a ``ParseError`` at the line and column of the
sketch's own text; ``matches`` says whether a term has the sketch's shape.

    >>> reached = sketch_guided(mm, types, ["contains(untile)"], rules)   # doctest: +SKIP
    >>> reached[-1].program, reached[-1].steps
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import ParseError, WorkbenchError
from ..expr import Apply, Compose, Expr, Lambda, Lit, Prim, Var, compose
from ..notation.parser import parse_type
from ..notation.reading import parse
from ..sizes import Size
from ..types import ArrayType, Type, VectorType
from .egraph import EGraph, ENode, NoDerivation
from .rule import Rule
from .step import Step

HOLE = "__hole"
CONTAINS = "__contains"


@dataclass(frozen=True)
class Hole:
    """Any term (of ``type``, where it gives one)."""

    type: Type | None = None

    def __str__(self) -> str:
        return "?" if self.type is None else f"?{{{self.type}}}"


@dataclass(frozen=True)
class Contains:
    """Any term with a subterm of the shape ``inner``."""

    inner: Sketch

    def __str__(self) -> str:
        return f"contains({self.inner})"


@dataclass(frozen=True)
class Shape:
    """A node as written (``node``, whose children are not looked at) over the sketches of
    its children."""

    node: Expr
    children: tuple

    def __str__(self) -> str:
        placeholders = tuple(Var(f"§{i}") for i in range(len(self.children)))
        text = str(self.node.with_children(placeholders)) if self.children else str(self.node)
        for i, child in enumerate(self.children):
            text = text.replace(f"§{i}", f"({child})", 1)
        return text


Sketch = Hole | Contains | Shape


def parse_sketch(text: str) -> Sketch:
    """The sketch written in ``text``; a ``ParseError`` at the place of malformed text."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError("a sketch is the text of a program shape, e.g. 'contains(split n)'",
                         1, 1, str(text))
    body, holes, moved = _marked(text)
    names = list(holes) + [CONTAINS]
    try:
        expr = parse(f"λ{' '.join(names)}.\n{body}")
    except ParseError as err:
        line = max(err.line - 1, 1)
        column = moved(line, err.column)
        raise ParseError(err.reason, line, column, text.splitlines()[line - 1]
                         if text.splitlines() else text) from None
    return _sketch_of(expr.body if isinstance(expr, Lambda) else expr, holes, text)


def _marked(text: str) -> tuple[str, dict[str, Type | None], Callable[[int, int], int]]:
    """The text with each hole a variable and ``contains`` one too; the holes' types; and
    the column in ``text`` of a column of the marked text (by line)."""
    lines, holes, shifts = [], {}, {}
    for number, line in enumerate(text.split("\n"), start=1):
        out, i, moves = [], 0, []
        while i < len(line):
            if line[i] == "?":
                name, end = f"{HOLE}{len(holes)}", i + 1
                holes[name] = None
                if line.startswith("{", end):
                    close = line.find("}", end)
                    if close < 0:
                        raise ParseError("a typed hole ?{T} is not closed: '}' expected",
                                         number, i + 1, line)
                    holes[name] = _hole_type(line, end + 1, close, number)
                    end = close + 1
                moves.append((len("".join(out)), i, len(name), end - i))
                out.append(name)
                i = end
            elif line.startswith("contains", i) and _word_at(line, i, "contains"):
                moves.append((len("".join(out)), i, len(CONTAINS), len("contains")))
                out.append(CONTAINS)
                i += len("contains")
            else:
                out.append(line[i])
                i += 1
        lines.append("".join(out))
        shifts[number] = moves

    def moved(line: int, column: int) -> int:
        delta = 0
        for at, was, width, written in shifts.get(line, []):
            if at <= column - 1 < at + width:
                return was + 1
            if column - 1 >= at + width:
                delta += width - written
        return column - delta

    return "\n".join(lines), holes, moved


def _word_at(line: str, i: int, word: str) -> bool:
    before = line[i - 1] if i else " "
    after = line[i + len(word)] if i + len(word) < len(line) else " "
    return not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_")


def _hole_type(line: str, start: int, close: int, number: int) -> Type:
    try:
        return parse_type(line[start:close])
    except ParseError as err:
        raise ParseError(f"the type of a typed hole: {err.reason}", number,
                         start + err.column, line) from None


def _sketch_of(expr: Expr, holes: dict[str, Type | None], text: str) -> Sketch:
    if isinstance(expr, Var) and expr.name in holes:
        return Hole(holes[expr.name])
    if isinstance(expr, Var) and expr.name == CONTAINS or \
            isinstance(expr, Apply) and expr.fn == Var(CONTAINS) and len(expr.args) != 1:
        raise ParseError("contains takes one sketch: contains(s)", 1, text.find("contains")
                         + 1, text.splitlines()[0] if text.splitlines() else text)
    if isinstance(expr, Apply) and expr.fn == Var(CONTAINS):
        return Contains(_sketch_of(expr.args[0], holes, text))
    return Shape(expr, tuple(_sketch_of(c, holes, text) for c in expr.children()))


def head_fits(sketch: Expr, node: Expr) -> bool:
    """Whether ``node`` (its children not looked at) is a node the sketch's ``sketch`` node
    stands for."""
    if type(sketch) is not type(node) or len(sketch.children()) != len(node.children()):
        return False
    if isinstance(sketch, Var):
        return True
    if isinstance(sketch, Prim):
        return sketch.name == node.name and len(sketch.args) == len(node.args) and all(
            isinstance(a, Expr) or _size_fits(a, b) for a, b in zip(sketch.args, node.args))
    if isinstance(sketch, Lambda):
        return len(sketch.names()) == len(node.names())
    if isinstance(sketch, Lit):
        return sketch == node
    placeholders = tuple(Var("_") for _ in sketch.children())
    return sketch.with_children(placeholders) == node.with_children(placeholders)


def _size_fits(want, got) -> bool:
    if isinstance(want, Size) and want.free_vars and not want.is_integer_constant:
        return isinstance(got, Size)
    return want == got


def type_fits(want: Type, got: Type) -> bool:
    """Whether ``got`` is of the typed hole's type ``want`` (its size variables any size)."""
    if isinstance(want, ArrayType | VectorType) and type(want) is type(got):
        size_ok = _size_fits(want.size, got.size) if isinstance(want, ArrayType) else \
            want.size == got.size
        return size_ok and type_fits(want.elem, got.elem)
    return want == got


def windows(sketch: Sketch, term: Expr) -> list[Expr]:
    """The term, and where the sketch is a composition of k functions and the term one of
    more, each run of k consecutive functions of it (``contains(f ∘ g)`` finds ``f ∘ g``
    inside ``h ∘ f ∘ g ∘ k``)."""
    if not (isinstance(sketch, Shape) and isinstance(sketch.node, Compose)
            and isinstance(term, Compose)) or len(term.fns) <= len(sketch.children):
        return [term]
    k = len(sketch.children)
    return [term] + [compose(*term.fns[i:i + k]) for i in range(len(term.fns) - k + 1)]


def matches(sketch: Sketch, term: Expr, type_of: Callable[[Expr], Type | None] | None = None
            ) -> bool:
    """Whether ``term`` has the sketch's shape (``type_of`` gives a subterm's type, for
    typed holes: without it a typed hole is any term)."""
    if isinstance(sketch, Hole):
        got = type_of(term) if type_of is not None and sketch.type is not None else None
        return got is None or type_fits(sketch.type, got)
    if isinstance(sketch, Contains):
        return any(matches(sketch.inner, part, type_of) for part in windows(sketch.inner, term)) \
            or any(matches(sketch, child, type_of) for child in term.children())
    return head_fits(sketch.node, term) and all(
        matches(s, c, type_of) for s, c in zip(sketch.children, term.children()))


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
        return context[0] is not None and type_fits(hole.type, context[1])  # a typed place

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
