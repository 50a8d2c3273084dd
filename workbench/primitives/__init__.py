"""The primitives of the language, each declared once (SPEC 4).

A declaration gives the name used by the printer, every accepted spelling, the paper's type
scheme, the static parameters (sizes, dimensions, functions, values), how many data
arguments it consumes, its type rule and its reference semantics (on batched NumPy values,
see ``values``), and whether the code generator knows it (bold in ICFP Figs. 6/7) or it
must first be rewritten away (high-level).

Adding a primitive means adding one ``define(Primitive(...))`` in ``algorithmic``, ``opencl``
or ``scalar`` (and its code generation entry once code generation exists).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

ALGORITHMIC = "algorithmic"
OPENCL = "opencl"
SCALAR = "scalar"


@dataclass(frozen=True)
class Param:
    """A static parameter: ``fun`` (a function), ``value`` (an expression such as the 0 of
    ``reduce (+) 0``), ``size`` (a symbolic size), ``dim`` (optional OpenCL dimension 0-2,
    default 0) or ``index`` (a literal natural number, as in ``get 0``)."""

    kind: str
    name: str


def FUN(name="f"):
    return Param("fun", name)


def VALUE(name="z"):
    return Param("value", name)


def SIZE(name="n"):
    return Param("size", name)


def DIM():
    return Param("dim", "dim")


def INDEX(name="i"):
    return Param("index", name)


@dataclass(frozen=True)
class Primitive:
    name: str
    category: str
    scheme: str
    figure: str
    doc: str
    infer: Callable
    semantics: Callable
    params: tuple[Param, ...] = ()
    arity: int | None = 1  # data arguments; None: two or more (zip)
    aliases: tuple[str, ...] = ()
    codegen: bool = True  # known to the code generator (bold in ICFP Figs. 6 and 7)
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def high_level(self) -> bool:
        """True when rules must rewrite it away before code can be generated."""
        return not self.codegen

    @property
    def is_map(self) -> bool:
        return self.extra.get("map_level") is not None


PRIMITIVES: dict[str, Primitive] = {}
_SPELLINGS: dict[str, str] = {}


def define(p: Primitive) -> Primitive:
    for spelling in (p.name, *p.aliases):
        if spelling in _SPELLINGS and _SPELLINGS[spelling] != p.name:
            raise ValueError(f"spelling {spelling!r} of {p.name} already names "
                             f"{_SPELLINGS[spelling]}")
        _SPELLINGS[spelling] = p.name
    PRIMITIVES[p.name] = p
    return p


def canonical_name(spelling: str) -> str:
    """The printed name of a primitive from any of its spellings (KeyError if none)."""
    return _SPELLINGS[spelling]


def lookup(spelling: str) -> Primitive | None:
    name = _SPELLINGS.get(spelling)
    return PRIMITIVES[name] if name else None


def spellings() -> dict[str, str]:
    return dict(_SPELLINGS)


from . import algorithmic, opencl, scalar  # noqa: E402,F401  (they register themselves)
