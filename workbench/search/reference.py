"""The output every candidate of a search is checked against: the interpreter's output of
the search's program on its inputs, computed once per input set.

A search's workers each need it (and a worker started after a crash, and the same search
resumed or run again tomorrow): the first to ask computes it and keeps it in the user's
private cache folder (``userdirs.private_dir``), keyed by everything it depends on (the
program and its functions, the input types, sizes, seed and ranges, and the interpreter's
source); the others wait for it there and read it. The interpreter of a stencil at 4096²
takes seconds, which each of four workers spent again before.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from collections.abc import Callable
from contextlib import contextmanager
from functools import cache
from pathlib import Path

KEPT = 8  # outputs kept in the cache folder, the most recently used
LARGEST = 1 << 30  # bytes: a larger output is computed by each worker, not kept


def reference_key(job: dict) -> str:
    """What the expected output depends on, as a hash: the reference program and its
    functions, the inputs' types, sizes, seed and ranges, and the interpreter that computed
    it (``interpreter_fingerprint``)."""
    fields = [job.get("reference"), job.get("definitions", ""), list(job["types"]),
              sorted(job["sizes"].items()), job.get("seed", 0), job.get("ranges"),
              interpreter_fingerprint()]
    return hashlib.sha256(json.dumps(fields, default=str).encode()).hexdigest()[:32]


@cache
def interpreter_fingerprint() -> str:
    """The package's source files as they are (names, sizes, times of change): an output
    computed by an interpreter edited since (a checkout under work) is not taken for
    this one's."""
    root = Path(__file__).parent.parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        info = path.stat()
        digest.update(f"{path.relative_to(root)}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()[:16]


def expected_output(job: dict, compute: Callable[[], object]):
    """The interpreter's output for the job's search: read from the cache folder, else
    computed (``compute()``) and kept there, one process computing it while the others
    wait. Where the folder cannot be used, computed here."""
    try:
        folder = _folder()
    except OSError:
        return compute()
    path = folder / f"expected-{reference_key(job)}.pickle"
    with _locked(folder / f"expected-{reference_key(job)}.lock"):
        found = _read(path)
        if found is not None:
            return found[0]
        value = compute()
        _write(path, value)
    _forget_old(folder)
    return value


def _folder() -> Path:
    from ..device.userdirs import private_dir

    return private_dir("expected")


@contextmanager
def _locked(path: Path):
    """Held by one process at a time (an ``flock``, released if its holder dies)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: each process computes its own
        yield
        return
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read(path: Path) -> tuple | None:
    """``(value,)`` as kept, or None when there is none or it cannot be read (a file cut
    short by a kill: computed again)."""
    try:
        with open(path, "rb") as handle:
            value = pickle.load(handle)  # noqa: S301 - our own file, in a private folder
        os.utime(path)  # the most recently used
        return (value,)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ValueError):
        return None


def _write(path: Path, value) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    if len(data) > LARGEST:
        return
    partial = path.with_suffix(f".{os.getpid()}.part")
    try:
        partial.write_bytes(data)
        os.replace(partial, path)  # whole or not at all
    except OSError:
        partial.unlink(missing_ok=True)


def _forget_old(folder: Path) -> None:
    """Only the ``KEPT`` outputs used last are kept (with their lock files)."""
    kept = sorted(folder.glob("expected-*.pickle"), key=_mtime, reverse=True)
    for path in kept[KEPT:]:
        path.unlink(missing_ok=True)
        path.with_suffix(".lock").unlink(missing_ok=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
