"""The reduction case study of the slides (Nvidia's seven hand-written parallel sums; PACT
Sect. 5.1), each version a saved derivation of ``reduce (+) 0`` (``derivations/reduction_*``):
which derivation is which version, the first kernel of each (the work-groups' partial sums,
which the slides time), its bandwidth on a device, and the recorded measurements
(``benchmarks/results/reductions_*.json``, written by ``python -m benchmarks.reductions``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..derivation import Derivation
from ..expr import Expr
from ..notation import parse

DERIVATIONS = Path(__file__).parent.parent / "derivations"
RESULTS = Path(__file__).parent.parent.parent / "benchmarks" / "results"


@dataclass(frozen=True)
class Version:
    number: str
    what: str
    derivation: str  # the saved derivation's file stem
    sizes: dict = field(default_factory=dict)  # sizes the derivation leaves symbolic

    def load(self) -> Derivation:
        return Derivation.load(DERIVATIONS / f"{self.derivation}.json")


VERSIONS = [
    Version("1", "interleaved addressing (Listing 5.8)", "reduction_listing5_8"),
    Version("2", "contiguous work-items (Listing 5.8: the same expression)",
            "reduction_listing5_8"),
    Version("3", "sequential addressing", "reduction_v3_sequential"),
    Version("4", "first add during load", "reduction_v4_first_add"),
    Version("5", "last warp: warp barriers, lanes unrolled", "reduction_v5_warp",
            {"blockSize": 256}),
    Version("6", "complete unrolling", "reduction_v6_unrolled", {"blockSize": 256}),
    Version("7", "16 elements per work-item first", "reduction_v7_more_work",
            {"blockSize": 2048}),
]


def first_kernel(expr: Expr) -> Expr:
    """A derived reduction without its final ``reduce (+) 0``: the partial sums of the
    work-groups, which is what the slides time."""
    text = str(expr)
    if not text.startswith("reduce (+) 0 ∘ "):
        raise ValueError(f"not a derived reduction: {text[:60]}")
    return parse(text.removeprefix("reduce (+) 0 ∘ "))


def measure(n: int = 1 << 20, device=None, repeat: int = 10, rounds: int = 3,
            seed: int = 0) -> dict:
    """Each version's first kernel on ``n`` floats, timed in interleaved rounds (the device's
    speed drifts over seconds) and checked against the interpreter: a document as
    ``benchmarks.reductions`` records it."""
    from ..device.opencl import find_device
    from ..run import run

    info, handle = find_device(device)
    extensions = getattr(handle, "extensions", "") or ""
    xs = np.random.default_rng(seed).uniform(-1, 1, n).astype(np.float32)
    kernels: dict[str, tuple[Expr, dict]] = {}  # versions of one expression are timed once
    for v in VERSIONS:
        kernels.setdefault(v.derivation, (first_kernel(v.load().current), v.sizes))
    samples: dict[str, list[float]] = {d: [] for d in kernels}
    outcome: dict[str, object] = {}
    for _ in range(rounds):
        for d, (kernel, sizes) in kernels.items():
            result = run(kernel, xs, device=device, repeat=repeat, sizes=sizes or None)
            outcome[d] = result
            if result.correct and result.kernel_ms_min:
                samples[d].append(result.kernel_ms_min)
    rows = []
    for v in VERSIONS:
        result, times = outcome[v.derivation], samples[v.derivation]
        best = min(times) if times else None
        first = next(u.number for u in VERSIONS if u.derivation == v.derivation)
        rows.append({
            "version": v.number, "what": v.what, "derivation": v.derivation,
            "status": result.status, "correct": bool(result.correct),
            "kernel_ms_min": best, "kernel_ms_median": float(np.median(times)) if times else None,
            "gb_per_s": n * 4 / best / 1e6 if best else None,
            "warp_barriers": _warp_barriers(result.source),
            "same_kernel_as": first if first != v.number else None,
            "message": result.message[:500]})
    return {"device": info.name, "kind": info.kind, "platform": info.platform, "n": n,
            "subgroups": "cl_khr_subgroups" in extensions,
            "warp_sync": "sub-group barrier" if "cl_khr_subgroups" in extensions else
            "work-group barrier", "rounds": rounds, "repeat": repeat, "versions": rows}


def _warp_barriers(source: str) -> int:
    """The warp barriers of a kernel's code (the macro's definition not counted)."""
    return sum(1 for line in source.splitlines()
               if line.strip().startswith("WARP_BARRIER("))


def recorded(results: Path = RESULTS) -> list[dict]:
    """Every recorded measurement (``benchmarks/results/reductions_*.json``)."""
    return [json.loads(p.read_text()) for p in sorted(results.glob("reductions_*.json"))]


__all__ = ["VERSIONS", "Version", "first_kernel", "measure", "recorded"]
