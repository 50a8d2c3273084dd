"""What a primitive's declaration holds (name and spellings, type rule, semantics, static
parameters, level, code-generation form) and the registry of declared primitives, which
``expr`` reads to find a node's declaration and the ``primitives`` modules fill. It stands
beside ``expr``, outside the ``primitives`` package: the declarations there write their
semantics with expressions, and ``expr`` reads the registry without importing them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, StrEnum

from .types import ArrayType

ALGORITHMIC = "algorithmic"
OPENCL = "opencl"
SCALAR = "scalar"


class MapLevel(StrEnum):
    """Where the iterations of a map run (PACT's map hierarchy; ICFP 2015 Fig. 5): ``any``
    for the high-level ``map`` (not yet lowered), a level of the OpenCL thread hierarchy,
    sequentially in one work-item, or lane-wise on a SIMD vector (``mapVec``)."""

    ANY = "any"
    GLOBAL = "global"
    WORKGROUP = "workgroup"
    LOCAL = "local"
    WARP = "warp"
    LANE = "lane"
    SEQ = "seq"
    VECTOR = "vector"


class AddressSpace(StrEnum):
    """The OpenCL address space a ``toGlobal``/``toLocal``/``toPrivate`` writes its
    function's results to."""

    GLOBAL = "global"
    LOCAL = "local"
    PRIVATE = "private"


class Kernel(Enum):
    """How the code generator makes a primitive that computes and is neither a map (its
    ``map_level``) nor a change of address space (its ``address_space``): each names a
    method of ``codegen.patterns.Patterns``."""

    ZIP = "zip"  # a view of its inputs, copied where a destination is given
    REPLICATE = "replicate"
    AT = "at"  # an element read at an index computed at run time
    REDUCE_SEQ = "reduce_seq"  # an accumulator and a loop
    SCAN_SEQ = "scan_seq"
    SCAN_LOCAL = "scan_local"  # Blelloch's scan by a work-group
    ITERATE = "iterate"  # ``iterate n f``: f n times, two buffers in turn
    LOOP = "loop"  # ``loop n f``: the stage function of each stage, as ``iterate`` does


class ViewForm(Enum):
    """A data-layout primitive whose view the code generator builds itself
    (``codegen.views``), being more than one index function (``Layout``): padding,
    tuples of views, SIMD vectors."""

    PAD = "pad"
    PAD_2D = "pad2D"
    ENUMERATE = "enumerate"
    GATHER_OFFSETS = "gatherOffsets"
    SCATTER_OFFSETS = "scatterOffsets"
    SPLIT_VEC = "splitVec"
    JOIN_VEC = "joinVec"


@dataclass(frozen=True)
class Param:
    """A static parameter: ``fun`` (a function), ``value`` (an expression such as the 0 of
    ``reduce (+) 0``), ``size`` (a symbolic size), ``dim`` (optional OpenCL dimension 0-2,
    default 0), ``index`` (a literal natural number, as in ``get 0``) or ``sizes`` (a tuple
    of sizes, as in ``gatherOffsets (0, m)``) or ``distribution`` (SkelCL's ``block``,
    ``copy`` or ``(overlap h)``, as in ``redistribute block``)."""

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


def DISTRIBUTION(name="d"):
    """A SkelCL distribution, written ``block``, ``copy`` or ``(overlap h)`` and held as
    that text (``"block"``, ``"copy"``, ``"overlap 1"``), as in ``redistribute block``."""
    return Param("distribution", name)


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
    layout: Layout | None = field(default=None, compare=False)  # a data-layout primitive
    # How the code generator makes it (SPEC 6): at most one of these
    map_level: MapLevel | None = None  # a map, and where its iterations run
    unrolled: bool = False  # a sequential loop (map or reduction) that is fully unrolled
    address_space: AddressSpace | None = None  # where its function's results are stored
    # a private copy that an enclosing sequential reduction makes of its next element while
    # it computes this one (``prefetch``, ``codegen.accumulators``)
    ahead: bool = False
    kernel: Kernel | None = None  # a computation with code of its own
    view: ViewForm | None = None  # a layout whose view is the code generator's own
    c_name: str | None = None  # a scalar function: its OpenCL C name (or cast)
    # Typing
    maps_over: type = ArrayType  # what a map's argument is: arrays, or SIMD vectors (mapVec)
    element_hint: bool = False  # its value argument takes the element type a context expects
    # The rules: a layout primitive without index functions (``layout.is_layout_primitive``)
    moves_only: bool = False

    @property
    def high_level(self) -> bool:
        """True when rules must rewrite it away before code can be generated."""
        return not self.codegen

    @property
    def is_map(self) -> bool:
        """True for the maps of every level (``map``, ``mapGlobal``, ``mapSeq``…)."""
        return self.map_level is not None


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
