"""The resource model of phase 3 (CASES 2016 Sect. 5.3): what a device allows a kernel
(``Limits``), what a phase-2 program uses as sizes of its parameters (``Resources``), and
``check``, why a choice of parameters does not fit (the same limits checked for one choice
or, as NumPy arrays, for all of a program's at once)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...codegen.private import REGISTER_BUDGET_BYTES
from ...expr import Prim, walk
from ...nesting import context
from ...primitives.families import PRIVATE_STORES, SEQUENTIAL_REDUCTIONS
from ...sizes import Size
from ...typecheck import annotate
from ...types import ArrayType
from .variants import Variant


@dataclass
class Limits:
    """What a kernel may use on the device (CASES 2016 Sect. 5.3)."""

    kind: str = "gpu"
    local_memory_bytes: int = 48 * 1024
    max_work_group_size: int = 1024
    compute_units: int = 1
    # Lift's maxPrivateMemory: what a work-item may keep in registers
    # (codegen.private.REGISTER_BUDGET_BYTES, below the bound code generation refuses)
    private_bytes: int = REGISTER_BUDGET_BYTES
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
        elif node.name in PRIVATE_STORES:  # an accumulator, or a copy
            levels = [lvl for lvl, _ in context(v.expr, path)]
            private.append((_elements(typing.result), "local" not in levels))
        elif node.name in SEQUENTIAL_REDUCTIONS and \
                isinstance(typing.result, ArrayType) and \
                isinstance(typing.result.elem, ArrayType):
            levels = [lvl for lvl, _ in context(v.expr, path)]
            if "local" in levels or "global" in levels or "workgroup" in levels:
                # a register block: private memory of the work-item (or group) reducing
                init = node.args[1]
                if not any(isinstance(n, Prim) and n.name == "toPrivate" for _, n in walk(init)):
                    if "local" in levels or "global" in levels:
                        private.append((_elements(typing.result.elem), "local" not in levels))
                    else:  # a whole group's accumulator: the generator keeps it in local memory
                        local.append(_elements(typing.result.elem))
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
    return usage_by(r, lambda s, unknown: _value(s, env) or unknown)


def usage_by(r: Resources, value) -> tuple:
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
    if divisions and not all(divides(t, d, env) for t, d in r.divides):
        return "sizes that do not divide"
    work_group, groups, local, private = usage(r, env)
    return next((why for why, fails in exceeded(r, limits, work_group, groups, local * 4,
                                               private * 4) if fails), None)


def exceeded(r: Resources, limits: Limits, work_group, groups, local_bytes, private_bytes
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



def divides(total: Size, divisor: Size, env: dict) -> bool:
    t, d = _value(total, env), _value(divisor, env)
    return t is not None and d is not None and d >= 1 and t >= 1 and t == int(t) and \
        d == int(d) and int(t) % int(d) == 0
