"""SkelCL's data distributions (Steuwer's thesis, Sect. 3.2.3): how a program's inputs are
spread over several devices, and how a program splits into one program per device.

A distribution says where an input lives:

- ``block`` (``Block``): the outer axis is cut into one contiguous block per device, as even
  as it goes (SkelCL's default for vectors and matrices);
- ``copy`` (``Copy``): every device holds all of it (a scalar, or a small table such as a
  stencil's weights);
- ``("overlap", h)`` (``Overlap``): blocks of rows with ``h`` halo rows of each neighbour on
  either side (SkelCL's distribution for stencils; the halo rows are what a device reads of
  its neighbours' data).

A distribution never changes what a program computes: the interpreter defines it
(``evaluate_distributed`` splits the program, evaluates every device's part and gathers the
result, which is the program's result on the whole inputs). A redistribution is explicit: on
arrays, ``redistribute`` gathers a distributed array and distributes it again; in a program,
``redistribute block`` (``copy``, ``(overlap h)``) says where its data changes distribution,
and the program runs in stages between them (``stages``), its meaning the identity.

A program splits by a rule per skeleton (``SPLIT_RULES``; each returns a ``Split`` or the
reason it does not apply, like the rewrite rules):

- ``map``: ``map f (zip xs ys ...)`` over block-distributed inputs runs the same program on
  every device's blocks; the outputs are concatenated (SkelCL's map skeleton, Sect. 3.2.1).
  A lowered map (``join ∘ mapWorkgroup f ∘ split 256``) splits too, its blocks cut between
  the groups of its splits;
- ``reduce``: ``(reduce ⊕ z ∘ map f ...) xs`` runs on every block to a partial result, and
  the partial results are combined with ``⊕`` (SkelCL's reduce: a partial reduction per
  device, the last step on one);
- ``copy``: a program whose inputs are all copies runs whole on every device (SkelCL's
  copy distribution); its output is on every device;
- ``stencil``: ``map f (slide k 1 (pad l r v img))`` (or ``slide2D``/``pad2D``/``padClamp``)
  over an overlap-distributed input runs on every block with its halo rows; each device
  keeps the output rows of its own block (SkelCL's stencil skeleton with its halo exchange,
  Sect. 3.2.4).

Every device's program is the program itself at its part's sizes, so the same code generator
compiles it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import ArgumentError, WorkbenchError
from ..expr import Apply, Compose, Expr, Lambda, Lit, Prim, UnOp, Var, compose, fresh_name
from ..semantics import evaluate, prepare_inputs

# --- distributions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """The outer axis cut into one block per device."""

    def __str__(self) -> str:
        return "block"


@dataclass(frozen=True)
class Copy:
    """All of it on every device."""

    def __str__(self) -> str:
        return "copy"


@dataclass(frozen=True)
class Overlap:
    """Blocks of rows, each with ``halo`` rows of its neighbours on either side."""

    halo: int

    def __str__(self) -> str:
        return f"('overlap', {self.halo})"


Distribution = Block | Copy | Overlap


def distribution(spec, where: str = "distribution") -> Distribution:
    """The distribution ``spec`` names: ``"block"``, ``"copy"``, ``("overlap", h)`` with a
    whole number ``h >= 0``, or a distribution already. Anything else is refused with a
    message that names ``where`` and what is accepted."""
    if isinstance(spec, Block | Copy | Overlap):
        return spec
    if spec == "block":
        return Block()
    if spec == "copy":
        return Copy()
    if isinstance(spec, tuple | list) and len(spec) == 2 and spec[0] == "overlap":
        h = spec[1]
        if isinstance(h, bool) or not isinstance(h, int | np.integer) or h < 0:
            raise ArgumentError(f"{where} = {spec!r}: the halo of an overlap distribution "
                                f"is a whole number of rows, at least 0", where)
        return Overlap(int(h))
    raise ArgumentError(f"{where} = {spec!r}: give \"block\", \"copy\" or (\"overlap\", h) "
                        f"(SkelCL's distributions; h: halo rows)", where)


def block_bounds(length: int, devices: int, granule: int = 1) -> list[tuple[int, int]]:
    """Each device's block ``(start, stop)`` of ``length`` rows: as even as it goes in whole
    granules of ``granule`` rows (a program that splits its rows by 128 is cut between
    groups), the first blocks one granule longer where it does not divide, the last holding
    what is left of a granule (empty blocks at the end when there are more devices than
    granules)."""
    units = -(-length // granule)
    base, extra = divmod(units, devices)
    out, start = [], 0
    for d in range(devices):
        stop = min(length, start + (base + (1 if d < extra else 0)) * granule)
        out.append((start, stop))
        start = stop
    return out


@dataclass
class DistributedArray:
    """An array spread over devices: ``parts[d]`` is what device ``d`` holds, rows
    ``held[d]`` of the whole; ``owned[d]`` are the rows it owns (its block; all rows for
    ``copy``). ``gather`` puts the whole together again."""

    distribution: Distribution
    parts: list[np.ndarray]
    held: list[tuple[int, int]]
    owned: list[tuple[int, int]]
    shape: tuple[int, ...]
    dtype: np.dtype = field(default=np.dtype(np.float32))

    @property
    def devices(self) -> int:
        return len(self.parts)

    def gather(self) -> np.ndarray:
        if isinstance(self.distribution, Copy):
            return np.array(self.parts[0], copy=True)
        pieces = [part[o0 - h0:o1 - h0] for part, (h0, _), (o0, o1)
                  in zip(self.parts, self.held, self.owned)]
        return np.concatenate(pieces, axis=0) if pieces else np.zeros(self.shape, self.dtype)

    def __repr__(self) -> str:
        rows = ", ".join(f"{h0}:{h1}" for h0, h1 in self.held)
        return (f"DistributedArray({self.distribution}, shape {self.shape}, rows held per "
                f"device: {rows})")


def distribute(array, dist, devices: int, granule: int = 1) -> DistributedArray:
    """``array`` spread over ``devices`` devices by ``dist`` (see ``distribution``; blocks
    in whole granules of ``granule`` rows, ``block_bounds``)."""
    dist = distribution(dist)
    if isinstance(devices, bool) or not isinstance(devices, int) or devices < 1:
        raise ArgumentError(f"devices = {devices!r}: give a whole number of devices, at "
                            f"least 1", "devices")
    value = np.asarray(array)
    if isinstance(dist, Copy):
        rows = value.shape[0] if value.ndim else 1
        return DistributedArray(dist, [value] * devices, [(0, rows)] * devices,
                                [(0, rows)] * devices, value.shape, value.dtype)
    if value.ndim == 0:
        raise ArgumentError(f"a scalar cannot be given the distribution {dist}: it has no "
                            f"rows to cut; give it \"copy\"", "distributions")
    n = value.shape[0]
    owned = block_bounds(n, devices, granule)
    halo = dist.halo if isinstance(dist, Overlap) else 0
    held = [(max(0, a - halo), min(n, b + halo)) if b > a else (a, a) for a, b in owned]
    return DistributedArray(dist, [value[a:b] for a, b in held], held, owned, value.shape,
                            value.dtype)


def redistribute(array: DistributedArray, dist) -> DistributedArray:
    """The same array with another distribution (SkelCL's explicit redistribution: its
    parts are gathered and spread again, over as many devices)."""
    if not isinstance(array, DistributedArray):
        raise ArgumentError(f"redistribute takes a DistributedArray (from distribute), not "
                            f"{type(array).__name__}", "array")
    return distribute(array.gather(), dist, array.devices)


# --- splitting a program over devices ---------------------------------------------------------


@dataclass
class Split:
    """How a program runs on several devices: device ``devices[i]`` runs the program on
    ``inputs[i]`` (devices with no rows to compute are left out), and ``combine`` turns their
    outputs, in that order, into the program's output."""

    rule: str
    devices: list[int]
    inputs: list[list]
    combine: Callable[[list], object]
    rows: list[tuple[int, int]]  # the rows of the output each device computes
    # every device's output, from the whole program's output (and the interpreter on a few
    # rows at most), so that a large input is interpreted once; None: interpret each part
    outputs_of: Callable[[object], list] | None = None
    # the distribution the rule leaves its output in: blocks of rows (a map, a stencil), or
    # on every device (a reduce's combined value, a program run whole on copies)
    leaves: Distribution = field(default_factory=Block)


