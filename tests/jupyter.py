"""What running a notebook takes, so that the tests running notebooks skip cleanly where
Jupyter (or what a notebook imports: the widget's ipywidgets and anywidget, matplotlib) is
not installed, as on a GPU machine with only the test dependencies."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

KERNEL = ("nbformat", "nbclient", "ipykernel")
# what a package of this checkout that a notebook imports needs in turn
NEEDS = {"widgets": ("ipywidgets", "anywidget", "traitlets", "pygments", "matplotlib")}
LOCAL = {"workbench", "widgets", "benchmarks", "tests"}
IMPORT = re.compile(r"^\s*(?:from|import)\s+([\w.]+)", re.M)


def notebook_needs(path: Path) -> list[str]:
    """The modules running the notebook at ``path`` needs: a Jupyter kernel, what its cells
    import, and matplotlib where they draw with ``workbench.plots``."""
    cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
             if c["cell_type"] == "code"]
    source = "\n".join("".join(c["source"]) for c in cells)
    needed = list(KERNEL)
    for module in IMPORT.findall(source):
        top = module.split(".")[0]
        needed += NEEDS.get(top, ()) if top in LOCAL else (top,)
    if re.search(r"\bplots\.\w+\(", source):
        needed.append("matplotlib")
    return list(dict.fromkeys(needed))


def require_notebook(path: Path) -> None:
    """Skip the calling test unless everything the notebook at ``path`` needs imports."""
    for module in notebook_needs(path):
        pytest.importorskip(module, reason=f"running {path.name} needs {module} (pip install "
                            f"-e '.[lab,dev]')")
