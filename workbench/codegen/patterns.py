"""The primitives that compute, in the kernel IR (ICFP 2015 Fig. 5, Sect. 5.2): maps as
loops on the level their declaration names, ``reduceSeq`` as an accumulator and a loop,
``iterate`` as its iterations writing two buffers in turn, ``toGlobal``/``toLocal``/
``toPrivate`` as the address space of a result. ``Patterns`` is a part of the kernel
builder (``kernel.KernelBuilder``); layout primitives only change views (``views``).

Which code a primitive gets is read from its declaration (``primitives.Primitive``): its
``map_level`` (and ``unrolled``), ``address_space`` or ``kernel``, never its name.
"""

from __future__ import annotations

from ..expr import Apply, Expr, Lambda, Lit, Prim, TupleExpr, UnOp, Var, walk
from ..primitives import Kernel, MapLevel
from ..sizes import Size
from ..typecheck import Annotation, Typing, annotate
from ..types import FLOAT, INT, ArrayType, ScalarType, TupleType, Type, VectorType
from . import CodegenError, ir
from .arith import Index, var
from .c_types import c_type, components_struct
from .scalar import literal
from .values import Value, leaf
from .views import Prefix, View, is_layout

# The letters of the indices of each level's loops (``gl1``, ``wg2``, ``l3``, ``i4``, …).
PREFIX = {"global": "gl", "workgroup": "wg", "local": "l", "seq": "i", "unrolled": "i",
          "warp": "w", "lane": "ln"}
ACROSS_WORK_ITEMS = ("global", "workgroup", "local", "warp", "lane")
WORK_ITEM = ("global", "local", "lane")  # levels whose loop bodies one work-item runs


