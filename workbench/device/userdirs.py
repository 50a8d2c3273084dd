"""The workbench's per-user private folders: the device-health cache, device lock files and
the ICD folder through which an unregistered NVIDIA driver is made visible.

Nothing is kept at a predictable shared path (a fixed name in the system's temporary
folder): another local user could create it first and plant files there, e.g. an ``.icd``
file naming a library of their own, which the OpenCL loader would then load into this
process. Each folder is created with mode 0700 and used only when it belongs to this user
and nobody else can write to it; otherwise a fresh private folder is made for the process.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

APP = "rewrite-workbench"
_FALLBACK: Path | None = None


def _cache_root() -> Path:
    """The user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``), as platformdirs has it."""
    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir(APP, appauthor=False))
    except ImportError:  # platformdirs comes with pyopencl; this is only a fallback
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(base) / APP


def is_private(folder: Path) -> bool:
    """Whether ``folder`` is a real folder of this user that nobody else can write to."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return False
    return not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _make_private(folder: Path) -> Path | None:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if is_private(folder) else None


def private_dir(name: str) -> Path:
    """``<user cache>/rewrite-workbench/<name>``, private to this user; when that cannot be
    had (no writable home, a folder someone else owns or can write to), a private folder
    made for this process (``tempfile.mkdtemp``: unpredictable name, mode 0700)."""
    global _FALLBACK
    root = _make_private(_cache_root())
    folder = _make_private(root / name) if root is not None else None
    if folder is not None:
        return folder
    if _FALLBACK is None or not is_private(_FALLBACK):
        _FALLBACK = Path(tempfile.mkdtemp(prefix="rewrite-workbench-"))
    folder = _make_private(_FALLBACK / name)
    if folder is None:  # pragma: no cover - mkdtemp's own folder is private
        raise OSError(f"cannot create a private folder under {_FALLBACK}")
    return folder
