"""Cost models that rank candidates before they run — a strategy none of the papers have
(SPEC 8). They read what the code generator counted on the kernel IR (``codegen.features``,
``codegen.access``), not a device.

``estimate`` is the fixed analytical ranking of the ``ranked`` strategy. ``CostModel`` is a
model of milliseconds calibrated per device: a program's time is a weighted sum of its
features (``FEATURES``: kernels launched, the sequential statements of the busiest
processing unit, global bytes by access pattern, barriers, local-memory accesses), the
weights non-negative and fitted to measured candidates (a search's log, or the logs of
``benchmarks/``) by least squares of the relative error, pulled towards the device's prior
(``calibration.json``, fitted offline per device from recorded logs). The ``guided``
strategy ranks its candidates with it and fits it again as it measures; it is a
``model.TimeModel``, as the CASES exploration's ``surrogate.Surrogate`` is.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..codegen.program import OpenCLProgram


def estimate(program: OpenCLProgram, parallelism: int = 4096) -> float:
    """Relative cost of a program on a device that wants ``parallelism`` work-items."""
    total = 0.0
    for kernel in program.features.kernels:
        occupancy = kernel.occupancy(parallelism)
        work = (kernel.steps + kernel.barriers) / max(occupancy, 1e-6) / 1e3
        vector = 0.5 if kernel.vector_accesses else 1.0
        total += 1.0 + work * vector  # + one launch
    return total + program.features.global_bytes / 1e7


# --- the calibrated model ---------------------------------------------------------------------

# A program's features, in the units of the weights (ms per unit):
FEATURES = (
    "kernels",      # launches
    "groups",       # work-groups the busiest processing unit runs, in thousands
    "work",         # statements the busiest processing unit runs, in millions ...
    "chain",        # ... and those that update an accumulator (a chain of dependent adds)
    "coalesced",    # MB of global memory moved in each pattern (codegen.access)
    "streamed",
    "shared",
    "scattered",
    "barriers",     # barriers passed by the busiest processing unit, in thousands
    "local",        # local-memory accesses per processing unit, in millions
)

CALIBRATION = Path(__file__).with_name("calibration.json")
DRIVER_GROUP = 4096  # work-items per group when the driver chooses (PoCL takes up to 4096)
PULL_FLOOR = 1e-4  # ms per unit: below it, a weight is held to its prior as if it were this


def parallelism_of(kind: str, compute_units: int) -> int:
    """What a device runs at once: a GPU's compute units each keep 2048 work-items in
    flight; a CPU's cores each run one work-group (its work-items in a loop)."""
    return max(1, compute_units * (2048 if kind == "gpu" else 1))


def _per_item(kernel, launch) -> tuple[int, int]:
    """Statements one work-item runs, and those that update an accumulator."""
    from ..codegen import ir
    from ..codegen.launch import rounds

    steps = chain = 0
    for stmt, enclosing in ir.statements(kernel.body):
        if isinstance(stmt, ir.Store | ir.Assign | ir.Declare):
            mine = math.prod(rounds(f) for f in enclosing if isinstance(f, ir.Loop))
            steps += mine
            chain += mine if isinstance(stmt, ir.Assign) else 0
    return steps, chain