class Patterns:
    """The code of computing primitives; mixed into the kernel builder, whose state (the
    enclosing loops, warps and guards; the current block) it uses."""

    def primitive(self, fn: Prim, args, path, env, dest) -> Value:
        name, decl = fn.name, fn.decl
        typing = self.typing(path)
        result = typing.result
        if is_layout(fn):
            return self.layout(fn, typing, args, dest)
        if decl.kernel is Kernel.ZIP:
            zipped = self.zip(typing, args)
            if dest is None:
                return zipped
            # the result of a map of zips (Lift's TestMisc.decompose): its elements are
            # stored, each component in its own buffer, as a map's results always are
            with self.guarded(self.single()):
                self.copy(zipped.view, dest, result)
            return Value(result, view=dest)
        if decl.kernel is Kernel.REPLICATE:
            return self.replicate(typing, args, dest)
        if decl.kernel is Kernel.AT:  # xs[i] with i computed at run time
            index, array = args
            value = array.element(self.at_index(index, int(array.type.size.value)))
            if dest is not None:
                self.store(dest, value)
            return value
        if decl.address_space is not None:  # toGlobal, toLocal, toPrivate
            return self.memory(fn, typing, args, path, env, dest)
        iterates = decl.kernel in (Kernel.ITERATE, Kernel.LOOP)
        if dest is None and iterates:
            return self.iterate(fn, args[0], env, None)
        if decl.kernel in (Kernel.SCAN_SEQ, Kernel.SCAN_LOCAL):
            if dest is None:
                dest = self.temporary(result, self.temporary_space())
            scan = self.scan_seq if decl.kernel is Kernel.SCAN_SEQ else self.scan_local
            if decl.kernel is Kernel.SCAN_SEQ and isinstance(result.elem, ArrayType):
                scan = self.scan_seq_array  # an array accumulator (``accumulators``)
            scan(fn, args[0], path, env, dest)
            return Value(result, view=dest)
        if decl.kernel is Kernel.REDUCE_SEQ and \
                isinstance(result.elem, ArrayType):  # a register block (``accumulators``)
            return self.reduce_seq_array(fn, args[0], path, env, dest)
        level = decl.map_level
        if level is MapLevel.VECTOR and dest is None:  # a SIMD value (or a struct of them)
            return Value(result, scalar=self.scalar_call(fn.args[0], args, typing, env))
        if dest is None:
            if self.loops and (level in ("global", "workgroup") or
                               (level in ("local", "warp", "lane") and self.in_work_item())):
                # its elements would be computed by other work-items, in their own memory
                raise CodegenError(f"{name} inside a work-item's code must write its result "
                                   f"where it goes (global memory), not to a temporary that "
                                   f"this work-item reads")
            dest = self.temporary(result, self.temporary_space())
        if level is MapLevel.VECTOR:  # mapVec f: f lane-wise on a SIMD value
            self.store(dest, Value(result, scalar=self.scalar_call(fn.args[0], args, typing,
                                                                  env)))
            return Value(result, view=dest)
        if level is not None:
            self.map_loop(fn, level, args[0], path, env, dest)
        elif decl.kernel is Kernel.REDUCE_SEQ:  # reduceSeq, reduceSeqUnroll
            self.reduce_seq(fn, args[0], path, env, dest)
        elif iterates:
            return self.iterate(fn, args[0], env, dest)
        else:
            raise CodegenError(f"{name} cannot be generated yet (high-level or unsupported)")
        return Value(result, view=dest)

    def memory(self, fn: Prim, typing: Typing, args, path, env, dest) -> Value:
        """``toLocal f`` and friends: f's result is written in that address space (and
        copied from there when the caller wants it elsewhere)."""
        result = typing.result
        space = fn.decl.address_space
        shared = parallel_inside(fn.args[0])
        if dest is not None and space == "local" and shared and self.in_work_item() and \
                self.writes_local(dest):
            # inside a work-item's loop (Lift's tiled loads, MapLcl(1)(toLocal(MapLcl(0)
            # …))): written in place to the local memory it goes to, with no temporary that
            # a barrier would have to separate from its reads
            return self.apply(fn.args[0], args, path + (0,), env, dest)
        if (dest is None or space != "global") and shared:
            self.check_shared_temporary(fn)
        if dest is not None and space != "global":
            temporary = self.temporary(result, space)
            self.apply(fn.args[0], args, path + (0,), env, temporary)
            with self.guarded(self.single()):
                self.copy(temporary, dest, result)
            return Value(result, view=dest)
        if dest is None and space == "global" and self.loops and \
                not isinstance(result, ArrayType):
            # a scalar marked global inside a map (Lift's toGlobal(id) $ x): the map stores
            # it in its global destination, as it stores any scalar its function returns
            return self.apply(fn.args[0], args, path + (0,), env, None)
        if dest is None:
            dest = self.temporary(result, space)
        self.apply(fn.args[0], args, path + (0,), env, dest)
        if not isinstance(result, ArrayType):  # a scalar (or tuple) read back from there
            return leaf(result, dest.access([]))
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
            if level in WORK_ITEM:
                self.work_items.append((level, i, n))
            if level == "workgroup":
                self.groups.append((i, n))
            try:
                with self.block() as body:
                    index = var(i, n)
                    element = arg.element(index)
                    out_elem = Prefix((index,), dest)
                    f = fn.args[-1]
                    produced = self.typing(path + (0,)).result
                    if isinstance(produced, ScalarType) or (
                            isinstance(produced, TupleType) and not _tuple_written(f, produced)):
                        self.store(out_elem, self.apply(f, [element], path + (0,), env, None))
                    else:
                        self.apply(f, [element], path + (0,), env, out_elem)
            finally:
                self.loops.pop()
                if level == "warp":
                    self.warps.pop()
                if level in WORK_ITEM:
                    self.work_items.pop()
                if level == "workgroup":
                    self.groups.pop()
            form = ir.LoopLevel.UNROLLED if fn.decl.unrolled else ir.LoopLevel(level)
            step = 1 if form in ("seq", "unrolled") else ir.WARP if level == "lane" else None
            self.emit(ir.Loop(i, form, n, tuple(body), dim=dim, step=step, counter=counter,
                              origin=short(fn), path=self.here(path)))

    def iterate(self, fn: Prim, arg: Value, env: dict, dest: View | None) -> Value:
        """``iterate n f`` (or ``loop n f``) inside a kernel, unrolled (n is known): each
        application of f (each stage's function) is typed on its own, shrinking, input and
        writes one of two buffers in turn; the last one writes ``dest``."""
        f = fn.args[1]
        if any(isinstance(n, Prim) and n.decl.map_level in (MapLevel.GLOBAL, MapLevel.WORKGROUP)
               for _, n in walk(f)):
            raise CodegenError(f"{fn.name} over mapGlobal/mapWorkgroup inside a kernel: it "
                               f"needs a kernel per iteration, so it must be at the top level")
        stages = iteration_types(fn, arg.type, env)
        if len(stages) > 1 and parallel_inside(f):
            self.check_shared_temporary(fn)
        space = self.temporary_space()
        results = [note.result for _, note, _ in stages[:-1]]
        buffers = self.pingpong(results, space) if len(stages) > 1 else []
        value = arg
        for k, (stage, note, before) in enumerate(stages):
            with self.typed(note):
                target = dest if k == len(stages) - 1 else \
                    self.reshaped(buffers[k % 2], note.result)
                value = self.apply(stage, [*before, value], (), env, target)
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

    def initial(self, z: Expr, acc_type: Type, env: dict) -> ir.Value:
        """The initial value of an accumulator (a literal, or a closed expression such as
        (0.0, 0.0, 0.0) computed by a function of a dummy argument)."""
        if is_literal(z) and isinstance(acc_type, VectorType) and \
                isinstance(acc_type.elem, VectorType):  # float4s in lanes: every component
            t = components_struct(acc_type)
            c_type(t, self.cprog)
            return ir.MakeTuple(t, tuple(ir.Literal(literal_text(z, item)) for item in t.items))
        if is_literal(z):
            return ir.Literal(literal_text(z, acc_type))
        if isinstance(acc_type, TupleType) and isinstance(z, TupleExpr) and \
                any(isinstance(t, VectorType) for t in acc_type.items) and \
                all(is_literal(i) for i in z.items):
            # a tuple of vectors (a function applied lane-wise): each literal in every lane
            c_type(acc_type, self.cprog)
            return ir.MakeTuple(acc_type, tuple(ir.Literal(literal_text(i, t))
                                                for i, t in zip(z.items, acc_type.items)))
        return self.scalar_call(Lambda(("_",), z), [Value(INT, scalar=ir.Literal("0"))],
                                Typing((INT,), acc_type), env)

    def combine(self, f: Expr, left: Value, right: Value, result: Type, env: dict) -> ir.Value:
        """``f (left, right)``, as reduceSeq and the scans apply their operator."""
        pair = TupleType((left.type, right.type))
        return self.scalar_call(f, [Value(pair, parts=(left, right))], Typing((pair,), result),
                                env)

    def reduce_of_map(self, reduce: Prim, mapped: Prim, arg: Value, path, map_path, env,
                      dest: View | None) -> Value:
        """``reduceSeq f z ∘ mapSeq g`` (``fused_reduction``): each element ``g x`` is
        computed in the reduction's loop as the reduction reads it, so that no array of the
        map's results is made (N-body's accelerations: one float4 per body instead of a
        private array of all bodies' contributions). What ``reduceSeq-mapSeq-fusion``
        (ICFP Fig. 6f) makes of the expression, generated without rewriting it."""
        result = self.typing(path).result
        if dest is None:
            dest = self.temporary(result, self.temporary_space())
        g = mapped.args[-1]
        self.reduce_seq(reduce, arg, path, env, dest,
                        produce=lambda x: self.apply(g, [x], map_path + (0,), env, None))
        return Value(result, view=dest)

    def reduce_seq(self, fn: Prim, arg: Value, path, env, dest: View, produce=None) -> None:
        """An accumulator and a loop; with ``produce``, each element read is passed through
        it first (``reduce_of_map``)."""
        n = int(arg.type.size.value)
        acc_type = self.typing(path).result.elem
        if isinstance(acc_type, ArrayType):  # a register block (``accumulators``)
            return self.reduce_seq_array(fn, arg, path, env, dest)
        f, z = fn.args
        acc = self.fresh("acc")
        init = self.initial(z, acc_type, env)
        i = self.fresh("i")
        # one work-item of a group (or warp) reduces: the accumulator, the loop and the
        # store are its code alone
        with self.guarded(self.single()):
            self.emit(ir.Declare(acc, acc_type, init))
            with self.block() as body:
                element = arg.element(var(i, n))
                if produce is not None:
                    element = produce(element)
                pair = TupleType((acc_type, element.type))
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
            form = ir.LoopLevel.UNROLLED if fn.decl.unrolled else ir.LoopLevel.SEQ
            self.emit(ir.Loop(i, form, n, tuple(body), step=1, origin=short(fn),
                              path=self.here(path)))
            self.store(Prefix((Index.of(0),), dest), Value(acc_type, scalar=ir.Name(acc)))

    def scan_seq(self, fn: Prim, arg: Value, path, env, dest: View) -> None:
        """``scanSeq f z``: an accumulator and a loop that stores every prefix."""
        n = int(arg.type.size.value)
        t = self.typing(path).result.elem
        f, z = fn.args
        acc, i = self.fresh("acc"), self.fresh("i")
        with self.guarded(self.single()):
            self.emit(ir.Declare(acc, t, self.initial(z, t, env)))
            with self.block() as body:
                index = var(i, n)
                step = self.combine(f, Value(t, scalar=ir.Name(acc)), arg.element(index), t, env)
                self.emit(ir.Assign(acc, step))
                self.store_at(dest.access([index]), Value(t, scalar=ir.Name(acc)))
            self.emit(ir.Loop(i, "seq", n, tuple(body), step=1, origin=short(fn),
                              path=self.here(path)))

    def scan_local(self, fn: Prim, arg: Value, path, env, dest: View) -> None:
        """``scanLocal f z``: the work-efficient scan of Blelloch by the work-items of a
        group, on a copy in local memory. The up-sweep builds a tree of partial sums (level d:
        item k combines the elements 2^d·(2k+1) - 1 and 2^d·(2k+2) - 1), the root is set to z,
        the down-sweep hands each left child its parent's prefix and each right child the
        parent's prefix combined with the left sum; element i is then the exclusive prefix
        combined with element i. Each level is a loop over the group's work-items; the
        barriers between them are placed by the barrier pass."""
        if self.in_work_item() or "workgroup" not in [lvl for lvl, _, _ in self.loops]:
            raise CodegenError("scanLocal is the code of a work-group: it stands directly "
                               "inside a mapWorkgroup, outside its work-items' maps")
        n = int(arg.type.size.value)
        if n & (n - 1):
            raise CodegenError(f"scanLocal scans arrays of a power-of-two length, not {n}")
        t = self.typing(path).result.elem
        f, z = fn.args
        tree = self.temporary(ArrayType(t, Size.const(n)), "local")

        def at(index) -> Value:
            return leaf(t, tree.access([index]))

        def loop(extent: int, fill, what: str, disjoint: bool = False) -> None:
            k = self.fresh("l")
            self.loops.append(("local", extent, 0))
            try:
                with self.block() as body:
                    fill(var(k, extent))
            finally:
                self.loops.pop()
            self.emit(ir.Loop(k, "local", extent, tuple(body), origin=f"{short(fn)}: {what}",
                              path=self.here(path), disjoint=disjoint))

        loop(n, lambda i: self.store_at(tree.access([i]), arg.element(i)), "copy")
        levels = n.bit_length() - 1
        for d in range(levels):
            s = 1 << d

            def up(k, s=s):
                left, right = k * (2 * s) + (s - 1), k * (2 * s) + (2 * s - 1)
                self.store_at(tree.access([right]),
                              Value(t, scalar=self.combine(f, at(left), at(right), t, env)))
            loop(n >> (d + 1), up, f"up-sweep {d + 1} of {levels}", disjoint=True)
        with self.guarded(self.single()):
            self.store_at(tree.access([Index.of(n - 1)]),
                          Value(t, scalar=self.initial(z, t, env)))
        for d in reversed(range(levels)):
            s = 1 << d

            def down(k, s=s):
                left, right = k * (2 * s) + (s - 1), k * (2 * s) + (2 * s - 1)
                names = self.fresh("left"), self.fresh("parent")
                for name, index in zip(names, (left, right)):
                    self.emit(ir.Declare(name, t, self.scalar(at(index))))
                left_sum, parent = (Value(t, scalar=ir.Name(name)) for name in names)
                self.store_at(tree.access([left]), parent)
                self.store_at(tree.access([right]),
                              Value(t, scalar=self.combine(f, parent, left_sum, t, env)))
            loop(n >> (d + 1), down, f"down-sweep {levels - d} of {levels}", disjoint=True)
        loop(n, lambda i: self.store_at(dest.access([i]), Value(t, scalar=self.combine(
            f, at(i), arg.element(i), t, env))), "inclusive prefixes")


