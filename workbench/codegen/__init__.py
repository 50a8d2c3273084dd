"""OpenCL code generation (SPEC 6), as small separate passes: index arithmetic
(``arith``), views of the data-layout primitives (``views``), then memory, barriers and
emission."""
