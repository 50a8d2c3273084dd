"""OpenCL C, printed from the kernel IR: the last step of code generation.

The code is meant to be read: each kernel is named after the program and commented with
the expression it came from, each loop with the map it implements; the levels of the thread
hierarchy become loops over ``get_global_id``, ``get_group_id``, ``get_local_id`` (warps and
their lanes over ``get_local_id(0)`` divided by and modulo 32), strided by the launch's sizes.
"""

from __future__ import annotations

from contextvars import ContextVar

from ..types import ScalarType, TupleType, Type, VectorType
from . import access, ir
from .arith import Index, to_c
from .c_types import c_type

INDENT = "    "
# While a kernel is printed: its arrays read or written as aligned vectors (name → the address
# space and the C type of their elements; ``_through_pointer``, ``_vector_widths``). Such an
# access is printed as a dereference of a vector pointer (one wide load or store, which the
# alignment allows), not as vloadN/vstoreN, which only assume their scalars' alignment: in
# local memory they become several narrow accesses (NVIDIA), and a private array accessed by
# them is kept in memory, not registers (PoCL: a register block updated by float16s ran 8
# times slower). Private arrays are printed so only for aligned vectors of WIDE lanes or more;
# narrower ones (a GPU work-item's float4 operands, which NVIDIA keeps in registers either
# way, as measured) keep vloadN/vstoreN. Global arrays (a kernel's parameters, whose buffers
# OpenCL aligns to CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least 128 bytes, the size of a float16
# pair) are read and written so for every vector whose offset is a multiple of its width:
# vloadN and vstoreN are calls into the driver's library on PoCL 3.0 from PyPI (scal by
# vload4/vstore4 13 times slower than by float4 pointers; its float16 calls abort its LLVM on
# an AVX-512 CPU), and PoCL 3.1 runs both forms alike there (benchmarks/results/
# pocl_builtins.md, vector_stores_pocl.md). But for a store that a work-item's sequential loop
# walks through its own chunk (``access.pattern`` "streamed"), which keeps vstoreN: through a
# pointer, scal's chunks of 2048 floats a work-item ran 2-3 times slower on PoCL 3.0 and 3.1
# (codegen_before_after_pocl.md; PoCL vectorises the work-items of a work-group together,
# and a chunk's stores are then scattered, where the call keeps each work-item's stores
# whole). A vector at an offset that is not a multiple of its width (a view that starts
# between vectors) keeps vloadN/vstoreN, and so does a vector assembled from lanes of others
# (``ir.Store.assembled``).
_ALIGNED: ContextVar[dict[str, tuple[str, str]] | None] = ContextVar("aligned_vectors",
                                                                default=None)
WIDE = 8
_FENCES = {"local": "CLK_LOCAL_MEM_FENCE", "global": "CLK_GLOBAL_MEM_FENCE"}
_FIRST_OF_GROUP = "get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0"


# --- values --------------------------------------------------------------------------------

def _opaque(v: ir.Value) -> str:
    return value(v) if isinstance(v, ir.Call) else f"({value(v)})"


def index(e: Index) -> str:
    return to_c(e, _opaque)


def value(v: ir.Value) -> str:
    if isinstance(v, ir.Literal):
        return v.text
    if isinstance(v, ir.Name):
        return v.name
    if isinstance(v, ir.IndexValue):
        return index(v.index)
    if isinstance(v, ir.Load):
        if v.width > 1:
            if _through_pointer(v.buffer, v.offset, v.width):
                return f"(*{_vector_pointer(v.buffer, v.offset, v.width)})"
            return f"vload{v.width}(0, {v.buffer} + {index(v.offset)})"
        return f"{v.buffer}[{index(v.offset)}]"
    if isinstance(v, ir.Call):
        return f"{v.function}({', '.join(value(a) for a in v.args)})"
    if isinstance(v, ir.Binary):
        return f"({value(v.left)} {v.op} {value(v.right)})"
    if isinstance(v, ir.Unary):
        return f"({v.op}{value(v.operand)})"
    if isinstance(v, ir.Cast):
        return f"(({v.to})({value(v.value)}))"
    if isinstance(v, ir.Field):
        return f"{value(v.value)}.{v.lane}" if v.lane else f"{value(v.value)}._{v.index}"
    if isinstance(v, ir.MakeTuple):
        return f"(({c_type(v.type)}){{{', '.join(value(i) for i in v.items)}}})"
    if isinstance(v, ir.Select):
        return f"({value(v.condition)} ? {value(v.then)} : {value(v.otherwise)})"
    raise TypeError(f"not a kernel IR value: {v!r}")


