"""Taking turns on a device: processes of one user (search workers, notebook kernels, Dask
workers on one machine) time kernels on a device one at a time, through a lock file per
device in the user's private folder (``userdirs``).

The lock is an ``flock``: the kernel releases it when its holder dies, so a dead owner never
keeps it. What can keep it is a live orphan — a search worker whose search was killed and
that still builds or runs a candidate. The holder writes who it is into the lock file; a
waiter that finds the holder to be a search worker whose parent is gone stops it.

Waiting is reported to a listener (``listen``): an isolated worker tells its parent when it
waits for the device and when it has it, so that time spent waiting is not counted against
the candidate's time limit.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .userdirs import private_dir

WAITING, ACQUIRED, RELEASED = "waiting", "acquired", "released"
_listener: Callable[[str], None] | None = None
_worker = False  # this process is a search worker (stopped if found orphaned)


def listen(listener: Callable[[str], None] | None, worker: bool = False) -> None:
    """Report ``waiting``/``acquired``/``released`` to ``listener``; ``worker`` marks this
    process as a search worker in the lock files it holds."""
    global _listener, _worker
    _listener, _worker = listener, worker


def _notify(event: str) -> None:
    if _listener is not None:
        _listener(event)


def lock_path(device_key: str):
    key = hashlib.sha256(device_key.encode()).hexdigest()[:16]
    return private_dir("locks") / f"device-{key}.lock"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def holder(path) -> dict | None:
    """Who holds the lock at ``path``, as the holder wrote it (None when unknown)."""
    try:
        with open(path) as f:
            data = json.loads(f.read() or "null")
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def stop_orphaned_holder(path) -> bool:
    """Stop the lock's holder when it is a search worker whose search is gone (its recorded
    parent is dead or no longer its parent). True when one was stopped."""
    owner = holder(path)
    if not owner or not owner.get("worker"):
        return False
    pid, parent = owner.get("pid"), owner.get("parent")
    if not isinstance(pid, int) or not isinstance(parent, int) or pid == os.getpid():
        return False
    if not _alive(pid):
        return False
    if _alive(parent) and _parent_of(pid) == parent:
        return False
    try:
        os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))  # Windows has no SIGKILL
    except OSError:
        return False
    return True


@contextmanager
def exclusive(device_key: str) -> Iterator[None]:
    """Hold the device named by ``device_key`` alone for the duration of the block."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    path = lock_path(device_key)
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _notify(WAITING)
            pause, checked = 0.001, time.monotonic()
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() - checked > 1.0:
                        stop_orphaned_holder(path)
                        checked = time.monotonic()
                    time.sleep(pause)
                    pause = min(pause * 2, 0.02)
        try:
            _notify(ACQUIRED)
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps({"pid": os.getpid(), "parent": os.getppid(),
                                     "worker": _worker, "since": time.time()}))
            handle.flush()
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            handle.flush()
            fcntl.flock(handle, fcntl.LOCK_UN)
            _notify(RELEASED)
