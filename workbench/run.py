"""Run an expression on an OpenCL device: compile it (``codegen.program.opencl``, which
lowers what is still high-level by the default lowering), build, time, and check the output
against the reference interpreter on the same inputs (SPEC 7, 14).

Every failure (inputs or arguments that do not fit, code that cannot be generated yet, a
compile error, a crash, a wrong result) is reported in the result's ``status`` and
``message``; nothing is raised for them.

The check (``compare``) is NaN-aware and strict: where the interpreter's result is NaN or
±inf the kernel's must be the same; everywhere else it must be a finite number within the
tolerance. Outputs are NaN-filled before a run, so an element a kernel never writes is
caught too.

This is the run on one device; ``several.run`` runs a program on several at once, each
device's part through this same ``run``, and is the ``run`` the package exports (one
device, or several with ``devices=[...]``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .codegen import CodegenError, ir
from .codegen.program import OpenCLProgram, opencl
from .device.build_options import build_options as build_options_of
from .device.opencl import DeviceError, find_device
from .errors import ArgumentError, ResourceError, WorkbenchError, format_path, shown
from .expr import Expr, Lit, walk
from .inputs import INT_RANGE, check_exact_inputs
from .memory import COMPARE_BLOCK, check_run_memory
from .rates import program_bytes, program_operations
from .runtime import Launch as RuntimeLaunch
from .runtime import fit_private_arrays, run_kernels
from .semantics import evaluate, prepare_inputs
from .typecheck import declared_type_of
from .types import ScalarType, dtype_of, function_parts, match_sizes
from .values import leaves


@dataclass
class RunResult:
    status: str  # "ok", "wrong result", "codegen error", "compile error", ...
    message: str = ""
    output: np.ndarray | None = None
    expected: np.ndarray | None = None
    correct: bool = False
    max_error: float | None = None
    kernel_ms: float | None = None
    kernel_ms_min: float | None = None
    kernel_ms_max: float | None = None
    runs: int | None = None  # the timed runs behind kernel_ms
    transfer_ms: float | None = None
    build_ms: float | None = None
    codegen_ms: float | None = None
    device: str = ""
    source: str = ""
    source_sha256: str = ""
    completed: list = None  # default-completion steps applied before generation
    error: WorkbenchError | None = None  # for "invalid input": the located error
    per_device: list | None = None  # several devices: one entry each (several.run)
    stages: list | None = None  # several devices, with redistributions: one entry a stage
    build_options: list | None = None  # the OpenCL build options it was built with
    bytes: int | None = None  # the program's own inputs and outputs (``workbench.rates``)
    operations: int | None = None  # arithmetic operations, the kernel IR's count

    def rates(self, ceilings=None):
        """The kernel time as effective GB/s and GFLOP/s (``workbench.rates``), read
        against the device's ``ceilings`` where given; None where no time was taken."""
        from .rates import rates

        if self.kernel_ms is None:
            return None
        return rates(self.kernel_ms, self.bytes, self.operations, ceilings)

    def as_json(self) -> dict:
        doc = {k: v for k, v in self.__dict__.items()
               if k not in ("output", "expected", "error")}
        measured = self.rates()
        doc["gb_per_s"] = measured.gb_per_s if measured else None
        doc["gflop_per_s"] = measured.gflop_per_s if measured else None
        return doc

    def __str__(self) -> str:
        """One line when it ran correctly; else the status and the whole message."""
        on = f" on {self.device}" if self.device else ""
        if self.correct and self.kernel_ms is not None:
            rate = self.rates().text()
            return (f"ok (checked against the interpreter): {self.kernel_ms:.4f} ms median "
                    f"[{self.kernel_ms_min:.4f}–{self.kernel_ms_max:.4f}]{on}"
                    + (f"; {rate}" if rate else ""))
        return f"{self.status}{on}: {self.message}" if self.message else f"{self.status}{on}"

    def _repr_markdown_(self) -> str:
        if self.correct and self.kernel_ms is not None:
            return f"**{self}**"
        on = f" on {self.device}" if self.device else ""
        return f"**{self.status}**{on}\n\n```\n{self.message}\n```\n"


RELATIVE_TOLERANCE = 1e-3



def stacked(parts: list[np.ndarray]) -> np.ndarray:
    """The components of a tuple result as one array to compare: stacked where they have
    one shape, else one after the other (a tuple holding an array beside a number)."""
    if len({np.shape(p) for p in parts}) == 1:
        return np.stack(parts)
    return np.concatenate([np.ravel(p).astype(np.float64) for p in parts])