# --- statements ----------------------------------------------------------------------------

class _Printer:
    def __init__(self, path: tuple | None = None):
        self.lines: list[str] = []
        self.paths: list[tuple | None] = []  # each line's expression path (source_map)
        self.path = path  # of the innermost loop with a known path, else the kernel's
        self.depth = 1
        self.warps: list[ir.Loop] = []  # enclosing warp loops
        self.widths: dict[str, int] = {}  # arrays read as aligned vectors (_vector_widths)
        self.streamed: set[int] = set()  # the stores that keep vstoreN (_streamed_stores)

    def line(self, text: str) -> None:
        self.lines.append(INDENT * self.depth + text)
        self.paths.append(self.path)

    def nested(self, head: str, body: tuple[ir.Stmt, ...], first: str | None = None) -> None:
        self.line(head)
        self.depth += 1
        if first is not None:
            self.line(first)
        for stmt in body:
            self.stmt(stmt)
        self.depth -= 1
        self.line("}")

    def warp(self) -> ir.Loop:
        if not self.warps:
            raise ValueError("a lane loop or warp guard outside a warp loop")
        return self.warps[-1]

    def stmt(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.Loop):
            self.loop(s)
        elif isinstance(s, ir.Guard):
            if s.scope == "warp":
                w = self.warp()
                condition = f"get_local_id(0) % {ir.WARP} == 0 && {w.index} < {w.extent}"
            else:
                condition = _FIRST_OF_GROUP
            self.nested(f"if ({condition}) {{", s.body)
        elif isinstance(s, ir.Block):
            self.nested("{", s.body)
        elif isinstance(s, ir.Declare):
            init = "" if s.value is None else f" = {value(s.value)}"
            self.line(f"{c_type(s.type)} {s.name}{init};")
        elif isinstance(s, ir.Assign):
            self.line(f"{s.name} = {value(s.value)};")
        elif isinstance(s, ir.Store):
            if s.width > 1 and _through_pointer(s.buffer, s.offset, s.width) and \
                    id(s) not in self.streamed and not s.assembled:
                self.line(f"*{_vector_pointer(s.buffer, s.offset, s.width)} = {value(s.value)};")
            elif s.width > 1:
                self.line(f"vstore{s.width}({value(s.value)}, 0, {s.buffer} + "
                          f"{index(s.offset)});")
            else:
                self.line(f"{s.buffer}[{index(s.offset)}] = {value(s.value)};")
        elif isinstance(s, ir.Barrier):
            call = "WARP_BARRIER" if s.scope == "warp" else "barrier"
            self.line(f"{call}({' | '.join(_FENCES[f] for f in s.fences)});")
        elif isinstance(s, ir.Comment):
            self.line(f"/* {_comment(s.text)} */")
        elif isinstance(s, ir.Allocate):
            b = s.buffer
            width = self.widths.get(b.name)
            align = f" __attribute__((aligned({width * b.scalar_dtype().itemsize})))" \
                if width else ""
            self.line(f"{c_type(b.scalar)} {b.name}[{b.length}]{align};")
        else:
            raise TypeError(f"not a kernel IR statement: {s!r}")

    def group_block(self, s: ir.Loop) -> bool:
        """A work-group loop that each group runs at most once, printed as a block with the
        group's index, where PoCL 3.1 needs that (returns whether it printed it so).

        Without barriers, a block with a bound check (true for every group launched) made
        PoCL's code up to ten times faster than the loop. With barriers, PoCL mishandles
        control flow on the group id around them (a condition corrupted its heap; a loop
        misplaced the barriers of the loops nested in it, so that a work-item read local
        memory before another wrote it): a body with barriers in nested loops is a plain
        block (which only works when there are as many groups as iterations), other bodies
        with barriers stay loops, as PoCL compiled a gemv kernel 20% slower as a block."""
        barriers = [around for b, around in ir.statements(s.body) if isinstance(b, ir.Barrier)]
        nested = any(isinstance(f, ir.Loop) for around in barriers for f in around)
        if barriers and not (nested and s.extent == _step(s)):
            return False
        kind = "long" if s.wide else "int"
        self.line("{")
        self.depth += 1
        self.line(f"{kind} {s.index} = get_group_id({s.dim});")
        if barriers:
            for stmt in s.body:
                self.stmt(stmt)
        else:
            self.nested(f"if ({s.index} < {s.extent}) {{", s.body)
        self.depth -= 1
        self.line("}")
        return True

    def loop(self, s: ir.Loop) -> None:
        outer = self.path
        if s.path is not None:
            self.path = tuple(s.path)
        try:
            self._loop(s)
        finally:
            self.path = outer

    def _loop(self, s: ir.Loop) -> None:
        if s.origin:
            self.line(f"/* {_comment(s.origin)} */")
        kind = "long" if s.wide else "int"
        i, n = s.index, s.extent
        if s.level == "warp":
            warps = _step(s)
            self.warps.append(s)
            self.nested(f"for ({kind} {s.counter} = 0; {s.counter} * {warps} < {n}; "
                        f"{s.counter}++) {{", s.body,
                        first=f"{kind} {i} = get_local_id(0) / {ir.WARP} + {s.counter} * {warps};")
            self.warps.pop()
            return
        if s.level in ("seq", "unrolled"):
            self.nested(f"for ({kind} {i} = 0; {i} < {n}; {i}++) {{", s.body)
            return
        if s.level == "workgroup" and _step(s) >= n and self.group_block(s):
            return
        start = {"global": f"get_global_id({s.dim})", "workgroup": f"get_group_id({s.dim})",
                 "local": f"get_local_id({s.dim})",
                 "lane": f"get_local_id(0) % {ir.WARP}"}[s.level]
        condition = f"{i} < {n}"
        if s.level == "lane":
            w = self.warp()
            condition += f" && {w.index} < {w.extent}"
        if n <= _step(s) and (s.level in ("local", "lane") or _global_once(s)):
            # each work-item runs it at most once: unrolled to a condition (the slides'
            # "if (tid < s)" of each tree level). A work-item's loop over the global range
            # stands between PoCL and the vectorisation of its work-group's work-items (a
            # scalar scal 3-6 times slower as a loop on PoCL 3.0 and 3.1,
            # benchmarks/results/vector_stores_pocl.md: item against item-loop)
            self.line("{")
            self.depth += 1
            self.line(f"{kind} {i} = {start};")
            if s.level in ("local", "global") and n == _step(s):
                # as many work-items as elements: the condition always holds, and left out
                # it no longer stands between the compiler and the loads and stores it
                # would schedule together (an H100's sgemm 3-4 % faster)
                for stmt in s.body:
                    self.stmt(stmt)
            else:
                self.nested(f"if ({condition}) {{", s.body)
            self.depth -= 1
            self.line("}")
            return
        self.nested(f"for ({kind} {i} = {start}; {condition}; {i} += {_step(s)}) {{", s.body)


