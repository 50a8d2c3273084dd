"""The environment of the child processes the tests start: this checkout first on the
module path, then whatever the parent's path holds (a GPU machine's packages carried to a
folder of their own are found only there)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).parent.parent


def child_env(**extra: str) -> dict[str, str]:
    """``os.environ`` with the checkout put first on ``PYTHONPATH``, and ``extra``."""
    path = [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path), **extra)