@dataclass(frozen=True)
class SplitRule:
    """A rule that splits a distributed program (one per SkelCL skeleton): ``split`` returns
    a ``Split`` or the reason the rule does not apply (a string)."""

    name: str
    equation: str
    source: str
    split: Callable[[Expr, list, list, int], Split | str]

    def __str__(self) -> str:
        return f"{self.name}: {self.equation}"


@dataclass
class _Shape:
    """A program read as ``stages[0] (stages[1] (... (source)))``: its input names (an
    implicit last one for a function such as ``λa. map (*a)``), its stages outermost first,
    and the input names its innermost stage reads (one variable, or a ``zip`` of some)."""

    names: list[str]
    stages: list[Expr]
    sources: list[str]


IMPLICIT = "·input"


def _shape(expr: Expr, inputs: int) -> _Shape | str:
    names: list[str] = []
    body = expr
    while isinstance(body, Lambda):
        if not all(isinstance(p, str) for p in body.params):
            return "its parameters are tuple patterns; name each input"
        names += list(body.params)
        body = body.body
    stages: list[Expr] = []
    if inputs == len(names) + 1:  # a function of one more input (λa. map (*a))
        names.append(IMPLICIT)
        stages = list(body.fns) if isinstance(body, Compose) else [body]
        return _Shape(names, stages, [IMPLICIT])
    if inputs != len(names):
        return f"it takes {len(names)} inputs, {inputs} are given"
    while isinstance(body, Apply) and len(body.args) == 1 and not _is_zip(body.fn):
        stages += list(body.fn.fns) if isinstance(body.fn, Compose) else [body.fn]
        body = body.args[0]
    if isinstance(body, Var):
        return _Shape(names, stages, [body.name])
    if isinstance(body, Apply) and _is_zip(body.fn) and all(isinstance(a, Var)
                                                           for a in body.args):
        return _Shape(names, stages, [a.name for a in body.args])
    return "its innermost stage reads neither an input nor a zip of inputs"


