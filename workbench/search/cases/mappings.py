"""Phase 2 of the exploration (CASES 2016 Sect. 5.2), OpenCL: each program of phase 1 mapped
onto the thread hierarchy (``lowering``) and, for a work-group's reduction, its memory
(``memory``: the accumulator private or local, its element's tiles copied into local memory
in a layout), its operands read as vectors (``vectors``), its copies prefetched
(``prefetching``) and its inputs packed (``packing``). Each is a named strategy over the
strategy language of ``rewriting.strategies``: it records its steps, and the places it
rewrites are found by traversals (``walk``, ``operator``, ``parent``, ``element``), never
computed from numbers. A program's ``Choices`` say what was chosen; its label follows."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from itertools import product

from ...errors import WorkbenchError
from ...expr import Expr, Lambda, Path, Prim, walk
from ...layout import needs_lowering
from ...nesting import context
from ...primitives.families import REDUCTIONS, SEQUENTIAL_REDUCTIONS
from ...rewriting.site import Refused
from ...rewriting.strategies import (
    State,
    Strategy,
    element,
    find,
    parent,
    rule,
    seq,
    try_,
)
from ...rules.copies import invariants
from ...rules.lowering import on_work_group
from ...sizes import Size
from ...typecheck import annotate
from .algorithmic import canonical, loops
from .options import Options
from .variants import (
    GROUPS_AND_ITEMS,
    LAYOUTS,
    MAPPINGS,
    ONE_PER_GROUP,
    ONE_PER_GROUP_DOWN,
    OPERANDS,
    ROW_WIDTHS,
    VECTOR_LAYOUTS,
    VECTOR_WIDTH,
    Choices,
    Variant,
)

# --- the strategy language's pieces phase 2 uses ----------------------------------------------


def guarded(name: str, **params) -> Strategy:
    """The rule ``name`` at the focus, refused (not raised) wherever applying it fails."""
    inner = rule(name, **params)

    def run(state: State):
        try:
            return inner(state)
        except WorkbenchError as err:
            return Refused(str(err))

    return run


def at(path: Path, s: Strategy) -> Strategy:
    """``s`` at the node at ``path`` (a path a traversal found), back at the focus after."""

    def run(state: State):
        result = s(state.at(path))
        return result if isinstance(result, Refused) else result.at(state.focus)

    return run


def operator(s: Strategy | None = None) -> Strategy:
    """The function the reduction at the focus applies (``s`` there, or the focus moved)."""

    def run(state: State):
        node = state.node
        if not (isinstance(node, Prim) and node.name in REDUCTIONS):
            return Refused(f"a reduction expected, not `{node}`")
        return find(lambda n: n is node.args[0], s, what="the reduction's operator")(state)

    return run


def _variant(state: State, choices: Choices) -> Variant:
    return Variant(state.expr, tuple(s.bare() for s in state.steps), choices)


def _start(v: Variant, types: tuple) -> State:
    return State(v.expr, tuple(types), v.steps)


# --- lowering: the maps onto the thread hierarchy ---------------------------------------------

def _map_rule(depth: int, in_operator: bool, mapping: str) -> tuple[str, dict]:
    """How the mapping lowers a map with ``depth`` loops around it: the two outermost onto
    work-groups, the next two (with work-items per group) onto work-items, the rest
    sequential (unrolled in a reduction's operator: a register block)."""
    if depth < 2:
        return "map→mapWorkgroup", {"dim": depth if mapping == ONE_PER_GROUP_DOWN else 1 - depth}
    if mapping == GROUPS_AND_ITEMS and depth < 4:
        return "map→mapLocal", {"dim": 3 - depth}
    return ("map→mapSeqUnroll" if in_operator else "map→mapSeq"), {}


def _lowering_rules(e: Expr, mapping: str, depth: int = 0, in_operator: bool = False
                    ) -> Iterator[tuple[str, dict] | None]:
    """For each node of ``e`` in pre-order (``walk``'s order), the rule lowering it and its
    parameters, or None: every high-level map and reduction, outermost first. ``depth``:
    the loops around ``e`` (maps that compute, high-level or lowered)."""
    reduction = isinstance(e, Prim) and e.name in REDUCTIONS
    if isinstance(e, Prim) and needs_lowering(e):
        if e.name == "map":
            yield _map_rule(depth, in_operator, mapping)
            depth += 1
        else:
            yield ("reduce→reduceSeq", {}) if e.name == "reduce" else None
    else:
        yield None
        if isinstance(e, Prim) and loops(e) and not reduction:
            depth += 1
    for child in e.children():  # a reduction's first argument: its operator
        yield from _lowering_rules(child, mapping, depth,
                                   in_operator or (reduction and child is e.args[0]))


def lowering(mapping: str, unroll: bool, width: int = 0) -> Strategy:
    """Every high-level map and reduction lowered by the mapping (``_map_rule``), register
    blocks unrolled or not; with ``width``, the innermost map of a reduction's operator (a
    row of a register block) computed as vectors of that many lanes (``vectorize``) and
    unrolled."""

    def run(state: State):
        targets = [(path, choice) for (path, _), choice
                   in zip(walk(state.expr), _lowering_rules(state.expr, mapping)) if choice]
        innermost = max((k for k, (_, (name, _)) in enumerate(targets)
                         if name == "map→mapSeqUnroll"), default=None)
        if width and (innermost is None or not unroll):
            return Refused("no register block's row to compute as vectors")
        for k, (path, (name, params)) in enumerate(targets):
            if name == "map→mapSeqUnroll" and not unroll:
                name = "map→mapSeq"
            here = guarded(name, **params)
            if width and k == innermost:  # joinVec ∘ map (mapVec f) ∘ splitVec width
                here = seq(guarded("vectorize", n=width), element("map", here))
            state = at(path, here)(state)
            if isinstance(state, Refused):
                return state
        return state

    return run


def _lower(v: Variant, types: tuple, mapping: str, unroll: bool, width: int = 0
           ) -> Variant | None:
    """The program lowered (``lowering``), or None where it cannot be."""
    state = lowering(mapping, unroll, width)(_start(v, types))
    if isinstance(state, Refused):
        return None
    return _variant(state, replace(v.choices, mapping=mapping, unrolled=unroll, rows=width))


# --- memory: a work-group's reduction's accumulator and tiles ---------------------------------

def _group_reductions(expr: Expr) -> list[Path]:
    """Paths of the reductions of a work-group (``on_work_group``) whose operator uses
    local maps."""
    return [path for path, node in walk(expr)
            if isinstance(node, Prim) and node.name == "reduceSeq"
            and on_work_group(context(expr, path))
            and any(isinstance(n, Prim) and n.name == "mapLocal" for _, n in walk(node.args[0]))]


def _local_extents(expr: Expr, path: Path, types: tuple) -> dict[int, Size]:
    """The lengths the local maps of the reduction at ``path`` run over, per dimension."""
    note = annotate(expr, *types)
    inside = operator()(State(expr, tuple(types)).at(path))  # the focus moved there
    extents: dict[int, Size] = {}
    for sub, node in walk(inside.node, inside.focus):
        if isinstance(node, Prim) and node.name == "mapLocal" and sub in note.typings:
            extents.setdefault(node.args[0], note.typings[sub].args[0].size)
    return extents


def memory(tiles: tuple[tuple[int, int], ...], private: bool, l1: Size, l0: Size
           ) -> Strategy:
    """At a work-group's reduction: the tiles of its element (operand, layout) copied into
    local memory (``local-copy``), and its accumulator kept in private memory
    (``private-accumulator``, ``copy-out`` after the reduction) or left in local memory."""
    copies = [operator(guarded("local-copy", k=k, t=t, l1=l1, l0=l0)) for k, t in tiles]
    accumulator = [guarded("private-accumulator"), parent(guarded("copy-out"))] \
        if private else []
    return seq(*copies, *accumulator)


def _memory_variants(v: Variant, types: tuple, layouts: tuple = LAYOUTS,
                     private_only: bool = False) -> list[Variant]:
    """For a work-group's reduction: its accumulator private (or local), and the tiles of
    its element copied into local memory (none, one or both, each in one of the layouts)."""
    group = _group_reductions(v.expr)
    if not group:
        return [v]
    extents = _local_extents(v.expr, group[0], types)
    if 0 not in extents or 1 not in extents:
        return [v]
    ways = [()] + [((k, t),) for k in range(len(OPERANDS)) for t in layouts] + \
        [tuple(enumerate(pair)) for pair in product(layouts, repeat=len(OPERANDS))]
    out = []
    for private in (True,) if private_only else (True, False):
        for tiles in ways:
            state = at(group[0], memory(tiles, private, extents[1], extents[0]))(
                _start(v, types))
            if not isinstance(state, Refused):
                out.append(_variant(state, replace(
                    v.choices, accumulator="private" if private else "local", tiles=tiles)))
    return out


# --- vectors, prefetching, packing ------------------------------------------------------------

def _work_item_reductions(expr: Expr) -> list[Path]:
    """Paths of the reductions each work-item runs (inside local maps) with a function as
    their operator, innermost last."""
    return [path for path, node in walk(expr)
            if isinstance(node, Prim) and node.name in SEQUENTIAL_REDUCTIONS
            and isinstance(node.args[0], Lambda)
            and "local" in [level for level, _ in context(expr, path)]]


def vectors() -> Strategy:
    """The operands each step of a work-item's reduction reads (a column of the A tile, a
    row of the B tile) copied into private memory as vectors (``private-vectors``), each
    where it applies."""

    def run(state: State):
        for path in _work_item_reductions(state.expr):
            for k in range(len(OPERANDS)):
                state = try_(at(path, operator(
                    guarded("private-vectors", k=k, w=VECTOR_WIDTH))))(state)
        return state

    return run


def _vectors(v: Variant, types: tuple) -> Variant | None:
    """The program with its operands read as vectors (``vectors``), or None where no
    operand is an array of scalars."""
    state = vectors()(_start(v, types))
    read = tuple(OPERANDS[s.params["k"]] for s in state.steps[len(v.steps):])
    return _variant(state, replace(v.choices, vectors=read)) if read else None


def prefetching() -> Strategy:
    """A work-group's copies into local memory made one step ahead, in registers
    (``prefetch``), and each work-item's loop over the steps of a tile unrolled (with the
    next tiles in flight, straight-line steps let the compiler read the next step's operands
    from local memory early: 4–5 % faster on an H100 at 2048 and 4096)."""

    def run(state: State):
        group = _group_reductions(state.expr)
        if not group:
            return Refused("no work-group's reduction copies into local memory")
        state = at(group[0], operator(guarded("prefetch")))(state)
        if isinstance(state, Refused):
            return state
        for path in _work_item_reductions(state.expr):
            state = try_(at(path, guarded("reduceSeq→reduceSeqUnroll")))(state)
        return state

    return run


def _prefetched(v: Variant, types: tuple) -> Variant | None:
    """The program prefetched (``prefetching``), or None where it copies nothing."""
    state = prefetching()(_start(v, types))
    return None if isinstance(state, Refused) else \
        _variant(state, replace(v.choices, prefetched=True))


def packing(k: int, transposed: int) -> Strategy:
    """The ``k``-th array the program's maps read that depends only on the inputs computed
    once into global memory (``pack``), each element transposed or not."""
    return guarded("pack", k=k, t=transposed)


def _packed(v: Variant, types: tuple) -> list[Variant]:
    """The program as it is, and with each of its first two such arrays packed."""
    out = [v]
    for k in range(min(len(invariants(v.expr)), len(OPERANDS))):
        for t in (0, 1):
            state = packing(k, t)(_start(v, types))
            if not isinstance(state, Refused):
                out.append(_variant(state, replace(v.choices, packed=(k, t))))
    return out


# --- phase 2 ----------------------------------------------------------------------------------

def _mapped(v: Variant, types: tuple, mapping: str, unroll: bool) -> list[Variant]:
    """The programs of one mapping of a phase-1 program, register blocks unrolled or not."""
    lowered = _lower(v, types, mapping, unroll)
    if lowered is None:
        return []
    out = []
    memories = _memory_variants(lowered, types) if mapping == GROUPS_AND_ITEMS else [lowered]
    for program in memories:
        out.extend(_packed(program, types))
    if unroll and mapping in (ONE_PER_GROUP, ONE_PER_GROUP_DOWN):
        for width in ROW_WIDTHS:
            rows = _lower(v, types, mapping, unroll, width)
            if rows is not None:
                out.extend(_packed(rows, types))
    if unroll and mapping == GROUPS_AND_ITEMS:
        for program in _memory_variants(lowered, types, VECTOR_LAYOUTS, True):
            vectors = _vectors(program, types)
            if vectors is not None:
                out.extend(_packed(vectors, types))
                ahead = _prefetched(vectors, types)
                if ahead is not None:
                    out.extend(_packed(ahead, types))
    return out


def phase2(variants: list[Variant], types: tuple, options: Options) -> list[Variant]:
    """Every program of phase 2 from the programs of phase 1 (one of each expression)."""
    unknown = [m for m in options.mappings if m not in MAPPINGS]
    if unknown:
        raise WorkbenchError(f"cases: no mapping {unknown[0]!r}; the mappings are "
                             + ", ".join(repr(m) for m in MAPPINGS))
    unique: dict[str, Variant] = {}
    for v in variants:
        for mapping in options.mappings:
            for unroll in (True, False):
                for program in _mapped(v, types, mapping, unroll):
                    unique.setdefault(canonical(program.expr), program)
    return list(unique.values())
