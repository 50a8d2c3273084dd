"""Processes of a search's own that prepare its candidates in parallel: a function of many
expressions (the guided search's default completions, each lowered and compiled) computed
in chunks, one per process, the results in the order given. A step of a guided search
completes hundreds of expressions before it measures any; on a host of several cores they
are completed that many at a time, while the search's measuring workers wait for them.

The function and its set-up are the caller's (module-level functions, which the spawned
processes import); on a host of many cores the processes start when the search does, so that
their imports overlap its first candidate.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from ..device.isolation import spawning

MOST = 8  # processes at most
# cores from which the processes start with the search; on fewer they start when first
# needed, so that they do not slow the start of the worker that measures the first candidate
EAGER = 8


def process_count() -> int:
    """Processes for a search on this host: one per core, at most ``MOST``; 0 (complete in
    the search's own process) on a host of one core."""
    cores = os.cpu_count() or 1
    return 0 if cores < 2 else min(cores, MOST)


class Processes:
    """``count`` spawned processes, each set up by ``initializer(*initargs)``."""

    def __init__(self, count: int, initializer: Callable, initargs: tuple):
        self.count = count
        self.pool = ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=initializer, initargs=initargs)
        if (os.cpu_count() or 1) >= EAGER:
            with spawning():  # started now: their imports overlap the first candidate
                self._ready = [self.pool.submit(os.getpid) for _ in range(count)]

    def map(self, function: Callable, items: list, *args) -> list:
        """``function(chunk, *args)`` for chunks of ``items``, one per process; the results
        (a list per chunk) joined in the order of ``items``."""
        size = -(-len(items) // self.count)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        with spawning():
            futures = [self.pool.submit(function, chunk, *args) for chunk in chunks]
        return [result for future in futures for result in future.result()]

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
