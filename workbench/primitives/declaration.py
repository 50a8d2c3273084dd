"""What a primitive's declaration holds (name and spellings, type rule, semantics, static
parameters, level, code-generation form) and the registry of declared primitives, which
``expr`` reads to find a node's declaration and the ``primitives`` modules fill."""

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
    default 0), ``index`` (a literal natural number, as in ``get 0``) or ``sizes`` (a tuple
    of sizes, as in ``gatherOffsets (0, m)``)."""

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


def SIZES(name="ns"):
    """A tuple of sizes, written ``(0, m)``: P2CL's offsets, a rearrange's permutation."""
    return Param("sizes", name)


@dataclass(frozen=True)
class Layout:
    """How a data-layout primitive moves elements (ICFP 2015 Sect. 3.2): it generates no
    code, only index functions that the code generator composes into views.

    ``read(node, input_type, calls)`` returns a function from the indices of an element of
    the result (one per array level, outermost first) to the indices of the input element
    it is; ``write(node, input_type, calls)`` the other way round: where an element of the
    input lands in the result, for a computation that writes through the primitive. Either
    may be None (a ``slide`` cannot be written through, a ``scatter`` not read through).
    Indices are index expressions (``+ - * // %`` with integers); ``calls.function(f,
    *indices, extent=n)`` is an index computed at run time by a function of the program
    (``gather f``), ``calls.builtin(name, *indices, extent=n)`` by an OpenCL built-in."""

    read: Callable | None = None
    write: Callable | None = None


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
    layout: Layout | None = field(default=None, compare=False)  # a data-layout primitive

    @property
    def high_level(self) -> bool:
        """True when rules must rewrite it away before code can be generated."""
        return not self.codegen

    @property
    def is_map(self) -> bool:
        """True for the maps of every level (``map``, ``mapGlobal``, ``mapSeq``…)."""
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
