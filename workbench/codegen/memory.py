"""Memory planning: global temporaries whose lifetimes do not overlap share one allocation.

A temporary lives from the first kernel (launch) that reads or writes it to the last one.
Temporaries are given storage in launch order, each taking a free storage whose previous
occupant is dead (the smallest large enough, else the largest, grown), as a register
allocator does for intervals. ``iterate`` already alternates two buffers; this pass shares
the rest. Local and private temporaries live in one kernel and are not shared.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import ir


@dataclass(frozen=True)
class Storage:
    name: str
    length: int  # elements
    dtype: str


def used_buffers(kernel: ir.Kernel) -> set[str]:
    """The buffers a kernel reads or writes."""
    used = set()
    for stmt, _ in ir.statements(kernel.body):
        used.update(load.buffer for load in ir.stmt_loads(stmt))
        if isinstance(stmt, ir.Store):
            used.add(stmt.buffer)
    return used


def lifetimes(uses: list[set[str]], names: list[str]) -> dict[str, tuple[int, int]]:
    """First and last kernel that uses each buffer (``uses``: the buffers of each kernel)."""
    spans = {}
    for name in names:
        used = [k for k, buffers in enumerate(uses) if name in buffers]
        if used:
            spans[name] = (used[0], used[-1])
    return spans


def assign(temporaries: list[tuple[str, int, str]], uses: list[set[str]]
           ) -> tuple[dict[str, str], list[Storage]]:
    """Storage for each temporary (name, length, dtype): a mapping from temporary to
    storage name, and the storages with their sizes."""
    spans = lifetimes(uses, [t[0] for t in temporaries])
    order = sorted((t for t in temporaries if t[0] in spans), key=lambda t: spans[t[0]])
    storages: dict[str, dict] = {}  # storage name -> {length, dtype, free_after}
    mapping: dict[str, str] = {}
    for name, length, dtype in order:
        start, end = spans[name]
        free = [s for s, info in storages.items()
                if info["dtype"] == dtype and info["free_after"] < start]
        fitting = [s for s in free if storages[s]["length"] >= length]
        if fitting:
            chosen = min(fitting, key=lambda s: storages[s]["length"])
        elif free:
            chosen = max(free, key=lambda s: storages[s]["length"])
        else:
            chosen = name
            storages[chosen] = {"length": 0, "dtype": dtype, "free_after": -1}
        info = storages[chosen]
        info["length"] = max(info["length"], length)
        info["free_after"] = end
        mapping[name] = chosen
    for name, length, dtype in temporaries:  # never used: keeps its own (small) storage
        if name not in mapping:
            mapping[name] = name
            storages[name] = {"length": length, "dtype": dtype, "free_after": -1}
    return mapping, [Storage(s, info["length"], info["dtype"]) for s, info in storages.items()]


def plan(module: ir.Module) -> tuple[dict[str, str], list[Storage]]:
    """The storage of the global temporaries of a program."""
    temporaries = [(b.name, b.length, b.scalar.name) for b in module.buffers
                   if b.role == "temporary"]
    return assign(temporaries, [used_buffers(k) for k in module.kernels])
