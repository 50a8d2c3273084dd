"""The memory a run takes, estimated before anything is allocated, and the guard that
refuses a run which would not fit in the memory left (SPEC 12: out of memory is a step's
outcome; the notebook's kernel must survive it).

A run (``run.run``) holds, at its peak, more than its inputs:

* the interpreter's values: ``map f`` is evaluated once for all elements on batched NumPy
  arrays (``semantics``), so a value inside ``n`` nested maps takes the product of their
  lengths times its own size. Of these the largest and the output (kept to check the
  kernel) are counted;
* the device's buffers: inputs, outputs and temporaries (on a CPU device they are host
  memory too), and the host's copies of the outputs and temporaries that fill them;
* the check against the interpreter, which works on blocks (``run.COMPARE_BLOCK``).

The three phases follow one another (interpreter, then kernels, then check), so the
estimate is the inputs plus the largest phase. On the library programs it lies within 2x
of the peak resident memory measured (``tests/test_memory.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import inputs as _inputs
from .errors import ResourceError, WorkbenchError
from .expr import Apply, Compose, Expr, Lambda, Lit, Prim, Section, TupleExpr, UserFun, Var
from .inputs import format_bytes, input_bytes, size_names
from .primitives.families import FOLDS
from .typecheck import annotate, declared_type_of
from .types import (
    ArrayType,
    FunctionType,
    ScalarType,
    Type,
    VectorType,
    dtype_of,
    function_parts,
    substitute_sizes,
)

# What the check against the interpreter takes per element of a block of the output
# (float64 copies of both sides, their difference and the masks: ``run.compare``).
CHECK_BYTES_PER_ELEMENT = 48
# Primitives the interpreter answers with views of their arguments (NumPy reshapes and
# transpositions; a zip is its parts side by side, ``values.Zipped``). The other layout
# primitives (reorderStride, slide, pad, gather, …) index, which copies.
_VIEWS = frozenset({"zip", "id", "split", "join", "transpose", "splitVec", "joinVec",
                    "innerSplit", "innerJoin", "get"})
_ACCUMULATIONS = FOLDS | {"scan", "scanSeq"}
# What a run holds beside its data (Python's objects, the driver's queues and events).
OVERHEAD_BYTES = 8 << 20
# What the guard keeps free beyond the estimate: a CPU driver's compiler (PoCL's LLVM
# took up to 150 MiB building one library program) and a margin for the estimate itself,
# which lies between 0.6x and 1.5x of the measured peaks.
COMPILER_BYTES = 256 << 20
MARGIN = 1.5
COMPARE_BLOCK = 1 << 20  # elements the check compares at a time (``run.compare``)


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes a run of one expression takes at given sizes, by what holds them.

    ``interpreter`` is the interpreter's largest intermediate value beside its output;
    ``device`` the device's buffers (inputs, outputs, temporaries), host memory when
    ``device_on_host`` (a CPU device); ``check`` the comparison's working set; ``drawing``
    what drawing random inputs takes beside them (``inputs.random_inputs`` draws each in
    double precision first)."""

    inputs: int
    outputs: int
    temporaries: int
    interpreter: int
    device: int
    check: int
    drawing: int = 0
    device_on_host: bool = True
    sizes: Mapping[str, int] | None = None

    @property
    def phases(self) -> dict[str, int]:
        """Bytes held beside the inputs in each phase of a run."""
        device = self.device if self.device_on_host else 0
        return {
            "drawing inputs": self.drawing,
            "interpreter": self.interpreter + self.outputs,
            "kernels": self.outputs + device + self.outputs + self.temporaries,
            "check": self.outputs + self.outputs + self.check,
        }

    @property
    def total(self) -> int:
        """The estimated peak: the inputs plus the largest phase."""
        return self.inputs + max(self.phases.values()) + OVERHEAD_BYTES

    @property
    def beyond_inputs(self) -> int:
        """The peak less the inputs (what a run adds to inputs already made)."""
        return self.total - self.inputs

    def describe(self) -> str:
        parts = [("inputs", self.inputs), ("outputs", self.outputs),
                 ("temporaries", self.temporaries),
                 ("the interpreter's intermediates", self.interpreter)]
        if self.device_on_host:
            parts.append(("the device's buffers", self.device))
        shown = ", ".join(f"{name} {format_bytes(n)}" for name, n in parts if n)
        return f"about {format_bytes(self.total)} ({shown})"

    def __str__(self) -> str:
        return self.describe()


