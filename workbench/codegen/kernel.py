"""Emission of OpenCL kernels from fully low-level expressions (SPEC 6).

No optimisation decision is taken here: every choice was made by rules. Maps become loops
over their OpenCL ids (``mapGlobal`` over ``get_global_id``, ``mapWorkgroup`` over
``get_group_id``, ``mapLocal`` over ``get_local_id`` followed by a barrier, ``mapSeq`` a
plain loop); ``reduceSeq`` an accumulator; layout primitives only change views. Results are
written through *output views*: a ``join`` after a map makes the map write straight into
the joined buffer. ``toLocal``/``toPrivate`` place a result in local/private memory.

The top-level composition is cut into *stages*: each top-level map or sequential reduction
is one kernel launch, the stages communicating through global buffers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..expr import Apply, Compose, Expr, Lambda, Path, Prim, TupleExpr, UserFun, Var, walk
from ..sizes import Size
from ..typecheck import Annotation, Typing
from ..types import FLOAT, INT, ArrayType, ScalarType, TupleType, Type, VectorType, replace_leaf
from . import CodegenError
from .arith import Index, var
from .scalar import CProgram, ScalarCodegenError, c_type, define_function
from .views import (
    LAYOUT,
    BufferView,
    Prefix,
    ReplicateView,
    SplitVecView,
    VecLocation,
    View,
    ZipView,
    buffers_of,
    reshaped,
    view_before,
    view_through,
)

BARRIER = "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"
WARP = 32  # work-items per warp: NVIDIA's warp size; on other devices a grouping
WARPS = "LAUNCH_WARPS"  # replaced by the number of warps of the launch


def launch_size(kind: str, dim: int) -> str:
    """A placeholder for one of the launch's sizes (``global``, ``groups``, ``local``), which
    ``bind_launch`` replaces by its value."""
    return f"LAUNCH_{kind.upper()}_{dim}"


def bind_launch(source: str, global_size: tuple[int, ...],
                local_size: tuple[int, ...] | None) -> str:
    """The kernel source with the placeholders of ``launch_size`` and ``WARPS`` replaced."""
    for dim, n in enumerate(global_size):
        source = source.replace(launch_size("global", dim), str(n))
        if local_size is not None:
            source = source.replace(launch_size("local", dim), str(local_size[dim]))
            source = source.replace(launch_size("groups", dim), str(n // local_size[dim]))
    if local_size is not None:
        source = source.replace(WARPS, str(local_size[0] // WARP))
    if "LAUNCH_" in source:
        raise CodegenError("a loop strides over a dimension the launch does not have")
    return source


@dataclass
class Buffer:
    name: str
    space: str  # "global", "local", "private"
    type: Type  # the array type it holds
    role: str  # "input", "output", "temporary"

    @property
    def length(self) -> int:
        n = 1
        t = self.type
        while isinstance(t, ArrayType | VectorType):
            n *= int(t.size.value)
            t = t.elem
        return n

    @property
    def shape(self) -> tuple[int, ...]:
        out = []
        t = self.type
        while isinstance(t, ArrayType | VectorType):
            out.append(int(t.size.value))
            t = t.elem
        return tuple(out)

    def scalar_dtype(self):
        from ..types import dtype_of

        return dtype_of(self.scalar)

    @property
    def scalar(self) -> ScalarType:
        t = self.type
        while isinstance(t, ArrayType | VectorType):
            t = t.elem
        if not isinstance(t, ScalarType):
            raise CodegenError(f"{self.role} {self.name}: arrays of {t} (one buffer per "
                               f"component) are not supported yet")
        return t


def component_buffers(name: str, t: Type, role: str, space: str = "global"
                      ) -> tuple[list[Buffer], View]:
    """The buffers holding a value of type ``t``: one, or for an array of tuples one per
    tuple component (structure of arrays: ``in0_0``, ``in0_1``, …), and the view that reads
    the value from them (a tuple of locations per element)."""
    leaf = t
    while isinstance(leaf, ArrayType):
        leaf = leaf.elem
    if isinstance(leaf, TupleType) and leaf is not t:
        buffers: list[Buffer] = []
        views = []
        for k, item in enumerate(leaf.items):
            parts, view = component_buffers(f"{name}_{k}", replace_leaf(t, item), role, space)
            buffers += parts
            views.append(view)
        return buffers, ZipView(tuple(views))
    if isinstance(leaf, VectorType):  # stored as scalars, read and written with vloadN
        if not (isinstance(t, ArrayType) and t.elem is leaf):
            raise CodegenError(f"{role} {name}: arrays of arrays of vectors ({t}) are not "
                               f"stored yet")
        buf = Buffer(name, space, t, role)
        return [buf], SplitVecView(int(leaf.size.value), BufferView(name, (buf.length,)))
    buf = Buffer(name, space, t, role)
    return [buf], BufferView(name, buf.shape or (1,))



@dataclass
class Value:
    """A value during generation: an array readable through a view, a scalar C
    expression, or a tuple of values."""

    type: Type
    view: View | None = None
    c: str | None = None
    parts: tuple = ()

    def element(self, i: Index) -> Value:
        t = self.type
        elem = t.elem
        if isinstance(elem, ArrayType):
            return Value(elem, view=Prefix((i,), self.view))
        if isinstance(elem, TupleType) and isinstance(self.view, ZipView):
            # zip of arrays whose elements are themselves arrays: element i of each part
            return Value(elem, parts=tuple(
                Value(ArrayType(item, t.size), view=part).element(i)
                for item, part in zip(elem.items, self.view.parts)))
        return _leaf(elem, self.view.access([i]))  # a scalar, a vector (vload) or a tuple


def _leaf(t: Type, loc) -> Value:
    if isinstance(loc, tuple):
        return Value(t, parts=tuple(_leaf(item, l) for item, l in zip(t.items, loc)))
    return Value(t, c=str(loc))


@dataclass
class Kernel:
    name: str
    source_lines: list[str] = field(default_factory=list)
    locals_: list[Buffer] = field(default_factory=list)
    barriers: list = field(default_factory=list)  # (line, enclosing loops) of each barrier
    global_size: int = 1
    local_size: int | None = None


class Emitter:
    def __init__(self, name: str, note: Annotation, cprog: CProgram,
                 global_buffers: list[Buffer] | None = None):
        self.name = name
        self.global_buffers = global_buffers if global_buffers is not None else []
        self.note = note
        self.cprog = cprog
        self.kernel: Kernel | None = None
        self.indent = 1
        self.counter = 0
        self.parallel: list[tuple[str, int]] = []  # enclosing (level, extent)
        self.wg_size: dict[int, int] = {}  # per dimension: work-items of a group
        self.uses_warps = False
        self.warps: list[tuple[str, int]] = []  # enclosing warp loops: (index, count)
        self.singles = 0  # enclosing loops run by one work-item of a warp or work-group
        self.groups: dict[int, int] = {}  # per dimension: work-groups
        self.globals_: dict[int, int] = {}  # per dimension: work-items of global maps
        self.private: set[str] = set()  # temporaries in private memory

    # --- helpers --------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, line: str) -> None:
        self.kernel.source_lines.append("    " * self.indent + line)

    def index_fn(self, e: Expr, length: int | None = None):
        """gather/scatter's index function as a C function (C text of i → C text of f i),
        or, without a length, the C text of a constant (pad's value)."""
        if length is None:
            if not _literal(e):
                raise CodegenError(f"the padding value {e} must be a constant")
            value = e.value if hasattr(e, "value") else -e.operand.value
            return str(value) if isinstance(value, int) else _literal_c(e, FLOAT)
        arity = len(e.params) if isinstance(e, Lambda) else 1
        name = define_function(e, [INT] * arity, self.cprog, name=self.fresh(f"{self.name}_index"))
        if arity == 2:
            return lambda i: f"{name}({i}, {length})"
        return lambda i: f"{name}({i})"

    def copy(self, src: View, dest: View, t: Type) -> None:
        """Element-wise copy by this work-item (loops over the array levels of t)."""
        shape = _shape(t)
        idx = []
        for n in shape:
            i = self.fresh("c")
            self.emit(f"for (int {i} = 0; {i} < {n}; {i}++) {{")
            self.indent += 1
            idx.append(var(i, n))
        leaf = t
        while isinstance(leaf, ArrayType):
            leaf = leaf.elem
        self.store_at(dest.access(idx), _leaf(leaf, src.access(idx)))
        for _ in shape:
            self.indent -= 1
            self.emit("}")

    def barrier(self) -> None:
        self.kernel.barriers.append((len(self.kernel.source_lines), tuple(self.parallel)))
        self.emit(BARRIER)

    def typing(self, path: Path):
        typing = self.note.typings.get(path)
        if typing is None:
            raise CodegenError(f"no type for node {path}")
        return typing

    # --- memory ---------------------------------------------------------------------------
    def in_work_item(self) -> bool:
        """Inside the loop of a map over work-items (global, local or lane ids): code that
        each work-item runs on its own, where no barrier may stand."""
        return any(loop[0] in ("global", "local", "lane") for loop in self.parallel)

    def temporary_space(self) -> str:
        """Where an intermediate result goes: a work-item's own values in private memory,
        values of a work-group (or warp) in local memory, which all its work-items read,
        and at the top level global memory."""
        if not self.parallel:
            return "global"
        return "private" if self.in_work_item() else "local"

    def check_shared_temporary(self, fn: Prim) -> None:
        """A temporary written by parallel work-items and then read inside one work-item's
        loop would need a barrier between them, which cannot stand there."""
        if self.in_work_item():
            raise CodegenError(f"{_short(fn)} inside a work-item's loop: its parallel map "
                               f"writes a temporary that is read before any barrier can "
                               f"separate them; write to the enclosing destination instead")

    def temporary(self, t: Type, space: str) -> View:
        if space == "global" and self.parallel:
            raise CodegenError("a temporary in global memory inside a map is not supported "
                               "yet; use toLocal or toPrivate")
        name = self.fresh({"global": "tmp", "local": "lcl", "private": "prv"}[space])
        if space == "local" and self.warps:  # one copy per warp of the work-group
            index, count = self.warps[-1]
            buffers, view = component_buffers(name, ArrayType(t, Size.const(count)),
                                               "temporary", space)
            view = Prefix((var(index, count),), view)
        else:
            buffers, view = component_buffers(name, t, "temporary", space)
        for buf in buffers:
            if space == "global":
                self.global_buffers.append(buf)  # every kernel of the program receives it
            elif space == "local":
                self.kernel.locals_.append(buf)
            else:
                self.emit(f"{c_type(buf.scalar, self.cprog)} {buf.name}[{buf.length}];")
                self.private.add(buf.name)
        return view

    # --- functions ------------------------------------------------------------------------
    def apply(self, fn: Expr, args: list[Value], path: Path, env: dict,
              dest: View | None) -> Value:
        typing = self.typing(path)
        result = typing.result
        if isinstance(fn, Compose):
            return self.compose(fn, args, path, env, dest)
        if isinstance(fn, Apply):  # a partial application such as (dot xs) row
            own = [self.value(a, path + (i + 1,), env, None) for i, a in enumerate(fn.args)]
            return self.apply(fn.fn, own + list(args), path + (0,), env, dest)
        if isinstance(fn, Lambda) and (not _scalar(result) or any(a.view for a in args)):
            inner = dict(env)
            params = fn.params
            for pattern, value in zip(params, args):
                self.bind(pattern, value, inner)
            rest = args[len(params):]
            if rest:
                return self.apply(fn.body, rest, path + (0,), inner, dest)
            return self.value(fn.body, path + (0,), inner, dest)
        if isinstance(fn, UserFun) and fn.body is not None and any(a.view for a in args):
            return self.inline(fn, args, typing, env, dest)
        if isinstance(fn, Prim) and fn.name == "id" and args[0].view is None:
            if dest is not None:  # a copy of a scalar (mapSeq id)
                self.store(dest, [], args[0])
            return args[0]
        if isinstance(fn, Prim) and fn.decl.category != "scalar" and fn.name != "get":
            return self.primitive(fn, args, path, env, dest)
        if isinstance(fn, Prim) and fn.name == "get" and args[0].parts:
            return args[0].parts[fn.args[0]]
        # a scalar function
        if not _scalar(result) and not isinstance(result, TupleType):
            raise CodegenError(f"cannot generate {fn} yet")
        c = self.scalar_call(fn, args, typing, env)
        value = Value(result, c=c)
        if dest is not None:
            self.store(dest, [], value)
        return value

    def inline(self, fn: UserFun, args: list[Value], typing, env, dest) -> Value:
        """A user function taking an array (md's ``updateF … ps``) is generated in place: C
        functions take scalars and structs only."""
        from ..typecheck import annotate

        outer = self.note
        self.note = annotate(fn.body, *typing.args)
        try:
            return self.apply(fn.body, args, (), {}, dest)
        finally:
            self.note = outer

    def scalar_call(self, fn: Expr, args: list[Value], typing, env: dict | None = None) -> str:
        """A call of a scalar function; its free variables (``a`` in ``(*a)``) become extra
        parameters of the C function."""
        free = sorted(fn.free_vars()) if not isinstance(fn, UserFun) else []
        if isinstance(fn, UserFun) or (isinstance(fn, Lambda) and not free):
            target = fn
            extra: list[Value] = []
        else:
            names = [f"a{i}" for i in range(len(args))]
            target = Lambda(tuple(free) + tuple(names),
                            Apply(fn, tuple(Var(n) for n in names)))
            missing = [v for v in free if v not in (env or {})]
            if missing:
                raise CodegenError(f"{fn} uses {', '.join(missing)}, which is not a scalar "
                                   f"value here")
            extra = [env[v] for v in free]
        arg_types = [v.type for v in extra] + list(typing.args)
        base = getattr(fn, "name", None) or f"{self.name}_f"
        try:
            name = define_function(target, arg_types, self.cprog,
                                   name=base if isinstance(fn, UserFun) else self.fresh(base))
        except ScalarCodegenError as err:
            raise CodegenError(f"{_short(fn)}: {err}") from None
        return f"{name}({', '.join(self.scalar_text(a) for a in extra + args)})"

    def scalar_text(self, v: Value) -> str:
        if v.c is not None:
            return v.c
        if v.parts and isinstance(v.type, TupleType):
            items = ", ".join(self.scalar_text(p) for p in v.parts)
            return f"(({c_type(v.type, self.cprog)}){{{items}}})"
        raise CodegenError(f"a value of type {v.type} cannot be passed to a scalar function")

    def bind(self, pattern, value: Value, env: dict) -> None:
        if isinstance(pattern, str):
            env[pattern] = value
        else:
            for p, part in zip(pattern, value.parts):
                self.bind(p, part, env)

    def single(self) -> str | None:
        """Inside a warp (work-group) but outside its lanes (work-items), sequential work is
        done by the first lane (work-item) alone: the condition that selects it."""
        level = self.parallel[-1][0] if self.parallel else None
        if level == "warp":
            return f"get_local_id(0) % {WARP} == 0 && {self.warps[-1][0]} < {self.warps[-1][1]}"
        if level == "workgroup":
            return "get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0"
        return None

    def store(self, dest: View, idx: list[Index], value: Value) -> None:
        first = self.single()
        if first is not None:
            # The others wait for the value before they read it.
            self.emit(f"if ({first}) {{")
            self.indent += 1
            self.store_at(dest.access(idx), value)
            self.indent -= 1
            self.emit("}")
            self.barrier()
            return
        loc = dest.access(idx)
        self.store_at(loc, value)

    def store_at(self, loc, value: Value) -> None:
        """Write a value to a location; a tuple goes component by component (to one buffer
        per component, or to the fields of a struct)."""
        if isinstance(loc, VecLocation):
            self.emit(loc.store(self.scalar_text(value)))
            return
        if isinstance(loc, tuple):
            if not value.parts and not value.c.isidentifier():  # compute a struct once
                name = self.fresh("t")
                self.emit(f"{c_type(value.type, self.cprog)} {name} = {value.c};")
                value = Value(value.type, c=name)
            for i, part in enumerate(loc):
                if value.parts:
                    self.store_at(part, value.parts[i])
                else:
                    self.store_at(part, Value(value.type.items[i],
                                              c=f"{self.scalar_text(value)}._{i}"))
        else:
            self.emit(f"{loc} = {self.scalar_text(value)};")

    def compose(self, fn: Compose, args, path, env, dest) -> Value:
        fns = fn.fns
        last = len(fns) - 1
        # Layout primitives after the last computation act on the destination.
        first_compute = next((i for i, f in enumerate(fns) if not _layout(f)), None)
        if first_compute is None or dest is None:
            first_compute = -1
        d = dest
        for i in range(0, max(first_compute, 0)):
            d = view_before(fns[i], self.typing(path + (i,)).args[0], d, self.index_fn)
        value = None
        for i in range(last, -1, -1):
            target = d if i == first_compute else None
            if i < first_compute:
                continue  # its effect is already in the destination view
            value = self.apply(fns[i], args if value is None else [value], path + (i,), env,
                               target)
        if first_compute > 0:
            return Value(self.typing(path).result, view=dest)
        return value

    # --- values ---------------------------------------------------------------------------
    def value(self, e: Expr, path: Path, env: dict, dest: View | None) -> Value:
        if isinstance(e, Var):
            if dest is not None:
                raise CodegenError(f"writing {e.name} to an output needs a copy (map id)")
            return env[e.name]
        if _literal(e):  # a constant argument (replicate n 1.0)
            typing = self.note.typings.get(path)
            t = typing.result if typing is not None else FLOAT
            return Value(t, c=_literal_c(e, t))
        if isinstance(e, Apply):
            if dest is not None and _layout(e.fn) and len(e.args) == 1:
                # join (map f xs) written to dest: map f writes through the inverse view
                inner = view_before(e.fn, self.typing(path + (0,)).args[0], dest, self.index_fn)
                self.value(e.args[0], path + (1,), env, inner)
                return Value(self.typing(path).result, view=dest)
            args = [self.value(a, path + (i + 1,), env, None) for i, a in enumerate(e.args)]
            return self.apply(e.fn, args, path + (0,), env, dest)
        raise CodegenError(f"cannot generate the value {e} yet")

    # --- primitives -----------------------------------------------------------------------
    def primitive(self, fn: Prim, args, path, env, dest) -> Value:
        name = fn.name
        typing = self.typing(path)
        result = typing.result
        if name in LAYOUT:
            v = Value(result, view=view_through(fn, typing.args[0], args[0].view,
                                                self.index_fn))
            if dest is not None:
                raise CodegenError(f"{name} as the last step needs a copy (map id) to write")
            return v
        if name == "zip":
            return Value(result, view=ZipView(tuple(a.view for a in args)))
        if name == "replicate":
            (value,) = args
            if value.parts:
                raise CodegenError("replicate of a tuple is not generated")
            v = Value(result, view=ReplicateView(value.view if value.view is not None
                                                 else value.c))
            if dest is not None:
                raise CodegenError("replicate as the last step needs a copy (map id) to write")
            return v
        if name == "at":  # xs[i] with i computed at run time
            index, array = args
            value = array.element(var(f"({self.scalar_text(index)})"))
            if dest is not None:
                self.store(dest, [], value)
            return value
        if name in ("toGlobal", "toLocal", "toPrivate"):
            space = fn.decl.extra["address_space"]
            shared = _parallel_inside(fn.args[0])
            if (dest is None or space != "global") and shared:
                self.check_shared_temporary(fn)
            if dest is not None and space != "global":
                # computed in the chosen memory, then copied to where the caller wants it
                temporary = self.temporary(result, space)
                self.apply(fn.args[0], args, path + (0,), env, temporary)
                self.copy(temporary, dest, result)
                if shared:  # nobody overwrites the temporary before all have copied it
                    self.barrier()
                return Value(result, view=dest)
            if dest is None:
                dest = self.temporary(result, space)
            self.apply(fn.args[0], args, path + (0,), env, dest)
            return Value(result, view=dest)
        if dest is None and name == "iterate":
            return self.iterate(fn, args[0], env, None)
        level = fn.decl.extra.get("map_level")
        if dest is None:
            if self.parallel and (level in ("global", "workgroup") or
                                  (level in ("local", "warp", "lane") and self.in_work_item())):
                # its elements would be computed by other work-items, in their own memory
                raise CodegenError(f"{name} inside a work-item's code must write its result "
                                   f"where it goes (global memory), not to a temporary that "
                                   f"this work-item reads")
            dest = self.temporary(result, self.temporary_space())
        if level == "vector":  # mapVec f: f lane-wise on a SIMD value
            value = Value(result, c=self.scalar_call(fn.args[0], args, typing, env))
            self.store(dest, [], value)
            return Value(result, view=dest)
        if level is not None:
            self.map_loop(fn, level, args[0], path, env, dest)
        elif name in ("reduceSeq", "reduceSeqUnroll"):
            self.reduce_seq(fn, args[0], path, env, dest)
        elif name == "iterate":
            return self.iterate(fn, args[0], env, dest)
        else:
            raise CodegenError(f"{name} cannot be generated yet (high-level or unsupported)")
        return Value(result, view=dest)

    def map_loop(self, fn: Prim, level: str, arg: Value, path, env, dest: View) -> None:
        n = int(arg.type.size.value)
        dim = fn.args[0] if fn.decl.params[0].kind == "dim" else 0
        if level == "any":
            raise CodegenError("map is high-level: lower it first (map→mapGlobal, …) or use "
                               "the default completion")
        i = self.fresh({"global": "gl", "workgroup": "wg", "local": "l", "seq": "i",
                        "warp": "w", "lane": "ln", "vector": "v"}[level])
        # The strides are the launch's sizes, filled in as constants once it is planned:
        # PoCL miscompiles some loops striding by get_local_size() around barriers.
        start, step = {
            "global": (f"get_global_id({dim})", launch_size("global", dim)),
            "workgroup": (f"get_group_id({dim})", launch_size("groups", dim)),
            "local": (f"get_local_id({dim})", launch_size("local", dim)),
            "lane": (f"get_local_id(0) % {WARP}", f"{WARP}"),
        }.get(level, ("0", "1"))
        if level == "warp":
            start, step = f"get_local_id(0) / {WARP}", WARPS
        if level in ("global", "workgroup", "local", "warp", "lane") and \
                buffers_of(dest) & self.private:
            # other work-items would compute elements of this work-item's private array
            raise CodegenError(f"{fn.name} writes a private temporary of one work-item; its "
                               f"elements would be computed by other work-items (write to "
                               f"local or global memory instead)")
        condition = f"{i} < {n}"
        uniform = None
        if level == "warp":
            if self.warps:
                raise CodegenError("mapWarp inside mapWarp cannot be generated")
            # Every work-item runs the same number of iterations, counted by a variable and
            # a bound that are the same for all (the barriers of the lanes inside are
            # reached uniformly; PoCL needs to see that); warps beyond n only skip their
            # lane loops. The number of warps is known once the launch is planned.
            uniform = self.fresh("k")
            self.uses_warps = True
        elif level == "lane":
            if not self.warps:
                raise CodegenError("mapLane must be inside a mapWarp")
            condition += f" && {self.warps[-1][0]} < {self.warps[-1][1]}"
        if level in ("local", "lane", "warp") and self.singles:
            raise CodegenError(f"{fn.name} inside sequential code of a single work-item")
        parallel_inside = any(isinstance(n, Prim) and n.decl.extra.get("map_level") in
                              ("local", "warp", "lane") for _, n in walk(fn))
        # a sequential loop around local maps is run by all work-items alike
        first = self.single() if level == "seq" and not parallel_inside else None
        self.emit(f"/* {_short(fn)} */")
        if first is not None:
            # The guard encloses the loop: in the loop's condition PoCL miscompiles it when
            # barriers follow (seen with warps).
            self.emit(f"if ({first}) {{")
            self.indent += 1
        if uniform is not None:
            self.emit(f"for (int {uniform} = 0; {uniform} * {WARPS} < {n}; {uniform}++) {{")
            self.emit(f"    int {i} = {start} + {uniform} * {WARPS};")
        else:
            self.emit(f"for (int {i} = {start}; {condition}; {i} += {step}) {{")
        self.indent += 1
        self.parallel.append((level, n, dim))
        self.singles += first is not None
        if level == "warp":
            self.warps.append((i, n))
        if level == "global":
            self.globals_[dim] = max(self.globals_.get(dim, 1), n)
        elif level == "workgroup":
            self.groups[dim] = max(self.groups.get(dim, 1), n)
        elif level == "local":
            self.wg_size[dim] = max(self.wg_size.get(dim, 1), n)
        elif level == "warp":
            self.wg_size[0] = max(self.wg_size.get(0, 1), n * WARP)
        index = var(i, n)
        element = arg.element(index)
        out_elem = Prefix((index,), dest)
        f = fn.args[-1]
        produced = self.typing(path + (0,)).result
        if _scalar(produced) or isinstance(produced, TupleType):
            value = self.apply(f, [element], path + (0,), env, None)
            self.store(out_elem, [], value)
        else:
            self.apply(f, [element], path + (0,), env, out_elem)
        self.parallel.pop()
        self.singles -= first is not None
        if level == "warp":
            self.warps.pop()
        self.indent -= 1
        self.emit("}")
        if first is not None:
            self.indent -= 1
            self.emit("}")
        nested = any(loop[0] == level for loop in self.parallel)  # the outer one synchronises
        if (level in ("local", "lane") and not nested) or first is not None:
            # A lane map synchronises too: neither PoCL nor GPUs since NVIDIA Volta run the
            # lanes of a warp in lock-step, so the barrier-free warp code of the papers would
            # race there. The warp loop is uniform, so every work-item reaches it.
            self.barrier()

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
        if len(notes) > 1 and _parallel_inside(f):
            self.check_shared_temporary(fn)
        space = self.temporary_space()
        value = arg
        outer_note = self.note
        buffers = pingpong(notes, lambda t: self.temporary(t, space)) if len(notes) > 1 else []
        for k, note in enumerate(notes):
            self.note = note
            try:
                target = dest if k == len(notes) - 1 else \
                    reshaped(buffers[k % 2], _shape(note.result))
                value = self.apply(f, [value], (), env, target)
            finally:
                self.note = outer_note
        return value

    def step_in_place(self, f: Expr, env: dict, acc: Value, element: Value) -> Value:
        """One step of a reduction whose operator uses arrays of the enclosing scope: the
        operator is typed on its own, its free variables becoming parameters."""
        from ..typecheck import annotate

        free = sorted(v for v in f.free_vars() if v in env)
        names = ("acc_", "x_")
        wrapper = Lambda(tuple(free) + names, _operator_call(f, Var(names[0]), Var(names[1])))
        outer = self.note
        self.note = annotate(wrapper, *(env[v].type for v in free), acc.type, element.type)
        try:
            return self.apply(wrapper, [env[v] for v in free] + [acc, element], (), {}, None)
        finally:
            self.note = outer

    def reduce_seq(self, fn: Prim, arg: Value, path, env, dest: View) -> None:
        n = int(arg.type.size.value)
        acc_type = self.typing(path).result.elem
        f, z = fn.args
        acc = self.fresh("acc")
        if _literal(z):
            init = _literal_c(z, acc_type)
        else:  # a closed expression such as (0.0, 0.0, 0.0): a function of a dummy argument
            init = self.scalar_call(Lambda(("_",), z), [Value(INT, c="0")],
                                    Typing((INT,), acc_type), env)
        self.emit(f"/* {_short(fn)} */")
        self.emit(f"{c_type(acc_type, self.cprog)} {acc} = {init};")
        i = self.fresh("i")
        first = self.single()  # the store after the loop is guarded by the same condition
        if first:
            self.emit(f"if ({first}) {{")
            self.indent += 1
        self.emit(f"for (int {i} = 0; {i} < {n}; {i}++) {{")
        self.indent += 1
        element = arg.element(var(i, n))
        pair = TupleType((acc_type, arg.type.elem))
        arrays = sorted(v for v in f.free_vars() if v in env and env[v].view is not None)
        if arrays:  # the operator reads arrays (md's neighbour positions): generate in place
            step = self.step_in_place(f, env, Value(acc_type, c=acc), element)
            self.emit(f"{acc} = {self.scalar_text(step)};")
        else:
            call = self.scalar_call(f, [Value(pair, parts=(Value(acc_type, c=acc), element))],
                                    Typing((pair,), acc_type), env)
            self.emit(f"{acc} = {call};")
        self.indent -= 1
        self.emit("}")
        if first:
            self.indent -= 1
            self.emit("}")
        self.store(Prefix((Index.of(0),), dest), [], Value(acc_type, c=acc))


def iteration_types(fn: Prim, t: Type) -> list:
    """The typing of each application of f in ``iterate n f`` on an input of type t."""
    from ..typecheck import annotate

    count = fn.args[0]
    if not count.is_integer_constant:
        raise CodegenError("iterate needs a known number of iterations")
    notes = []
    for _ in range(int(count.value)):
        notes.append(annotate(fn.args[1], t))
        t = notes[-1].result
    return notes


def pingpong(notes: list, allocate) -> list:
    """The two buffers that the iterations of ``iterate`` write in turn, each large enough
    for the largest intermediate result it holds."""
    results = [note.result for note in notes[:-1]]
    buffers = []
    for parity in (0, 1):
        mine = results[parity::2]
        if not mine:
            break
        largest = max(mine, key=lambda t: _count(t))
        leaf = largest
        while isinstance(leaf, ArrayType):
            leaf = leaf.elem
        buffers.append(allocate(ArrayType(leaf, Size.const(_count(largest)))))
    return buffers


def _count(t: Type) -> int:
    n = 1
    while isinstance(t, ArrayType):
        n, t = n * int(t.size.value), t.elem
    return n


def _shape(t: Type) -> tuple[int, ...]:
    out = []
    while isinstance(t, ArrayType):
        out.append(int(t.size.value))
        t = t.elem
    return tuple(out)


def _parallel_inside(e: Expr) -> bool:
    """Whether some map of e runs over work-items (its elements computed by several)."""
    return any(isinstance(n, Prim) and n.decl.extra.get("map_level") in
               ("global", "workgroup", "local", "warp", "lane") for _, n in walk(e))


def _operator_call(f: Expr, acc: Expr, x: Expr) -> Expr:
    """``f`` applied to an accumulator and an element, as reduceSeq applies it."""
    if isinstance(f, Lambda) and len(f.params) == 2:
        return Apply(f, (acc, x))
    return Apply(f, (TupleExpr((acc, x)),))


def _literal(e: Expr) -> bool:
    from ..expr import Lit, UnOp

    return isinstance(e, Lit) or (isinstance(e, UnOp) and isinstance(e.operand, Lit))


def _literal_c(e: Expr, t: Type) -> str:
    from ..expr import Lit
    from .scalar import literal

    value = e.value if isinstance(e, Lit) else -e.operand.value
    return literal(value, t)


def _scalar(t: Type) -> bool:
    return isinstance(t, ScalarType)


def _layout(f: Expr) -> bool:
    return isinstance(f, Prim) and f.name in LAYOUT


def _short(e: Expr) -> str:
    text = str(e)
    return (text if len(text) <= 70 else text[:67] + "...").replace("*/", "* /")