def _global_once(loop: ir.Loop) -> bool:
    """Whether a loop over the global range, which each work-item runs at most once, is
    printed as a block: with as many work-items as iterations always; with more only without
    barriers inside (a condition around a barrier is one that only some work-items meet)."""
    if loop.level != "global":
        return False
    return loop.extent == _step(loop) or not any(
        isinstance(b, ir.Barrier) for b, _ in ir.statements(loop.body))


def _step(loop: ir.Loop) -> int:
    if loop.step is None:
        raise ValueError(f"the stride of loop {loop.index} is not known: infer the launch "
                         f"first")
    return loop.step


def _comment(text: str) -> str:
    """Text that stays inside a comment (``/* … */`` or ``// …``): names in it are the
    user's."""
    return text.replace("*/", "* /").replace("\r", " ").replace("\n", " ")


def _multiple(offset: Index, width: int) -> bool:
    """Whether an offset is a multiple of ``width`` whatever its variables' values."""
    return all(c % width == 0 for c in offset.terms.values())


def _through_pointer(buffer: str, offset: Index, width: int) -> bool:
    """Whether a vector access is printed as a dereference of a vector pointer: any access
    to a local array read as aligned vectors; an aligned access to a global array (but for
    a streamed store: ``_streamed_stores``); an aligned access of WIDE lanes or more to a
    private array (unaligned accesses, and narrower ones to private arrays, keep
    vloadN/vstoreN). A vector of 3 never is: a float3 takes the size and alignment of a
    float4, where vload3/vstore3 read and write 3 packed scalars."""
    aligned = _ALIGNED.get() or {}
    if buffer not in aligned or width == 3:
        return False
    space, _ = aligned[buffer]
    if space == "local ":
        return True
    if space:  # a kernel's parameter, global or constant
        return _multiple(offset, width)
    return width >= WIDE and _multiple(offset, width)