def run_memory(expr: Expr, sizes: Mapping[str, int], input_types: Sequence[Type] | None = None,
               device: str | None = None, program=None) -> MemoryEstimate:
    """The memory a run of ``expr`` at ``sizes`` on ``device`` (None: the default) takes
    (``MemoryEstimate``), computed from types alone: nothing is allocated. ``input_types``
    default to the expression's declared ones; ``program`` is its ``OpenCLProgram`` when
    already generated (its temporaries are counted; without it, codegen runs here —
    milliseconds). A size the types need and ``sizes`` lacks is an error naming it."""
    sizes = {k: int(v) for k, v in sizes.items()}
    device_on_host = _device_on_host(device)
    types = list(input_types) if input_types is not None else _declared_inputs(expr)
    missing = sorted({n for t in types for n in size_names(t)} - set(sizes))
    if missing:
        raise WorkbenchError(f"the inputs' sizes {', '.join(missing)} are needed to estimate "
                             f"the memory of a run: give {missing[0]}=...")
    concrete = [substitute_sizes(t, sizes) for t in types]
    inputs = sum(input_bytes(t) for t in concrete)
    annotation = annotate(expr, *concrete, sizes=sizes)
    out_type = substitute_sizes(annotation.result, dict(annotation.sizes))
    outputs = _value_bytes(out_type)
    largest = _largest_intermediate(expr, annotation, concrete)
    if program is None:
        program = _program(expr, concrete, sizes)
    temporaries = 0
    if program is not None:
        temporaries = sum(s.length * dtype_of(ScalarType(s.dtype)).itemsize
                          for s in program.storages)
    out_elements = max(1, outputs // 4)
    return MemoryEstimate(
        inputs=inputs, outputs=outputs, temporaries=temporaries,
        interpreter=max(0, largest - outputs) if largest > outputs else 0,
        device=inputs + outputs + temporaries,
        check=min(out_elements, COMPARE_BLOCK) * CHECK_BYTES_PER_ELEMENT,
        drawing=max((_elements(t) * 8 for t in concrete), default=0),
        device_on_host=device_on_host, sizes=dict(sizes))


def check_run_memory(expr: Expr, sizes: Mapping[str, int],
                     input_types: Sequence[Type] | None = None, device: str | None = None,
                     program=None, inputs_allocated: bool = False) -> MemoryEstimate:
    """Refuse a run that would not fit in the memory available (``ResourceError`` naming
    the sizes and the estimate) before anything is allocated; returns the estimate. With
    ``inputs_allocated`` the inputs exist already (their memory is no longer available),
    so only the rest of the run is compared with what is left."""
    estimate = run_memory(expr, sizes, input_types, device, program)
    available = _inputs.available_memory()
    needed = estimate.beyond_inputs if inputs_allocated else estimate.total
    if available is not None and needed * MARGIN + COMPILER_BYTES > available:
        used = sorted({n for t in (input_types or _declared_inputs(expr))
                       for n in size_names(t)} & set(sizes)) or sorted(sizes)
        shown = ", ".join(f"{n}={int(sizes[n])}" for n in used) or "these sizes"
        what = "the rest of the run" if inputs_allocated else "a run"
        raise ResourceError(f"{what} at {shown} needs {estimate.describe()}; with room for "
                            f"the compiler and the estimate's margin that is more than the "
                            f"{format_bytes(available)} of memory available: choose smaller sizes",
                            sizes={n: int(sizes[n]) for n in used})
    return estimate


# --- the interpreter's values --------------------------------------------------------------

def _largest_intermediate(expr: Expr, annotation, inputs: list[Type]) -> int:
    """The most the interpreter holds at once (beyond its inputs) while evaluating ``expr``
    on ``inputs``: an abstract evaluation that follows the interpreter's order, with each
    value's size at the concrete sizes times the lengths of the maps it is batched over."""
    walker = _Walker(annotation.typings, dict(annotation.sizes))
    if isinstance(expr, Lambda) and inputs:
        peak, _ = walker.value(expr.body, (0,), {name: 1 for name in expr.names()})
    else:
        peak, _ = walker.function(expr, (), {}, 1)
    return peak


class _Walker:
    """Evaluates sizes instead of values. ``value`` and ``function`` return ``(peak,
    held)``: the most bytes live at once while computing a node (its result included) and
    the bytes its result holds (0 for a view of data that exists already). ``env`` maps a
    variable to the batch its value carries (the product of the lengths of the maps it
    was bound under)."""

    def __init__(self, typings, sizes):
        self.typings = typings
        self.sizes = sizes

    def result_bytes(self, path, batch: int) -> int:
        typing = self.typings.get(path)
        if typing is None or isinstance(typing.result, FunctionType):
            return 0
        return batch * _value_bytes(substitute_sizes(typing.result, self.sizes))

    def result_type(self, path) -> Type | None:
        typing = self.typings.get(path)
        return None if typing is None else typing.result

    def length_of_argument(self, path, k: int = -1) -> int:
        """The length of the array a function at ``path`` takes as its argument ``k``."""
        typing = self.typings.get(path)
        if typing is None or not typing.args:
            return 1
        return _length(substitute_sizes(typing.args[k], self.sizes))

    @staticmethod
    def batch_of(e: Expr, env: dict[str, int]) -> int:
        return max((env.get(v, 1) for v in e.free_vars()), default=1)

    def sequence(self, parts) -> tuple[int, int]:
        """Values computed one after another and all kept: (peak, bytes kept)."""
        peak = held = 0
        for p, h in parts:
            peak = max(peak, held + p)
            held += h
        return peak, held

    def value(self, e: Expr, path, env: dict[str, int]) -> tuple[int, int]:
        if isinstance(e, Var | Lit):
            return 0, 0
        if isinstance(e, Apply):
            batches = [self.batch_of(a, env) for a in e.args]
            peak, held = self.sequence(self.value(a, path + (i + 1,), env)
                                       for i, a in enumerate(e.args))
            if isinstance(e.fn, Lambda):  # a let: each name carries its own value's batch
                inner = dict(env)
                for pattern, batch in zip(e.fn.params, batches):
                    for name in _pattern_names(pattern):
                        inner[name] = batch
                p, h = self.value(e.fn.body, path + (0, 0), inner)
            else:
                p, h = self.function(e.fn, path + (0,), env, max(batches, default=1))
            return max(peak, held + p), h if h else held
        if isinstance(e, Lambda):
            return 0, 0
        batch = self.batch_of(e, env)
        peak, held = self.sequence(self.value(c, path + (i,), env) if not isinstance(c, Lambda)
                                   else (0, 0) for i, c in enumerate(e.children()))
        if isinstance(e, TupleExpr):
            return peak, held
        own = self.result_bytes(path, batch)
        return max(peak, held + own), own

    def function(self, f: Expr, path, env: dict[str, int], batch: int) -> tuple[int, int]:
        """A function applied to data of batch ``batch`` (the data itself not counted)."""
        if isinstance(f, Lambda):
            inner = dict(env)
            for name in f.names():
                inner[name] = batch
            return self.value(f.body, path + (0,), inner)
        if isinstance(f, Compose):
            fns = list(f.fns)
            peak = held = 0
            for i in reversed(range(len(fns))):
                if i == len(fns) - 1 and len(fns) >= 2 and _is_dot(fns[-2], fns[-1]):
                    continue  # reduce (+) ∘ map (*) on a zip: one contraction, no products
                p, h = self.function(fns[i], path + (i,), env, batch)
                peak = max(peak, held + p)
                held = h if h else held  # a view keeps what it views alive
            return peak, held
        if isinstance(f, Apply):
            peak, held = self.sequence(self.value(a, path + (i + 1,), env)
                                       for i, a in enumerate(f.args))
            p, h = self.function(f.fn, path + (0,), env, batch)
            return max(peak, held + p), h
        own = self.result_bytes(path, batch)
        if isinstance(f, UserFun):  # its scalar body on the batch: a few temporaries
            return own * _temporaries(f.body), own
        if not isinstance(f, Prim):
            return own, own
        if f.name in _VIEWS:
            return 0, 0  # a view
        if f.name in _ACCUMULATIONS and _scalar_bytes(self.result_type(path)) == 4 \
                and _is_int(self.result_type(path)):
            own *= 3  # NumPy accumulates ints in 64 bits, then the result is cast back
        children = list(enumerate(f.children()))
        if f.decl.map_level is not None or f.name == "allPairs":
            inner = batch * self.length_of_argument(path)
            if f.name == "allPairs":  # f on every pair: batched over both arrays
                inner *= self.length_of_argument(path, 0)
            peak = held = 0
            for i, c in children:
                p, h = self.function(c, path + (i,), env, inner)
                peak, held = max(peak, p), h
            return max(peak, own), own
        if f.name in FOLDS and children and _is_product_fold(children[0][1]):
            return own, own
        peak = 0
        elements = batch * self.length_of_argument(path)
        for i, c in children:
            if isinstance(c, Lambda | Compose | Prim | Section | UserFun) \
                    or _is_function(self.typings, path + (i,)):
                # a fold's operator whose element part the interpreter maps over the whole
                # array at once (``semantics.Evaluator.fold``)
                wide = elements if f.name in FOLDS | {"reducePart"} and \
                    _element_part(c) else batch
                p, _ = self.function(c, path + (i,), env, wide)
            else:
                p, _ = self.value(c, path + (i,), env)
            peak = max(peak, p)
        return peak + own, own


def _temporaries(body: Expr | None) -> int:
    """How many values of its result's size a scalar body holds at once (Sethi and Ullman's
    count: the left operand is kept while the right one is computed)."""
    def need(e: Expr) -> int:
        kids = [c for c in e.children() if not isinstance(c, Var | Lit)]
        if not kids:
            return 1
        counts = sorted((need(c) for c in kids), reverse=True)
        return max(max(n + k for k, n in enumerate(counts)), len(kids) + 1)
    if body is None:
        return 2
    while isinstance(body, Lambda):
        body = body.body
    return need(body)


def _element_part(fn: Expr) -> bool:
    from .semantics import associative_form
    fast = associative_form(fn)
    return fast is not None and fast[1] is not None


def _pattern_names(pattern) -> list[str]:
    if isinstance(pattern, str):
        return [pattern]
    return [n for p in pattern for n in _pattern_names(p)]


def _is_function(typings, path) -> bool:
    typing = typings.get(path)
    return typing is not None and bool(typing.args)


def _is_dot(reduction: Expr, mapping: Expr) -> bool:
    from .semantics import is_product
    return isinstance(reduction, Prim) and reduction.name in FOLDS \
        and isinstance(mapping, Prim) and mapping.decl.map_level not in (None, "vector") \
        and _is_add(reduction.children()[0] if reduction.children() else None) \
        and is_product(mapping.children()[-1] if mapping.children() else None)


def _is_add(f) -> bool:
    from .expr import Section
    return isinstance(f, Section) and f.op == "+" and f.left is None and f.right is None


def _is_product_fold(fn: Expr) -> bool:
    """``λ(acc, x). acc + x.0 * x.1``: a fold the interpreter runs as one contraction."""
    from .semantics import associative_form, is_product
    fast = associative_form(fn)
    return fast is not None and fast[0] == "+" and fast[1] is not None and is_product(fast[1])


# --- sizes of values ---------------------------------------------------------------------------

def _value_bytes(t: Type) -> int:
    if isinstance(t, FunctionType):
        return 0
    try:
        return input_bytes(t)
    except (ValueError, TypeError, WorkbenchError):
        return 0  # a size still symbolic (not bound by the inputs): not counted


def _elements(t: Type) -> int:
    """The numbers in a value of the concrete type ``t`` (a tuple's components each)."""
    return _value_bytes(t) // max(1, _scalar_bytes(t))


def _scalar_bytes(t: Type) -> int:
    while isinstance(t, ArrayType | VectorType):
        t = t.elem
    return 4 if isinstance(t, ScalarType) and t.name in ("float", "int") else 8


def _is_int(t: Type | None) -> bool:
    while isinstance(t, ArrayType | VectorType):
        t = t.elem
    return isinstance(t, ScalarType) and t.name == "int"


def _length(t: Type) -> int:
    if isinstance(t, ArrayType | VectorType):
        try:
            return int(t.size.value)
        except (ValueError, TypeError, WorkbenchError):
            return 1
    return 1


def _device_on_host(device: str | None) -> bool:
    """Whether the device's buffers are host memory (a CPU device; also when the device
    cannot be found: running says why)."""
    from .device.opencl import DeviceError, find_device
    try:
        info, _ = find_device(device)
    except DeviceError:
        return True
    return info.kind == "cpu"


def _declared_inputs(expr: Expr) -> list[Type]:
    declared = declared_type_of(expr)
    if declared is None:
        raise WorkbenchError("the expression declares no input types: give input_types")
    return function_parts(declared)[0]


def _program(expr: Expr, types: list[Type], sizes: Mapping[str, int]):
    """The expression's OpenCL program at these sizes, for its temporaries (None when it
    cannot be generated: running it says why)."""
    from .codegen import CodegenError
    from .codegen.program import opencl
    try:
        return opencl(expr, *types, sizes=sizes, complete=True)
    except (CodegenError, WorkbenchError):
        return None
    except Exception:  # noqa: BLE001 — a generator bug is reported when the run reaches it
        return None
