"""The primitives that compute, in the kernel IR (ICFP 2015 Fig. 5, Sect. 5.2): maps as
loops on the level their declaration names, ``reduceSeq`` as an accumulator and a loop,
``iterate`` as its iterations writing two buffers in turn, ``toGlobal``/``toLocal``/
``toPrivate`` as the address space of a result. ``Patterns`` is a part of the kernel
builder (``kernel.KernelBuilder``); layout primitives only change views (``views``).
"""

from __future__ import annotations

from ..expr import Apply, Expr, Lambda, Lit, Prim, TupleExpr, UnOp, Var, walk
from ..typecheck import Annotation, Typing, annotate
from ..types import FLOAT, INT, ArrayType, ScalarType, TupleType, Type
from . import CodegenError, ir
from .arith import Index, var
from .scalar import literal
from .values import Value
from .views import Prefix, View, is_layout

# The letters of the indices of each level's loops (``gl1``, ``wg2``, ``l3``, ``i4``, …).
PREFIX = {"global": "gl", "workgroup": "wg", "local": "l", "seq": "i", "unrolled": "i",
          "warp": "w", "lane": "ln"}
ACROSS_WORK_ITEMS = ("global", "workgroup", "local", "warp", "lane")


class Patterns:
    """The code of computing primitives; mixed into the kernel builder, whose state (the
    enclosing loops, warps and guards; the current block) it uses."""

    def primitive(self, fn: Prim, args, path, env, dest) -> Value:
        name = fn.name
        typing = self.typing(path)
        result = typing.result
        if is_layout(fn):
            return self.layout(fn, typing, args, dest)
        if name == "zip":
            return self.zip(typing, args)
        if name == "replicate":
            return self.replicate(typing, args, dest)
        if name == "at":  # xs[i] with i computed at run time
            index, array = args
            value = array.element(self.at_index(index, int(array.type.size.value)))
            if dest is not None:
                self.store(dest, value)
            return value
        if fn.decl.extra.get("address_space"):  # toGlobal, toLocal, toPrivate
            return self.memory(fn, typing, args, path, env, dest)
        if dest is None and name == "iterate":
            return self.iterate(fn, args[0], env, None)
        if fn.decl.extra.get("loop") and level_of(fn) is None and \
                isinstance(result.elem, ArrayType):  # a register block (``accumulators``)
            return self.reduce_seq_array(fn, args[0], path, env, dest)
        level = fn.decl.extra.get("map_level")
        if dest is None:
            if self.loops and (level in ("global", "workgroup") or
                               (level in ("local", "warp", "lane") and self.in_work_item())):
                # its elements would be computed by other work-items, in their own memory
                raise CodegenError(f"{name} inside a work-item's code must write its result "
                                   f"where it goes (global memory), not to a temporary that "
                                   f"this work-item reads")
            dest = self.temporary(result, self.temporary_space())
        if level == "vector":  # mapVec f: f lane-wise on a SIMD value
            self.store(dest, Value(result, scalar=self.scalar_call(fn.args[0], args, typing,
                                                                  env)))
            return Value(result, view=dest)
        if level is not None:
            self.map_loop(fn, level, args[0], path, env, dest)
        elif fn.decl.extra.get("loop"):  # reduceSeq, reduceSeqUnroll
            self.reduce_seq(fn, args[0], path, env, dest)
        elif name == "iterate":
            return self.iterate(fn, args[0], env, dest)
        else:
            raise CodegenError(f"{name} cannot be generated yet (high-level or unsupported)")
        return Value(result, view=dest)

    def memory(self, fn: Prim, typing: Typing, args, path, env, dest) -> Value:
        """``toLocal f`` and friends: f's result is written in that address space (and
        copied from there when the caller wants it elsewhere)."""
        result = typing.result
        space = fn.decl.extra["address_space"]
        shared = parallel_inside(fn.args[0])
        if (dest is None or space != "global") and shared:
            self.check_shared_temporary(fn)
        if dest is not None and space != "global":
            temporary = self.temporary(result, space)
            self.apply(fn.args[0], args, path + (0,), env, temporary)
            with self.guarded(self.single()):
                self.copy(temporary, dest, result)
            return Value(result, view=dest)
        if dest is None:
            dest = self.temporary(result, space)
        self.apply(fn.args[0], args, path + (0,), env, dest)
        return Value(result, view=dest)

    def map_loop(self, fn: Prim, level: str, arg: Value, path, env, dest: View) -> None:
        n = int(arg.type.size.value)
        dim = fn.args[0] if fn.decl.params[0].kind == "dim" else 0
        if level == "any":
            raise CodegenError("map is high-level: lower it first (map→mapGlobal, …) or use "
                               "the default lowering")
        if level in ACROSS_WORK_ITEMS and self.writes_private(dest):
            # other work-items would compute elements of this work-item's private array
            raise CodegenError(f"{fn.name} writes a private temporary of one work-item; its "
                               f"elements would be computed by other work-items (write to "
                               f"local or global memory instead)")
        i = self.fresh(PREFIX[level])
        counter = None
        if level == "warp":
            if self.warps:
                raise CodegenError("mapWarp inside mapWarp cannot be generated")
            counter = self.fresh("k")
        elif level == "lane" and not self.warps:
            raise CodegenError("mapLane must be inside a mapWarp")
        if level in ("local", "lane", "warp") and self.singles:
            raise CodegenError(f"{fn.name} inside sequential code of a single work-item")
        # a sequential loop around local maps is run by all work-items alike
        scope = self.single() if level == "seq" and not parallel_inside(fn) else None
        with self.guarded(scope):
            self.loops.append((level, n, dim))
            if level == "warp":
                self.warps.append((i, n))
            try:
                with self.block() as body:
                    index = var(i, n)
                    element = arg.element(index)
                    out_elem = Prefix((index,), dest)
                    f = fn.args[-1]
                    produced = self.typing(path + (0,)).result
                    if isinstance(produced, ScalarType | TupleType):
                        self.store(out_elem, self.apply(f, [element], path + (0,), env, None))
                    else:
                        self.apply(f, [element], path + (0,), env, out_elem)
            finally:
                self.loops.pop()
                if level == "warp":
                    self.warps.pop()
            form = "unrolled" if fn.decl.extra.get("loop") == "unrolled" else level
            step = 1 if form in ("seq", "unrolled") else ir.WARP if level == "lane" else None
            self.emit(ir.Loop(i, form, n, tuple(body), dim=dim, step=step, counter=counter,
                              origin=short(fn), path=self.here(path)))

    def iterate(self, fn: Prim, arg: Value, env: dict, dest: View | None) -> Value:
        """``iterate n f`` inside a kernel, unrolled (n is known): each application of f is
        typed on its own, shrinking, input and writes one of two buffers in turn; the last
        one writes ``dest``."""
        f = fn.args[1]
        if any(isinstance(n, Prim) and n.name in ("mapGlobal", "mapWorkgroup")
               for _, n in walk(f)):
            raise CodegenError("iterate over mapGlobal/mapWorkgroup inside a kernel: it needs "
                               "a kernel per iteration, so it must be at the top level")
        notes = iteration_types(fn, arg.type)
        if len(notes) > 1 and parallel_inside(f):
            self.check_shared_temporary(fn)
        space = self.temporary_space()
        results = [note.result for note in notes[:-1]]
        buffers = self.pingpong(results, space) if len(notes) > 1 else []
        value = arg
        for k, note in enumerate(notes):
            with self.typed(note):
                target = dest if k == len(notes) - 1 else \
                    self.reshaped(buffers[k % 2], note.result)
                value = self.apply(f, [value], (), env, target)
        return value

    def step_in_place(self, f: Expr, env: dict, acc: Value, element: Value) -> Value:
        """One step of a reduction whose operator uses arrays of the enclosing scope: the
        operator is typed on its own, its free variables becoming parameters."""
        free = sorted(v for v in f.free_vars() if v in env)
        names = ("acc_", "x_")
        wrapper = Lambda(tuple(free) + names, operator_call(f, Var(names[0]), Var(names[1])))
        with self.typed(annotate(wrapper, *(env[v].type for v in free), acc.type,
                                 element.type)):
            return self.apply(wrapper, [env[v] for v in free] + [acc, element], (), {}, None)

    def reduce_seq(self, fn: Prim, arg: Value, path, env, dest: View) -> None:
        n = int(arg.type.size.value)
        acc_type = self.typing(path).result.elem
        if isinstance(acc_type, ArrayType):  # a register block (``accumulators``)
            return self.reduce_seq_array(fn, arg, path, env, dest)
        f, z = fn.args
        acc = self.fresh("acc")
        if is_literal(z):
            init = ir.Literal(literal_text(z, acc_type))
        else:  # a closed expression such as (0.0, 0.0, 0.0): a function of a dummy argument
            init = self.scalar_call(Lambda(("_",), z), [Value(INT, scalar=ir.Literal("0"))],
                                    Typing((INT,), acc_type), env)
        i = self.fresh("i")
        # one work-item of a group (or warp) reduces: the accumulator, the loop and the
        # store are its code alone
        with self.guarded(self.single()):
            self.emit(ir.Declare(acc, acc_type, init))
            with self.block() as body:
                element = arg.element(var(i, n))
                pair = TupleType((acc_type, arg.type.elem))
                arrays = sorted(v for v in f.free_vars() if v in env and env[v].view is not None)
                if arrays:  # the operator reads arrays (md's neighbour positions): in place
                    step = self.scalar(self.step_in_place(f, env, Value(acc_type,
                                                                        scalar=ir.Name(acc)),
                                                          element))
                else:
                    step = self.scalar_call(f, [Value(pair, parts=(
                        Value(acc_type, scalar=ir.Name(acc)), element))],
                        Typing((pair,), acc_type), env)
                self.emit(ir.Assign(acc, step))
            form = "unrolled" if fn.decl.extra.get("loop") == "unrolled" else "seq"
            self.emit(ir.Loop(i, form, n, tuple(body), step=1, origin=short(fn),
                              path=self.here(path)))
            self.store(Prefix((Index.of(0),), dest), Value(acc_type, scalar=ir.Name(acc)))


