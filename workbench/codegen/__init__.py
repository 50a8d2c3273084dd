"""OpenCL code generation (SPEC 6), as small separate passes: index arithmetic
(``arith``), views of the data-layout primitives (``views``), scalar functions in C
(``scalar``), kernel emission (``kernel``), stages and launch plan (``program``), and the
default completion of what is still high-level (``completion``)."""

from ..errors import WorkbenchError


class CodegenError(WorkbenchError):
    """An expression the generator cannot turn into OpenCL, with the reason."""