def tolerance(expected: np.ndarray) -> float:
    """Float sums reassociate: allow an error growing with the magnitude of the result (its
    largest finite value; at least 1e-3). Ints and bools must be exact."""
    expected = np.asarray(expected)
    if expected.dtype.kind != "f":
        return 0.0
    scale = 0.0
    for block in _blocks(expected.reshape(-1)):
        finite = np.abs(block[np.isfinite(block)])
        if finite.size:
            scale = max(scale, float(finite.max()))
    return RELATIVE_TOLERANCE * max(scale, 1.0)


def _blocks(flat: np.ndarray):
    """``flat`` in blocks of ``COMPARE_BLOCK`` elements (views): the check's working copies
    stay a few megabytes whatever the output's size (``memory``)."""
    for start in range(0, max(flat.size, 1), COMPARE_BLOCK):
        yield flat[start:start + COMPARE_BLOCK]


@dataclass(frozen=True)
class Comparison:
    """A kernel's output against the interpreter's: ``max_error`` is the largest difference
    (inf where a NaN or inf is misplaced), ``mismatches`` how many elements are off and
    ``first`` the flat index of the first of them."""

    correct: bool
    max_error: float
    tolerance: float
    mismatches: int = 0
    first: int | None = None
    got: float | None = None
    wanted: float | None = None
    shape_problem: str = ""

    def describe(self) -> str:
        if self.shape_problem:
            return self.shape_problem
        if self.correct:
            return ""
        return (f"{self.mismatches} element{'s' if self.mismatches != 1 else ''} differ from "
                f"the interpreter (the first at flat index {self.first}: {self.got:.6g} "
                f"instead of {self.wanted:.6g}); the largest difference is "
                f"{self.max_error:.3g}, the tolerance {self.tolerance:.3g}")


def compare(output, expected) -> Comparison:
    """Compare a kernel's output with the interpreter's (see the module docstring)."""
    out, want = np.asarray(output), np.asarray(expected)
    tol = tolerance(want)
    if out.shape != want.shape:
        return Comparison(False, math.inf, tol, int(want.size), 0,
                          shape_problem=f"the output has shape {out.shape}, the "
                                        f"interpreter's {want.shape}")
    mismatches, max_error, first = 0, 0.0, None
    flat_out, flat_want = out.reshape(-1), want.reshape(-1)
    for start in range(0, flat_want.size, COMPARE_BLOCK):
        o = flat_out[start:start + COMPARE_BLOCK].astype(np.float64)
        e = flat_want[start:start + COMPARE_BLOCK].astype(np.float64)
        both = np.isfinite(o) & np.isfinite(e)
        same_special = ~np.isfinite(e) & ((np.isnan(e) & np.isnan(o)) | (e == o))
        with np.errstate(invalid="ignore"):
            error = np.where(both, np.abs(o - e), np.where(same_special, 0.0, np.inf))
        bad = error > tol
        count = int(np.count_nonzero(bad))
        if count and first is None:
            first = start + int(np.argmax(bad))
        mismatches += count
        max_error = max(max_error, float(error.max()) if error.size else 0.0)
    if not mismatches:
        return Comparison(True, max_error, tol)
    return Comparison(False, max_error, tol, mismatches, first, float(flat_out[first]),
                      float(flat_want[first]))


