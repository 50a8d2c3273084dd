"""The performance harness: the workbench's kernels and searches measured beside their peers.

A benchmark is a module run as ``python -m benchmarks.NAME``; it writes its results into
``results/``."""
