"""The one compile path: from an expression, its input types and sizes to a program of
OpenCL kernels with their launch plan and buffers (SPEC 6, 14).

``opencl(expr, *input_types, sizes=..., complete=...)`` makes the expression concrete (size
variables bound), lowers what is still high-level by the default lowering strategy
(``rules.lowering``) when asked to, translates it into the kernel IR (``stages``), runs the
passes over the IR and prints OpenCL C last (``emit``). ``run``, the command line, the
widget, the search and the benchmarks all compile through it.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..expr import Apply, Compose, Expr, Lambda, Lit, Prim, Var, bind_sizes, size_arguments, walk
from ..layout import mapped_layout, needs_lowering
from ..notation.printer import to_text
from ..primitives import Kernel, ViewForm
from ..primitives.skeletons import stage_variables
from ..rules.lowering import LoweringRefused, lower
from ..sizes import Size
from ..typecheck import annotate, as_type, declared_type_of, input_types_of
from ..types import (
    ArrayType,
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
    private,
    unroll,
    wide,
    written,
)
from .stages import translate
from .views import is_layout


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
    ``sizes``. With ``complete``, what is still high-level is lowered by the default
    lowering first (``rules.lowering``) and its steps are in ``completed``; without, a
    high-level node is refused."""
    start = time.perf_counter()
    name = name or getattr(expr, "definition_name", None) or "kernel"
    types = tuple(_as_type(t) for t in input_types)
    expr, types = concrete(expr, types, sizes)
    completed: tuple = ()
    if complete and _rearranges_only(expr, types):
        expr = _copied(expr, types)
    elif complete:
        expr = _copy_before_unwritable(expr, types)
    if complete and any(needs_lowering(n) for _, n in walk(expr)):
        try:
            expr, steps = lower(expr, *types)
        except LoweringRefused as err:
            raise CodegenError(err.reason, err.path, err.node_text) from None
        completed = tuple(steps)
    refuse_high_level(expr)
    note = annotate(expr, *types)
    text = to_text(expr)
    module = translate(expr, note, input_types_of(expr, types), name, text[:200])
    module = compile_module(module)
    storage, storages = memory.plan(module)
    return OpenCLProgram(name, text, emit.program_source(module), module.launches,
                         module.buffers, module.outputs[0], module, features.of(module),
                         (time.perf_counter() - start) * 1000, input_parts=module.inputs,
                         output_parts=module.outputs, storage=storage,
                         storages=tuple(storages), completed=completed)


def _rearranges_only(expr: Expr, types) -> bool:
    """Whether a program computes nothing: every node a layout primitive, a variable or a
    function around them (Lift's ``PadConstant2D(1, 1, 0.0f) $ xs`` alone)."""
    inside_layouts: list = []  # the paths of layouts: what their functions do is a view too
    for path, node in walk(expr.body if isinstance(expr, Lambda) else expr):
        if any(path[:len(p)] == p for p in inside_layouts):
            continue
        if isinstance(node, Prim) and is_layout(node):
            inside_layouts.append(path)
            continue
        if isinstance(node, Prim) and not _a_view(node):
            return False
        if not isinstance(node, Prim | Var | Apply | Compose | Lit | Lambda):
            return False
    try:
        result = annotate(expr, *types).result
    except Exception:  # a program that does not type-check is refused where it is lowered
        return False
    return isinstance(function_parts(result)[1], ArrayType)


def _a_view(node: Prim) -> bool:
    """A zip or a projection: read through as views (``views.ZipView``, ``views.project``),
    so a program of them and of layouts computes nothing either (``map (λt. zip t.0 t.1)
    (zip a b)``, Lift's Zip2D alone)."""
    return node.decl.kernel is Kernel.ZIP or (node.name == "get" and node.decl.kernel is None)


def _copied(expr: Expr, types) -> Expr:
    """A program that only rearranges its input, followed by a copy of its result element
    by element (``map (map id)``): the copy is its kernel, as Lift's code generator writes
    the view of such a program to its output."""
    result = function_parts(annotate(expr, *types).result)[1]
    copy: Expr = Prim("id")
    while isinstance(result, ArrayType):
        copy = Prim("map", (copy,))
        result = result.elem
    if isinstance(expr, Lambda):
        return Lambda(expr.params, Apply(copy, (expr.body,)))
    return Compose((copy, expr))


def _written_through(node: Expr) -> bool:
    """Whether a layout primitive can be written through (its result's elements have
    places in its input's: scatter, join, split); a pad cannot (its borders have none)."""
    if not isinstance(node, Prim):
        return False
    layout = node.decl.layout
    if layout is not None:
        return layout.write is not None
    if node.decl.view in (ViewForm.JOIN_VEC, ViewForm.SCATTER_OFFSETS):
        return True
    inner = mapped_layout(node)
    if inner is None:
        return False
    parts = inner.fns if isinstance(inner, Compose) else (inner,)
    return all(_written_through(f) for f in parts)


def _copy_before_unwritable(expr: Expr, types) -> Expr:
    """A program whose result goes through a pad on its way out (PPCG's stencils in Lift:
    ``Scatter(Shift(1)) o Pad(1, 1, Clamp) o Map(f) o Slide(3, 1)``), with a copy (``map
    id``) after the pad: the computation writes a temporary, and the copy reads it through
    the pad and writes the output through what follows."""
    body = expr.body if isinstance(expr, Lambda) else expr
    chain = body.fn if isinstance(body, Apply) and isinstance(body.fn, Compose) else body
    if not isinstance(chain, Compose):
        return expr
    fns = chain.fns
    out_side = 0
    while out_side < len(fns) and isinstance(fns[out_side], Prim) and is_layout(fns[out_side]):
        out_side += 1
    if out_side == len(fns):
        return expr  # nothing computes: _copied's case
    stuck = [i for i in range(out_side) if not _written_through(fns[i])]
    if not stuck:
        return expr
    at = stuck[0]
    try:
        rest = Compose(fns[at:]) if len(fns) - at > 1 else fns[at]
        if isinstance(body, Apply) and body.fn is chain:
            value_type = annotate(Lambda(expr.params, Apply(rest, body.args)), *types).result
        else:
            value_type = annotate(rest, *types).result
    except Exception:  # left to the code generator to explain
        return expr
    result = function_parts(value_type)[1]
    copy: Expr = Prim("id")
    while isinstance(result, ArrayType):
        copy = Prim("map", (copy,))
        result = result.elem
    new_chain = Compose((*fns[:at], copy, *fns[at:]))
    if isinstance(body, Apply) and body.fn is chain:
        return Lambda(expr.params, Apply(new_chain, body.args))
    return new_chain


def compile_module(module: ir.Module, check: bool = True) -> ir.Module:
    """The passes over the kernel IR, in order: unrolling, launch inference (which fixes the
    strides), private arrays of a work-group cut to each work-item's part and bounded in
    size (``private``), barrier placement, 64-bit indices; then (unless ``check`` is off:
    a test compares the check with a run) the check that every output element is written
    exactly once and every element of a temporary read is written before."""
    kernels, launches = [], []
    for kernel in module.kernels:
        try:
            kernel = unroll.unroll(kernel)
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


def _as_type(t):
    """Input types may be given as types, type text, or example arrays."""
    if isinstance(t, Type | str):
        return t
    from ..semantics import input_type

    return input_type(t)


__all__ = ["opencl", "OpenCLProgram", "CodegenError", "concrete", "compile_module"]
