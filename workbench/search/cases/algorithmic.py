"""Phase 1 of the exploration (CASES 2016 Sect. 5.1), algorithmic: the macro rules at every
place where they apply, in any order (``phase1``), their sizes left symbolic; then the
heuristics, each a named predicate: the nesting depth of maps (``nesting_depth``), the
distance between the addition and the multiplication (``add_multiply_distance``) and the
rules' repetitions (``repetitions``)."""

from __future__ import annotations

import itertools
import math

from ...errors import WorkbenchError
from ...expr import BinOp, Expr, Lambda, Prim, Section, bind_sizes, walk
from ...layout import mapped_layout
from ...primitives.families import REDUCTIONS
from ...rewriting.step import Step
from ...rules import RewriteRefused, apply
from ...rules.blocking import lambda_map, map_over
from ...sizes import Size
from .options import Options
from .variants import MACROS, PARAMS, Choices, Variant

# The counts of CASES 2016 Sect. 5 (matrix multiplication), for comparison.
PAPER = {"algorithmic": 20000, "nesting depth": 100, "add/multiply distance": 8,
         "OpenCL": 760, "parameters": 46000}

def size_names(expr: Expr) -> list[str]:
    """The size variables of an expression's primitives, in order of appearance."""
    out: list[str] = []
    for _, node in walk(expr):
        if isinstance(node, Prim):
            for a in node.args:
                if isinstance(a, Size):
                    for name in sorted(a.free_vars):
                        if name not in out:
                            out.append(name)
    return out


def canonical(expr: Expr) -> str:
    """The printed expression with its size variables renamed in order of appearance (two
    orders of the same macros give the same program)."""
    names = size_names(expr)
    return str(bind_sizes(expr, {n: Size.var(f"_{i}") for i, n in enumerate(names)}))


def _sites(expr: Expr, macro: str) -> list[tuple]:
    if macro == "innermost-tiling":
        return [p for p, n in walk(expr) if map_over(n) and isinstance(n.fn.args[0], Lambda)]
    return [p for p, n in walk(expr) if lambda_map(n)]


def phase1(start: Expr, types: tuple, options: Options, steps: tuple[Step, ...] = ()
           ) -> list[Variant]:
    """Every program the macro rules reach from ``start`` (the start included; ``steps``
    derive it from the program as written)."""
    counter = itertools.count(1)
    seen = {canonical(start): Variant(start, tuple(steps))}
    frontier = [seen[canonical(start)]]
    for _ in range(options.depth):
        found = []
        for v in frontier:
            used = [s.rule for s in v.steps]
            for macro in MACROS:
                if used.count(macro) >= options.repeat:
                    continue
                for path in _sites(v.expr, macro):
                    params = {p: Size.var(f"v{next(counter)}") for p in PARAMS[macro]}
                    try:
                        e = apply(v.expr, macro, path, *types, **params)
                    except (RewriteRefused, WorkbenchError):
                        continue
                    key = canonical(e)
                    if key in seen:
                        continue
                    seen[key] = Variant(e, v.steps + (Step(macro, path, params),),
                                        Choices(macros=(*v.choices.macros, macro)))
                    found.append(seen[key])
        frontier = found
    return list(seen.values())


def loops(node: Expr) -> bool:
    """A map that computes, or a reduction: a loop of the program."""
    if not isinstance(node, Prim):
        return False
    if node.name in REDUCTIONS:
        return True
    return node.decl.map_level not in (None, "vector") and \
        mapped_layout(node) is None


def nesting_depth(expr: Expr) -> int:
    """The deepest nest of maps that compute (the first heuristic of CASES 2016: beyond the
    two dimensions of work-groups, the two of work-items and a 2-D register block, more
    nesting is unlikely to pay)."""
    def depth(e: Expr) -> int:
        inner = max((depth(c) for c in e.children()), default=0)
        return inner + (1 if loops(e) and e.name not in REDUCTIONS else 0)
    return depth(expr)


def repetitions(v: Variant) -> bool:
    """Each macro applied at most once, and one kind of blocking (the slides' third
    heuristic, "number of times rules are applied"; Lift's HighLevelRewrite.filterRules)."""
    used = [s.rule for s in v.steps]
    return all(used.count(m) <= 1 for m in MACROS) and \
        not ("1d-blocking" in used and "2d-blocking" in used)


def _is(node: Expr, op: str) -> bool:
    return isinstance(node, BinOp | Section) and node.op == op


def add_multiply_distance(expr: Expr) -> float:
    """The fewest maps and reductions between a multiplication and an addition, counted on
    the tree path between them, the node where the paths meet left out (0: one scalar
    function computes both, as ``acc + a * b``)."""
    return _distances(expr)[2]


def _distances(e: Expr) -> tuple[float, float, float]:
    """Below ``e``: the fewest loops from ``e`` (counted) down to a multiplication and to an
    addition (not counted), and the fewest between a multiplication and an addition. Two
    operations below one child count the loops from the child down to both, more than
    between them, so the fewest stay those of the pair met where their paths part."""
    below = [_distances(c) for c in e.children()]
    to_mul = min((m for m, _, _ in below), default=math.inf)
    to_add = min((a for _, a, _ in below), default=math.inf)
    best = min([to_mul + to_add, *(b for _, _, b in below)])
    if _is(e, "*"):
        best = min(best, to_add)
    if _is(e, "+"):
        best = min(best, to_mul)
    loop = 1 if loops(e) else 0
    return (0 if _is(e, "*") else loop + to_mul), (0 if _is(e, "+") else loop + to_add), best