def level_of(fn: Prim) -> str | None:
    return fn.decl.extra.get("map_level")


def iteration_types(fn: Prim, t: Type) -> list[Annotation]:
    """The typing of each application of f in ``iterate n f`` on an input of type t."""
    count = fn.args[0]
    if not count.is_integer_constant:
        raise CodegenError("iterate needs a known number of iterations")
    notes = []
    for _ in range(int(count.value)):
        notes.append(annotate(fn.args[1], t))
        t = notes[-1].result
    return notes


def parallel_inside(e: Expr) -> bool:
    """Whether some map of e runs over work-items (its elements computed by several)."""
    return any(isinstance(n, Prim) and n.decl.extra.get("map_level") in ACROSS_WORK_ITEMS
               for _, n in walk(e))


def operator_call(f: Expr, acc: Expr, x: Expr) -> Expr:
    """``f`` applied to an accumulator and an element, as reduceSeq applies it."""
    if isinstance(f, Lambda) and len(f.params) == 2:
        return Apply(f, (acc, x))
    return Apply(f, (TupleExpr((acc, x)),))


def is_literal(e: Expr) -> bool:
    return isinstance(e, Lit) or (isinstance(e, UnOp) and isinstance(e.operand, Lit))


def literal_text(e: Expr, t: Type = FLOAT) -> str:
    value = e.value if isinstance(e, Lit) else -e.operand.value
    return literal(value, t)


def short(e: Expr) -> str:
    text = str(e)
    return text if len(text) <= 70 else text[:67] + "..."
