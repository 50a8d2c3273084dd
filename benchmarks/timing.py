"""How the benchmarks time the peers they set beside the kernels: NumPy and SciPy by the
host's clock, CuPy by CUDA events (as the kernels are timed by OpenCL events). Every sample
is kept and read as a median with its range (``Spread``); interleaved rounds of timings
pool into the median of the rounds' medians and the range of every sample taken in them
(``pooled``), so a table shows how far a time moved while it was measured.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from workbench.plots import with_range  # how the tables write a time with its range


class Spread(NamedTuple):
    """A time in ms: the median of its samples, and the fastest and slowest of them."""

    median_ms: float
    min_ms: float
    max_ms: float

    @property
    def range_ms(self) -> list[float]:
        """``[min, max]``, as the results files record a range."""
        return [self.min_ms, self.max_ms]


def of_samples(samples_ms: Sequence[float]) -> Spread:
    return Spread(statistics.median(samples_ms), min(samples_ms), max(samples_ms))


def host_spread(fn: Callable[[], object], repeat: int = 20, warmup: int = 1) -> Spread:
    """``fn`` on the host: ``repeat`` calls timed by the wall clock after ``warmup`` untimed
    ones (NumPy's OpenBLAS threads start in the first), in ms."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return of_samples(samples)


def median_ms(fn: Callable[[], object], repeat: int = 20, warmup: int = 1) -> float:
    """The median of ``host_spread``, in ms."""
    return host_spread(fn, repeat, warmup).median_ms


def cuda_spread(fn: Callable[[], object], repeat: int = 20, warmup: int = 1) -> Spread:
    """``fn`` on an NVIDIA GPU through CuPy: each of ``repeat`` calls timed by CUDA events
    recorded around it, after ``warmup`` untimed ones, in ms."""
    import cupy as cp

    for _ in range(warmup):
        fn()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    samples = []
    for _ in range(repeat):
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, end))
    return of_samples(samples)


def pooled(rounds: Sequence[Spread]) -> Spread | None:
    """Rounds of one thing's timing as one: the median of the rounds' medians (a round's
    drift moves its median, not the others'), and the fastest and slowest sample of any
    round (None for no rounds)."""
    if not rounds:
        return None
    return Spread(statistics.median(r.median_ms for r in rounds),
                  min(r.min_ms for r in rounds), max(r.max_ms for r in rounds))


__all__ = ["Spread", "cuda_spread", "host_spread", "median_ms", "of_samples", "pooled",
           "with_range"]
