"""The one compile path: from an expression, its input types and sizes to a program of
OpenCL kernels with their launch plan and buffers (SPEC 6, 14).

``opencl(expr, *input_types, sizes=..., complete=...)`` makes the expression concrete (size
variables bound), lowers what is still high-level by the default lowering strategy
(``rules.lowering``, with the copy a view on the way out needs) when asked to, translates
it into the kernel IR (``stages``), runs the passes over the IR and prints OpenCL C last
(``emit``). It compiles the expression as it is: every change of it is a recorded step.
``run``, the command line, the widget, the search and the benchmarks all compile through it.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import (
    ArgumentError,
    WorkbenchError,
    flag_argument,
    format_path,
    shown,
    sizes_argument,
    text_argument,
)
from ..expr import Expr, Prim, bind_sizes, expression_argument, size_arguments, subterm, walk
from ..layout import needs_lowering
from ..notation.printer import to_text
from ..primitives.skeletons import stage_variables
from ..rules.lowering import COPY_VIEW, LoweringRefused, copy_site
from ..rules.lowering import complete as completion
from ..sizes import Size
from ..typecheck import (
    annotate,
    as_type,
    declared_type_of,
    input_type_argument,
    input_types_of,
)
from ..types import (
    Type,
    free_size_vars,
    function_parts,
    match_sizes,
    substitute_sizes,
)
from . import (
    CodegenError,
    barriers,
    distribute,
    emit,
    features,
    ir,
    launch,
    memory,
    peel,
    private,
    unroll,
    wide,
    written,
)
from .stages import translate


@dataclass(frozen=True)
class OpenCLProgram:
    """A compiled program: OpenCL source, one launch per kernel, the global buffers with
    their roles and shapes, the kernel IR it was printed from, and the features the cost
    model reads."""

    name: str
    expression: str
    source: str
    launches: tuple[ir.Launch, ...]
    buffers: tuple[ir.Buffer, ...]
    output: ir.Buffer
    module: ir.Module
    features: features.ProgramFeatures
    codegen_ms: float = 0.0
    input_parts: tuple[tuple[ir.Buffer, ...], ...] = ()  # per input
    output_parts: tuple[ir.Buffer, ...] = ()  # one per tuple component of the result
    storage: Mapping[str, str] = field(default_factory=dict)  # temporary -> its allocation
    storages: tuple[memory.Storage, ...] = ()  # the allocations
    completed: tuple = ()  # the steps of the default lowering, when it was applied

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()

    def __str__(self) -> str:
        return self.source

    def _repr_markdown_(self) -> str:
        return f"```c\n{self.source}\n```"


def opencl(expr: Expr, *input_types: Type | str, name: str | None = None,
           sizes: Mapping[str, int] | None = None, complete: bool = False) -> OpenCLProgram:
    """OpenCL source and launch plan of an expression on inputs of the given types (or
    example arrays); raises ``CodegenError`` naming the node that cannot be generated.

    Size variables inside the expression (``split (N/128)``, ``split blockSize``) take their
    values from the declared input types matched against the given ones, and from
    ``sizes``. With ``complete``, the default completion (``rules.lowering.complete``: the
    copy a view on the way out needs, then the default lowering) is applied first and its
    steps are in ``completed``; without, a high-level node, or a result that needs a copy, is
    refused. The expression is compiled as it is: every change of it is a recorded step."""
    start = time.perf_counter()
    expression_argument(expr)
    if name is not None:
        text_argument(name, "name")
    sizes, complete = sizes_argument(sizes), flag_argument(complete, "complete")
    name = name or getattr(expr, "definition_name", None) or "kernel"
    types = tuple(_as_type(k, t) for k, t in enumerate(input_types, start=1))
    expr, types = concrete(expr, types, sizes)
    completed: tuple = ()
    if complete:
        try:
            expr, steps = completion(expr, *types)
        except LoweringRefused as err:
            raise CodegenError(err.reason, err.path, err.node_text) from None
        completed = tuple(steps)
    refuse_high_level(expr)
    note = annotate(expr, *types)
    text = to_text(expr)
    try:
        module = translate(expr, note, input_types_of(expr, types), name, text[:200])
    except CodegenError as err:
        raise (err if complete else copy_hint(err, expr)) from None
    module = compile_module(module)
    storage, storages = memory.plan(module)
    return OpenCLProgram(name, text, emit.program_source(module), module.launches,
                         module.buffers, module.outputs[0], module, features.of(module),
                         (time.perf_counter() - start) * 1000, input_parts=module.inputs,
                         output_parts=module.outputs, storage=storage,
                         storages=tuple(storages), completed=completed)


def compile_module(module: ir.Module, check: bool = True) -> ir.Module:
    """The passes over the kernel IR, in order: unrolling, launch inference (which fixes the
    strides), private arrays of a work-group cut to each work-item's part and bounded in
    size (``private``), barrier placement, 64-bit indices; then (unless ``check`` is off:
    a test compares the check with a run) the check that every output element is written
    exactly once and every element of a temporary read is written before."""
    kernels, launches = [], []
    for kernel in module.kernels:
        try:
            kernel = peel.peel(unroll.unroll(kernel))
            kernel, plan = launch.bind(kernel)
            kernel = distribute.distribute(kernel)
            private.check(kernel)
            kernel = barriers.place(kernel, plan)
            kernel = wide.widen(kernel)
        except CodegenError as err:
            raise err.at(kernel.path, kernel.node) from None
        kernels.append(kernel)
        launches.append(plan)
    module = ir.Module(module.name, module.declarations, tuple(kernels), module.buffers,
                       module.inputs, module.outputs, tuple(launches))
    if check:
        written.check(module)
    return module


def refuse_high_level(expr: Expr) -> None:
    for path, node in walk(expr):
        if needs_lowering(node):
            raise CodegenError(f"{node.name} is high-level: lower it first (e.g. "
                               f"map→mapGlobal) or use the default lowering", path, str(node))


def copy_hint(err: CodegenError, expr: Expr) -> CodegenError:
    """A refusal of a result that cannot be written where it is computed (a program that
    computes nothing, a pad on the way out), naming the rule that adds the copy it needs."""
    at = copy_site(expr)
    if at is None:
        return err
    node = subterm(expr, at)
    return CodegenError(f"{err.reason} (the rule {COPY_VIEW.name} adds the copy at "
                        f"{format_path(at)} `{node}`; the default completion applies it)",
                        err.path, err.node_text)


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
    given = [substitute_sizes(t, values) for t in given]  # [float]_N with N given
    expr = bind_sizes(expr, values)
    stages = stage_variables(expr)
    unbound = sorted({n for _, node in walk(expr) if isinstance(node, Prim)
                      for a in size_arguments(node) for n in a.free_vars} - stages
                     | {n for t in given for n in free_size_vars(t)})
    if unbound:
        raise CodegenError(f"code is generated for concrete sizes: give a value for "
                           f"{', '.join(unbound)} (e.g. --size {unbound[0]}=1024)")
    return expr, tuple(given)


def _as_type(k: int, t):
    """Input type ``k`` (from 1) as given: a type, type text, or an example array."""
    if isinstance(t, Type | str):
        return input_type_argument(k, t)
    from ..semantics import input_type

    try:
        return input_type(t)
    except (WorkbenchError, ValueError, TypeError) as err:
        raise ArgumentError(f"input type {k} = {shown(t)}: give a Type, its text (e.g. "
                            f"'[float]_N') or an example array ({err})", "input_types") from None


__all__ = ["opencl", "OpenCLProgram", "CodegenError", "concrete", "compile_module"]
