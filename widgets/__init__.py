"""Jupyter layer of the workbench: the interactive derivation widget (built on workbench).

    >>> from widgets import Workbench
    >>> Workbench("map abs", "[float]_N")          # doctest: +SKIP
    >>> search(expr, "[float]_4096", progress=Progress(40))   # doctest: +SKIP

The core package ``workbench`` never imports this one.
"""

from .progress import Progress
from .workbench import Workbench

__all__ = ["Workbench", "Progress"]
