"""What a search's models of candidates' times have in common (SPEC 8): fitted to measured
candidates, each described by named features, they predict a candidate's time from its
features, so that a strategy measures first what its model ranks fastest.

``cost.CostModel`` (the guided search's calibrated model: a weighted sum of what the code
generator counted, pulled towards the device's prior) and ``surrogate.Surrogate`` (the
CASES exploration's ridge regression of log time on what a candidate is made of) are both
``TimeModel``s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, runtime_checkable

# a measured candidate: its features (None: it has none) and its time in milliseconds
Measured = tuple[Mapping[str, float] | None, float]


@runtime_checkable
class TimeModel(Protocol):
    """A model of candidates' times: ``predict`` a time in milliseconds from features,
    ``fitted`` to measured candidates (a new model; None when they are too few to fit
    one), ``fitted_on`` that many, and ``as_json`` for a result or a log to report it."""

    @property
    def fitted_on(self) -> int: ...

    def predict(self, features: Mapping[str, float]) -> float: ...

    def fitted(self, measured: Iterable[Measured]) -> TimeModel | None: ...

    def as_json(self) -> dict: ...


def rank(model: TimeModel, features: Sequence[Mapping[str, float]]) -> list[int]:
    """The candidates (their indices) predicted fastest first; equal predictions keep
    their order."""
    predicted = [model.predict(f) for f in features]
    return sorted(range(len(features)), key=predicted.__getitem__)


__all__ = ["TimeModel", "Measured", "rank"]