def _is_zip(fn: Expr) -> bool:
    return isinstance(fn, Prim) and fn.name == "zip"


def _is_map(stage: Expr) -> bool:
    return isinstance(stage, Prim) and stage.name.startswith("map")


GROUPING = {"split", "splitVec"}  # rows grouped by n: blocks must hold whole groups
UNGROUPING = {"join", "joinVec"}


def _granule(stages: Sequence[Expr]) -> int | str:
    """The number of rows a block must be a multiple of for ``stages`` (maps, and the
    ``split n``/``join`` around them that a lowered program has) to be computed block by
    block: ``P (xs₁ ++ xs₂) = P xs₁ ++ P xs₂`` whenever ``xs₁`` holds a multiple of it (the
    product of the split widths). The reason when a stage is none of those."""
    granule = 1
    for stage in stages:
        if _is_map(stage) or isinstance(stage, Prim) and stage.name in UNGROUPING:
            continue
        if isinstance(stage, Prim) and stage.name in GROUPING:
            width = _constant(stage.args[0])
            if width is None:
                return f"{stage} groups rows by a size that is not a constant"
            granule *= width
            continue
        return f"{stage} is not a map (nor a split or join around maps)"
    return granule


def _uses(stage: Expr, names: set[str]) -> set[str]:
    return set(stage.free_vars()) & names


def _check_inputs(shape: _Shape, dists: list, wanted: type, what: str) -> str | None:
    """Why the sources and the other inputs do not have the distributions the rule needs
    (sources ``wanted``, the others ``copy``), or None."""
    for i, name in enumerate(shape.names):
        shown = "the implicit input" if name == IMPLICIT else name
        if name in shape.sources:
            if not isinstance(dists[i], wanted):
                return f"{what} reads input {i} ({shown}), distributed as {dists[i]}"
        elif not isinstance(dists[i], Copy):
            return (f"input {i} ({shown}) is read whole by every element (it is not what "
                    f"{what} runs over): give it \"copy\", not {dists[i]}")
    return None


def _parts(values: list, dists: list, devices: int, granule: int = 1
           ) -> tuple[list[int], list[list], list[DistributedArray]]:
    spread = [distribute(v, d, devices, granule) for v, d in zip(values, dists)]
    blocks = [s for s in spread if not isinstance(s.distribution, Copy)]
    busy = [d for d in range(devices) if all(s.owned[d][1] > s.owned[d][0] for s in blocks)]
    return busy, [[s.parts[d] for s in spread] for d in busy], spread


