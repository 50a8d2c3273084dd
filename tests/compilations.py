"""Counting the programs a search compiles: where it compiles a candidate (a strategy's cost
model) and where a worker does (``workbench.run``), each a count by expression text."""

from __future__ import annotations

import importlib
from collections import Counter

from workbench.codegen.program import opencl


def count_compilations(monkeypatch, strategy_module) -> tuple[Counter, Counter]:
    """(by the strategy, by the worker): the compilations counted from now on."""
    running = importlib.import_module("workbench.run")  # the module, not the function
    by_search, by_worker = Counter(), Counter()

    def counted(into):
        def compile_counted(expr, *types, **options):
            into[str(expr)] += 1
            return opencl(expr, *types, **options)
        return compile_counted

    monkeypatch.setattr(strategy_module, "opencl", counted(by_search))
    monkeypatch.setattr(running, "opencl", counted(by_worker))
    return by_search, by_worker