def run(expr: Expr, *arrays, device: str | None = None, repeat: int = 20,
        sizes=None, warmup: int = 2, time_limit_ms: float | None = None,
        expected=None, cutoff_ms: float | None = None,
        program: OpenCLProgram | None = None, build_options=None) -> RunResult:
    """Compile, build, run and time ``expr`` on ``arrays``, checked against the interpreter
    (``expected``: the interpreter's output on these arrays when it is known already — a
    search computes its start program's output once for all its candidates). With
    ``time_limit_ms`` the repetitions stop once they have taken that long (three at least);
    with ``cutoff_ms`` a kernel whose first two runs each take longer is timed once (a
    search gives up on a candidate far slower than its best): ``runs`` says how many
    times were taken. ``program`` is the expression's program when it was compiled already,
    as ``opencl(expr, *types, sizes=sizes, complete=True)`` compiles it (a search's candidate,
    compiled for its cost model): it is not compiled again. ``build_options``: the OpenCL
    math options to build with (``device.build_options``: none unless given; the result
    names them, and its output is checked against the interpreter as any other)."""
    try:
        check_arguments(repeat, warmup, time_limit_ms, cutoff_ms, device)
        options = build_options_of(build_options)
        check_exact_inputs(arrays)
        values, types = prepare_inputs(expr, arrays)
    except WorkbenchError as err:
        return RunResult("invalid input", str(err), error=err)
    failure = None
    try:
        if program is None:
            program = opencl(expr, *types, sizes=sizes, complete=True,
                             name=getattr(expr, "definition_name", None))
    except (CodegenError, WorkbenchError) as err:
        failure = str(err)
    except Exception as err:  # a generator bug must not end the caller (SPEC 12)
        failure = f"internal error: {type(err).__name__}: {err}"
    refused = _memory_refused(expr, types, sizes, device, program)
    if refused is not None:
        return RunResult(OUT_OF_MEMORY, str(refused), error=refused)
    try:
        given_expected = expected is not None
        expected_value = evaluate(expr, *values, sizes=sizes) if expected is None else expected
        expected = np.asarray(expected_value) if not isinstance(expected_value, tuple) \
            else stacked([np.asarray(p) for p in leaves(expected_value)])
    except WorkbenchError as err:
        return RunResult("invalid input", str(err), error=err)
    except OverflowError as err:  # an int literal or result past 32 bits
        err = past_int_range(expr, err)
        return RunResult("invalid input", str(err), error=err)
    except (ValueError, TypeError) as err:  # an expected output that holds no array
        err = ArgumentError(f"expected = {shown(expected_value)}: not an output ({err})",
                            "expected")
        return RunResult("invalid input", str(err), error=err)
    if program is None:
        return RunResult("codegen error", failure, expected=expected)
    refused = expected_refused(program, expected_value) if given_expected else None
    if refused is not None:
        return RunResult("invalid input", str(refused), error=refused)
    inputs = {b.name: np.ascontiguousarray(np.asarray(leaf, dtype=b.scalar_dtype())).reshape(-1)
              for parts, v in zip(program.input_parts, values)
              for b, leaf in zip(parts, leaves(v))}
    outputs = {b.name: ((b.length,), b.scalar_dtype()) for b in program.output_parts}
    scratch = {s.name: ((s.length,), dtype_of(ScalarType(s.dtype))) for s in program.storages}
    local_bytes = {k.name: sum(b.length * b.scalar_dtype().itemsize for b in k.locals)
                   for k in program.module.kernels}
    outcome = run_kernels(program.source, runtime_launches(program), inputs, outputs, scratch,
                          device=device, repeat=repeat, warmup=warmup,
                          time_limit_ms=time_limit_ms, local_bytes=local_bytes,
                          cutoff_ms=cutoff_ms, private_bytes=private_bytes(program),
                          options=options,
                          constant_bytes=constant_bytes(program))
    result = RunResult(outcome.status, outcome.message, expected=expected,
                       build_options=list(options),
                       completed=[f"{s.rule} at {format_path(s.path)}" for s in program.completed],
                       codegen_ms=program.codegen_ms, device=outcome.device,
                       source=program.source, source_sha256=program.sha256,
                       build_ms=outcome.build_ms, transfer_ms=outcome.transfer_ms,
                       bytes=program_bytes(program), operations=program_operations(program))
    if not outcome.ok:
        return result
    expected_parts = leaves(expected_value)
    out_parts = [outcome.value[b.name].reshape(np.shape(e))
                 for b, e in zip(program.output_parts, expected_parts)]
    out = out_parts[0] if len(out_parts) == 1 else stacked(out_parts)
    result.output = out
    result.kernel_ms = outcome.kernel.median_ms
    result.kernel_ms_min, result.kernel_ms_max = outcome.kernel.min_ms, outcome.kernel.max_ms
    result.runs = len(outcome.kernel.samples_ms)
    check = compare(out, expected)
    result.max_error, result.correct = check.max_error, check.correct
    if not result.correct:
        result.status = "wrong result"
        result.message = check.describe()
    return result


OUT_OF_MEMORY = "out of memory"


def expected_refused(program: OpenCLProgram, expected_value) -> ArgumentError | None:
    """Why ``expected`` cannot be the program's output (its parts, or their numbers of
    elements, differ from the program's outputs), or None."""
    parts = leaves(expected_value)
    kinds = [np.asarray(p).dtype.kind for p in parts]
    if any(k not in "biuf" for k in kinds):
        return ArgumentError(f"expected = {shown(expected_value)}: not an array of numbers "
                             f"(the program's output)", "expected")
    lengths = [b.length for b in program.output_parts]
    if len(parts) != len(lengths) or any(np.size(p) != n for p, n in zip(parts, lengths)):
        given = ", ".join(f"shape {np.shape(p)}" for p in parts)
        wanted = ", ".join(f"{n} element{'s' if n != 1 else ''}" for n in lengths)
        return ArgumentError(f"expected = {given}: the program's output has {wanted}",
                             "expected")
    return None


