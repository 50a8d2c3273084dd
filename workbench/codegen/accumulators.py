"""Sequential reductions whose accumulator is an array (CASES 2016's register blocks): the
accumulator is a buffer — private to a work-item, or private to each work-item of a
work-group for the part its local maps own (``distribute``), or local memory — and the
operator writes the next accumulator into it in place.

``reduceSeq f z xs`` with ``z : [A]_n``:

- the initial value: ``replicate n 0`` is written into a new buffer; a value the program
  computed (``toPrivate (mapLocal … id) (replicate …)``) is that buffer; an array the
  reduction shares with the enclosing code (the block of an enclosing accumulator, ``λ(acc,
  x). reduceSeq f acc …``) is used where it is when the reduction's result goes there too,
  else copied;
- each step applies ``f`` to the accumulator and an element, writing into the accumulator.
  That is only right when every element of the accumulator is read by the statements that
  write it and nowhere else (``map g (zip acc x)``): otherwise the step writes a second
  buffer and copies it back;
- the result is the buffer itself (a one-element array of it), or copied to where the
  reduction's result goes.

Nothing is decided here: the address space comes from where the reduction stands (or from
the ``toPrivate``/``toLocal`` of a computed initial value), as for every temporary.

A ``prefetch c e`` in the operator of a work-group's reduction (outside its maps, e reading
only the element) is made one step ahead (double buffering): for element 0 before the loop,
into private memory of its own, and in each step for element i + 1 (mod n: the last step
makes element 0 again, which nobody reads) into that same memory, right after the last
statement of the step that reads it — after the copy into local memory, before the
computation, whose latency then covers the loads. Elsewhere it is a ``toPrivate``.
"""

from __future__ import annotations

from ..expr import Apply, Expr, Lambda, Prim, Var, subterm, walk
from ..types import ArrayType, Type
from . import CodegenError, ir
from .arith import Index, var
from .patterns import is_literal, literal_text, parallel_inside, short
from .values import Value, bind, shape
from .views import Location, Prefix, ReplicateView, View, buffers_of


def _names(pattern) -> tuple[str, ...]:
    return (pattern,) if isinstance(pattern, str) else tuple(
        n for p in pattern for n in _names(p))


def literal_init(z: Expr) -> Expr | None:
    """The literal of ``replicate n (replicate m … lit)``, or None."""
    while isinstance(z, Apply) and isinstance(z.fn, Prim) and z.fn.name == "replicate" \
            and len(z.args) == 1:
        z = z.args[0]
    return z if is_literal(z) else None


def same_storage(a: View, b: View, t: Type) -> bool:
    """Whether two views of arrays of type t name the same elements in the same order."""
    probe = [var(f"_same{i}", n) for i, n in enumerate(shape(t))]
    try:
        return a.access(probe) == b.access(probe)
    except CodegenError:
        return False