def iteration_types(fn: Prim, t: Type, env: dict | None = None
                    ) -> list[tuple[Expr, Annotation, list]]:
    """For each application in ``iterate n f`` (f) or ``loop n f`` (the stage's function: f
    with the stage number in place) on an input of type t: the function to apply, its
    typing and the values to apply it to before the input. A function that reads variables
    of the enclosing code (a map's element, in a loop moved out of a map) is typed as a
    function of them too: ``λv… . f``, applied to their values."""
    from ..primitives.skeletons import stage_function

    count = fn.args[0]
    if not count.is_integer_constant:
        raise CodegenError(f"{fn.name} needs a known number of iterations")
    free = sorted(v for v in fn.args[1].free_vars() if env and v in env)
    stages = []
    for k in range(int(count.value)):
        f = stage_function(fn.args[1], k) if fn.decl.kernel is Kernel.LOOP else fn.args[1]
        if free:
            f = Lambda(tuple(free), f)
            note = annotate(f, *(env[v].type for v in free), t)
        else:
            note = annotate(f, t)
        stages.append((f, note, [env[v] for v in free]))
        t = note.result
    return stages


def fused_reduction(reduce: Expr, mapped: Expr, result, produced) -> bool:
    """Whether ``reduce ∘ mapped`` is a ``reduceSeq`` of a scalar (or tuple, or vector)
    accumulator after a ``mapSeq`` whose function returns no array and runs on no other
    work-items: the map's results are read once each, in order, by the reduction alone, so
    they are computed in its loop (``Patterns.reduce_of_map``), unrolled for
    ``reduceSeqUnroll`` (K-means' distance over 34 features: 3 times faster on PoCL than
    its loop). ``result`` and ``produced``
    give the reduction's result type and the map's function's, asked for only then."""
    return (isinstance(reduce, Prim) and reduce.decl.kernel is Kernel.REDUCE_SEQ
            and isinstance(mapped, Prim)
            and mapped.decl.map_level is MapLevel.SEQ and not mapped.decl.unrolled
            and not parallel_inside(mapped) and not isinstance(result().elem, ArrayType)
            and not isinstance(produced(), ArrayType))


def parallel_inside(e: Expr) -> bool:
    """Whether some map of e runs over work-items (its elements computed by several)."""
    return any(isinstance(n, Prim) and n.decl.map_level in ACROSS_WORK_ITEMS
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



def _tuple_written(f: Expr, t: TupleType) -> bool:
    """Whether a map's function makes a tuple holding arrays, written where it goes (the
    tiles of Lift's tiled loads, ``Unzip() o MapLcl(0)(…)``, each made by a local map)."""
    return isinstance(f, Lambda) and isinstance(f.body, TupleExpr) and any(
        isinstance(item, ArrayType) for item in t.items)
