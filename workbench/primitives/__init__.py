"""The primitives of the language, each declared once (SPEC 4).

A declaration gives the name used by the printer, every accepted spelling, the paper's type
scheme, the static parameters (sizes, dimensions, functions, values), how many data
arguments it consumes, its type rule and its reference semantics (on batched NumPy values,
see ``values``), and whether the code generator knows it (bold in ICFP Figs. 6/7) or it
must first be rewritten away (high-level).

Adding a primitive means adding one ``define(Primitive(...))`` in ``algorithmic``, ``opencl``
or ``scalar``. Its code generation is declared there too: a data-layout primitive gives its
index functions (``Layout``), a map the level of the thread hierarchy it runs on
(``extra["map_level"]``) and, when unrolled, its loop form (``extra["loop"]``), a scalar
function its C name (``extra["c"]``).
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
        return self.extra.get("map_level") is not None


def mapped_layout(node):
    """The function of a map that only rearranges each element of its input (``join`` of
    ``map join``, ``transpose ∘ split 2`` of ``map (transpose ∘ split 2)``, also written
    ``map (λx. transpose (split 2 x))``), as a composition of layout primitives; else None.
    Such a map computes nothing: it is a view, whatever kind of map it is (but ``map id``
    is a copy)."""
    from ..expr import Prim

    if not isinstance(node, Prim):
        return None
    level = node.decl.extra.get("map_level")
    if level is None or level == "vector" or not node.args:
        return None
    return layout_function(node.args[-1])


def layout_function(f):
    """``f`` as a composition of layout primitives (or maps of them), if it is one."""
    from ..expr import Apply, Compose, Lambda, Prim, Var, compose

    if isinstance(f, Lambda) and len(f.params) == 1 and isinstance(f.params[0], str):
        fns, e = [], f.body
        while isinstance(e, Apply) and len(e.args) == 1:
            fns.extend(e.fn.fns if isinstance(e.fn, Compose) else (e.fn,))
            e = e.args[0]
        if e != Var(f.params[0]) or not fns:
            return None
        f = compose(*fns)
    fns = f.fns if isinstance(f, Compose) else (f,)
    # ``map id`` is a copy (PACT: id implemented as a copy), not a view
    ok = all(isinstance(g, Prim) and g.name != "id" and
             (g.decl.layout is not None or mapped_layout(g) is not None) for g in fns)
    return f if ok else None


def needs_lowering(node) -> bool:
    """A high-level primitive that rules must rewrite before code is generated (a map that
    only rearranges data is a view and needs none)."""
    from ..expr import Prim

    return isinstance(node, Prim) and node.decl.high_level and mapped_layout(node) is None


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