def _lengths_agree(values: list, shape: _Shape) -> str | None:
    lengths = {len(np.asarray(values[shape.names.index(n)])) for n in shape.sources}
    if len(lengths) > 1:
        return f"its sources have different lengths ({', '.join(map(str, sorted(lengths)))})"
    return None


def _slices(rows: list[tuple[int, int]]) -> Callable[[object], list | None]:
    def outputs_of(whole):
        return None if isinstance(whole, tuple) else [np.asarray(whole)[a:b] for a, b in rows]
    return outputs_of


def _concatenate(outputs: list):
    if isinstance(outputs[0], tuple):
        return tuple(_concatenate([o[i] for o in outputs]) for i in range(len(outputs[0])))
    return np.concatenate([np.asarray(o) for o in outputs], axis=0)


def _map_split(expr: Expr, values: list, dists: list, devices: int) -> Split | str:
    shape = _shape(expr, len(values))
    if isinstance(shape, str):
        return shape
    if not shape.stages or not any(_is_map(s) for s in shape.stages):
        return "the program is not a map (or maps) over its inputs"
    granule = _granule(shape.stages)
    if isinstance(granule, str):
        return granule
    why = _check_inputs(shape, dists, Block, "the map") or _lengths_agree(values, shape)
    if why:
        return why
    if any(_uses(s, set(shape.sources)) for s in shape.stages):
        return "a map's function reads a block-distributed input whole"
    busy, inputs, spread = _parts(values, dists, devices, granule)
    source = spread[shape.names.index(shape.sources[0])]
    rows = [source.owned[d] for d in busy]
    return Split("map", busy, inputs, _concatenate, rows, outputs_of=_slices(rows))


def _reduce_split(expr: Expr, values: list, dists: list, devices: int) -> Split | str:
    shape = _shape(expr, len(values))
    if isinstance(shape, str):
        return shape
    stages = shape.stages
    if not stages or not (isinstance(stages[0], Prim) and stages[0].name in ("reduce",
                                                                               "reduceSeq")):
        return "the program's last stage is not a reduce"
    granule = _granule(stages[1:])
    if isinstance(granule, str):
        return f"the reduce's input: {granule}"
    why = _check_inputs(shape, dists, Block, "the reduce") or _lengths_agree(values, shape)
    if why:
        return why
    if any(_uses(s, set(shape.sources)) for s in stages):
        return "a function of the reduce reads a block-distributed input whole"
    reduction = stages[0]
    zero = _initial_value(reduction)
    if zero is not None and not _neutral(reduction, zero):
        return (f"the reduce's initial value {reduction.args[1]} is not neutral for its "
                f"operator (z ⊕ z ≠ z): every device's partial result starts from it")
    busy, inputs, spread = _parts(values, dists, devices, granule)

    def combine(partials: list):
        # SkelCL's last step: the devices' partial results reduced with the same operator
        whole = np.concatenate([np.asarray(p).reshape(-1) for p in partials])
        return np.asarray(evaluate(reduction, whole))

    source = spread[shape.names.index(shape.sources[0])]
    return Split("reduce", busy, inputs, combine, [source.owned[d] for d in busy],
                 leaves=Copy())


def _copy_split(expr: Expr, values: list, dists: list, devices: int) -> Split | str:
    not_copies = [f"input {i} is distributed as {d}" for i, d in enumerate(dists)
                  if not isinstance(d, Copy)]
    if not_copies:
        return "every input must be a copy for every device to run the program whole (" + \
            "; ".join(not_copies) + ")"
    every = list(range(devices))
    arrays = [np.asarray(v) for v in values if np.ndim(v)]
    rows = [(0, len(arrays[0]) if arrays else 1)] * devices  # all of it, on every device
    return Split("copy", every, [list(values) for _ in every], lambda outputs: outputs[0],
                 rows, outputs_of=lambda whole: [whole] * devices, leaves=Copy())


def _initial_value(reduction: Prim):
    """The reduce's initial value when it is a number written out (None otherwise: then the
    check of the whole result against the interpreter decides)."""
    init = reduction.args[1] if len(reduction.args) > 1 else None
    if isinstance(init, UnOp) and init.op == "-" and isinstance(init.operand, Lit):
        return np.asarray(-init.operand.value)
    return np.asarray(init.value) if isinstance(init, Lit) else None


