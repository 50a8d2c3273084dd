"""A model of a search space learnt while it is measured: the logarithm of a candidate's
time as a ridge regression on named features of the candidate (SPEC 8).

The CASES exploration (``search.cases``) describes each candidate by what it is made of —
the work-items of a group, the work-groups, the local and private memory it uses (log2, and
their squares, so that a best value in the middle can be learnt) and each choice its
program's description names (0 or 1) — and, once a share of its budget is measured in
random order, measures the candidates this model, fitted to those, ranks fastest, fitting
it again after each batch. On the H100 and on PoCL, fitted to 20 random candidates of a
recorded matrix-multiplication search, it put the fastest of the remaining 40 among its 10
first twice as often as a random pick did. A ``Surrogate`` is a ``model.TimeModel``, as
the guided search's ``cost.CostModel`` is.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

STRENGTH = 3.0  # the ridge penalty, in units of the standardised features
LEAST = 6  # measured candidates a fit needs (fewer: no model)


@dataclass(frozen=True)
class Surrogate:
    """``log(ms) ≈ intercept + Σ weight · (feature − mean) / scale``."""

    names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    intercept: float
    fitted_on: int

    def predict(self, features: Mapping[str, float]) -> float:
        """The predicted time in milliseconds."""
        x = np.array([features.get(n, 0.0) for n in self.names])
        return math.exp(self.intercept + float(((x - self.mean) / self.scale) @ self.weights))

    def fitted(self, measured: Iterable[tuple[Mapping[str, float] | None, float]],
               strength: float = STRENGTH) -> Surrogate | None:
        """A model fitted afresh to ``(features, milliseconds)`` of measured candidates
        (``fit``; those without features are left out)."""
        return fit(((f, ms) for f, ms in measured if f is not None), strength)

    def as_json(self) -> dict:
        return {"names": list(self.names), "weights": [float(w) for w in self.weights],
                "intercept": self.intercept, "fitted_on": self.fitted_on,
                "strongest": self.strongest()}

    def strongest(self, count: int = 5) -> list[tuple[str, float]]:
        """The features that move the prediction most (weight per standard deviation; a
        positive weight makes a candidate slower)."""
        order = np.argsort(-np.abs(self.weights))[:count]
        return [(self.names[i], round(float(self.weights[i]), 3)) for i in order]


def fit(rows: Iterable[tuple[Mapping[str, float], float]], strength: float = STRENGTH
        ) -> Surrogate | None:
    """The model fitted to ``(features, milliseconds)`` pairs; None with fewer than
    ``LEAST``. A feature that never varies gets no weight."""
    rows = [(f, ms) for f, ms in rows if ms and ms > 0]
    if len(rows) < LEAST:
        return None
    names = tuple(sorted({n for f, _ in rows for n in f}))
    x = np.array([[f.get(n, 0.0) for n in names] for f, _ in rows])
    y = np.log(np.array([ms for _, ms in rows]))
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 1e-12, scale, 1.0)
    z = (x - mean) / scale
    weights = np.linalg.solve(z.T @ z + strength * np.eye(len(names)), z.T @ (y - y.mean()))
    return Surrogate(names, mean, scale, weights, float(y.mean()), len(rows))


def log2_features(**values: float) -> dict[str, float]:
    """Each value's log2 and its square (values below 1 count as 1)."""
    out = {}
    for name, value in values.items():
        v = math.log2(max(float(value), 1.0))
        out[name] = v
        out[name + "²"] = v * v
    return out


__all__ = ["Surrogate", "fit", "log2_features", "LEAST"]
