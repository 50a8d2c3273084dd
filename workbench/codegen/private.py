"""The bound on private memory: a kernel whose work-items would each hold more private arrays
than ``PRIVATE_BYTES`` is refused before it is built, naming the largest array and its size.

Why a bound, and this one: a private array lives in registers only while it is small (an
NVIDIA GPU gives a work-item at most 255 32-bit registers, about 1 KiB); beyond that it is
spilled to off-chip memory: slow, but it runs. PoCL runs a work-group on one thread and
keeps every work-item's private arrays on that thread's stack: 256 KiB per work-item
(``float prv[65536]``) ended the process with a segmentation fault instead of an error
(what a whole work-group may hold is probed per device by the runtime, which then limits or
refuses the work-group size; this bound is per work-item and needs no device). OpenCL has
no device query for the private memory a work-item may use (only
``CL_KERNEL_PRIVATE_MEM_SIZE``, after the build), so the bound is the same for every
device: 32 KiB, twice what Lift's own matrix-vector test keeps per work-item (the 4096
products of a row, ``TestMatrixVector.MATRIX_VECTOR``), an eighth of what crashed PoCL.

The bytes counted are those alive together: the arrays of a scope and of the scopes around
it (the copies of an unrolled body, each in its own block, are not added up).
"""

from __future__ import annotations

from . import CodegenError, ir

# The two bounds on a work-item's private memory, beside each other:
#
# ``PRIVATE_BYTES`` bounds what code generation builds at all (a crash bound, per work-item:
# beyond it PoCL's stack overflows; below it a GPU spills to off-chip memory, slow but right);
# ``REGISTER_BUDGET_BYTES`` bounds what a search explores (a performance budget, per
# work-item: Lift's maxPrivateMemory, what stays in an NVIDIA GPU's 255 32-bit registers;
# ``search.cases`` prunes the parameter choices beyond it, its ``Limits.private_bytes``).
# The budget lies well below the bound, so that every kernel the search keeps is built. The
# third bound is a whole work-group's, per device: the runtime fits a launch's work-group to
# what the device held in its probe (``runtime.fit_private_arrays``,
# ``device.probe.private_group_limit``; arrays under ``runtime.PRIVATE_UNCHECKED`` never ask).
PRIVATE_BYTES = 32 * 1024
REGISTER_BUDGET_BYTES = 1024


def _bytes(buffer: ir.Buffer) -> int:
    return buffer.length * buffer.scalar_dtype().itemsize


def _deepest(body: tuple[ir.Stmt, ...], around: tuple[ir.Allocate, ...] = (),
             origin: str = "") -> tuple[int, tuple[ir.Allocate, ...], str]:
    """The most private bytes alive at once in ``body``, the arrays that hold them and the
    origin of the innermost loop around the largest."""
    here = around + tuple(s for s in body if isinstance(s, ir.Allocate))
    best = (sum(_bytes(a.buffer) for a in here), here, origin)
    for stmt in body:
        inner = ir.children(stmt)
        if inner:
            found = _deepest(inner, here, stmt.origin if isinstance(stmt, ir.Loop)
                             and stmt.origin else origin)
            if found[0] > best[0]:
                best = found
    return best


def check(kernel: ir.Kernel, limit: int = PRIVATE_BYTES) -> None:
    """Refuse a kernel whose work-items each hold more than ``limit`` bytes of private
    arrays at once (after ``distribute`` cut a work-group's arrays to each one's part)."""
    total, arrays, origin = _deepest(kernel.body)
    if total <= limit:
        return
    largest = max(arrays, key=lambda a: _bytes(a.buffer)).buffer
    others = "" if len(arrays) == 1 else \
        f" (with the other private arrays alive beside it, {total // 1024} KiB)"
    where = f" in `{origin}`" if origin else ""
    raise CodegenError(f"the private array {largest.name}{where} holds {largest.length} "
                       f"{largest.scalar}s ({_bytes(largest) // 1024} KiB) per work-item"
                       f"{others}; private memory is bounded at {limit // 1024} KiB per "
                       f"work-item (codegen.private.PRIVATE_BYTES): keep the array in local "
                       f"or global memory, or block it into smaller pieces")
