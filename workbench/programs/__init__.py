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


def library(name: str) -> Program:
    """A program file of the library by its path without ``.lift``, e.g.
    ``library("blas")["asum"]`` or ``library("lift/nbody")`` (read once)."""
    from ..errors import WorkbenchError, shown, text_argument

    names = {p.relative_to(LIBRARY).with_suffix("").as_posix()
             for p in LIBRARY.rglob("*.lift")}  # "blas", and "lift/nbody" in a folder
    if text_argument(name, "name") not in names:
        raise WorkbenchError(f"no program file {shown(name)} in the library (known: "
                             f"{', '.join(sorted(names))})")
    return _read(name)


@cache
def _read(stem: str) -> Program:
    return load(LIBRARY / f"{stem}.lift")
