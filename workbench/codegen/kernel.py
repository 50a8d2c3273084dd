"""Translation of the code inside one kernel into the kernel IR (SPEC 6).

No optimisation decision is taken here: every choice was made by rules. Maps become loops
on the level their primitive declares (``mapGlobal`` over global work-items,
``mapWorkgroup`` over work-groups, ``mapLocal`` over the work-items of a group, ``mapWarp``
and ``mapLane`` over warps and their lanes, ``mapSeq`` sequentially, ``mapSeqUnroll``
unrolled); ``reduceSeq`` an accumulator; layout primitives only change views. Results are
written through *output views*: a ``join`` after a map makes the map write straight into
the joined buffer. ``toLocal``/``toPrivate`` place a result in local/private memory.

Sequential code of a work-group (or warp) outside its work-items' maps is run by one
work-item of it (a ``Guard``): the others would compute the same values. Barriers are not
placed here but by the ``barriers`` pass, from what the statements read and write.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace as dataclass_replace
from itertools import count as counter

from ..expr import (
    Apply,
    BinOp,
    Compose,
    Expr,
    Lambda,
    Lit,
    Path,
    Prim,
    TupleExpr,
    UnOp,
    UserFun,
    Var,
    fresh_name,
)
from ..sizes import Size
from ..typecheck import Annotation, Typing, annotate
from ..types import FLOAT, INT, ArrayType, ScalarType, TupleType, Type, VectorType, replace_leaf
from . import CodegenError, ir
from .accumulators import ArrayAccumulators
from .arith import Index, Opaque, var
from .patterns import WORK_ITEM, Patterns, fused_reduction, is_literal, literal_text, short
from .scalar import CProgram, ScalarCodegenError, c_type, define_function
from .values import Value, bind, component_buffers, leaf, pingpong, shape
from .views import (
    Calls,
    Lanes,
    Prefix,
    ReplicateView,
    StoredLanes,
    VecLocation,
    View,
    ZipView,
    buffers_of,
    is_layout,
    project,
    reshaped,
    view_before,
    view_through,
)


class Names:
    """Fresh names for a whole program (no two buffers or variables share one)."""

    def __init__(self):
        self._next = counter(1)

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self._next)}"


class KernelBuilder(Patterns, ArrayAccumulators):
    def __init__(self, name: str, note: Annotation, cprog: CProgram, names: Names,
                 global_buffers: list[ir.Buffer]):
        self.name = name
        self.note = note
        self.root = note  # paths of errors are those of this annotation's expression
        self.cprog = cprog
        self.names = names
        self.global_buffers = global_buffers
        self.blocks: list[list[ir.Stmt]] = [[]]
        self.locals: list[ir.Buffer] = []
        self.loops: list[tuple[str, int, int]] = []  # enclosing (level, extent, dim)
        self.warps: list[tuple[str, int]] = []  # enclosing warp loops: (index, count)
        # enclosing loops over work-items (global, local, lane): (level, index, extent)
        self.work_items: list[tuple[str, str, int]] = []
        # enclosing work-group loops: (index, count), the slots of a global temporary
        self.groups: list[tuple[str, int]] = []
        self.singles = 0  # enclosing guards (code of one work-item for a group or warp)
        self.private: set[str] = set()  # temporaries in private memory
        # private temporaries of a work-group: each work-item holds the part its local
        # maps write (``distribute`` gives each the size of its part)
        self.group_private: set[str] = set()
        # what the enclosing reductions made before this step (``prefetch``), by path
        self.fetched: dict[tuple, Value] = {}
        self.calls = Calls(self._index_function)

    def kernel(self, kernel_name: str, params: tuple[ir.Buffer, ...], origin: str,
               path: tuple = (), node: str = "") -> ir.Kernel:
        return ir.Kernel(kernel_name, params, tuple(self.locals), tuple(self.blocks[0]), origin,
                         path, node)

    def here(self, path: tuple) -> tuple | None:
        """A path in the expression being compiled (None inside a part typed on its own)."""
        return path if self.note is self.root else None

    # --- helpers --------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        return self.names.fresh(prefix)

    def emit(self, stmt: ir.Stmt) -> None:
        self.blocks[-1].append(stmt)

    @contextmanager
    def block(self):
        body: list[ir.Stmt] = []
        self.blocks.append(body)
        try:
            yield body
        finally:
            self.blocks.pop()

    def _index_function(self, f: Expr, arity: int) -> str:
        """An index function of gather/scatter as a function of the program."""
        return define_function(f, [INT] * arity, self.cprog, name=self.fresh(f"{self.name}_index"))

    def view_through(self, fn: Prim, input_type: Type, inner: View) -> View:
        return view_through(fn, input_type, inner, self.calls, constant)

    def view_before(self, fn: Prim, input_type: Type, dest: View) -> View:
        return view_before(fn, input_type, dest, self.calls)

    def copy(self, src: View, dest: View, t: Type) -> None:
        """Element-wise copy (loops over the array levels of t)."""
        elem = ir.element_type(t)
        if isinstance(elem, TupleType) and any(isinstance(item, ArrayType)
                                               for item in elem.items):
            # tuples holding arrays (a stencil's window beside a value): each component
            # an array of its own, copied on its own
            for k, item in enumerate(elem.items):
                self.copy(project(src, k), project(dest, k), replace_leaf(t, item))
            return
        idx = [(self.fresh("c"), n) for n in shape(t)]
        with self.block() as body:
            self.store_at(dest.access([var(i, n) for i, n in idx]),
                          leaf(ir.element_type(t), src.access([var(i, n) for i, n in idx])))
        bodies = tuple(body)
        for i, n in reversed(idx):
            bodies = (ir.Loop(i, "seq", n, bodies, step=1),)
        for stmt in bodies:
            self.emit(stmt)

    def typing(self, path: Path) -> Typing:
        typing = self.note.typings.get(path)
        if typing is None:
            raise CodegenError(f"no type for node {path}")
        return typing

    # --- memory ---------------------------------------------------------------------------
    def in_work_item(self) -> bool:
        """Inside the loop of a map over work-items (global, local or lane ids): code that
        each work-item runs on its own, where no barrier may stand."""
        return any(level in WORK_ITEM for level, _, _ in self.loops)

    def temporary_space(self) -> str:
        """Where an intermediate result goes: a work-item's own values in private memory,
        values of a work-group (or warp) in local memory, which all its work-items read,
        and at the top level global memory."""
        if not self.loops:
            return "global"
        return "private" if self.in_work_item() else "local"

    def check_shared_temporary(self, fn: Prim) -> None:
        """A temporary written by parallel work-items and then read inside one work-item's
        loop would need a barrier between them, which cannot stand there."""
        if self.in_work_item():
            raise CodegenError(f"{short(fn)} inside a work-item's loop: its parallel map "
                               f"writes a temporary that is read before any barrier can "
                               f"separate them; write to the enclosing destination instead")

    def temporary(self, t: Type, space: str) -> View:
        """A view of a new temporary of type t in an address space. A scalar (or tuple, or
        vector) is an array of one element, read and written with no index. Local memory is
        shared by a work-group: a temporary of one work-item (one iteration of a local or
        lane map) gets a slot of its own per iteration, as one of a warp's code gets one
        per warp."""
        if space == "global" and self.warps:
            raise CodegenError("a temporary in global memory inside mapWarp is not supported "
                               "yet; use toLocal or toPrivate")
        name = self.fresh({"global": "tmp", "local": "lcl", "private": "prv"}[space])
        slots: list[tuple[str, int]] = []  # (index, extent): the copies, outermost first
        if space == "global":  # a copy per work-group, and per work-item inside one
            slots.extend(self.groups)
            slots.extend((index, extent) for _, index, extent in self.work_items)
        if space == "local":
            if self.warps:  # one copy per warp of the work-group
                slots.append(self.warps[-1])
            for level, index, extent in self.work_items:
                if level == "global":
                    raise CodegenError("a local temporary inside mapGlobal: local memory "
                                       "belongs to a work-group, which mapGlobal does not "
                                       "name (use toPrivate, or mapWorkgroup and mapLocal)")
                slots.append((index, extent))
        stored = t if isinstance(t, ArrayType) else ArrayType(t, Size.const(1))
        for _, extent in reversed(slots):
            stored = ArrayType(stored, Size.const(extent))
        buffers, view = component_buffers(name, stored, "temporary", space)
        if self.warps and space == "local":
            buffers = [dataclass_replace(b, per_warp=True) for b in buffers]
        fixed = tuple(var(index, extent) for index, extent in slots)
        if not isinstance(t, ArrayType):
            fixed += (Index.of(0),)
        if fixed:
            view = Prefix(fixed, view)
        for buf in buffers:
            if space == "global":
                self.global_buffers.append(buf)  # every kernel of the program receives it
            elif space == "local":
                self.locals.append(buf)
            else:
                shared = bool(self.loops) and not self.in_work_item() and not self.singles
                self.emit(ir.Allocate(buf, owners="workgroup" if shared else ""))
                self.private.add(buf.name)
                if shared:
                    self.group_private.add(buf.name)
        return view

    # --- functions ------------------------------------------------------------------------
    def apply(self, fn: Expr, args: list[Value], path: Path, env: dict,
              dest: View | None) -> Value:
        try:
            return self._apply(fn, args, path, env, dest)
        except CodegenError as err:
            if self.note is self.root:
                raise err.at(path, fn) from None
            raise

    def _apply(self, fn: Expr, args: list[Value], path: Path, env: dict,
               dest: View | None) -> Value:
        typing = self.typing(path)
        result = typing.result
        if isinstance(fn, Compose):
            return self.compose(fn, args, path, env, dest)
        if isinstance(fn, Apply):  # a partial application such as (dot xs) row
            own = [self.value(a, path + (i + 1,), env, None) for i, a in enumerate(fn.args)]
            return self.apply(fn.fn, own + list(args), path + (0,), env, dest)
        if isinstance(fn, Lambda) and (not _plain(result) or any(holds_array(a) for a in args)
                                       or reads_arrays(fn, env) or _computes_arrays(fn)):
            inner = dict(env)
            params = fn.params
            args = _spread(args, len(params))
            for pattern, value in zip(params, args):
                bind(pattern, value, inner)
            rest = args[len(params):]
            if rest:
                return self.apply(fn.body, rest, path + (0,), inner, dest)
            return self.value(fn.body, path + (0,), inner, dest)
        if isinstance(fn, UserFun) and fn.body is not None and any(a.view for a in args):
            return self.inline(fn, args, typing, dest)
        if isinstance(fn, Prim) and fn.name == "id" and args[0].view is None:
            if dest is not None:  # a copy of a scalar (mapSeq id)
                self.store(dest, args[0])
            return args[0]
        if isinstance(fn, Prim) and fn.decl.category != "scalar" and fn.name != "get":
            return self.primitive(fn, args, path, env, dest)
        if isinstance(fn, Prim) and fn.name == "get" and args[0].parts:
            part = args[0].parts[fn.args[0]]
            if dest is not None:  # a map of get k written somewhere (mapLocal (get 0))
                self.store(dest, part)
                return Value(part.type, view=dest) if part.view is not None else part
            return part
        # a scalar function
        if not _scalar(result) and not isinstance(result, TupleType) and \
                not (isinstance(result, VectorType) and isinstance(fn, UserFun)):
            raise CodegenError(f"cannot generate {fn} yet")
        value = Value(result, scalar=self.scalar_call(fn, args, typing, env))
        if dest is not None:
            self.store(dest, value)
        return value

    def inline(self, fn: UserFun, args: list[Value], typing, dest) -> Value:
        """A user function taking an array (md's ``updateF … ps``) is generated in place:
        the functions of the program take scalars and structs only."""
        with self.typed(annotate(fn.body, *typing.args)):
            return self.apply(fn.body, args, (), {}, dest)

    @contextmanager
    def typed(self, note: Annotation):
        """Translate a sub-expression typed on its own (its paths are its own)."""
        outer = self.note
        self.note = note
        try:
            yield
        finally:
            self.note = outer

    def scalar_call(self, fn: Expr, args: list[Value], typing, env: dict | None = None
                    ) -> ir.Value:
        """A call of a scalar function; its free variables (``a`` in ``(*a)``) become extra
        parameters of the function. ``mapVec f`` is f generated for vector arguments (the
        operator of a reduction with a vector accumulator)."""
        if isinstance(fn, Prim) and fn.name == "mapVec":
            fn = fn.args[-1]
        if not isinstance(fn, UserFun) and env:
            fn, env = project_free(fn, env)
        free = sorted(fn.free_vars()) if not isinstance(fn, UserFun) else []
        if isinstance(fn, UserFun) or (isinstance(fn, Lambda) and not free):
            target = fn
            extra: list[Value] = []
        else:
            names: list[str] = []
            for i in range(len(args)):  # parameter names its free variables do not use
                names.append(fresh_name(f"a{i}", set(free) | set(names)))
            target = Lambda(tuple(free) + tuple(names),
                            Apply(fn, tuple(Var(n) for n in names)))
            missing = [v for v in free if v not in (env or {})]
            if missing:
                raise CodegenError(f"{fn} uses {', '.join(missing)}, which is not a scalar "
                                   f"value here")
            extra = [env[v] for v in free]
        arg_types = [v.type for v in extra] + list(typing.args)
        # a user function's C name comes from its own (``c_names``); any other function is
        # named after the program, and after the primitive it applies (``asum_abs3``)
        base = f"{self.name}_{fn.name}" if isinstance(fn, Prim) else f"{self.name}_f"
        try:
            name = define_function(target, arg_types, self.cprog,
                                   name=None if isinstance(fn, UserFun) else self.fresh(base))
        except ScalarCodegenError as err:
            raise CodegenError(f"{short(fn)}: {err}") from None
        if isinstance(target, UserFun) and target.body is None and len(args) == 1 and \
                len(target.params) > 1 and isinstance(args[0].type, TupleType):
            # given as C and applied to a tuple of its arguments (MapSeq(test) over a zip in
            # Lift's K-means benchmark): its C declaration takes them one by one
            whole = args[0]
            parts = [self.scalar(p) for p in whole.parts] if whole.parts else \
                [ir.Field(self.scalar(whole), i) for i in range(len(target.params))]
            return ir.Call(name, tuple(self.scalar(a) for a in extra) + tuple(parts))
        return ir.Call(name, tuple(self.scalar(a) for a in extra + args))

    def scalar(self, v: Value) -> ir.Value:
        """A value as one IR value (a tuple of values as a struct)."""
        if v.scalar is not None:
            return v.scalar
        if v.parts and isinstance(v.type, TupleType):
            c_type(v.type, self.cprog)
            return ir.MakeTuple(v.type, tuple(self.scalar(p) for p in v.parts))
        raise CodegenError(f"a value of type {v.type} cannot be passed to a scalar function")

    def single(self) -> str | None:
        """Inside a warp (work-group) but outside its lanes (work-items), sequential work is
        done by the first lane (work-item) alone: the scope of the guard that selects it."""
        if self.singles:
            return None  # already in one work-item's code
        # the innermost level that distributes work (sequential loops around local maps
        # are run by all work-items alike, and so is their sequential code)
        level = next((lvl for lvl, _, _ in reversed(self.loops)
                      if lvl not in ("seq", "unrolled")), None)
        return level if level in ("warp", "workgroup") else None

    @contextmanager
    def guarded(self, scope: str | None):
        """Statements run by one work-item of ``scope`` (or by all, without a scope)."""
        if scope is None:
            yield
            return
        self.singles += 1
        try:
            with self.block() as body:
                yield
        finally:
            self.singles -= 1
        self.emit(ir.Guard(scope, tuple(body)))

    def store(self, dest: View, value: Value) -> None:
        if isinstance(value.type, TupleType) and value.parts and \
                any(isinstance(item, ArrayType) for item in value.type.items):
            # a tuple holding an array (hotspot's (window, power)): component by component
            for k, part in enumerate(value.parts):
                self.store(project(dest, k), part)
            return
        if isinstance(value.type, ArrayType) and value.view is not None:
            with self.guarded(self.single()):
                self.copy(value.view, dest, value.type)
            return
        with self.guarded(self.single()):
            self.store_at(dest.access([]), value)

    def named(self, scalar, type_) -> ir.Name:
        """``scalar`` as a variable: itself where it is one, else declared once as a fresh
        one of ``type_`` (a struct written component by component is computed once)."""
        if isinstance(scalar, ir.Name):
            return scalar
        name = self.fresh("t")
        c_type(type_, self.cprog)
        self.emit(ir.Declare(name, type_, scalar))
        return ir.Name(name)

    def store_at(self, loc, value: Value) -> None:
        """Write a value to a location; a tuple goes component by component (to one buffer
        per component)."""
        if isinstance(loc, VecLocation):
            self.emit(ir.Store(loc.buffer, loc.offset, self.scalar(value), loc.width))
            return
        if isinstance(loc, StoredLanes):  # float4s in lanes kept: each component's vector
            lanes = self.named(self.scalar(value), value.type)
            for c in range(loc.k):
                self.emit(ir.Store(loc.buffer, loc.offset + c * loc.n, ir.Field(lanes, c),
                                   loc.n))
            return
        if isinstance(loc, Lanes):  # float4s in lanes: each element's components again
            lanes = self.named(self.scalar(value), value.type)
            for lane, offset in enumerate(loc.offsets):
                items = ", ".join(f"{lanes.name}._{c}.s{lane:x}" for c in range(loc.k))
                self.emit(ir.Store(loc.buffer, offset, ir.Name(
                    f"(({loc.scalar}{loc.k})({items}))"), loc.k, assembled=True))
            return
        if isinstance(loc, tuple):
            if not value.parts:  # a struct, named once
                value = Value(value.type, scalar=self.named(value.scalar, value.type))
            for i, part in enumerate(loc):
                if value.parts:
                    self.store_at(part, value.parts[i])
                else:
                    self.store_at(part, Value(value.type.items[i],
                                              scalar=ir.Field(value.scalar, i)))
            return
        if not hasattr(loc, "buffer"):
            raise CodegenError("a value that is not stored in memory cannot be written to")
        self.emit(ir.Store(loc.buffer, loc.offset, self.scalar(value)))

    def compose(self, fn: Compose, args, path, env, dest) -> Value:
        fns = fn.fns
        last = len(fns) - 1
        # Layout primitives after the last computation act on the destination.
        first_compute = next((i for i, f in enumerate(fns) if not is_layout(f)), None)
        if first_compute is None or dest is None:
            first_compute = -1
        d = dest
        for i in range(0, max(first_compute, 0)):
            d = self.view_before(fns[i], self.typing(path + (i,)).args[0], d)
        value = None
        for i in range(last, -1, -1):
            target = d if i == first_compute else None
            if i < first_compute or (i > first_compute and self.fused(fns, i - 1, path)):
                continue  # in the destination view; or a map the reduction after it reads
            given = args if value is None else [value]
            if self.fused(fns, i, path):
                value = self.reduce_of_map(fns[i], fns[i + 1], given[0], path + (i,),
                                           path + (i + 1,), env, target)
                continue
            value = self.apply(fns[i], given, path + (i,), env, target)
        if first_compute > 0:
            return Value(self.typing(path).result, view=dest)
        return value

    def fused(self, fns: tuple, i: int, path: Path) -> bool:
        """Whether ``fns[i] ∘ fns[i + 1]`` of a composition is a reduction of a map that is
        generated as one loop (``patterns.fused_reduction``)."""
        return 0 <= i < len(fns) - 1 and fused_reduction(
            fns[i], fns[i + 1], lambda: self.typing(path + (i,)).result,
            lambda: self.typing(path + (i + 1, 0)).result)

    # --- values ---------------------------------------------------------------------------
    def value(self, e: Expr, path: Path, env: dict, dest: View | None) -> Value:
        try:
            return self._value(e, path, env, dest)
        except CodegenError as err:
            if self.note is self.root:
                raise err.at(path, e) from None
            raise

    def _value(self, e: Expr, path: Path, env: dict, dest: View | None) -> Value:
        if dest is None and path in self.fetched:  # made by the previous step
            return self.fetched[path]
        if isinstance(e, Var):
            value = env[e.name]
            if dest is not None:
                if value.view is None:
                    raise CodegenError(f"writing {e.name} to an output needs a copy (map id)")
                # a function returning one of its arrays (λ(a, xs). xs): its elements copied
                with self.guarded(self.single()):
                    self.copy(value.view, dest, value.type)
                return Value(value.type, view=dest)
            return value
        if is_literal(e):  # a constant argument (replicate n 1.0)
            typing = self.note.typings.get(path)
            t = typing.result if typing is not None else FLOAT
            return Value(t, scalar=ir.Literal(literal_text(e, t)))
        if isinstance(e, Apply):
            if dest is not None and is_layout(e.fn) and len(e.args) == 1:
                # join (map f xs) written to dest: map f writes through the inverse view
                inner = self.view_before(e.fn, self.typing(path + (0,)).args[0], dest)
                self.value(e.args[0], path + (1,), env, inner)
                return Value(self.typing(path).result, view=dest)
            args = [self.value(a, path + (i + 1,), env, None) for i, a in enumerate(e.args)]
            return self.apply(e.fn, args, path + (0,), env, dest)
        if isinstance(e, BinOp | UnOp):  # scalar code around element reads (q + at 0 a)
            operands = [self.scalar(self.value(c, path + (i,), env, None))
                        for i, c in enumerate(e.children())]
            scalar = ir.Binary(e.op, *operands) if isinstance(e, BinOp) else \
                ir.Unary(e.op, operands[0])
            value = Value(self.typing(path).result, scalar=scalar)
            if dest is not None:
                self.store(dest, value)
            return value
        if isinstance(e, TupleExpr) and dest is not None and _holds_array(self.typing(path).result):
            return self.tuple_to(e, path, env, dest)
        if isinstance(e, TupleExpr):  # a tuple of values (kmeans' (3.4e38, 0, 0))
            parts = tuple(self.value(c, path + (i,), env, None)
                          for i, c in enumerate(e.items))
            t = self.note.typings.get(path)
            value = Value(t.result if t is not None else TupleType(tuple(p.type for p in parts)),
                          parts=parts)
            if dest is not None:
                self.store(dest, value)
            return value
        raise CodegenError(f"cannot generate the value {e} yet")

    def tuple_to(self, e: TupleExpr, path: Path, env: dict, dest: View) -> Value:
        """A tuple holding arrays written to its destination, component by component: a map
        writes its component in place; Lift's ``Unzip() $ xs`` (the tuple of ``map (get k)
        xs``, as its reader writes it) makes xs once, written through the zip of the
        components' destinations."""
        t = self.typing(path).result
        targets = tuple(project(dest, k) for k in range(len(e.items)))
        shared = _unzipped_of(e)
        if shared is not None:
            self.value(shared, path + (0, 1), env, ZipView(targets))
            return Value(t, parts=tuple(Value(item, view=target)
                                        for item, target in zip(t.items, targets)))
        parts = []
        for k, (c, target) in enumerate(zip(e.items, targets)):
            if isinstance(t.items[k], ArrayType) and _writes_in_place(c):
                parts.append(self.value(c, path + (k,), env, target))
                continue
            part = self.value(c, path + (k,), env, None)
            self.store(target, part)
            parts.append(part)
        return Value(t, parts=tuple(parts))

    def at_index(self, index: Value, length: int) -> Index:
        """An index read at run time (``at``), into an array of ``length`` elements (a
        constant index is an index like any other)."""
        scalar = self.scalar(index)
        if isinstance(scalar, ir.Literal) and scalar.text.isdigit():
            return Index.of(int(scalar.text))
        return Index.of(Opaque(scalar, length))

    def layout(self, fn: Prim, typing: Typing, args: list[Value], dest) -> Value:
        view = self.view_through(fn, typing.args[0], args[0].view)
        if dest is not None:
            raise CodegenError(f"{fn.name} as the last step needs a copy (map id) to write")
        return Value(typing.result, view=view)

    def zip(self, typing: Typing, args: list[Value]) -> Value:
        return Value(typing.result, view=ZipView(tuple(a.view for a in args)))

    def replicate(self, typing: Typing, args: list[Value], dest) -> Value:
        (value,) = args
        if dest is not None:
            raise CodegenError("replicate as the last step needs a copy (map id) to write")
        return Value(typing.result, view=replicated(value))

    def writes_local(self, dest: View) -> bool:
        """Whether a view writes local memory only."""
        names = buffers_of(dest)
        return bool(names) and names <= {b.name for b in self.locals}

    def writes_private(self, dest: View) -> bool:
        """Whether a view writes a private temporary of one work-item (not one of the
        work-group, whose parts its work-items own)."""
        return bool(buffers_of(dest) & (self.private - self.group_private))

    def pingpong(self, results: list[Type], space: str) -> list:
        return pingpong(results, lambda t: self.temporary(t, space))

    def reshaped(self, view: View, t: Type) -> View:
        return reshaped(view, shape(t))


