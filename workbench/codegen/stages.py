"""The kernels of a program: its top-level computations, in the kernel IR.

Each top-level computation (a map over work-items or work-groups, a sequential reduction)
is a stage, a kernel of its own, because the stages need a global synchronisation between
them; the stages communicate through global buffers. Layout primitives at the top level
are views on the inputs or on what an earlier stage wrote; an ``iterate`` whose function
uses global or work-group maps is a kernel (or several) per iteration, on two buffers.
"""

from __future__ import annotations

from dataclasses import replace

from ..expr import Apply, Compose, Expr, Lambda, Path, Prim, TupleExpr, Var, walk
from ..primitives import Kernel, MapLevel
from ..typecheck import Annotation
from ..types import INT, TupleType, Type
from . import CodegenError, c_names, ir
from .arith import Index
from .constant import input_spaces
from .kernel import KernelBuilder, Names, constant, replicated
from .memory import used_buffers
from .patterns import is_literal, iteration_types, literal_text
from .scalar import CProgram, define_function
from .values import Value, bind, component_buffers, numbers_only, pingpong, shape
from .views import (
    BufferView,
    Calls,
    View,
    ZipView,
    is_layout,
    reshaped,
    view_before,
    view_through,
)


class Stages:
    def __init__(self, name: str, note: Annotation, buffers: list[ir.Buffer]):
        self.name = name
        self.note = note
        self.root = note
        self.cprog = CProgram()
        self.names = Names()
        self.buffers = buffers  # global: inputs, outputs, and temporaries as they come
        self.kernels: list[tuple[str, KernelBuilder, tuple, str]] = []  # name, builder, node
        self.calls = Calls(lambda f, arity: define_function(
            f, [INT] * arity, self.cprog, name=self.names.fresh(f"{name}_index")))

    def stage(self, path: Path, node: Expr) -> KernelBuilder:
        builder = KernelBuilder(self.name, self.note, self.cprog, self.names, self.buffers)
        builder.root = self.root
        where = path if self.note is self.root else ()
        self.kernels.append((f"{self.name}_{len(self.kernels)}", builder, where, str(node)))
        return builder

    def temporary(self, t: Type) -> View:
        buffers, view = component_buffers(self.names.fresh("tmp"), t, "temporary")
        self.buffers.extend(buffers)
        return view

    def module_kernels(self, origin: str) -> tuple[ir.Kernel, ...]:
        """The kernels, each given the global buffers it reads or writes."""
        kernels = []
        for name, builder, path, node in self.kernels:
            kernel = builder.kernel(name, (), origin, path, node)
            used = used_buffers(kernel)
            kernels.append(replace(kernel, params=tuple(b for b in self.buffers
                                                        if b.name in used)))
        return tuple(kernels)

    # Top level: each computation is a stage (kernel) of its own.
    def top(self, fn: Expr, args: list[Value], path: Path, env: dict, dest) -> Value:
        try:
            return self._top(fn, args, path, env, dest)
        except CodegenError as err:
            if self.note is self.root:
                raise err.at(path, fn) from None
            raise

    def _top(self, fn: Expr, args: list[Value], path: Path, env: dict, dest) -> Value:
        typing = self.note.typings[path]
        if isinstance(fn, Compose):
            fns = fn.fns
            first_compute = next((i for i, f in enumerate(fns) if not is_layout(f)), None)
            if first_compute is None and dest is not None:
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
                d = view_before(fns[i], self.note.typings[path + (i,)].args[0], d, self.calls)
            value = None
            for i in range(len(fns) - 1, first_compute - 1, -1):
                value = self.top(fns[i], args if value is None else [value], path + (i,),
                                 env, d if i == first_compute else None)
            return Value(typing.result, view=dest)
        if isinstance(fn, Lambda):
            inner = dict(env)
            for pattern, value in zip(fn.params, args):
                bind(pattern, value, inner)
            rest = args[len(fn.params):]
            if rest:  # λa. map (*a) applied to a and xs
                return self.top(fn.body, rest, path + (0,), inner, dest)
            return self.top_value(fn.body, path + (0,), inner, dest)
        if isinstance(fn, Prim) and is_layout(fn):
            return Value(typing.result, view=view_through(fn, typing.args[0], args[0].view,
                                                          self.calls, constant))
        if isinstance(fn, Prim) and fn.decl.kernel is Kernel.ZIP:
            return Value(typing.result, view=ZipView(tuple(a.view for a in args)))
        if isinstance(fn, Prim) and fn.decl.kernel is Kernel.REPLICATE and dest is None \
                and args[0].view is None:  # a constant's copies read by the next stage
            return Value(typing.result, view=replicated(args[0]))
        if isinstance(fn, Prim) and fn.decl.kernel in (Kernel.ITERATE, Kernel.LOOP) and any(
                isinstance(n, Prim) and n.decl.map_level in (MapLevel.GLOBAL, MapLevel.WORKGROUP)
                for _, n in walk(fn.args[1])):
            return self.iterate(fn, args[0], env, dest)
        # a computation: its own kernel, writing to ``dest`` or a new global buffer
        if dest is None:
            dest = self.temporary(typing.result)
        stage = self.stage(path, fn)
        stage.apply(fn, args, path, env, dest)
        return Value(typing.result, view=dest)

    def iterate(self, fn: Prim, arg: Value, env: dict, dest) -> Value:
        """``iterate n f`` whose f uses global or work-group maps: a kernel (or several) per
        iteration, the iterations writing two global buffers in turn."""
        stages = iteration_types(fn, arg.type, env)
        results = [note.result for _, note, _ in stages[:-1]]
        buffers = pingpong(results, self.temporary) if len(stages) > 1 else []
        value = arg
        outer = self.note
        for k, (stage, note, before) in enumerate(stages):
            self.note = note
            try:
                target = dest if k == len(stages) - 1 else \
                    reshaped(buffers[k % 2], shape(note.result))
                if target is None:
                    target = self.temporary(note.result)
                value = self.top(stage, [*before, value], (), env, target)
            finally:
                self.note = outer
        return value

    def top_value(self, e: Expr, path: Path, env: dict, dest) -> Value:
        if isinstance(e, Apply) and dest is not None and is_layout(e.fn) and len(e.args) == 1:
            # join (map f xs) written to dest: the map writes through the inverse view
            inner = view_before(e.fn, self.note.typings[path + (0,)].args[0], dest, self.calls)
            self.top_value(e.args[0], path + (1,), env, inner)
            return Value(self.note.typings[path].result, view=dest)
        if isinstance(e, Apply):
            args = [self.top_value(a, path + (i + 1,), env, None) for i, a in enumerate(e.args)]
            return self.top(e.fn, args, path + (0,), env, dest)
        if isinstance(e, Var):
            return env[e.name]
        if isinstance(e, TupleExpr) and all(is_literal(c) for c in e.items):
            # a constant tuple (Lift's Value("{3.4e38f, 0, 0}")), read by the next stage
            t = self.note.typings[path].result
            return Value(t, parts=tuple(
                Value(item, scalar=ir.Literal(literal_text(c, item)))
                for c, item in zip(e.items, t.items)))
        raise CodegenError(f"cannot generate {e} at the top level")


