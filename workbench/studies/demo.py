"""The end-to-end demonstration behind ``workbench demo``: replay a saved derivation (by
default ICFP 2015 Fig. 3, vector scaling), run every step on a device — the steps that are
still high-level after the default completion — check each against the interpreter, and
time it next to NumPy on the same input."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..derivation import Derivation
from ..errors import WorkbenchError
from ..run import run
from ..semantics import evaluate
from ..types import function_parts, substitute_sizes

DERIVATIONS = Path(__file__).parent.parent / "derivations"
DEFAULT = DERIVATIONS / "icfp_fig3_vector_scaling.json"


def _inputs(d: Derivation, sizes: dict[str, int], seed: int) -> list:
    from ..domain import ranges_of
    from ..inputs import random_inputs

    declared = getattr(d.start, "declared_type", None)
    if declared is None:
        raise WorkbenchError("the derivation's start has no signature")
    types = [substitute_sizes(t, sizes) for t in function_parts(declared)[0]]
    return random_inputs(types, sizes, seed, ranges_of(d.start))


def _numpy_ms(d: Derivation, arrays: list, sizes: dict[str, int], repeat: int) -> float:
    """The interpreter on the same inputs: NumPy array operations, timed like a peer."""
    samples = []
    for _ in range(max(repeat, 3)):
        start = time.perf_counter()
        evaluate(d.start, *arrays, sizes=sizes)
        samples.append((time.perf_counter() - start) * 1000)
    return float(np.median(samples))


def demo(path: str | Path | None = None, sizes: dict[str, int] | None = None,
         device: str | None = None, repeat: int = 10, seed: int = 0) -> dict:
    d = Derivation.load(path or DEFAULT)
    sizes = dict(sizes or {"N": 1 << 20})
    arrays = _inputs(d, sizes, seed)
    steps = []
    for k, expr in enumerate(d.expressions()):
        result = run(expr, *arrays, device=device, repeat=repeat, sizes=sizes)
        step = d.steps[k - 1] if k else None
        steps.append({
            "step": k, "rule": step.rule if step else "",
            "params": {key: str(v) for key, v in step.params.items()} if step else {},
            "expression": str(expr), "status": result.status, "correct": result.correct,
            "kernel_ms": result.kernel_ms, "completed": result.completed,
            "device": result.device, "message": result.message,
        })
        last = result
    return {"name": d.name, "derivation": str(path or DEFAULT), "sizes": sizes,
            "steps": steps, "source": last.source, "numpy_ms": _numpy_ms(d, arrays, sizes,
                                                                          repeat),
            "device": last.device, "correct": all(s["correct"] for s in steps)}


def show(doc: dict) -> str:
    sizes = ", ".join(f"{k}={v}" for k, v in doc["sizes"].items())
    lines = [f"{doc['name']}: {doc['derivation']}", f"sizes {sizes}; device {doc['device']}",
             "", "step  rule                 kernel ms  check    expression"]
    for s in doc["steps"]:
        ms = f"{s['kernel_ms']:.4f}" if s["kernel_ms"] is not None else "-"
        check = "ok" if s["correct"] else s["status"]
        rule = s["rule"] or "(start)"
        lines.append(f"{s['step']:>4}  {rule:<20} {ms:>9}  {check:<7}  {s['expression']}")
        if s["completed"]:
            lines.append(f"{'':>37}default completion: {', '.join(s['completed'])}")
    lines += ["", f"NumPy (the interpreter) on the same input: {doc['numpy_ms']:.4f} ms", "",
              "OpenCL of the last step:", doc["source"].rstrip()]
    return "\n".join(lines)