def _vector_pointer(buffer: str, offset: Index, width: int) -> str:
    space, scalar = (_ALIGNED.get() or {})[buffer]
    return f"({space}{scalar}{width} *)({buffer} + {index(offset)})"


def _private_arrays(kernel: ir.Kernel) -> dict[str, ir.Buffer]:
    return {s.buffer.name: s.buffer for s, _ in ir.statements(kernel.body)
            if isinstance(s, ir.Allocate)}


def _vector_widths(kernel: ir.Kernel) -> dict[str, int]:
    """The local arrays every vector access of which is aligned, with the widest width; the
    global arrays with an aligned vector access, and the private ones with an aligned vector
    access of WIDE lanes or more, with the widest of these (``_through_pointer`` says which
    accesses are printed so)."""
    names = {b.name for b in kernel.locals}
    private = set(_private_arrays(kernel))
    params = {b.name for b in kernel.params}
    widths: dict[str, int] = {}
    unaligned: set[str] = set()
    for stmt, _ in ir.statements(kernel.body):
        accesses = [(x.buffer, x.offset, x.width) for v in ir.stmt_values(stmt)
                    for x in ir.loads(v)]
        if isinstance(stmt, ir.Store):
            accesses.append((stmt.buffer, stmt.offset, stmt.width))
        for buffer, offset, width in accesses:
            if width == 1 or not _multiple(offset, width):
                if width > 1 and buffer in names:
                    unaligned.add(buffer)
            elif buffer in names or buffer in params or (width >= WIDE and buffer in private):
                widths[buffer] = max(widths.get(buffer, 1), width)
    return {k: w for k, w in widths.items() if k not in unaligned}


def _streamed_stores(kernel: ir.Kernel) -> set[int]:
    """The global vector stores (by identity) that a work-item's sequential loop walks
    through its own chunk of the array (``access.pattern``: streamed): printed as vstoreN
    (see ``_ALIGNED``)."""
    params = {b.name for b in kernel.params}
    out = set()
    for stmt, enclosing in ir.statements(kernel.body):
        if isinstance(stmt, ir.Store) and stmt.width > 1 and stmt.buffer in params:
            frames = [f for f in enclosing if isinstance(f, ir.Loop)]
            walked = any(f.level == "seq" for f in frames)  # not one store (a partial sum)
            if walked and access.pattern(stmt.offset, stmt.width, frames) == "streamed":
                out.add(id(stmt))
    return out


def _parameter_space(b: ir.Buffer) -> str:
    """The address space (and constness) a kernel parameter's vector pointers point into."""
    if b.space == "constant":
        return "constant "
    return "global const " if b.role == "input" else "global "