def replicated(value: Value) -> View:
    """The view of ``replicate n value``; a tuple (Lift's Value("{3.4e38, 0, 0}") of kmeans)
    as the zip of its replicated components."""
    if value.parts:
        return ZipView(tuple(replicated(p) for p in value.parts))
    return ReplicateView(value.view if value.view is not None else value.scalar)


def project_free(fn: Expr, env: dict) -> tuple[Expr, dict]:
    """``fn`` with the components it reads of tuples of the enclosing scope (``p.1`` of a
    pair of an array and a scalar) made variables of their own, bound in the returned
    environment: a scalar function takes scalars, not arrays."""

    env = dict(env)
    while True:
        found = _free_projection(fn, env, frozenset())
        if found is None:
            return fn, env
        owner, k = found.args[0].name, found.fn.args[0]
        name = fresh_name(f"{owner}_{k}", set(env) | _names(fn))
        env[name] = env[owner].parts[k]
        fn = _replace_free(fn, found, Var(name), frozenset())


def _names(e: Expr) -> set[str]:
    from ..expr import walk

    return {n for _, node in walk(e) for n in (node.names() if isinstance(node, Lambda) else
                                                 (node.name,) if isinstance(node, Var) else ())}


def _free_projection(e: Expr, env: dict, bound: frozenset):
    """A projection ``v.k`` of a free variable v bound to a tuple holding arrays."""
    if isinstance(e, Apply) and isinstance(e.fn, Prim) and e.fn.name == "get" \
            and len(e.args) == 1 and isinstance(e.args[0], Var) \
            and e.args[0].name not in bound:
        value = env.get(e.args[0].name)
        if value is not None and value.parts and not _passable(value):
            return e
    inner = bound | set(e.names()) if isinstance(e, Lambda) else bound
    for child in e.children():
        found = _free_projection(child, env, inner)
        if found is not None:
            return found
    return None