def _neutral(reduction: Prim, zero) -> bool:
    try:
        twice = np.asarray(evaluate(reduction, np.asarray([zero]).reshape(1)))
    except WorkbenchError:
        return True  # the interpreter's check of the whole result decides
    return bool(np.all(twice.reshape(-1) == np.asarray(zero).reshape(-1)))


STENCIL_SLIDES = {"slide": 1, "slide2D": 2}
STENCIL_PADS = {"pad", "padClamp", "pad2D"}


def _stencil_split(expr: Expr, values: list, dists: list, devices: int) -> Split | str:
    shape = _shape(expr, len(values))
    if isinstance(shape, str):
        return shape
    stages = shape.stages
    if len(stages) < 3 or not (isinstance(stages[-1], Prim) and stages[-1].name in STENCIL_PADS
                               and isinstance(stages[-2], Prim)
                               and stages[-2].name in STENCIL_SLIDES):
        return "the program is not a stencil (map f ∘ slide k 1 ∘ pad l r)"
    if not all(_is_map(s) for s in stages[:-2]):
        return "the stencil's windows are not read by a map"
    if len(shape.sources) != 1:
        return "a stencil reads one input"
    slide, pad = stages[-2], stages[-1]
    size, step = (_constant(a) for a in slide.args[:2])
    left, right = (_constant(a) for a in pad.args[:2])
    if None in (size, step, left, right):
        return "the stencil's window and padding are not constant sizes"
    if step != 1 or size != left + right + 1:
        return (f"slide {size} {step} over pad {left} {right} does not keep the rows: one "
                f"output row per input row needs step 1 and size l + r + 1")
    why = _check_inputs(shape, dists, Overlap, "the stencil")
    if why:
        return why
    halo = dists[shape.names.index(shape.sources[0])].halo
    if halo < max(left, right):
        return (f"the stencil reads {max(left, right)} rows on either side, the overlap "
                f"distribution gives {halo} halo rows: give (\"overlap\", {max(left, right)})")
    if any(_uses(s, set(shape.sources)) for s in stages):
        return "a function of the stencil reads the image whole"
    busy, inputs, spread = _parts(values, dists, devices)
    image = spread[shape.names.index(shape.sources[0])]
    keep = [(image.owned[d][0] - image.held[d][0], image.owned[d][1] - image.held[d][0])
            for d in busy]

    def combine(outputs: list):
        # each device keeps the output rows of its own block; its halo rows' outputs are
        # its neighbours' (they read past the halo, into the device's own padding)
        return _concatenate([np.asarray(o)[a:b] for o, (a, b) in zip(outputs, keep)])

    image_at = shape.names.index(shape.sources[0])

    def outputs_of(whole):
        # a device's output is the whole's on its own rows; on its halo rows (where it
        # reads its own padding) the program's on the few rows of its part around them
        if isinstance(whole, tuple):
            return None
        out = []
        for k, d in enumerate(busy):
            part, (a, b) = inputs[k][image_at], keep[k]
            pieces = [np.asarray(whole)[image.owned[d][0]:image.owned[d][1]]]
            if a:
                slab = [p[:a + right] if i == image_at else p for i, p in enumerate(inputs[k])]
                pieces.insert(0, np.asarray(evaluate(expr, *slab))[:a])
            if b < len(part):
                below = len(part) - b
                slab = [p[max(0, len(part) - below - left):] if i == image_at else p
                        for i, p in enumerate(inputs[k])]
                pieces.append(np.asarray(evaluate(expr, *slab))[-below:])
            out.append(np.concatenate(pieces, axis=0))
        return out

    return Split("stencil", busy, inputs, combine, [image.owned[d] for d in busy],
                 outputs_of=outputs_of)


def _constant(size) -> int | None:
    try:
        return int(size.value) if size.is_integer_constant else None
    except (AttributeError, ValueError):
        return None


SPLIT_RULES = [
    SplitRule("map", "map f xs on blocks xs₁ … xsₙ = map f xs₁ ++ … ++ map f xsₙ",
              "SkelCL's map skeleton on block-distributed vectors (thesis Sect. 3.2.1, 3.2.3)",
              _map_split),
    SplitRule("reduce", "reduce ⊕ z xs on blocks = reduce ⊕ z [reduce ⊕ z xs₁, …, "
              "reduce ⊕ z xsₙ] (z neutral)",
              "SkelCL's reduce skeleton: a partial result per device, combined on one "
              "(thesis Sect. 3.2.1)", _reduce_split),
    SplitRule("stencil", "stencil f on overlapping blocks = the rows each block owns of "
              "stencil f on the block with its halo",
              "SkelCL's stencil skeleton and overlap distribution (thesis Sect. 3.2.4)",
              _stencil_split),
    SplitRule("copy", "f on copies = f on every device (each output is f xs)",
              "SkelCL's copy distribution: every device holds all of the data and computes "
              "on all of it (thesis Sect. 3.2.3)", _copy_split),
]


