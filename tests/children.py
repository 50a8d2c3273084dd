"""The environment of the child processes the tests start: this checkout first on the
module path, then whatever the parent's path holds (a GPU machine's packages carried to a
folder of their own are found only there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def child_env(**extra: str) -> dict[str, str]:
    """``os.environ`` with the checkout put first on ``PYTHONPATH``, and ``extra``."""
    path = [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path), **extra)


CLEAN = ("Invalid read", "Invalid write", "data race", "Uninitialized")


def under_oclgrind(code: str, *args: str, uninitialized: bool = True) -> tuple[dict, str]:
    """Run ``python -c code args`` with Oclgrind's race (and uninitialized-value) checks on:
    the JSON object of its last line of output, and what it wrote to stderr."""
    env = child_env(OCLGRIND_DATA_RACES="1")
    if uninitialized:
        env["OCLGRIND_UNINITIALIZED"] = "1"
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "{}"
    return json.loads(last), proc.stderr


def assert_clean(result: dict, stderr: str, problems=CLEAN) -> None:
    """The child's kernel ran, matched the interpreter, and Oclgrind reported none of
    ``problems``."""
    assert result.get("status") == "ok" and result.get("correct"), (result, stderr[-2000:])
    for problem in problems:
        assert problem not in stderr, stderr[-3000:]
