"""The program library: ICFP 2015 Fig. 13 (scal, asum, dot, gemv, blackScholes, md), vecSum,
matrix multiplication, and the expressions of ICFP Figs. 3 and 10 and of the reduction
listings 5.8 and 5.13 of the slides, as program files shipped with the package."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ..notation import Program, load

LIBRARY = Path(__file__).parent


def files() -> list[Path]:
    return sorted(LIBRARY.glob("*.lift"))


@cache
def library(name: str) -> Program:
    """A program file of the library by stem, e.g. ``library("blas")["asum"]``."""
    path = LIBRARY / f"{name}.lift"
    if not path.exists():
        from ..errors import WorkbenchError

        known = ", ".join(p.stem for p in files())
        raise WorkbenchError(f"no program file {name!r} in the library (known: {known})")
    return load(path)