def split(expr: Expr, values: Sequence, distributions: Sequence, devices: int) -> Split:
    """The first rule of ``SPLIT_RULES`` that splits ``expr`` on ``values`` with these
    distributions over ``devices`` devices; when none does, a ``WorkbenchError`` says why
    each rule does not apply."""
    dists = check_distributions(distributions, len(values))
    reasons = []
    for rule in SPLIT_RULES:
        found = rule.split(expr, list(values), dists, devices)
        if isinstance(found, Split):
            if not found.devices:
                raise WorkbenchError("no device has rows to compute (the inputs are empty)")
            return found
        reasons.append(f"{rule.name}: {found}")
    raise WorkbenchError("the program does not split over devices with the distributions "
                         f"{', '.join(map(str, dists))}:\n  " + "\n  ".join(reasons))


# --- programs with redistributions: stages -----------------------------------------------


def _redistribution(stage: Expr) -> Distribution | None:
    if isinstance(stage, Prim) and stage.name == "redistribute":
        return distribution_written(stage.args[0])
    return None


def distribution_written(text: str) -> Distribution:
    """The distribution ``redistribute`` holds (``"block"``, ``"copy"``, ``"overlap h"``)."""
    if isinstance(text, str) and text.startswith("overlap "):
        return distribution(("overlap", int(text.split()[1])))
    return distribution(text)


@dataclass
class Stage:
    """A part of a program between its redistributions: ``program`` runs on the inputs
    ``inputs`` (their indices in the whole program's; the first stage takes them all) and,
    after the first stage, on the previous stage's output as its last input. Its output is
    then redistributed ``into`` (None: the last stage, gathered). ``text`` names it."""

    number: int
    program: Expr
    inputs: list[int]
    into: Distribution | None
    text: str

    def __str__(self) -> str:
        return f"stage {self.number + 1} ({self.text})"


def stages(expr: Expr, inputs: int) -> list[Stage] | None:
    """``expr`` cut at its redistributions (``redistribute d``, a stage of its composition),
    first stage first; None when it has none (or is not a composition of stages: then the
    split rules say why it does not split). A redistribution at the start of the program, or
    right after another, is refused: it would redistribute nothing computed."""
    shape = _shape(expr, inputs)
    if isinstance(shape, str):
        return None
    cuts = [i for i, s in enumerate(shape.stages) if _redistribution(s) is not None]
    if not cuts:
        return None
    if cuts[-1] == len(shape.stages) - 1:
        raise WorkbenchError(
            f"{shape.stages[-1]} is the program's first stage: there is nothing computed to "
            f"redistribute; give the input that distribution (distributions=[...])")
    for a, b in zip(cuts, cuts[1:]):
        if b == a + 1:
            raise WorkbenchError(f"{shape.stages[a]} right after {shape.stages[b]}: only "
                                 f"the last of two redistributions in a row would count; "
                                 f"write one")
    bounds = [-1, *cuts, len(shape.stages)]  # segments of stages, outermost first
    segments = [(shape.stages[a + 1:b], _redistribution(shape.stages[b])
                 if b < len(shape.stages) else None) for a, b in zip(bounds, bounds[1:])]
    segments.reverse()  # the first stage (innermost) first
    names = [n for n in shape.names if n != IMPLICIT]
    implicit = IMPLICIT in shape.names
    out: list[Stage] = []
    # each segment with the redistribution of its input; a stage's output goes into the
    # next segment's
    for number, (fns, _) in enumerate(segments):
        into = segments[number + 1][1] if number + 1 < len(segments) else None
        if not fns:  # the program ends with a redistribution (the last stage's ``into``)
            continue
        body = compose(*fns)
        if number == 0:
            if implicit:
                program = Lambda(tuple(names), body) if names else body
            else:
                source = Var(shape.sources[0]) if len(shape.sources) == 1 else \
                    Apply(Prim("zip"), tuple(Var(n) for n in shape.sources))
                program = Lambda(tuple(names), Apply(body, (source,)))
            used = list(range(inputs))
        else:
            free = body.free_vars()
            used = [i for i, n in enumerate(names) if n in free]
            v = fresh_name("stage", set(names) | set(free))
            program = Lambda((*(names[i] for i in used), v), Apply(body, (Var(v),)))
        out.append(Stage(len(out), program, used, into, str(body)))
    return out


