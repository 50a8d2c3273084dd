"""Golden files: generated text a human reads (OpenCL kernels), kept under ``tests/golden/``
and compared whole, so that a change to the code generator shows in review as a diff of
every kernel it touches. ``pytest --update-golden`` rewrites them (see ``conftest.py``)."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"


def compare(name: str, text: str, update: bool = False) -> None:
    """Compare ``text`` with the golden file ``name`` (relative to ``tests/golden/``); fail
    with a unified diff (golden first) where they differ, or where the file is missing.
    With ``update``, write the file instead."""
    path = GOLDEN / name
    if not text.endswith("\n"):
        text += "\n"
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        return
    if not path.exists():
        pytest.fail(f"no golden file tests/golden/{name}: run pytest with --update-golden to "
                    "write it, then review it", pytrace=False)
    expected = path.read_text()
    if expected != text:
        diff = difflib.unified_diff(expected.splitlines(keepends=True),
                                    text.splitlines(keepends=True),
                                    f"tests/golden/{name}", "generated now")
        pytest.fail("the generated text differs from its golden file (pytest --update-golden "
                    "rewrites it; review the diff):\n" + "".join(diff), pytrace=False)