def _passable(value: Value) -> bool:
    """A value a scalar function can take: a scalar, or a tuple of such values."""
    if value.parts:
        return all(_passable(p) for p in value.parts)
    return value.view is None


def _replace_free(e: Expr, old: Expr, new: Expr, bound: frozenset) -> Expr:
    """``e`` with the free occurrences of ``old`` (a projection of a variable) replaced."""
    if e == old and old.args[0].name not in bound:
        return new
    children = e.children()
    if not children:
        return e
    inner = bound | set(e.names()) if isinstance(e, Lambda) else bound
    return e.with_children(tuple(_replace_free(c, old, new, inner) for c in children))


def reads_arrays(fn: Expr, env: dict) -> bool:
    """Whether a function reads an array of the enclosing scope (not only scalars of it,
    which a scalar function takes as parameters)."""
    projected, inner = project_free(fn, env)
    return any(holds_array(inner[v]) for v in projected.free_vars() if v in inner)


def holds_array(v: Value) -> bool:
    """A value that is an array, or a tuple with an array in it."""
    return v.view is not None or any(holds_array(p) for p in v.parts)


def constant(e: Expr) -> ir.Value:
    """A constant of the expression (pad's value) as an IR literal."""
    if not is_literal(e):
        raise CodegenError(f"the padding value {e} must be a constant")
    value = e.value if isinstance(e, Lit) else -e.operand.value
    return ir.Literal(str(value) if isinstance(value, int) else literal_text(e, FLOAT))


