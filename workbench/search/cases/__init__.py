"""The exploration of CASES 2016 (Sect. 5) as a search strategy, ``strategy="cases"``:

1. **algorithmic**: the four macro rules (1-D and 2-D blocking, tiling, tiling of the
   innermost loop) at every place where they apply, in any order (each at most twice, up to
   ``depth`` of them), their sizes left symbolic (``v1``, ``v2``, …); then two heuristics,
   each a named predicate: the **nesting depth** of maps and reductions (at most
   ``max_depth``) and the **distance between the addition and the multiplication** (the
   smallest found: the fewer maps and reductions between them, the more likely they fuse);
2. **OpenCL**: a fixed mapping onto the thread hierarchy — the two outermost maps over
   work-groups (dimensions 1, 0), the next two over the work-items of a group, the rest
   sequential (unrolled or not where they update a register block) — and, for a
   work-group's reduction, its memory: the accumulator in private memory (or local), and
   none, one or both of its element's tiles copied into local memory (each as it is,
   transposed, each row transposed, or interleaved: the work-items' parts woven so that
   neighbouring work-items read neighbouring words; at most two copies); with register
   blocks unrolled and the accumulator private, also the operands each step of a
   work-item's reduction reads copied into private memory as vectors of 4 (the tiles then
   also interleaved by vectors). A second mapping, one work-item per work-group (the maps
   below the work-groups sequential), is explored too: it is what CPUs want; and a third,
   the same with the outer map's work-groups on dimension 0, so that consecutive groups walk
   down the outer map and share the inner map's operand (a CPU's core keeps a panel of ``B``
   in its cache while it computes a column of blocks);
3. **parameters**: every size a power of two in a range, kept when the types check (the
   sizes divide) and the kernel fits the device: local memory, private memory (a register
   budget), the register file of a work-group, work-items per group, work-groups; and the
   programs whose vectors lie contiguous in memory (code generation decides, once per
   program) — counted by what pruned them;
4. **code generation and runs**: candidates drawn in random order (the slides' "performance
   evolution for randomised search") — a program at random, then one of its parameter
   choices — each built, checked and timed as in every strategy; optionally (``model``)
   then those a model fitted to the measured ones ranks fastest (``search.surrogate``: the
   work-group's size, the work-groups, local and private memory, the program's choices),
   and (``refine``) the parameters of the fastest programs refined by hill climbing.

The counts after each phase are in ``ctx.details["phases"]`` (and the search result's
``details``); every candidate's record names its phase-2 program and parameters.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import WorkbenchError
from ..expr import Apply, BinOp, Compose, Expr, Lambda, Prim, Section, bind_sizes, walk
from ..layout import mapped_layout, needs_lowering
from ..rewriting.step import Step
from ..rules import RewriteRefused, apply
from ..rules.blocking import lambda_map, map_over
from ..rules.normalisation import normalise
from ..sizes import Size
from ..typecheck import annotate
from ..types import ArrayType
from . import surrogate

MACROS = ("1d-blocking", "2d-blocking", "tiling", "innermost-tiling")
PARAMS = {"1d-blocking": ("k",), "2d-blocking": ("k", "l"), "tiling": ("m", "n"),
          "innermost-tiling": ("s",)}
# The mappings of phase 2: the paper's fixed mapping; one work-item per group (the maps below
# the groups sequential); and that one with the two group dimensions exchanged (the outer map
# on dimension 0: consecutive groups walk down it, sharing the inner map's operand).
GROUPS_AND_ITEMS = "work-groups and work-items"
ONE_PER_GROUP = "one work-item per group"
ONE_PER_GROUP_DOWN = "one work-item per group, consecutive groups down the outer map"
MAPPINGS = (GROUPS_AND_ITEMS, ONE_PER_GROUP, ONE_PER_GROUP_DOWN)
# The counts of CASES 2016 Sect. 5 (matrix multiplication), for comparison.
PAPER = {"algorithmic": 20000, "nesting depth": 100, "add/multiply distance": 8,
         "OpenCL": 760, "parameters": 46000}
REDUCTIONS = ("reduce", "reduceSeq", "reduceSeqUnroll", "reducePart")


@dataclass
class Variant:
    """A program of a phase: the expression, the steps from the start, and how it came."""

    expr: Expr
    steps: tuple[Step, ...]
    label: str = ""
    sizes: tuple[str, ...] = ()  # its symbolic sizes, in order of appearance


@dataclass
class Limits:
    """What a kernel may use on the device (CASES 2016 Sect. 5.3)."""

    kind: str = "gpu"
    local_memory_bytes: int = 48 * 1024
    max_work_group_size: int = 1024
    compute_units: int = 1
    private_bytes: int = 1024  # Lift's maxPrivateMemory: a register budget per work-item
    min_work_group: int = 32  # work-items of a group (a warp); 1 on a CPU
    max_work_groups: int = 1 << 20
    # the register file a work-group's work-items share (a GPU's 65536 registers of 4 bytes
    # per multiprocessor; 0: no such limit, a CPU's work-items keep theirs in memory)
    register_bytes: int = 256 * 1024

    @classmethod
    def of(cls, info) -> Limits:
        gpu = info.kind == "gpu"
        return cls(kind=info.kind, local_memory_bytes=info.local_memory_bytes,
                   max_work_group_size=info.max_work_group_size,
                   compute_units=info.compute_units, min_work_group=32 if gpu else 1,
                   register_bytes=256 * 1024 if gpu else 0)

    def as_json(self) -> dict:
        return dict(self.__dict__)


# The parameters of the macro rules by what they size, and the values tried for each (powers
# of two "in a reasonable range", CASES 2016 Sect. 5.3).
ROLES = {("1d-blocking", "k"): "block", ("2d-blocking", "k"): "block",
         ("2d-blocking", "l"): "block", ("tiling", "m"): "tile", ("tiling", "n"): "tile",
         ("innermost-tiling", "s"): "chunk"}


@dataclass
class Options:
    depth: int = 3  # macro rules applied in a row
    repeat: int = 2  # times each macro may be applied
    max_depth: int = 6  # the nesting-depth heuristic
    values: dict = field(default_factory=lambda: {
        "block": (1, 2, 4, 8, 16), "tile": (2, 4, 8, 16, 32, 64),
        "chunk": (4, 8, 16, 32, 64)})
    mappings: tuple[str, ...] = (GROUPS_AND_ITEMS, ONE_PER_GROUP)
    limits: Limits | None = None
    # after the random candidates (this share of the budget), the parameters of the fastest
    # programs refined: a neighbour is a parameter doubled or halved (0: random only)
    refine: float = 0.0
    # before refining, this share of the budget measured in the order a model of the
    # candidates' times, fitted to those measured so far, ranks them (``search.surrogate``;
    # 0: none)
    model: float = 0.0
    # only the phase-2 programs whose description has every one of these words (a search
    # that can measure few candidates samples the part of the space it cares about)
    keep: tuple[str, ...] = ()
    # and none of these
    drop: tuple[str, ...] = ()


# What a search with the library's defaults explores on each kind of device: parameter
# values in the ranges that pay there (powers of two, CASES 2016 Sect. 5.3), the mappings
# that suit it (a GPU's work-items share tiles in local memory; a CPU's work-groups of one
# work-item each own a block), and the part of the OpenCL programs that holds the fast
# kernels, so that 40–60 measured candidates find them: on a GPU the programs with the
# structure of the paper's kernels (a work-group's accumulator in private memory, register
# blocks unrolled, both tiles in local memory, A's as it is, walked either way) whose
# work-items read their operands as vectors (on an H100 at 2048: 0.49 ms, where the best
# without vectors, a tile interleaved, takes 0.58 ms and the same layouts read word by word
# 0.95 ms; A's tile transposed or interleaved was 1.3 times slower or more at every size
# measured; walked along the rows of memory, 4–5 % faster than walked as stored), register
# blocks of 4 or 8 (never 2 in the fastest kernels), with and without prefetching (each
# wins for some sizes; prefetched, each work-item's steps unrolled), no input packed (a
# packing kernel costs more than it saves there: 1.8–4 ms), no tile copied a vector at a time
# (the winners' B tile so: 0.417 ms against 0.399 ms at 2048, 3.14 against 3.00 ms at 4096,
# prefetched; as fast at best for 16×16 work-items); on a CPU those with register
# blocks unrolled and an input packed, each element transposed (the panels of a CPU's BLAS),
# the groups in either order (consecutive groups down the rows of A, sharing a panel of B:
# PoCL, 2 Zen 4 cores, 8×32 blocks, 82–86 ms at 2048 against 104–109 ms across the columns;
# 4×32: 85–89 ms against 88–102 ms; 1024: 10.2 ms against 11.0–11.3 ms; 512: the same).
# On both, 30 % of the budget is chosen by the model of ``search.surrogate`` after 30 % in
# random order, and 40 % refines (PoCL, 1024³, budget 48, seeds 0–8: best kernel median
# 9.94 ms against 9.99 ms with random order only, better for 6 seeds of 9, searches 33 s
# against 56 s; on the recorded H100 searches, fitted to 16 random candidates, it put the
# fastest of 20 others among its 8 first in 93 % of draws, a random pick in 61 %).
# Options given to a search replace these one by one.
DEFAULTS: dict[str, dict] = {
    "gpu": {"depth": 3, "mappings": (GROUPS_AND_ITEMS,), "refine": 0.4,
            "model": 0.3,
            "values": {"block": (4, 8), "tile": (8, 16, 32), "chunk": (8, 16, 32)},
            "keep": ("register blocks unrolled", "private accumulator", "A tile in local memory",
                     "B tile in local memory", "A and B read as vectors"),
            "drop": ("packed", "A tile in local memory (transposed)",
                     "A tile in local memory (each row transposed)",
                     "A tile in local memory (interleaved", "copied as vectors")},
    "cpu": {"depth": 3, "mappings": (ONE_PER_GROUP, ONE_PER_GROUP_DOWN), "refine": 0.4,
            "model": 0.3,
            "values": {"block": (2, 4, 8, 16, 32), "tile": (2, 4, 8), "chunk": (16, 32, 64)},
            "keep": ("register blocks unrolled", "(each element transposed)")},
}


# --- phase 1: macro rules ---------------------------------------------------------------------

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
    seen = {canonical(start): Variant(start, tuple(steps), "start")}
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
                    label = " → ".join([*(s.rule for s in v.steps if s.rule in MACROS),
                                        macro])
                    seen[key] = Variant(e, v.steps + (Step(macro, path, params),), label)
                    found.append(seen[key])
        frontier = found
    return list(seen.values())


def _loops(node: Expr) -> bool:
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
        return inner + (1 if _loops(e) and e.name not in REDUCTIONS else 0)
    return depth(expr)


def repetitions(v: Variant) -> bool:
    """Each macro applied at most once, and one kind of blocking (the slides' third
    heuristic, "number of times rules are applied"; Lift's HighLevelRewrite.filterRules)."""
    used = [s.rule for s in v.steps]
    return all(used.count(m) <= 1 for m in MACROS) and \
        not ("1d-blocking" in used and "2d-blocking" in used)


def _operations(expr: Expr, op: str) -> list[tuple]:
    found = []
    for path, node in walk(expr):
        if isinstance(node, BinOp | Section) and node.op == op:
            found.append(path)
    return found


def add_multiply_distance(expr: Expr) -> float:
    """The fewest maps and reductions between a multiplication and an addition, counted on
    the tree path between them (0: one scalar function computes both, as ``acc + a * b``)."""
    muls, adds = _operations(expr, "*"), _operations(expr, "+")
    best = math.inf
    for m in muls:
        for a in adds:
            k = 0
            while k < min(len(m), len(a)) and m[k] == a[k]:
                k += 1
            between = 0
            for path in (m, a):
                node = expr
                for i, step in enumerate(path):
                    node = node.children()[step]
                    if i >= k and _loops(node) and i + 1 < len(path):
                        between += 1
            best = min(best, between)
    return best


# --- phase 2: the mapping onto OpenCL and the memory ------------------------------------------

def _targets(expr: Expr, mapping: str) -> list[tuple[tuple, str, dict]]:
    """(path, rule, params) lowering every high-level map and reduction, outermost first."""
    out = []

    def visit(e: Expr, path: tuple, depth: int, in_operator: bool) -> None:
        if isinstance(e, Prim) and needs_lowering(e):
            if e.name == "map":
                out.append((path, *_lowering(depth, in_operator, mapping)))
                depth += 1
            elif e.name == "reduce":
                out.append((path, "reduce→reduceSeq", {}))
        elif isinstance(e, Prim) and _loops(e) and e.name not in REDUCTIONS:
            depth += 1
        for i, child in enumerate(e.children()):
            operator = in_operator or (isinstance(e, Prim) and e.name in REDUCTIONS and i == 0)
            visit(child, path + (i,), depth, operator)

    visit(expr, (), 0, False)
    return out


def _lowering(depth: int, in_operator: bool, mapping: str) -> tuple[str, dict]:
    if depth < 2:
        return "map→mapWorkgroup", {"dim": depth if mapping == ONE_PER_GROUP_DOWN else 1 - depth}
    if mapping == GROUPS_AND_ITEMS and depth < 4:
        return "map→mapLocal", {"dim": 3 - depth}
    return ("map→mapSeqUnroll" if in_operator else "map→mapSeq"), {}


def _lower(v: Variant, types: tuple, mapping: str, unroll: bool, width: int = 0
           ) -> Variant | None:
    """The program with its maps and reductions lowered; with ``width``, the innermost map
    of a reduction's operator (a row of a register block) computed as vectors of that
    many lanes (``vectorize``) and unrolled, or None where it cannot be."""
    expr, steps = v.expr, list(v.steps)
    targets = _targets(expr, mapping)
    innermost = max((k for k, (_, rule, _) in enumerate(targets)
                     if rule == "map→mapSeqUnroll"), default=None)
    if width and (innermost is None or not unroll):
        return None
    for k, (path, rule, params) in enumerate(targets):
        if rule == "map→mapSeqUnroll" and not unroll:
            rule = "map→mapSeq"
        todo = [(path, rule, params)]
        if width and k == innermost:  # joinVec ∘ map (mapVec f) ∘ splitVec width
            todo = [(path, "vectorize", {"n": width}), (path + (1,), rule, params)]
        for at, name, given in todo:
            try:
                expr = apply(expr, name, at, *types, **given)
            except (RewriteRefused, WorkbenchError):
                return None
            steps.append(Step(name, at, given))
    return Variant(expr, tuple(steps), v.label, v.sizes)


def _group_reductions(expr: Expr, types: tuple) -> list[tuple]:
    """Paths of the reductions of a work-group whose operator uses local maps."""
    from ..nesting import context

    out = []
    for path, node in walk(expr):
        if isinstance(node, Prim) and node.name == "reduceSeq":
            levels = [lvl for lvl, _ in context(expr, path)]
            if "workgroup" in levels and "local" not in levels and any(
                    isinstance(n, Prim) and n.name == "mapLocal" for _, n in walk(node.args[0])):
                out.append(path)
    return out


def _local_extents(expr: Expr, path: tuple, types: tuple) -> dict[int, Size]:
    """The lengths the local maps of the reduction at ``path`` run over, per dimension."""
    note = annotate(expr, *types)
    extents: dict[int, Size] = {}
    for sub, node in walk(subterm_of(expr, path + (0,)), path + (0,)):
        if isinstance(node, Prim) and node.name == "mapLocal" and sub in note.typings:
            t = note.typings[sub].args[0]
            extents.setdefault(node.args[0], t.size)
    return extents


def subterm_of(expr: Expr, path: tuple) -> Expr:
    from ..expr import subterm

    return subterm(expr, path)


# The layouts of a tile copied into local memory (the rule local-copy's t): as it is,
# transposed, each row transposed, and both (its work-items' parts interleaved, so that
# neighbouring work-items read neighbouring words of local memory).
LAYOUTS = (0, 1, 2, 3)
LAYOUT_NAMES = ("", " (transposed)", " (each row transposed)", " (interleaved)",
                " (interleaved by vectors)", " (as it is, copied along the rows of memory)",
                " (interleaved by vectors, copied as vectors)")
# with operands read as vectors: also interleaved by vectors (each work-item's part cut into
# vectors, neighbouring work-items' vectors side by side), which only vectors make useful,
# and as it is but walked with each row transposed (the copy reads neighbouring words of
# global memory and writes them where the vectors want them), and interleaved by vectors
# copied a vector at a time (one float4 load from global memory and one store into local
# memory each, where the others copy word by word)
VECTOR_LAYOUTS = (*LAYOUTS, 4, 5, 6)


def _memory_variants(v: Variant, types: tuple, layouts: tuple = LAYOUTS,
                     private_only: bool = False) -> list[Variant]:
    """For a work-group's reduction: its accumulator private (or local), and the tiles of
    its element copied into local memory (none, one or both, each in one of the layouts)."""
    group = _group_reductions(v.expr, types)
    if not group:
        return [v]
    path = group[0]
    extents = _local_extents(v.expr, path, types)
    if 0 not in extents or 1 not in extents:
        return [v]
    l1, l0 = extents[1], extents[0]
    copies = [()] + [((k, t),) for k in (0, 1) for t in layouts] + \
        [((0, t0), (1, t1)) for t0 in layouts for t1 in layouts]
    out = []
    for private in (True,) if private_only else (True, False):
        for chosen in copies:
            expr, steps = v.expr, list(v.steps)
            try:
                for k, t in chosen:
                    params = {"k": k, "t": t, "l1": l1, "l0": l0}
                    expr = apply(expr, "local-copy", path + (0,), *types, **params)
                    steps.append(Step("local-copy", path + (0,), params))
                if private:
                    expr = apply(expr, "private-accumulator", path, *types)
                    steps.append(Step("private-accumulator", path, {}))
                    expr = apply(expr, "copy-out", path[:-1], *types)
                    steps.append(Step("copy-out", path[:-1], {}))
            except (RewriteRefused, WorkbenchError):
                continue
            memory = ("private" if private else "local") + " accumulator" + "".join(
                f", {'A' if k == 0 else 'B'} tile in local memory"
                + LAYOUT_NAMES[t] for k, t in chosen)
            out.append(Variant(expr, tuple(steps), f"{v.label}; {memory}", v.sizes))
    return out


VECTOR_WIDTH = 4  # float4: the widest load of a GPU's work-item that costs one instruction
# a CPU's work-item (one per group) updates each row of its register block as vectors of these
# widths (AVX2 and AVX-512 registers of floats): on PoCL (Zen 4) 1024³ took 10.2 ms so, 12.0
# ms with scalar rows that the compiler vectorises itself
ROW_WIDTHS = (8, 16)


def _work_item_reductions(expr: Expr) -> list[tuple]:
    """Paths of the operators of the reductions each work-item runs (inside local maps),
    innermost last."""
    from ..nesting import context

    out = []
    for path, node in walk(expr):
        if isinstance(node, Prim) and node.name in ("reduceSeq", "reduceSeqUnroll") and \
                isinstance(node.args[0], Lambda) and \
                "local" in [lvl for lvl, _ in context(expr, path)]:
            out.append(path + (0,))
    return out


def _vectors(v: Variant, types: tuple) -> Variant | None:
    """The program with the operands each step of a work-item's reduction reads (a column
    of the A tile, a row of the B tile) copied into private memory as vectors
    (``private-vectors``), or None where no operand is an array of scalars."""
    expr, steps, read = v.expr, list(v.steps), []
    for path in _work_item_reductions(expr):
        for k in (0, 1):
            params = {"k": k, "w": VECTOR_WIDTH}
            try:
                expr = apply(expr, "private-vectors", path, *types, **params)
            except (RewriteRefused, WorkbenchError):
                continue
            steps.append(Step("private-vectors", path, params))
            read.append("AB"[k])
    if not read:
        return None
    return Variant(expr, tuple(steps), f"{v.label}; {' and '.join(read)} read as vectors of "
                   f"{VECTOR_WIDTH}", v.sizes)


# the words _prefetched adds to a program's description
PREFETCHED = "; next tiles prefetched into registers, steps unrolled"


def _prefetched(v: Variant, types: tuple) -> Variant | None:
    """The program with its work-group's copies into local memory made one step ahead, in
    registers (``prefetch``), and each work-item's loop over the steps of a tile unrolled
    (with the next tiles in flight, straight-line steps let the compiler read the next
    step's operands from local memory early: 4–5 % faster on an H100 at 2048 and 4096), or
    None where it copies nothing."""
    group = _group_reductions(v.expr, types)
    if not group:
        return None
    path = group[0] + (0,)
    try:
        expr = apply(v.expr, "prefetch", path, *types)
    except (RewriteRefused, WorkbenchError):
        return None
    steps = [Step("prefetch", path, {})]
    for operator in _work_item_reductions(expr):
        try:
            expr = apply(expr, "reduceSeq→reduceSeqUnroll", operator[:-1], *types)
        except (RewriteRefused, WorkbenchError):
            continue
        steps.append(Step("reduceSeq→reduceSeqUnroll", operator[:-1], {}))
    return Variant(expr, v.steps + tuple(steps), v.label + PREFETCHED, v.sizes)


def _packed(v: Variant, types: tuple) -> list[Variant]:
    """The program as it is, and with an array its maps read that depends only on the
    inputs computed once into global memory (``pack``; each element transposed or not)."""
    from ..rules.copies import invariants

    out = [v]
    for k in range(min(len(invariants(v.expr)), 2)):
        for t in (0, 1):
            try:
                expr = apply(v.expr, "pack", (), *types, k=k, t=t)
            except (RewriteRefused, WorkbenchError):
                continue
            how = " (each element transposed)" if t else ""
            out.append(Variant(expr, v.steps + (Step("pack", (), {"k": k, "t": t}),),
                               f"{v.label}; input array {k} packed in global memory{how}",
                               v.sizes))
    return out


def phase2(variants: list[Variant], types: tuple, options: Options) -> list[Variant]:
    unknown = [m for m in options.mappings if m not in MAPPINGS]
    if unknown:
        raise WorkbenchError(f"cases: no mapping {unknown[0]!r}; the mappings are "
                             + ", ".join(repr(m) for m in MAPPINGS))
    out = []
    for v in variants:
        for mapping in options.mappings:
            for unroll in (True, False):
                lowered = _lower(v, types, mapping, unroll)
                if lowered is None:
                    continue
                lowered.label = (f"{v.label}; {mapping}"
                                 + ("; register blocks unrolled" if unroll else ""))
                variants_here = _memory_variants(lowered, types) \
                    if mapping == GROUPS_AND_ITEMS else [lowered]
                for memory in variants_here:
                    out.extend(_packed(memory, types))
                if unroll and mapping in (ONE_PER_GROUP, ONE_PER_GROUP_DOWN):
                    for width in ROW_WIDTHS:
                        rows = _lower(v, types, mapping, unroll, width)
                        if rows is not None:
                            rows.label = f"{lowered.label}; rows computed as vectors of {width}"
                            out.extend(_packed(rows, types))
                if unroll and mapping == GROUPS_AND_ITEMS:
                    for memory in _memory_variants(lowered, types, VECTOR_LAYOUTS, True):
                        vectors = _vectors(memory, types)
                        if vectors is not None:
                            out.extend(_packed(vectors, types))
                            ahead = _prefetched(vectors, types)
                            if ahead is not None:
                                out.extend(_packed(ahead, types))
    unique: dict[str, Variant] = {}
    for v in out:
        unique.setdefault(canonical(v.expr), v)
    return list(unique.values())


# --- phase 3: parameters ----------------------------------------------------------------------

@dataclass
class Resources:
    """What a phase-2 program uses, as sizes of its symbolic parameters."""

    work_group: list[list[Size]]  # per dimension: the lengths its local maps run over
    groups: list[Size]  # the lengths of its work-group maps
    local: list[Size]  # elements of each local array
    private: list[tuple[Size, bool]]  # elements of each private array (True: of the group)
    divides: list[tuple[Size, Size]]  # (total, divisor) the types assume
    global_maps: list[Size] = field(default_factory=list)


def resources(v: Variant, types: tuple) -> Resources:
    note = annotate(v.expr, *types)
    from ..nesting import context

    work_group: dict[int, list[Size]] = {}
    groups, local, private, global_maps = [], [], [], []
    for path, node in walk(v.expr):
        if not isinstance(node, Prim) or path not in note.typings:
            continue
        typing = note.typings[path]
        t = typing.args[0] if typing.args else None
        if node.name == "mapLocal" and isinstance(t, ArrayType):
            work_group.setdefault(node.args[0], []).append(t.size)
        elif node.name == "mapWorkgroup" and isinstance(t, ArrayType):
            groups.append(t.size)
        elif node.name == "mapGlobal" and isinstance(t, ArrayType):
            global_maps.append(t.size)
        elif node.name == "toLocal":
            local.append(_elements(typing.result))
        elif node.name in ("toPrivate", "prefetch"):  # an accumulator, or a copy
            levels = [lvl for lvl, _ in context(v.expr, path)]
            private.append((_elements(typing.result), "local" not in levels))
        elif node.name in ("reduceSeq", "reduceSeqUnroll") and \
                isinstance(typing.result, ArrayType) and \
                isinstance(typing.result.elem, ArrayType):
            levels = [lvl for lvl, _ in context(v.expr, path)]
            if "local" in levels or "global" in levels or "workgroup" in levels:
                # a register block: private memory of the work-item (or group) reducing
                init = node.args[1]
                if not any(isinstance(n, Prim) and n.name == "toPrivate" for _, n in walk(init)):
                    private.append((_elements(typing.result.elem), "local" not in levels))
    divides = [(a.total, a.divisor) for a in note.assumptions]
    return Resources([work_group[d] for d in sorted(work_group)], groups, local, private,
                     divides, global_maps)


def _elements(t) -> Size:
    n = Size.const(1)
    while isinstance(t, ArrayType):
        n = n * t.size
        t = t.elem
    return n


# phase 3's memo: a size's free variables, and its value for the values of them, keyed by
# the size object's identity (a Size's hash and equality are slow next to the lookups of
# millions of parameter choices); each entry holds its size, so that its identity is not
# reused while the entry stands, and a hit checks it
_NAMES: dict[int, tuple[Size, tuple[str, ...]]] = {}
_VALUES: dict[tuple, tuple[Size, float | None]] = {}


def _value(s: Size, env: dict[str, int]) -> float | None:
    """The value of a size (memoised: phase 3 evaluates the same few sizes very often)."""
    names = _NAMES.get(id(s))
    if names is None or names[0] is not s:
        names = _NAMES[id(s)] = (s, tuple(sorted(s.free_vars)))
    key = (id(s), tuple(map(env.get, names[1])))
    hit = _VALUES.get(key)
    if hit is None or hit[0] is not s:
        if len(_VALUES) > 1 << 20:
            _VALUES.clear()
            _NAMES.clear()
        try:
            value = float(s.evaluate(env))
        except (ValueError, ZeroDivisionError):
            value = None
        hit = _VALUES[key] = (s, value)
    return hit[1]


def usage(r: Resources, env: dict[str, int]) -> tuple[float, float, float, float]:
    """What a program uses with these parameters: work-items per group, work-groups,
    elements of local memory per group and of private memory per work-item."""
    return _use(r, lambda s, unknown: _value(s, env) or unknown)


def _use(r: Resources, value) -> tuple:
    """``usage`` from ``value(size, unknown)``: a size's value (``unknown`` where it has
    none), a number for one choice of parameters or a NumPy array of one per choice."""
    per_dim = [np.maximum.reduce([value(s, 0) for s in sizes]) for sizes in r.work_group]
    work_group = np.prod(per_dim, axis=0) if per_dim else 1
    maps = r.groups or r.global_maps
    groups = np.prod([value(s, 1) for s in maps], axis=0) if maps else 1
    local = sum(value(s, 0) for s in r.local)
    private = sum(value(s, 0) / (work_group if shared else 1) for s, shared in r.private)
    return work_group, groups, local, private


def check(r: Resources, env: dict[str, int], limits: Limits, divisions: bool = True
          ) -> str | None:
    """Why the parameters ``env`` are pruned (None: kept)."""
    if divisions and not all(_divides(t, d, env) for t, d in r.divides):
        return "sizes that do not divide"
    work_group, groups, local, private = usage(r, env)
    return next((why for why, fails in _beyond(r, limits, work_group, groups, local * 4,
                                               private * 4) if fails), None)


def _beyond(r: Resources, limits: Limits, work_group, groups, local_bytes, private_bytes
            ) -> list[tuple[str, object]]:
    """Each device limit in the order ``check`` names it, with whether the program's use
    exceeds it: for one choice of parameters (numbers) or for many at once (NumPy arrays of
    the choices, as phase 3 checks them)."""
    return [("work-groups larger than the device allows",
             work_group > limits.max_work_group_size),
            ("work-groups too small",
             work_group < limits.min_work_group if r.work_group else False),
            ("too few or too many work-groups",
             (groups < limits.compute_units) | (groups > limits.max_work_groups)),
            ("local memory", local_bytes > limits.local_memory_bytes),
            ("private memory", private_bytes > limits.private_bytes),
            ("registers of a work-group",
             work_group * (private_bytes + REGISTER_OVERHEAD) > limits.register_bytes
             if limits.register_bytes and r.work_group else False)]


# what a work-item keeps in registers besides its private arrays (indices, addresses, loop
# counters: about 20 registers), for the register file's share of a work-group
REGISTER_OVERHEAD = 80


def roles(v: Variant) -> dict[str, str]:
    """What each size variable of a program sizes (block, tile, chunk), from the macro
    steps that introduced it."""
    out = {}
    for s in v.steps:
        for name, value in s.params.items():
            if isinstance(value, Size) and len(value.free_vars) == 1 and \
                    value == Size.var(next(iter(value.free_vars))):
                out[next(iter(value.free_vars))] = ROLES.get((s.rule, name), "tile")
    return out


def _ranges(v: Variant, options: Options) -> tuple[list[str], list[tuple[int, ...]]]:
    """A program's size variables, in order, and the values tried for each (by its role)."""
    names = size_names(v.expr)
    kinds = roles(v)
    return names, [options.values.get(kinds.get(n, "tile"), (2, 4, 8, 16)) for n in names]


def assignments(v: Variant, r: Resources, options: Options, limits: Limits,
                pruned: dict[str, int]):
    """The parameter choices of one program that fit, depth first: a choice is pruned as
    soon as the sizes it fixes do not divide (counting every choice it stands for)."""
    names, ranges = _ranges(v, options)
    # each divisibility the types assume is checked once its sizes are all chosen
    checks: dict[int, list] = {}
    for total, divisor in r.divides:
        used = (total.free_vars | divisor.free_vars) & set(names)
        last = max((names.index(n) for n in used), default=-1)
        checks.setdefault(last, []).append((total, divisor))

    def below(i: int) -> int:
        return math.prod(len(x) for x in ranges[i + 1:])

    def visit(i: int, env: dict):
        for total, divisor in checks.get(i - 1, []):
            if not _divides(total, divisor, env):
                pruned["sizes that do not divide"] = \
                    pruned.get("sizes that do not divide", 0) + below(i - 1)
                return
        if i == len(names):
            why = check(r, env, limits, divisions=False)
            if why is None:
                yield dict(env)
            else:
                pruned[why] = pruned.get(why, 0) + 1
            return
        for value in ranges[i]:
            env[names[i]] = value
            yield from visit(i + 1, env)
        env.pop(names[i], None)

    yield from visit(0, {})


def _assignments_at_once(v: Variant, r: Resources, options: Options, limits: Limits,
                         pruned: dict[str, int]) -> list[dict] | None:
    """``assignments`` with every parameter choice checked at once (NumPy), in the same
    order and with the same counts; None (nothing counted) where a value might not be exact
    in floating point — a value tried that is not a power of two, a size with a symbolic
    power or division — or the choices are too many to hold."""
    names, ranges = _ranges(v, options)
    if not all(isinstance(x, int) and x >= 1 and not x & (x - 1) for xs in ranges for x in xs):
        return None
    count = math.prod(len(xs) for xs in ranges)
    if count > 1 << 22:
        return None
    grid = np.array(list(itertools.product(*ranges)), dtype=np.int64).reshape(count, len(names))
    columns = {n: grid[:, i].astype(float) for i, n in enumerate(names)}
    values: dict[int, np.ndarray] = {}

    def value(size: Size) -> np.ndarray:
        if id(size) not in values:
            x = size.evaluate_many(columns)
            if x is None:
                raise _NotExact
            values[id(size)] = np.broadcast_to(np.asarray(x, dtype=float), (count,))
        return values[id(size)]

    def whole(x: np.ndarray) -> np.ndarray:
        return (x >= 1) & (x == np.floor(x))

    counts: dict[str, int] = {}
    try:
        ok = np.ones(count, dtype=bool)
        for total, divisor in r.divides:
            t, d = value(total), value(divisor)
            fits = whole(t) & whole(d)
            ok &= fits & (np.fmod(t, np.where(fits, d, 1.0)) == 0)
        counts["sizes that do not divide"] = int(count - ok.sum())
        work_group, groups, local, private = _use(r, lambda s, unknown: value(s))
    except _NotExact:
        return None
    reasons = _beyond(r, limits, work_group, groups, local * 4, private * 4)
    for why, fails in reasons:  # each choice counted by the first reason that prunes it
        fails = np.broadcast_to(np.asarray(fails, dtype=bool), ok.shape)
        counts[why] = int((ok & fails).sum())
        ok &= ~fails
    for why, n in counts.items():
        if n:
            pruned[why] = pruned.get(why, 0) + n
    return [dict(zip(names, row)) for row in grid[ok].tolist()]


class _NotExact(Exception):
    """A size whose values floating point might not give exactly."""


def _divides(total: Size, divisor: Size, env: dict) -> bool:
    t, d = _value(total, env), _value(divisor, env)
    return t is not None and d is not None and d >= 1 and t >= 1 and t == int(t) and \
        d == int(d) and int(t) % int(d) == 0


def phase3(programs: list[Variant], types: tuple, options: Options, limits: Limits
           ) -> tuple[list[tuple[Variant, dict]], dict[str, int]]:
    """Every parameter choice that fits, and how many were pruned by what."""
    kept: list[tuple[Variant, dict]] = []
    pruned: dict[str, int] = {}
    for v in programs:
        try:
            r = resources(v, types)
        except WorkbenchError:
            pruned["programs whose types do not check"] = \
                pruned.get("programs whose types do not check", 0) + 1
            continue
        found = _assignments_at_once(v, r, options, limits, pruned)
        if found is None:
            found = list(assignments(v, r, options, limits, pruned))
        if found and not _vectors_contiguous(v, found[0], types):
            pruned[NOT_CONTIGUOUS] = pruned.get(NOT_CONTIGUOUS, 0) + len(found)
            continue
        kept.extend((v, env) for env in found)
    return kept, pruned


NOT_CONTIGUOUS = "vectors not contiguous in memory"


def _vectors_contiguous(v: Variant, env: dict, types: tuple) -> bool:
    """Whether the parts a program reads as vectors (``private-vectors``, ``vectorize``) lie
    contiguous in memory, as code generation finds for one choice of its parameters (the
    layouts of its copies and inputs decide it, not the parameters' values)."""
    if not any(s.rule in ("private-vectors", "vectorize") for s in v.steps):
        return True
    from ..codegen import CodegenError
    from ..codegen.program import opencl

    try:
        opencl(concrete(v, env)[0], *types)
    except CodegenError as err:
        return "contiguous" not in str(err)
    except Exception:  # another failure (a generator bug included): each run reports it
        return True
    return True


def assign(v: Variant, values: dict[tuple[str, str], int]) -> dict[str, int]:
    """A program's parameters named by the macro step that introduced them:
    ``{("2d-blocking", "k"): 4, ("tiling", "m"): 8, …}`` → ``{"v3": 4, "v7": 8, …}``."""
    env = {}
    for s in v.steps:
        for name, value in s.params.items():
            if (s.rule, name) in values and isinstance(value, Size) and value.free_vars:
                env[next(iter(value.free_vars))] = values[(s.rule, name)]
    return env


def concrete(v: Variant, env: dict[str, int]) -> tuple[Expr, list[Step]]:
    """The program with its parameters, and the steps that derive it."""
    sizes = {k: Size.const(n) for k, n in env.items()}
    steps = []
    for s in v.steps:
        params = {k: (p.substitute(sizes) if isinstance(p, Size) else p)
                  for k, p in s.params.items()}
        steps.append(Step(s.rule, s.path, params))
    return bind_sizes(v.expr, sizes), steps


# --- the strategy -----------------------------------------------------------------------------

def options_of(ctx, kind: str | None = None) -> Options:
    """The search's options over the defaults for the device's kind (``DEFAULTS``)."""
    given = dict(ctx.options or {})
    limits = given.pop("limits", None)
    if kind is None:
        kind = limits.get("kind") if isinstance(limits, dict) else \
            limits.kind if isinstance(limits, Limits) else None
    given = {**DEFAULTS.get(kind, {}), **given}
    options = Options(**{k: tuple(v) if isinstance(v, list) else v for k, v in given.items()})
    options.values = {k: tuple(v) for k, v in options.values.items()}
    if isinstance(limits, dict):
        options.limits = Limits(**limits)
    elif isinstance(limits, Limits):
        options.limits = limits
    return options


def device_limits(ctx) -> Limits:
    """The device's limits; when a log is replayed, the limits it was recorded with."""
    recorded = getattr(ctx.evaluator, "records", None)
    if isinstance(recorded, dict):
        for r in recorded.values():
            if isinstance(r.get("details"), dict) and r["details"].get("limits"):
                return Limits(**r["details"]["limits"])
    from ..opencl_devices import find_device

    try:
        return Limits.of(find_device(ctx.device)[0])
    except WorkbenchError:
        return Limits()


def explore(start: Expr, types: tuple, options: Options, limits: Limits) -> dict:
    """Phases 1 to 3: the candidates and the counts after each phase."""
    normal = normalise(start, *types)
    algorithmic = phase1(normal.expr, types, options, normal.steps)
    shallow = [v for v in algorithmic if nesting_depth(v.expr) <= options.max_depth]
    distances = {id(v): add_multiply_distance(v.expr) for v in shallow}
    least = min(distances.values(), default=math.inf)
    close = [v for v in shallow if distances[id(v)] <= least]
    once = [v for v in close if repetitions(v)]
    mapped = phase2(once, types, options)
    described = "programs described by " + ", ".join(f"'{w}'" for w in options.keep) + \
        "".join(f", not '{w}'" for w in options.drop)
    programs = [v for v in mapped if all(word in v.label for word in options.keep)
                and not any(word in v.label for word in options.drop)]
    if (options.keep or options.drop) and not programs:  # no such part (a scal has no blocks)
        programs, described = mapped, f"no program is described by {described[22:]}: all kept"
    candidates, pruned = phase3(programs, types, options, limits)
    phases = [
        {"phase": "algorithmic", "count": len(algorithmic), "paper": PAPER["algorithmic"],
         "what": f"macro rules at every place, in any order (up to {options.depth})"},
        {"phase": "nesting depth", "count": len(shallow), "paper": PAPER["nesting depth"],
         "what": f"maps nested at most {options.max_depth} deep"},
        {"phase": "add/multiply distance", "count": len(close),
         "paper": PAPER["add/multiply distance"],
         "what": f"at most {least} maps or reductions between + and *"},
        {"phase": "rule repetitions", "count": len(once), "paper": None,
         "what": "each macro once, one kind of blocking"},
        {"phase": "OpenCL", "count": len(mapped), "paper": PAPER["OpenCL"],
         "what": "the fixed mapping (and one work-item per group), memory choices"},
        *([{"phase": "sampled", "count": len(programs), "paper": None, "what": described}]
          if options.keep or options.drop else []),
        {"phase": "parameters", "count": len(candidates), "paper": PAPER["parameters"],
         "what": f"powers of two that fit the device ({sum(pruned.values())} pruned)"},
    ]
    return {"phases": phases, "pruned": pruned, "limits": limits.as_json(),
            "normalised": [step.describe() for step in normal.steps],
            "candidates": candidates, "programs": programs, "algorithmic": once}


def cases(ctx) -> None:
    """Phases 1–3, then the candidates measured in random order until the budget is spent."""
    given = ctx.options.get("limits")
    limits = None if given else device_limits(ctx)
    options = options_of(ctx, limits.kind if limits else None)
    limits = options.limits or limits
    # every candidate computes what the start does: its output, computed once, is the check
    # (interpreting a register-blocked kernel of a large matrix would take minutes)
    found = explore(ctx.start, ctx.types, options, limits)
    _within_device(found, ctx.vector_widths)
    ctx.details = {k: v for k, v in found.items()
                   if k in ("phases", "pruned", "limits", "normalised")}
    candidates = random_order(found["candidates"], ctx.seed)
    programs = found["programs"]
    index = {id(v): i for i, v in enumerate(programs)}

    def job(v: Variant, env: dict, chosen: str = "random") -> tuple:
        expr, steps = concrete(v, env)
        return (expr, steps, {"details": {"program": index.get(id(v)), "label": v.label,
                                          "parameters": dict(env), "chosen": chosen,
                                          "limits": limits.as_json()}})

    refined = int(ctx.budget * options.refine)
    random_budget = ctx.budget - refined - int(ctx.budget * options.model)
    i = 0
    while ctx.left() > 0 and len(ctx.records) < random_budget and i < len(candidates):
        take = min(ctx.batch, ctx.left(), random_budget - len(ctx.records))
        batch = [job(v, env) for v, env in candidates[i:i + take]]
        i += len(batch)
        ctx.measure(batch)
    if options.model:
        modelled(ctx, candidates[i:], programs, limits, ctx.budget - refined, job)
    if options.refine:
        refine(ctx, programs, types=ctx.types, options=options, limits=limits,
               job=lambda v, env: job(v, env, "refine"))


def candidate_features(v: Variant, env: dict[str, int], r: Resources, limits: Limits
                       ) -> dict[str, float]:
    """What the model of ``search.surrogate`` knows of a candidate: the work-items of its
    groups, its work-groups per compute unit, the local memory of a group, the private
    memory of a work-item and the product of its sizes of each role (blocks, tiles, chunks;
    log2, and squared), and each part of its program's description."""
    work_group, groups, local, private = usage(r, env)
    sized: dict[str, float] = {}
    for name, role in roles(v).items():  # the product of the sizes of each role
        sized[role + " sizes"] = sized.get(role + " sizes", 1.0) * env.get(name, 1)
    out = surrogate.log2_features(**{
        "work-items per group": work_group,
        "work-groups per compute unit": groups / max(1, limits.compute_units),
        "local memory": local, "private memory": private, **sized})
    out.update({"program: " + part: 1.0 for part in _parts(v.label)})
    return out


def _parts(label: str) -> list[str]:
    """The choices a program's description names (split at its commas and semicolons)."""
    return [p.strip() for p in re.split(r"[;,]", label) if p.strip()]


# each pick of a program makes the model's ranking count its other candidates this much
# slower: the picks spread over the programs predicted fast (greedy picks of one program,
# fitted to a few random candidates, can stay in a slow part of the space), and ``refine``
# then tunes the parameters of the fastest
SPREAD = 1.25


def modelled(ctx, candidates: list[tuple[Variant, dict]], programs: list[Variant],
             limits: Limits, until: int, job) -> None:
    """Measures, until ``until`` candidates are measured, those the model fitted to the
    measured ones ranks fastest (``SPREAD``), a batch at a time (fitted again after each);
    with too few measured to fit, the next in random order."""
    used: dict[int, Resources] = {}
    features = []
    for v, env in candidates:
        if id(v) not in used:
            used[id(v)] = resources(v, ctx.types)
        features.append(candidate_features(v, env, used[id(v)], limits))
    left = list(range(len(candidates)))
    chosen = 0
    model = None
    picks: dict[int, int] = {}  # the model's picks of each program
    while ctx.left() > 0 and len(ctx.records) < until and left:
        rows = [(_features_of(r, programs, used, limits, ctx.types), r["kernel_ms"])
                for r in ctx.records if r.get("correct") and r.get("kernel_ms")]
        model = surrogate.fit((f, ms) for f, ms in rows if f)
        take = min(ctx.batch, ctx.left(), until - len(ctx.records))
        if model is not None:  # fastest first, a program's time raised by each of its picks
            left.sort(key=lambda k: model.predict(features[k])
                      * SPREAD ** picks.get(id(candidates[k][0]), 0))
        batch, left = left[:take], left[take:]
        for k in batch:
            picks[id(candidates[k][0])] = picks.get(id(candidates[k][0]), 0) + 1
        chosen += len(batch)
        ctx.measure([job(*candidates[k], "model" if model else "random") for k in batch])
    ctx.details["model"] = {
        "chosen": chosen, "fitted_on": model.fitted_on if model else 0,
        "strongest": model.strongest() if model else [],
        "what": "log time as a ridge regression on the work-group's size, the work-groups, "
                "local and private memory (log2 and squared) and the program's choices"}


def _features_of(record: dict, programs: list[Variant], used: dict, limits: Limits,
                 types: tuple) -> dict[str, float]:
    """A measured record's features (one measured before: a resumed search's log, or a
    candidate of the random share)."""
    i, env = _key(record)
    if not isinstance(i, int) or not 0 <= i < len(programs):
        return {}  # not a candidate of this exploration
    v = programs[i]
    if id(v) not in used:
        used[id(v)] = resources(v, types)
    return candidate_features(v, dict(env), used[id(v)], limits)


def _within_device(found: dict, widths: tuple[int, ...] | None) -> None:
    """Leaves out the candidates whose vectors have a width the device's probe refused
    (PoCL 3.0 runs no float16 on some CPUs), counted."""
    from .space import fits_device

    fits = {id(v): fits_device(v.expr, widths) for v in found["programs"]}
    kept = [(v, env) for v, env in found["candidates"] if fits.get(id(v), True)]
    if len(kept) < len(found["candidates"]):
        found["pruned"][UNRUN_WIDTHS] = len(found["candidates"]) - len(kept)
        found["candidates"] = kept


UNRUN_WIDTHS = "vectors of a width the device does not run"


def random_order(candidates: list[tuple[Variant, dict]], seed: int
                 ) -> list[tuple[Variant, dict]]:
    """The candidates in random order, a program drawn first and then one of its parameter
    choices: every program has the same chance to come early, however many parameter
    choices it has (drawing candidates alike would favour the programs with many)."""
    rng = random.Random(seed)
    by_program: dict[int, list] = {}
    for v, env in candidates:
        by_program.setdefault(id(v), []).append((v, env))
    groups = list(by_program.values())
    for group in groups:
        rng.shuffle(group)
    out = []
    while groups:
        rng.shuffle(groups)
        for group in groups:
            out.append(group.pop())
        groups = [g for g in groups if g]
    return out


def _neighbours(v: Variant, env: dict, options: Options, r: Resources, limits: Limits):
    kinds = roles(v)
    for name, value in env.items():
        allowed = options.values.get(kinds.get(name, "tile"), ())
        for other in (value * 2, value // 2):
            if other in allowed and other != value:
                nearby = {**env, name: other}
                if check(r, nearby, limits) is None:
                    yield nearby


def _siblings(programs: list[Variant]) -> dict[int, list[int]]:
    """For each program, the programs one choice apart with the same sizes (so the same
    parameters fit both): its tiles prefetched or not; its groups in the other order."""
    by_label = {v.label: i for i, v in enumerate(programs)}
    other_order = {ONE_PER_GROUP: ONE_PER_GROUP_DOWN, ONE_PER_GROUP_DOWN: ONE_PER_GROUP}
    out: dict[int, list[int]] = {}
    for i, v in enumerate(programs):
        prefetched = v.label[:-len(PREFETCHED)] if v.label.endswith(PREFETCHED) \
            else v.label + PREFETCHED
        reordered = "; ".join(other_order.get(p, p) for p in v.label.split("; "))
        found = [by_label[x] for x in (prefetched, reordered) if x != v.label and x in by_label]
        if found:
            out[i] = found
    return out


def refine(ctx, programs: list[Variant], types: tuple, options: Options, limits: Limits,
           job) -> None:
    """Hill climbing from the fastest candidates measured so far: the best one's neighbours
    (a parameter doubled or halved; the same parameters in the program with its tiles
    prefetched, or not, or with its groups in the other order) are measured, the best of
    them taken if it is faster, until none is or the budget is spent."""
    tried: set = set()
    siblings = _siblings(programs)
    found: dict[int, Resources] = {}

    def used(i: int) -> Resources:
        if i not in found:
            found[i] = resources(programs[i], types)
        return found[i]

    while ctx.left() > 0:
        measured = [r for r in ctx.records if r.get("correct") and r.get("kernel_ms")
                    and isinstance(r.get("details"), dict)
                    and r["details"].get("program") is not None]
        ranked = sorted(measured, key=lambda r: r["kernel_ms"])
        start = next((r for r in ranked if _key(r) not in tried), None)
        if start is None:
            return
        tried.add(_key(start))
        i, env = start["details"]["program"], dict(start["details"]["parameters"])
        while ctx.left() > 0:
            v = programs[i]
            around = [(j, env) for j in siblings.get(i, ())
                      if check(used(j), env, limits) is None]
            around += [(i, e) for e in _neighbours(v, env, options, used(i), limits)]
            seen = {_key(x) for x in ctx.records}
            around = [(j, e) for j, e in around
                      if (j, tuple(sorted(e.items()))) not in seen]
            if not around:
                break
            records = ctx.measure([job(programs[j], e) for j, e in around[:ctx.left()]])
            best = min((x for x in records if x.get("correct") and x.get("kernel_ms")),
                       key=lambda x: x["kernel_ms"], default=None)
            here = (i, tuple(sorted(env.items())))
            current = min((x["kernel_ms"] for x in ctx.records if _key(x) == here
                           and x.get("kernel_ms")), default=None)
            if best is None or current is None or best["kernel_ms"] >= current:
                break
            i, env = best["details"]["program"], dict(best["details"]["parameters"])
            tried.add(_key(best))


def _key(record: dict) -> tuple:
    d = record.get("details") or {}
    return d.get("program"), tuple(sorted((d.get("parameters") or {}).items()))


__all__ = ["cases", "explore", "phase1", "phase2", "phase3", "nesting_depth", "assign",
           "add_multiply_distance", "Limits", "Options", "Variant", "PAPER", "Apply",
           "Compose"]