def program_features(program: OpenCLProgram, parallelism: int, kind: str = "cpu"
                     ) -> dict[str, float]:
    """The model's features of a compiled program on a device of this kind and
    parallelism. A GPU's busiest unit runs its share of the work-items; a CPU core runs
    whole work-groups, each work-item of a group after the other."""
    from ..codegen.access import bytes_by_pattern

    out = dict.fromkeys(FEATURES, 0.0)
    for kernel, launch, counted in zip(program.module.kernels, program.module.launches,
                                       program.features.kernels):
        items = math.prod(launch.global_size)
        size = math.prod(launch.local_size) if launch.local_size else \
            min(items, DRIVER_GROUP)
        groups = max(1, items // max(size, 1))
        steps, chain = _per_item(kernel, launch)
        if kind == "gpu":
            share = math.ceil(items / parallelism)
            units_groups = math.ceil(groups / max(1, parallelism // max(size, 1)))
        else:
            share = size * math.ceil(groups / parallelism)
            units_groups = math.ceil(groups / parallelism)
        out["kernels"] += 1
        out["groups"] += units_groups / 1e3
        out["work"] += (steps - chain) * share / 1e6
        out["chain"] += chain * share / 1e6
        out["barriers"] += counted.barriers * share / 1e3
        local = counted.loads.get("local", 0) + counted.stores.get("local", 0)
        out["local"] += local / min(items, parallelism) / 1e6
    for pattern, size in bytes_by_pattern(program.module).items():
        out[pattern] += size / 1e6
    return out


@dataclass(frozen=True)
class CostModel:
    """Milliseconds of a program on one device: ``weights · features``."""

    device: str
    kind: str
    parallelism: int
    weights: Mapping[str, float]
    fitted_on: int = 0  # measured candidates the weights were fitted to
    source: str = "prior"
    prior: Mapping[str, float] = field(default_factory=dict, compare=False)

    def features(self, program: OpenCLProgram) -> dict[str, float]:
        return program_features(program, self.parallelism, self.kind)

    def predict(self, features: Mapping[str, float]) -> float:
        return float(sum(self.weights.get(k, 0.0) * features.get(k, 0.0) for k in FEATURES))

    def fit(self, records: Iterable[Mapping], strength: float = 1.0) -> CostModel:
        """The model fitted to measured candidates (records, or log lines' objects, with
        ``features`` and a correct ``kernel_ms``), each weight pulled towards the prior with
        ``strength`` (as if it were that many measurements)."""
        return self.fitted(measured(records), strength)

    def fitted(self, measured: Iterable[tuple[Mapping[str, float] | None, float]],
               strength: float = 1.0) -> CostModel:
        """The model fitted to ``(features, milliseconds)`` of measured candidates (those
        without features are left out); itself when there are none."""
        rows, times = [], []
        for f, ms in measured:
            if isinstance(f, Mapping):
                rows.append([float(f.get(k, 0.0)) for k in FEATURES])
                times.append(float(ms))
        if not rows:
            return self
        prior = dict(self.prior or self.weights)
        weights = fit_weights(np.array(rows), np.array(times), prior, strength)
        return replace(self, weights=weights, fitted_on=len(rows), source="fitted",
                       prior=prior)

    def as_json(self) -> dict:
        return {"device": self.device, "kind": self.kind, "parallelism": self.parallelism,
                "weights": dict(self.weights), "fitted_on": self.fitted_on,
                "source": self.source}

    @staticmethod
    def from_json(doc: Mapping) -> CostModel:
        """The model ``as_json`` wrote (a log's header keeps the one a search started from),
        its weights its prior: a search started from it pulls its fits towards them."""
        weights = {k: float(doc["weights"].get(k, 0.0)) for k in FEATURES}
        return CostModel(str(doc.get("device", "")), str(doc.get("kind", "cpu")),
                         int(doc["parallelism"]), weights, int(doc.get("fitted_on", 0)),
                         str(doc.get("source", "recorded")), prior=weights)


def measured(records: Iterable[Mapping]) -> list[tuple[Mapping[str, float] | None, float]]:
    """The features and time of each correct, timed record (a ``Record``, or a log line's
    object: both are mappings of the line's fields)."""
    return [(r.get("features"), r["kernel_ms"]) for r in records
            if r.get("correct") and r.get("kernel_ms")]


def fit_weights(x: np.ndarray, t: np.ndarray, prior: Mapping[str, float],
                strength: float = 1.0) -> dict[str, float]:
    """Non-negative weights minimising the squared relative error of ``x · w`` against the
    times ``t``, plus ``strength`` × the squared relative distance of each weight from its
    prior (a weight whose feature never varies keeps its prior)."""
    return _pulled(x / t[:, None], np.ones(len(t)), prior, strength)


def fit_weights_balanced(x: np.ndarray, t: np.ndarray, prior: Mapping[str, float],
                         strength: float = 1.0, rounds: int = 4) -> dict[str, float]:
    """As ``fit_weights``, but each error taken relative to the geometric mean of the
    measured and the predicted time (the prediction of the round before): a relative error
    is at most 1 below a time and unbounded above it, so its least squares prefer weights
    that predict too little (fitted to a few probe kernels, 5 to 10 times too little); this
    one weighs a factor too much and a factor too little alike, as the logarithm does."""
    weights = fit_weights(x, t, prior, strength)
    for _ in range(rounds):
        w = np.array([weights[k] for k in FEATURES])
        scale = np.sqrt(t * np.maximum(x @ w, 1e-3 * t))
        weights = _pulled(x / scale[:, None], t / scale, prior, strength)
    return weights


def _pulled(a: np.ndarray, b: np.ndarray, prior: Mapping[str, float], strength: float
            ) -> dict[str, float]:
    """Non-negative weights minimising ``|a · w - b|²`` plus ``strength`` × the squared
    relative distance of each weight from its prior."""
    w0 = np.array([prior.get(k, 0.0) for k in FEATURES])
    scale = np.maximum(w0, PULL_FLOOR)  # a weight the prior has at 0 may still grow
    # rows that pull each weight towards its prior, relative to its size
    reg = np.sqrt(strength) * np.diag(1.0 / scale)
    a = np.vstack([a, reg])
    b = np.concatenate([b, np.sqrt(strength) * w0 / scale])
    w = _nnls(a, b)
    return {k: float(v) for k, v in zip(FEATURES, w)}


def _nnls(a: np.ndarray, b: np.ndarray, iterations: int = 100) -> np.ndarray:
    """Least squares with non-negative solution (Lawson and Hanson's active set method)."""
    n = a.shape[1]
    free = np.zeros(n, dtype=bool)
    w = np.zeros(n)
    for _ in range(iterations):
        gradient = a.T @ (b - a @ w)
        candidates = np.where(~free & (gradient > 1e-12))[0]
        if not len(candidates):
            break
        free[candidates[np.argmax(gradient[candidates])]] = True
        while True:
            z = np.zeros(n)
            z[free] = np.linalg.lstsq(a[:, free], b, rcond=None)[0]
            if np.all(z[free] > 0):
                w = z
                break
            bad = free & (z <= 0)
            alpha = np.min(w[bad] / (w[bad] - z[bad] + 1e-300))
            w = w + alpha * (z - w)
            free &= w > 1e-15
            w[~free] = 0.0
    return w


# --- priors: the shipped calibration -----------------------------------------------------------

def _calibration() -> dict:
    try:
        return json.loads(CALIBRATION.read_text())
    except (OSError, ValueError):
        return {}


def shipped_entry(device: str = "", kind: str = "cpu") -> tuple[str, dict]:
    """The shipped calibration of this device (by name), else of its kind: ``("device",
    entry)`` or ``("kind", entry)``."""
    table = _calibration()
    if device in table.get("devices", {}):
        return "device", table["devices"][device]
    return "kind", table.get("kinds", {}).get(kind) or table.get("kinds", {}).get("cpu") or \
        {"weights": dict.fromkeys(FEATURES, 1.0)}


def prior_for(device: str = "", kind: str = "cpu", compute_units: int | None = None
              ) -> CostModel:
    """The shipped model of this device (by name), else of its kind (``cpu``, ``gpu``); its
    parallelism from the device's compute units when they are known."""
    _, entry = shipped_entry(device, kind)
    parallelism = parallelism_of(kind, compute_units) if compute_units else \
        int(entry.get("parallelism", parallelism_of(kind, 2)))
    weights = {k: float(entry["weights"].get(k, 0.0)) for k in FEATURES}
    return CostModel(device or kind, kind, parallelism, weights,
                     source=f"prior ({entry.get('source', 'shipped')})", prior=weights)


def kind_of_name(name: str) -> str:
    """A device's kind guessed from its name (for a log recorded elsewhere)."""
    return "gpu" if any(w in name for w in ("NVIDIA", "GeForce", "Radeon", "GPU")) else "cpu"


def model_for_device(spec: str | None) -> CostModel:
    """The prior of the device a search runs on (None: the default device)."""
    from ..device.opencl import find_device

    info, _ = find_device(spec)
    kind = "gpu" if info.kind == "gpu" else "cpu"
    return prior_for(info.name, kind, info.compute_units)