class ArrayAccumulators:
    """Mixed into the kernel builder (``kernel.KernelBuilder``)."""

    def reduce_seq_array(self, fn: Prim, arg: Value, path, env, dest: View | None) -> Value:
        n = int(arg.type.size.value)
        result = self.typing(path).result
        acc_type = result.elem
        f, z = fn.args
        parallel = parallel_inside(f)
        # a reduction whose operator has no map over work-items is one work-item's code
        scope = None if parallel else self.single()
        with self.guarded(scope):
            storage, in_place = self._accumulator(z, path, env, dest, acc_type, parallel)
            i = self.fresh("i")
            fetches = self._prefetches(f, path, env) if parallel else []
            fetched = {p: self._fetch(f, node, p, env, arg.element(Index.of(0)), None)
                       for p, node in fetches}
            with self.block() as body:
                element = arg.element(var(i, n))
                self.fetched.update(fetched)
                try:
                    self._step(f, storage, element, path, env, acc_type)
                finally:
                    for p in fetched:
                        del self.fetched[p]
            if fetched:
                body[:] = self._ahead(body, fetches, fetched, f, env,
                                      arg.element((var(i, n) + 1) % n))
            form = "unrolled" if fn.decl.unrolled else "seq"
            self.emit(ir.Loop(i, form, n, tuple(body), step=1, origin=short(fn),
                              path=self.here(path)))
            if dest is None or in_place:
                return Value(result, view=ReplicateView(storage))
            if self._group_private(storage):
                raise CodegenError(
                    f"{short(fn)}: its accumulator is spread over the work-items of the group "
                    f"(private memory); copy it out with the local maps that own it (toGlobal "
                    f"(mapLocal … id))")
            with self.guarded(self.single()):
                self.copy(storage, Prefix((Index.of(0),), dest), acc_type)
            return Value(result, view=dest)

    def scan_seq_array(self, fn: Prim, arg: Value, path, env, dest: View) -> None:
        """``scanSeq f z`` whose accumulator is an array (Lift's scan of rows from
        ``Value(0.0f, ArrayType(Float, m))``): the accumulator is updated as ``reduceSeq``'s
        is, and each prefix copied out after its step."""
        n = int(arg.type.size.value)
        acc_type = self.typing(path).result.elem
        f, z = fn.args
        if parallel_inside(f):
            raise CodegenError(f"{short(fn)}: a scan of arrays is one work-item's loop; its "
                               f"operator cannot hold maps over work-items")
        with self.guarded(self.single()):
            storage, _ = self._accumulator(z, path, env, None, acc_type, False)
            i = self.fresh("i")
            with self.block() as body:
                index = var(i, n)
                self._step(f, storage, arg.element(index), path, env, acc_type)
                self.copy(storage, Prefix((index,), dest), acc_type)
            self.emit(ir.Loop(i, "seq", n, tuple(body), step=1, origin=short(fn),
                              path=self.here(path)))

    # --- prefetching (``prefetch``) -----------------------------------------------------
    def _prefetches(self, f: Expr, path, env) -> list[tuple[tuple, Apply]]:
        """The ``prefetch c e`` of the operator ``λ(acc, x). …`` whose ``e`` reads only x
        (and names from outside the reduction), outside any map: each step can make it for
        the next element. Their paths in the expression, in the order of the operator."""
        if not (isinstance(f, Lambda) and len(f.params) == 1 and isinstance(f.params[0], tuple)
                and len(f.params[0]) == 2):
            return []
        element_names = set(_names(f.params[0][1]))
        outside = set(env) - set(_names(f.params[0][0]))
        found = []
        for rel, node in walk(f.body):
            if not (isinstance(node, Apply) and isinstance(node.fn, Prim) and node.fn.decl.ahead
                    and len(node.args) == 1):
                continue
            free = node.free_vars()
            if not free & element_names or not free <= element_names | outside:
                continue
            if any(isinstance(a, Prim) and (a.decl.map_level or a.decl.kernel)
                   for a in (subterm(f.body, rel[:k]) for k in range(len(rel)))):
                continue  # made inside a map or a loop: once per iteration of it
            found.append((path + (0, 0) + rel, node))
        return found

    def _fetch(self, f: Lambda, node: Apply, p: tuple, env: dict, element: Value,
               into: Value | None) -> Value:
        """``prefetch c e`` for one element: into a new private buffer, or into ``into``."""
        inner = dict(env)
        bind(f.params[0][1], element, inner)
        if into is None:
            return self.value(node, p, inner, None)
        source = self.value(node.args[0], p + (1,), inner, None)
        self.apply(node.fn.args[0], [source], p + (0, 0), inner, into.view)
        return into

    def _ahead(self, body: list, fetches, fetched: dict, f: Lambda, env: dict,
               following: Value) -> list:
        """The step's statements with the copies of the following element made right after
        the last statement that reads the current ones (the last step makes element 0
        again, which nobody reads)."""
        names = set().union(*(buffers_of(v.view) for v in fetched.values()))
        last = max((k for k, stmt in enumerate(body)
                    if any(load.buffer in names for s, _ in ir.statements((stmt,))
                           for load in ir.stmt_loads(s))), default=len(body) - 1)
        with self.block() as made:
            for p, node in fetches:
                self._fetch(f, node, p, env, following, fetched[p])
        return body[:last + 1] + made + body[last + 1:]

    # --- the accumulator ----------------------------------------------------------------
    def _accumulator(self, z: Expr, path, env, dest, acc_type: Type, parallel: bool
                     ) -> tuple[View, bool]:
        """Where the accumulator lives, with its initial value written, and whether that is
        ``dest`` itself (the result is then already in place)."""
        literal = literal_init(z)
        if literal is not None:
            storage = self._new_accumulator(acc_type, parallel, z)
            self._fill(storage, acc_type, ir.Literal(literal_text(literal,
                                                                  ir.element_type(acc_type))))
            return storage, False
        existing = self.private | {b.name for b in self.locals}
        start = env[z.name] if isinstance(z, Var) else self.value(z, path + (1,), env, None)
        if start.view is None:
            raise CodegenError(f"the initial value {short(z)} of an array accumulator is not "
                               f"an array here")
        target = Prefix((Index.of(0),), dest) if dest is not None else None
        if target is not None and same_storage(start.view, target, acc_type):
            return target, True  # reduceSeq f acc xs, written back to acc
        fresh = buffers_of(start.view) - existing
        if fresh and buffers_of(start.view) <= fresh and self._owned(start.view):
            return start.view, False  # computed for this reduction: its own buffer
        storage = self._new_accumulator(acc_type, parallel, z)
        with self.guarded(self.single()):
            self.copy(start.view, storage, acc_type)
        return storage, False

    def _new_accumulator(self, t: Type, parallel: bool, z: Expr) -> View:
        if parallel and not self.in_work_item() and self.loops:
            # the work-items of a group update it together: local memory, unless the
            # program computed it into private memory by the maps that own its parts
            return self.temporary(t, "local")
        return self.temporary(t, "private")

    def _fill(self, storage: View, t: Type, value: ir.Value) -> None:
        idx = [(self.fresh("c"), n) for n in shape(t)]
        with self.block() as body:
            self.store_at(storage.access([var(i, n) for i, n in idx]),
                          Value(ir.element_type(t), scalar=value))
        stmts = tuple(body)
        for i, n in reversed(idx):
            stmts = (ir.Loop(i, "seq", n, stmts, step=1),)
        with self.guarded(self.single()):
            for stmt in stmts:
                self.emit(stmt)

    def _owned(self, view: View) -> bool:
        """A view of a temporary of this kernel's own (private or local memory)."""
        names = buffers_of(view)
        return bool(names) and names <= (self.private | {b.name for b in self.locals})

    def _group_private(self, view: View) -> bool:
        return bool(buffers_of(view) & self.group_private)

    # --- one step -------------------------------------------------------------------------
    def _step(self, f: Expr, storage: View, element: Value, path, env, acc_type) -> None:
        acc = Value(acc_type, view=storage)
        with self.block() as body:
            self.apply_operator(f, acc, element, path, env, storage)
        names = buffers_of(storage)
        if in_place(tuple(body), names):
            for stmt in body:
                self.emit(stmt)
            return
        if self._group_private(storage):
            raise CodegenError(
                f"{short(f)} reads elements of the accumulator other than the one it writes, "
                f"so it cannot update it in place; an accumulator spread over the work-items "
                f"of a group cannot be copied between them")
        space = "private" if names <= self.private else "local"
        scratch = self.temporary(acc_type, space)
        self.apply_operator(f, acc, element, path, env, scratch)
        with self.guarded(self.single()):
            self.copy(scratch, storage, acc_type)

    def apply_operator(self, f: Expr, acc: Value, element: Value, path, env, dest) -> None:
        """``f (acc, x)`` written to ``dest``."""
        typing = self.typing(path + (0,))
        if isinstance(f, Lambda) and len(f.params) == 2 and \
                all(isinstance(p, str) for p in f.params):
            # λacc x. …, applied to its two arguments (Lift's kmeans: (tuple, cluster) => …)
            self.apply(f, [acc, element], path + (0,), env, dest)
            return
        pair_type = typing.args[0]
        self.apply(f, [Value(pair_type, parts=(acc, element))], path + (0,), env, dest)


def in_place(body: tuple[ir.Stmt, ...], names: set[str]) -> bool:
    """Whether statements that update an array may write it where they read it: every read
    of it is made by the loop nest that writes the element, at the element it writes (and
    it is written at all)."""
    reads, writes = [], []
    for stmt, enclosing in ir.statements(body):
        frames = tuple(f.index for f in enclosing if isinstance(f, ir.Loop))
        for load in ir.stmt_loads(stmt):
            if load.buffer in names:
                reads.append((load.buffer, load.offset, frames, load.width))
        if isinstance(stmt, ir.Store) and stmt.buffer in names:
            writes.append((stmt.buffer, stmt.offset, frames, stmt.width))
    if not writes:
        return False
    written = set(writes)
    return all(r in written for r in reads)


__all__ = ["ArrayAccumulators", "literal_init", "same_storage", "in_place", "Location",
           "ArrayType"]