def kernel_source(kernel: ir.Kernel, paths: list | None = None) -> str:
    """A kernel's OpenCL C; ``paths``, when given, is extended with each line's expression
    path (the innermost map loop's where known, else the kernel's stage)."""
    params = []
    for b in kernel.params:
        if b.space == "constant":  # a small read-only input (codegen.constant)
            params.append(f"constant {c_type(b.scalar)} *restrict {b.name}")
            continue
        const = "const " if b.role == "input" else ""
        params.append(f"global {const}{c_type(b.scalar)} *restrict {b.name}")
    printer = _Printer(tuple(kernel.path))
    widths = printer.widths = _vector_widths(kernel)
    printer.streamed = _streamed_stores(kernel)
    # Local memory is declared at kernel scope (OpenCL allows it nowhere else); an array read
    # as aligned vectors is aligned to the widest of them.
    for b in kernel.locals:
        align = f" __attribute__((aligned({widths[b.name] * b.scalar_dtype().itemsize})))" \
            if b.name in widths else ""
        printer.line(f"local {c_type(b.scalar)} {b.name}[{b.length}]{align};")
    aligned = {b.name: ("local ", c_type(b.scalar)) for b in kernel.locals
               if b.name in widths}
    aligned.update({name: ("", c_type(b.scalar)) for name, b in
                    _private_arrays(kernel).items() if name in widths})
    aligned.update({b.name: (_parameter_space(b), c_type(b.scalar)) for b in kernel.params
                    if b.name in widths})
    token = _ALIGNED.set(aligned)
    try:
        for stmt in kernel.body:
            printer.stmt(stmt)
    finally:
        _ALIGNED.reset(token)
    head = f"kernel void {kernel.name}({', '.join(params)}) {{"
    if paths is not None:
        paths.extend([tuple(kernel.path), *printer.paths, tuple(kernel.path)])
    return "\n".join([head, *printer.lines, "}"])


# --- declarations and programs -------------------------------------------------------------

def _params(params: tuple[tuple[Type, str], ...]) -> str:
    return ", ".join(f"{c_type(t)} {name}" for t, name in params)


def declaration(d: ir.Declaration) -> str:
    if isinstance(d, ir.StructDecl):
        fields = " ".join(f"{c_type(t)} _{i};" for i, t in enumerate(d.type.items))
        return f"{c_type(d.type)} {{ {fields} }};"
    if isinstance(d, ir.NativeFunction):
        head = f"{c_type(d.result)} {d.name}({_params(d.params)})"
        if "\n" in d.text or "#" in d.text:  # directives need lines of their own
            return f"{head} {{\n{d.text}\n}}"
        return f"{head} {{ {d.text} }}"
    return f"{c_type(d.result)} {d.name}({_params(d.params)}) {{ return {value(d.body)}; }}"


def declarations_source(declarations: tuple) -> str:
    return "".join(declaration(d) + "\n" for d in declarations)


WARP_BARRIER = """\
/* A warp (32 consecutive work-items) waits for its own work-items: with a sub-group barrier
   where the device has sub-groups holding whole warps, else with a work-group barrier. */
#if defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#if defined(cl_khr_subgroups) || defined(__opencl_c_subgroups)
#define WARP_BARRIER(fence) do { if (get_max_sub_group_size() % 32 == 0) \\
    sub_group_barrier(fence); else barrier(fence); } while (0)
#else
#define WARP_BARRIER(fence) barrier(fence)
#endif
"""


def uses_warp_barriers(module: ir.Module) -> bool:
    return any(isinstance(s, ir.Barrier) and s.scope == "warp"
               for k in module.kernels for s, _ in ir.statements(k.body))


def program_source(module: ir.Module) -> str:
    """The OpenCL C of a whole program: its declarations, then each kernel under a comment
    with the expression it came from."""
    parts = [declarations_source(module.declarations)] if module.declarations else []
    if uses_warp_barriers(module):
        parts.insert(0, WARP_BARRIER)
    for kernel in module.kernels:
        parts.append(f"// {_comment(kernel.origin)}")
        parts.append(kernel_source(kernel))
    return "\n\n".join(parts) + "\n"


def source_map(module: ir.Module) -> list[tuple | None]:
    """The expression path each line of ``program_source(module)`` comes from (None for
    declarations and blank lines): the provenance the widget links tree nodes and lines by."""
    parts: list[list] = []
    if uses_warp_barriers(module):  # a part's text ends with a newline: one more line
        parts.append([None] * (WARP_BARRIER.count("\n") + 1))
    if module.declarations:
        parts.append([None] * (declarations_source(module.declarations).count("\n") + 1))
    for kernel in module.kernels:
        parts.append([tuple(kernel.path)])
        paths: list = []
        kernel_source(kernel, paths)
        parts.append(paths)
    out: list = []
    for k, part in enumerate(parts):
        if k:
            out.append(None)  # the blank line between parts
        out.extend(part)
    return out


__all__ = ["program_source", "source_map", "kernel_source", "declarations_source", "value", "index",
           "ScalarType", "TupleType", "VectorType"]