def _tuple_input(t: Type, parts) -> Value:
    """An input that is a tuple of numbers (Lift's ``TupleType(Int, Float)`` argument): one
    buffer of one number per component, read once."""
    if isinstance(t, TupleType):
        return Value(t, parts=tuple(_tuple_input(item, parts) for item in t.items))
    buffer = next(parts)
    return Value(t, scalar=ir.Load(buffer.name, Index.of(0)))


def translate(expr: Expr, note: Annotation, input_types: list[Type], name: str,
              origin: str) -> ir.Module:
    """The kernel IR of a fully low-level expression on inputs of the given (concrete)
    types: its kernels in launch order, its declarations and its global buffers."""
    spaces = input_spaces(expr, len(input_types))
    inputs = [component_buffers(f"in{i}", t, "input", space)
              for i, (t, space) in enumerate(zip(input_types, spaces))]
    outputs, out_view = component_buffers("out", note.result, "output")
    for b in [*(b for parts, _ in inputs for b in parts), *outputs]:
        _ = b.scalar  # arrays of arrays of tuples are refused with a message
    stages = Stages(c_names.program(name), note,
                    [*(b for parts, _ in inputs for b in parts), *outputs])
    args = [Value(parts[0].type, scalar=ir.Load(parts[0].name, Index.of(0)))
            if not parts[0].shape and len(parts) == 1 else
            _tuple_input(t, iter(parts)) if numbers_only(t) else Value(t, view=view)
            for (parts, view), t in zip(inputs, input_types)]
    dest = out_view if outputs[0].shape else BufferView("out", (1,))
    stages.top(expr, args, (), {}, dest)
    if not stages.kernels:
        raise CodegenError("nothing to compute")
    return ir.Module(name, stages.cprog.declarations(), stages.module_kernels(origin),
                     tuple(stages.buffers), tuple(tuple(parts) for parts, _ in inputs),
                     tuple(outputs))