def _scalar(t: Type) -> bool:
    return isinstance(t, ScalarType)


def _computes_arrays(fn: Expr) -> bool:
    """Whether a function's body applies array primitives (it is then translated in place,
    not as a function of the program, which computes on scalars only)."""
    from ..expr import walk

    return any(isinstance(n, Prim) and n.decl.category != "scalar" and n.name != "get"
               for _, n in walk(fn))


def _spread(args: list[Value], count: int) -> list[Value]:
    """The arguments of a lambda of ``count`` parameters applied to one tuple (Lift's
    ``fun((row, weights) => …)`` mapped over a zip): the tuple's components."""
    if len(args) != 1 or count < 2 or not isinstance(args[0].type, TupleType) or \
            len(args[0].type.items) != count:
        return args
    (arg,) = args
    if arg.parts:
        return list(arg.parts)
    if arg.scalar is not None:
        return [Value(t, scalar=ir.Field(arg.scalar, i)) for i, t in enumerate(arg.type.items)]
    return args


def _holds_array(t: Type) -> bool:
    return isinstance(t, ArrayType) or (isinstance(t, TupleType) and
                                        any(map(_holds_array, t.items)))


def _unzipped_of(e: TupleExpr) -> Expr | None:
    """xs, when the tuple is ``(map (get 0) xs, map (get 1) xs, …)`` of one xs (the maps
    high-level or lowered to sequential ones)."""
    first = e.items[0]
    if not (isinstance(first, Apply) and len(first.args) == 1):
        return None
    xs = first.args[0]
    for k, item in enumerate(e.items):
        if not (isinstance(item, Apply) and item.args == (xs,) and
                isinstance(item.fn, Prim) and item.fn.name in ("map", "mapSeq") and
                item.fn.args == (Prim("get", (k,)),)):
            return None
    return xs


def _writes_in_place(e: Expr) -> bool:
    """A map applied to its array: it writes its elements to the destination it is given."""
    return isinstance(e, Apply) and isinstance(e.fn, Prim) and e.fn.decl.map_level is not None


def _plain(t: Type) -> bool:
    """A scalar or a tuple of them: what a function of the program computes."""
    return isinstance(t, ScalarType) or (isinstance(t, TupleType) and all(map(_plain, t.items)))
