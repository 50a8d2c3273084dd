"""The primitives of the language, each declared once (SPEC 4).

A declaration gives the name used by the printer, every accepted spelling, the paper's type
scheme, the static parameters (sizes, dimensions, functions, values), how many data
arguments it consumes, its type rule and its reference semantics (on batched NumPy values,
see ``values``), and whether the code generator knows it (bold in ICFP Figs. 6/7) or it
must first be rewritten away (high-level).

Adding a primitive means adding one ``define(Primitive(...))`` in ``algorithmic``, ``opencl``
or ``scalar``. Its code generation is declared there too: a data-layout primitive gives its
index functions (``Layout``) or the view the code generator builds (``view``), a map the
level of the thread hierarchy it runs on (``map_level``, and ``unrolled``), another
computing primitive the code that makes it (``kernel``, ``address_space``), a scalar
function its C name (``c_name``).
"""

from __future__ import annotations

from ..primitive import (  # noqa: F401  (the package's surface)
    ALGORITHMIC,
    DIM,
    DISTRIBUTION,
    FUN,
    INDEX,
    OPENCL,
    PRIMITIVES,
    SCALAR,
    SIZE,
    SIZES,
    VALUE,
    AddressSpace,
    Kernel,
    Layout,
    MapLevel,
    Param,
    Primitive,
    ViewForm,
    canonical_name,
    define,
    lookup,
    spellings,
)
from . import (  # noqa: E402,F401  (they register themselves)
    algorithmic,
    layouts,
    opencl,
    redistribution,
    scalar,
    skeletons,
)
