"""From a fully low-level expression to OpenCL kernels plus a host plan.

``opencl(expr, *input_types)`` returns an ``OpenCLProgram``: the source, one launch per
top-level stage (global and local sizes derived from the maps), the buffers with their
roles and shapes. Each top-level computation is a stage of its own because the stages
need a global synchronisation between them; a top-level sequential reduction runs in one
work-item.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..expr import Apply, Compose, Expr, Lambda, Path, Prim, bind_sizes, walk
from ..notation.printer import to_text
from ..sizes import Size
from ..typecheck import annotate, as_type, declared_type_of, input_types_of
from ..types import (
    Type,
    free_size_vars,
    function_parts,
    match_sizes,
    substitute_sizes,
)
from . import CodegenError, barriers, memory
from .kernel import (
    WARP,
    Buffer,
    Emitter,
    Kernel,
    Value,
    _layout,
    _shape,
    bind_launch,
    component_buffers,
    iteration_types,
    pingpong,
)
from .scalar import CProgram, c_type
from .views import BufferView, View, reshaped, view_before, view_through

MAX_GLOBAL = 1 << 20  # work-items of a mapGlobal launch (loops stride over the rest)


@dataclass
class Launch:
    kernel: str
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None


@dataclass
class OpenCLProgram:
    name: str
    expression: str
    source: str
    launches: list[Launch]
    buffers: list[Buffer]
    output: Buffer
    codegen_ms: float = 0.0
    notes: list[str] = field(default_factory=list)
    input_parts: list[tuple[Buffer, ...]] = field(default_factory=list)  # per input
    storage: dict[str, str] = field(default_factory=dict)  # temporary -> its allocation
    storages: list[memory.Storage] = field(default_factory=list)  # the allocations
    output_parts: tuple[Buffer, ...] = ()  # one per tuple component of the result

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()

    def __str__(self) -> str:
        return self.source

    def _repr_markdown_(self) -> str:
        return f"```c\n{self.source}\n```"


class _Generator:
    def __init__(self, name: str, note, inputs: list[Buffer], outputs: list[Buffer]):
        self.name = name
        self.cprog = CProgram()
        self.note = note
        self.buffers: list[Buffer] = [*inputs, *outputs]
        self.emitter = Emitter(name, note, self.cprog, self.buffers)
        self.kernels: list[tuple[Kernel, Emitter]] = []

    def new_stage(self) -> Emitter:
        e = Emitter(self.name, self.note, self.cprog, self.buffers)
        e.counter = self.emitter.counter
        e.kernel = Kernel(f"{self.name}_{len(self.kernels)}")
        self.kernels.append((e.kernel, e))
        self.emitter = e
        return e

    def temporary(self, t: Type) -> View:
        # named by the counter the kernels' own temporaries are named by, so no two buffers
        # of the program share a name
        buffers, view = component_buffers(self.emitter.fresh("tmp"), t, "temporary")
        self.buffers.extend(buffers)
        return view

    # Top level: each computation is a stage (kernel) of its own.
    def top(self, fn: Expr, args: list[Value], path: Path, env: dict, dest) -> Value:
        typing = self.note.typings[path]
        if isinstance(fn, Compose):
            fns = fn.fns
            first_compute = next((i for i, f in enumerate(fns) if not _layout(f)), None)
            if first_compute is None:
                raise CodegenError("the program only rearranges data: add a copy (map id)")
            if dest is None:
                # an intermediate result (an argument of another stage): layout primitives
                # after the last computation are views on what it wrote
                value = None
                for i in range(len(fns) - 1, -1, -1):
                    value = self.top(fns[i], args if value is None else [value], path + (i,),
                                     env, None)
                return value
            d = dest
            for i in range(first_compute):
                d = view_before(fns[i], self.note.typings[path + (i,)].args[0], d,
                                self.emitter.index_fn)
            value = None
            for i in range(len(fns) - 1, first_compute - 1, -1):
                value = self.top(fns[i], args if value is None else [value], path + (i,),
                                 env, d if i == first_compute else None)
            return Value(typing.result, view=dest)
        if isinstance(fn, Lambda):
            inner = dict(env)
            for pattern, value in zip(fn.params, args):
                self.emitter.bind(pattern, value, inner)
            rest = args[len(fn.params):]
            if rest:  # λa. map (*a) applied to a and xs
                return self.top(fn.body, rest, path + (0,), inner, dest)
            return self.top_value(fn.body, path + (0,), inner, dest)
        if isinstance(fn, Prim) and _layout(fn):
            return Value(typing.result, view=view_through(fn, typing.args[0], args[0].view,
                                                          self.emitter.index_fn))
        if isinstance(fn, Prim) and fn.name == "zip":
            from .views import ZipView

            return Value(typing.result, view=ZipView(tuple(a.view for a in args)))
        if isinstance(fn, Prim) and fn.name == "iterate" and any(
                isinstance(n, Prim) and n.name in ("mapGlobal", "mapWorkgroup")
                for _, n in walk(fn.args[1])):
            return self.iterate(fn, args[0], env, dest)
        # a computation: its own kernel, writing to ``dest`` or a new global buffer
        if dest is None:
            dest = self.temporary(typing.result)
        stage = self.new_stage()
        stage.apply(fn, args, path, env, dest)
        return Value(typing.result, view=dest)

    def iterate(self, fn: Prim, arg: Value, env: dict, dest) -> Value:
        """``iterate n f`` whose f uses global or work-group maps: a kernel (or several) per
        iteration, the iterations writing two global buffers in turn."""
        notes = iteration_types(fn, arg.type)
        outer = self.note
        buffers = pingpong(notes, self.temporary) if len(notes) > 1 else []
        value = arg
        for k, note in enumerate(notes):
            self.note = note
            try:
                target = dest if k == len(notes) - 1 else \
                    reshaped(buffers[k % 2], _shape(note.result))
                if target is None:
                    target = self.temporary(note.result)
                value = self.top(fn.args[1], [value], (), env, target)
            finally:
                self.note = outer
        return value

    def top_value(self, e: Expr, path: Path, env: dict, dest) -> Value:
        if isinstance(e, Apply) and dest is not None and _layout(e.fn) and len(e.args) == 1:
            # join (map f xs) written to dest: the map writes through the inverse view
            inner = view_before(e.fn, self.note.typings[path + (0,)].args[0], dest,
                                self.emitter.index_fn)
            self.top_value(e.args[0], path + (1,), env, inner)
            return Value(self.note.typings[path].result, view=dest)
        if isinstance(e, Apply):
            args = [self.top_value(a, path + (i + 1,), env, None) for i, a in enumerate(e.args)]
            return self.top(e.fn, args, path + (0,), env, dest)
        from ..expr import Var

        if isinstance(e, Var):
            return env[e.name]
        raise CodegenError(f"cannot generate {e} at the top level")


def _kernel_source(kernel: Kernel, emitter: Emitter, buffers: list[Buffer], cprog) -> str:
    params = []
    for b in buffers:
        const = "const " if b.role == "input" else ""
        params.append(f"global {const}{c_type(b.scalar, cprog)} *restrict {b.name}")
    head = f"kernel void {kernel.name}({', '.join(params)}) {{"
    # Local memory is declared at kernel scope (OpenCL allows it nowhere else).
    locals_ = [f"    local {c_type(b.scalar, cprog)} {b.name}[{b.length}];"
               for b in kernel.locals_]
    body = barriers.elide(kernel.source_lines, kernel.barriers, emitter.groups)
    return "\n".join([head, *locals_, *body, "}"])


def _launch(kernel: Kernel, emitter: Emitter) -> Launch:
    """The NDRange of a kernel: work-groups of the size of its local maps, as many as its
    work-group maps have elements (per dimension); else as many work-items as its global
    maps have elements (capped: the loops stride over the rest)."""
    if emitter.groups or any("get_group_id" in line for line in kernel.source_lines):
        dims = max([*emitter.groups, *emitter.wg_size, 0]) + 1
        local = [emitter.wg_size.get(d, 1) for d in range(dims)]
        if emitter.uses_warps:  # whole warps
            local[0] = -(-local[0] // WARP) * WARP
        groups = [emitter.groups.get(d, 1) for d in range(dims)]
        return Launch(kernel.name, tuple(g * n for g, n in zip(groups, local)), tuple(local))
    if emitter.globals_:
        dims = max(emitter.globals_) + 1
        sizes = [emitter.globals_.get(d, 1) for d in range(dims)]
        budget = MAX_GLOBAL
        capped = []
        for n in sizes:
            capped.append(max(1, min(n, budget)))
            budget = max(1, budget // capped[-1])
        return Launch(kernel.name, tuple(capped), None)
    return Launch(kernel.name, (1,), (1,))


def opencl(expr: Expr, *input_types: Type | str, name: str | None = None,
           sizes: Mapping[str, int] | None = None) -> OpenCLProgram:
    """OpenCL source and launch plan of a fully low-level expression on inputs of the given
    (concrete) types; raises ``CodegenError`` naming what cannot be generated.

    Size variables inside the expression (``split (N/128)``, ``split blockSize``) take their
    values from the declared input types matched against the given ones, and from
    ``sizes``."""
    start = time.perf_counter()
    name = name or getattr(expr, "definition_name", None) or "kernel"
    input_types = tuple(_as_type(t) for t in input_types)
    expr, input_types = concrete(expr, input_types, sizes)
    note = annotate(expr, *input_types)
    types = input_types_of(expr, input_types)
    inputs = [component_buffers(f"in{i}", t, "input") for i, t in enumerate(types)]
    outputs = component_buffers("out", note.result, "output")
    for b in [*(b for parts, _ in inputs for b in parts), *outputs[0]]:
        _ = b.scalar  # arrays of arrays of tuples are refused with a message

    gen = _Generator(name, note, [b for parts, _ in inputs for b in parts], outputs[0])
    args = [Value(parts[0].type, c=f"{parts[0].name}[0]")
            if not parts[0].shape and len(parts) == 1 else Value(t, view=view)
            for (parts, view), t in zip(inputs, types)]
    dest = outputs[1] if outputs[0][0].shape else BufferView("out", (1,))
    gen.top(expr, args, (), {}, dest)
    if not gen.kernels:
        raise CodegenError("nothing to compute")
    parts = [gen.cprog.source()] if gen.cprog.source() else []
    launches = []
    for kernel, emitter in gen.kernels:
        parts.append(f"// {to_text(expr)[:200]}")
        launch = _launch(kernel, emitter)
        source = _kernel_source(kernel, emitter, gen.buffers, gen.cprog)
        source = bind_launch(source, launch.global_size, launch.local_size)
        parts.append(source)
        launches.append(launch)
    source = "\n\n".join(parts) + "\n"
    temporaries = [(b.name, b.length, b.scalar.name) for b in gen.buffers
                   if b.role == "temporary"]
    storage, storages = memory.assign(temporaries, ["\n".join(k.source_lines)
                                                    for k, _ in gen.kernels])
    return OpenCLProgram(name, to_text(expr), source, launches, gen.buffers, outputs[0][0],
                         (time.perf_counter() - start) * 1000,
                         input_parts=[tuple(parts) for parts, _ in inputs],
                         output_parts=tuple(outputs[0]), storage=storage, storages=storages)


def concrete(expr: Expr, input_types: tuple, sizes: Mapping[str, int] | None = None
             ) -> tuple[Expr, tuple]:
    """The expression with its size arguments made concrete, and its concrete input types."""
    bindings: dict = {k: Size.of(v) for k, v in (sizes or {}).items()}
    declared = declared_type_of(expr)
    given = [as_type(t) for t in input_types]
    if declared is not None and given:
        for want, got in zip(function_parts(declared)[0], given):
            match_sizes(want, got, bindings)
    elif declared is not None:
        given = [substitute_sizes(t, bindings) for t in function_parts(declared)[0]]
    values = {k: v for k, v in bindings.items() if v.is_integer_constant}
    expr = bind_sizes(expr, values)
    unbound = sorted({n for _, node in walk(expr) if isinstance(node, Prim)
                      for a in node.args if isinstance(a, Size) for n in a.free_vars}
                     | {n for t in given for n in free_size_vars(t)})
    if unbound:
        raise CodegenError(f"code is generated for concrete sizes: give a value for "
                           f"{', '.join(unbound)} (e.g. --size {unbound[0]}=1024)")
    return expr, tuple(given)


def _as_type(t):
    """Input types may be given as types, type text, or example arrays."""
    if isinstance(t, Type | str):
        return t
    from ..semantics import input_type

    return input_type(t)


__all__ = ["opencl", "OpenCLProgram", "CodegenError"]
