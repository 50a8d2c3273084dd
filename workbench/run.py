"""Run an expression on an OpenCL device: compile it (``codegen.program.opencl``, which
lowers what is still high-level by the default lowering), build, time, and check the output
against the reference interpreter on the same inputs (SPEC 7, 14).

Every failure (code that cannot be generated yet, a compile error, a crash, a wrong
result) is reported in the result's ``status`` and ``message``; nothing is raised for
them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .codegen import CodegenError
from .codegen.program import opencl
from .errors import WorkbenchError, format_path
from .expr import Expr
from .runtime import Launch as RuntimeLaunch
from .runtime import run_kernels
from .semantics import evaluate, prepare_inputs
from .types import ScalarType, dtype_of
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
    transfer_ms: float | None = None
    build_ms: float | None = None
    codegen_ms: float | None = None
    device: str = ""
    source: str = ""
    source_sha256: str = ""
    completed: list = None  # default-completion steps applied before generation

    def as_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("output", "expected")}


def tolerance(expected: np.ndarray) -> float:
    """Float sums reassociate: allow an error growing with the magnitude of the result."""
    scale = float(np.max(np.abs(expected))) if expected.size else 1.0
    return 1e-3 * max(scale, 1.0) if expected.dtype.kind == "f" else 0.0


def run(expr: Expr, *arrays, device: str | None = None, repeat: int = 20,
        sizes=None, warmup: int = 2, time_limit_ms: float | None = None) -> RunResult:
    try:
        values, types = prepare_inputs(expr, arrays)
        expected_value = evaluate(expr, *values, sizes=sizes)
        expected = np.asarray(expected_value) if not isinstance(expected_value, tuple) \
            else np.stack([np.asarray(p) for p in leaves(expected_value)])
    except WorkbenchError as err:
        return RunResult("invalid input", str(err))
    try:
        program = opencl(expr, *types, sizes=sizes, complete=True,
                         name=getattr(expr, "definition_name", None))
    except (CodegenError, WorkbenchError) as err:
        return RunResult("codegen error", str(err), expected=expected)
    except Exception as err:  # a generator bug must not end the caller (SPEC 12)
        return RunResult("codegen error", f"internal error: {type(err).__name__}: {err}",
                         expected=expected)
    inputs = {b.name: np.ascontiguousarray(np.asarray(leaf, dtype=b.scalar_dtype())).reshape(-1)
              for parts, v in zip(program.input_parts, values)
              for b, leaf in zip(parts, leaves(v))}
    outputs = {b.name: ((b.length,), b.scalar_dtype()) for b in program.output_parts}
    scratch = {s.name: ((s.length,), dtype_of(ScalarType(s.dtype))) for s in program.storages}
    launches = [RuntimeLaunch(l.kernel, l.global_size, l.local_size,
                              tuple(program.storage.get(name, name) for name in l.args))
                for l in program.launches]
    outcome = run_kernels(program.source, launches, inputs, outputs, scratch, device=device,
                          repeat=repeat, warmup=warmup, time_limit_ms=time_limit_ms)
    result = RunResult(outcome.status, outcome.message, expected=expected,
                       completed=[f"{s.rule} at {format_path(s.path)}" for s in program.completed],
                       codegen_ms=program.codegen_ms, device=outcome.device,
                       source=program.source, source_sha256=program.sha256,
                       build_ms=outcome.build_ms, transfer_ms=outcome.transfer_ms)
    if not outcome.ok:
        return result
    expected_parts = leaves(expected_value)
    out_parts = [outcome.value[b.name].reshape(np.shape(e))
                 for b, e in zip(program.output_parts, expected_parts)]
    out = out_parts[0] if len(out_parts) == 1 else np.stack(out_parts)
    result.output = out
    result.kernel_ms = outcome.kernel.median_ms
    result.kernel_ms_min, result.kernel_ms_max = outcome.kernel.min_ms, outcome.kernel.max_ms
    error = np.abs(out.astype(np.float64) - expected.astype(np.float64))
    result.max_error = float(np.nanmax(error)) if error.size and not np.isnan(error).all() \
        else float("nan")
    result.correct = bool(np.all(np.isfinite(out) == np.isfinite(expected))
                          and np.nanmax(error, initial=0.0) <= tolerance(expected))
    if not result.correct:
        result.status = "wrong result"
        result.message = f"differs from the interpreter by up to {result.max_error:.3g}"
    return result