def past_int_range(expr: Expr, err: OverflowError) -> WorkbenchError:
    """The interpreter's overflow of a 32-bit int as a located error: the program's int
    literals past 32 bits named (the kernel would compute with them wrapped round)."""
    past = [(path, node.value) for path, node in walk(expr) if isinstance(node, Lit)
            and type(node.value) is int and not INT_RANGE[0] <= node.value <= INT_RANGE[1]]
    if past:
        path, value = past[0]
        return WorkbenchError(f"the integer literal {value} at {format_path(path)} is outside "
                              f"int's 32 bits; kernels compute with 32-bit ints (write "
                              f"{value}.0 for a float)")
    return WorkbenchError(f"an int result past 32 bits ({err}); kernels compute with 32-bit "
                          f"ints")


def _memory_refused(expr: Expr, types, sizes, device, program) -> ResourceError | None:
    """The refusal of a run whose interpreter values, buffers and check would not fit in
    the memory left once its inputs exist (``memory.check_run_memory``), or None: checked
    before anything is allocated, so a size too large is an outcome, never a killed
    process."""
    try:
        bound = dict(sizes or {})
        bound.update(_sizes_of(types, expr))
        check_run_memory(expr, bound, types, device=device, program=program,
                         inputs_allocated=True)
    except ResourceError as err:
        return err
    except WorkbenchError:
        return None  # what the estimate cannot type, the interpreter reports
    except Exception:  # noqa: BLE001 — an estimate that fails must not end the run (SPEC 12)
        return None
    return None


def _sizes_of(types, expr: Expr) -> dict[str, int]:
    """The sizes the declared input types take from the inputs' concrete types."""
    declared = declared_type_of(expr)
    if declared is None:
        return {}
    bindings: dict = {}
    for pattern, actual in zip(function_parts(declared)[0], types):
        match_sizes(pattern, actual, bindings)
    return {k: int(v.value) for k, v in bindings.items() if v.is_constant}


def runtime_launches(program: OpenCLProgram) -> list[RuntimeLaunch]:
    """The program's launches with the buffers their arguments are stored in."""
    return [RuntimeLaunch(l.kernel, l.global_size, l.local_size,
                          tuple(program.storage.get(name, name) for name in l.args))
            for l in program.launches]


def private_bytes(program: OpenCLProgram) -> dict[str, int]:
    """Each kernel's private arrays, in bytes per work-item."""
    return {k.name: sum(s.buffer.length * s.buffer.scalar_dtype().itemsize
                        for s, _ in ir.statements(k.body) if isinstance(s, ir.Allocate))
            for k in program.module.kernels}


def constant_bytes(program: OpenCLProgram) -> dict[str, tuple[int, int]]:
    """Each kernel's constant buffers: their bytes in all and their number."""
    out = {}
    for k in program.module.kernels:
        constant = [b for b in k.params if b.space == "constant"]
        out[k.name] = (sum(b.length * b.scalar_dtype().itemsize for b in constant),
                       len(constant))
    return out


def private_arrays_refused(program: OpenCLProgram, device: str | None = None,
                           info=None) -> str | None:
    """Why the device refuses the program's private arrays before building it (its
    work-groups do not hold them: ``runtime.fit_private_arrays``), or None; ``info``: the
    device's ``DeviceInfo`` where the caller has it (else it is looked up, which opens
    OpenCL)."""
    if info is None:
        try:
            info, _ = find_device(device)
        except DeviceError:
            return None  # no device: running it says so
    return fit_private_arrays(info, runtime_launches(program), private_bytes(program))[1]


MOST_RUNS = 100_000  # repetitions or warm-up runs of one kernel (more would not end today)


def check_arguments(repeat, warmup, time_limit_ms, cutoff_ms=None, device=None) -> None:
    """Refuse repetitions, warm-up runs, time limits and devices a run cannot take."""
    if device is not None and not isinstance(device, str):
        raise ArgumentError(f"device = {device!r}: give a device as text (its id from "
                            f"'workbench devices', cpu or gpu, or part of its name), or None "
                            f"for the default", "device")
    for name, value, least in (("repeat", repeat, 1), ("warmup", warmup, 0)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) \
                or not least <= value <= MOST_RUNS:
            raise ArgumentError(f"{name} = {value!r}: give a whole number from {least} to "
                                f"{MOST_RUNS} (the runs to "
                                f"{'time' if name == 'repeat' else 'warm up'})", name)
    for name, value in (("time_limit_ms", time_limit_ms), ("cutoff_ms", cutoff_ms)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                                  or not value > 0):
            raise ArgumentError(f"{name} = {value!r}: give a positive number of "
                                f"milliseconds, or None", name)
