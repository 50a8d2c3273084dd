"""The search space: the rewrites that move an expression towards a kernel, and random walks
through them (ICFP 2015 Sect. 6).

A *move* is one applicable rewrite (rule, place, parameters), so numerical parameters —
split sizes, vector widths, strides — are chosen together with the rules. A walk applies
random moves until the expression is *terminal* (fully low-level: no high-level primitive
left) or a depth is reached, and then lowers what is left with the default completion, so
every walk ends in something that can be measured.
"""

from __future__ import annotations

import multiprocessing
import random
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

from ..device.isolation import spawning
from ..errors import WorkbenchError
from ..expr import Expr, Path, Prim, walk
from ..layout import needs_lowering
from ..rewriting.rule import NOT_WALKED
from ..rewriting.step import Step
from ..rules import Rewrite, apply, rewrites
from ..rules.lowering import lower
from ..types import Type


def walk_rules() -> list:
    """The rules of the catalogue (and registered ones) that walks take: those with no tag of
    ``rules.rule.NOT_WALKED`` (identities, blocking and tiling, unrolling, other seeds)."""
    from ..rules import rules

    return [r for r in rules if not r.tags & NOT_WALKED]


def terminal(expr: Expr) -> bool:
    """Fully low-level: every node is known to the code generator."""
    return not any(needs_lowering(n) for _, n in walk(expr))


def within(path: Path, at: Path | None) -> bool:
    return at is None or tuple(path[:len(at)]) == tuple(at)


def is_constant(size, n: int) -> bool:
    """Whether a rewrite's size parameter (None: it has none) is the constant ``n``."""
    return size is not None and size.is_integer_constant and int(size.value) == n


def fits_device(expr: Expr, widths: tuple[int, ...] | None) -> bool:
    """Whether every vector of the expression has a width the device runs (its probed
    ``vector_widths``; None or empty: any width)."""
    if not widths:
        return True
    for _, node in walk(expr):
        if isinstance(node, Prim) and node.name == "splitVec":
            n = node.args[0]
            if n.is_integer_constant and int(n.value) not in widths:
                return False
    return True


def moves(expr: Expr, types: tuple[Type, ...], at: Path | None = None,
          widths: tuple[int, ...] | None = None) -> list[Rewrite]:
    """The rewrites a search may take at ``expr`` (only inside the subtree ``at``; only to
    vectors of the ``widths`` the device runs)."""
    return [r for r in rewrites(expr, *types, rules=walk_rules())
            if within(r.path, at) and fits_device(r.result, widths)]


class DeadEnd(WorkbenchError):
    """A walk reached an expression that no rule and no default lowering can finish (e.g. a
    mapGlobal nested in a map that can then only become another mapGlobal)."""


def random_walk(expr: Expr, types: tuple[Type, ...], rng: random.Random, depth: int = 12,
                at: Path | None = None, tries: int = 5,
                widths: tuple[int, ...] | None = None) -> tuple[Expr, list[Step]]:
    """Random moves until terminal (or ``depth`` moves), then the default completion; a walk
    into a dead end is started again (up to ``tries`` times). Moves to vectors of widths the
    device does not run (``widths``) are not taken."""
    for attempt in range(tries):
        try:
            return _walk(expr, types, rng, depth, at, widths)
        except WorkbenchError as err:
            if attempt == tries - 1:
                raise DeadEnd(f"no kernel below {expr}: {err}") from None
    raise AssertionError("unreachable")


def _walk(expr: Expr, types, rng, depth, at, widths) -> tuple[Expr, list[Step]]:
    steps: list[Step] = []
    for _ in range(depth):
        if terminal(expr):
            break
        choice = _random_move(expr, types, rng, at, widths)
        if choice is None:
            break
        expr = choice.result
        steps.append(choice.bare())
    if not terminal(expr):
        expr, completed = lower(expr, *types)
        steps += [s.bare() for s in completed]
    return expr, steps


def _random_move(expr: Expr, types, rng: random.Random, at, widths) -> Rewrite | None:
    """A random applicable move: nodes are tried in random order, and at the first node that
    has any rewrite a rule is drawn, then its parameters (listing the rewrites of one node
    is much cheaper than of all of them)."""
    paths = [p for p, _ in walk(expr) if within(p, at)]
    rng.shuffle(paths)
    for path in paths:
        options = [r for r in rewrites(expr, *types, at=path, rules=walk_rules())
                   if fits_device(r.result, widths)]
        if options:
            return rng.choice(rng.choice(by_rule(options)))
    return None


def numbered_walk(start: Expr, types: tuple[Type, ...], seed, i: int, at: Path | None = None,
                  widths: tuple[int, ...] | None = None) -> tuple[Expr, list[Step]] | None:
    """Walk number ``i`` of a search with ``seed``: a random walk whose random choices are
    its own (seeded by both), so the walks are the same however many processes draw them;
    None when it found no kernel."""
    try:
        return random_walk(start, types, random.Random(f"{seed}/{i}"), at=at, widths=widths)
    except DeadEnd:
        return None


def numbered_walks(start: Expr, types: tuple[Type, ...], seed, at: Path | None = None,
                   widths: tuple[int, ...] | None = None, processes: int = 0
                   ) -> Iterator[tuple[Expr, list[Step]] | None]:
    """Walks 0, 1, 2, … (``numbered_walk``), in order; with ``processes``, drawn ahead by
    that many worker processes (a search whose candidates are measured elsewhere draws them
    faster than one process can: each walk lists and type-checks hundreds of rewrites)."""
    if processes <= 1:
        i = 0
        while True:
            yield numbered_walk(start, types, seed, i, at, widths)
            i += 1
    pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_drawing, initargs=(start, types, seed, at, widths))
    try:
        ahead: deque = deque()
        i = 0
        while True:
            with spawning():  # the pool starts its processes as walks are submitted
                while len(ahead) < 2 * processes:
                    ahead.append(pool.submit(_draw, i))
                    i += 1
            yield ahead.popleft().result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


_DRAWING: tuple = ()  # a drawing process's walk: start, types, seed, at, widths


def _drawing(*walk) -> None:
    global _DRAWING
    _DRAWING = walk


def _draw(i: int):
    start, types, seed, at, widths = _DRAWING
    return numbered_walk(start, types, seed, i, at, widths)


def by_rule(options: list[Rewrite]) -> list[list[Rewrite]]:
    """Rewrites grouped by rule and place, so that drawing a group and then one of its
    parameter choices gives each rule the same chance, whatever its number of parameters
    (otherwise a rule with 20 split sizes is drawn 20 times as often as one with none)."""
    groups: dict[tuple, list[Rewrite]] = {}
    for r in options:
        groups.setdefault((r.rule, tuple(r.path)), []).append(r)
    return list(groups.values())


def replay(start: Expr, types: tuple[Type, ...], steps: list[Step]) -> Expr:
    expr = start
    for s in steps:
        expr = apply(expr, s.rule, s.path, *types, **s.params)
    return expr


__all__ = ["Step", "DeadEnd", "by_rule", "terminal", "moves", "fits_device", "random_walk",
           "numbered_walk", "numbered_walks", "replay", "walk_rules", "WorkbenchError"]