def distributed_output(plan: Split, output, devices: int) -> DistributedArray:
    """A split program's output as its rule leaves it on ``devices`` devices: each device's
    block of rows (``plan.rows``; none on a device that computed nothing) or, for a reduce
    or a run on copies, all of it on every device."""
    value = np.asarray(output)
    if isinstance(plan.leaves, Copy):
        rows = value.shape[0] if value.ndim else 1
        return DistributedArray(Copy(), [value] * devices, [(0, rows)] * devices,
                                [(0, rows)] * devices, value.shape, value.dtype)
    bounds = dict(zip(plan.devices, plan.rows))
    start, owned = 0, []
    for d in range(devices):
        a, b = bounds.get(d, (start, start))
        owned.append((a, b))
        start = b
    return DistributedArray(Block(), [value[a:b] for a, b in owned], owned, owned,
                            value.shape, value.dtype)


def split_stage(stage: Stage, values: Sequence, distributions: Sequence, devices: int
                ) -> Split:
    """``split`` of a stage's program, its refusal naming the stage."""
    try:
        return split(stage.program, values, distributions, devices)
    except WorkbenchError as err:
        raise WorkbenchError(f"{stage}: {err}") from None


def stage_inputs(stage: Stage, values: Sequence, dists: Sequence, previous
                 ) -> tuple[list, list]:
    """A stage's inputs and their distributions: the whole program's own (all for the
    first stage), then the previous stage's output redistributed (a ``DistributedArray``)."""
    if stage.number == 0:
        return list(values), list(dists)
    return ([values[i] for i in stage.inputs] + [previous.gather()],
            [dists[i] for i in stage.inputs] + [previous.distribution])


def check_distributions(distributions: Sequence, inputs: int) -> list[Distribution]:
    """One distribution per input, each checked (``distribution``)."""
    if isinstance(distributions, str | tuple) or not isinstance(distributions, Sequence):
        raise ArgumentError(f"distributions = {distributions!r}: give a list with one "
                            f"distribution per input", "distributions")
    if len(distributions) != inputs:
        raise ArgumentError(f"distributions: {len(distributions)} given for {inputs} "
                            f"input{'s' if inputs != 1 else ''} (one per input)",
                            "distributions")
    return [distribution(d, f"distributions[{i}]") for i, d in enumerate(distributions)]


def evaluate_distributed(expr: Expr, *arrays, distributions: Sequence, devices: int = 2,
                         sizes=None):
    """The interpreter's meaning of the program run on ``devices`` devices: split by its
    skeleton's rule, every device's program evaluated on its parts, the outputs combined. It
    equals ``evaluate(expr, *arrays)`` (a distribution does not change a result)."""
    values, _ = prepare_inputs(expr, arrays)
    staged = stages(expr, len(values))
    if staged is None:
        plan = split(expr, values, distributions, devices)
        return plan.combine([evaluate(expr, *inputs, sizes=sizes) for inputs in plan.inputs])
    dists = check_distributions(distributions, len(values))
    previous = None
    for stage in staged:  # each stage split by its rule, its output redistributed
        stage_values, stage_dists = stage_inputs(stage, values, dists, previous)
        plan = split_stage(stage, stage_values, stage_dists, devices)
        output = plan.combine([evaluate(stage.program, *inputs, sizes=sizes)
                               for inputs in plan.inputs])
        previous = distributed_output(plan, output, devices)
        if stage.into is not None:
            previous = redistribute(previous, stage.into)
    return previous.gather()


__all__ = ["Block", "Copy", "Overlap", "Distribution", "distribution", "block_bounds",
           "DistributedArray", "distribute", "redistribute", "Split", "SplitRule",
           "SPLIT_RULES", "split", "check_distributions", "evaluate_distributed", "Stage",
           "stages", "distribution_written", "distributed_output", "split_stage",
           "stage_inputs"]
