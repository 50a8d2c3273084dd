"""OpenCL code generation (SPEC 6): a fully low-level expression is translated into a small
imperative kernel IR, passes work on that IR, and OpenCL C is printed from it last.

- ``ir``: the kernel IR (loops with their level, stores and loads through offsets,
  allocations with an address space, barriers); ``arith``: index arithmetic;
- translation: ``views`` (the layout primitives as index functions), ``values`` (what an
  expression denotes during translation, and its storage), ``scalar`` (scalar functions),
  ``kernel`` (the code inside a kernel) with ``patterns`` (maps, reductions, iterate,
  memory spaces), ``stages`` (the kernels of a program);
- passes: ``unroll``, ``peel`` (a stencil's edges off its interior, which is then
  clamp-free), ``launch`` (global and local sizes), ``barriers``, ``wide``
  (64-bit indices), ``private`` (the bound on private arrays), ``written`` (every output
  element stored exactly once, every temporary element read written before), ``memory``
  (reuse of temporaries), ``features`` (what the search's cost model reads);
- ``emit``: OpenCL C from the IR; ``program``: the one compile path (``opencl``).

Code generation decides nothing and rewrites nothing: what is still high-level, and the copy
a view on the way out needs (``copy-view``), are steps of a strategy of rules
(``rules.lowering``) taken before it gets here, or refused.
"""

from ..errors import WorkbenchError, format_path


class CodegenError(WorkbenchError):
    """An expression the generator cannot turn into OpenCL: the node (path and printed form,
    when known) and the reason."""

    def __init__(self, reason: str, path: tuple[int, ...] | None = None, node_text: str = ""):
        self.reason = reason
        self.path = path
        self.node_text = node_text
        where = ""
        if path is not None:
            shown = node_text if len(node_text) <= 80 else node_text[:77] + "..."
            where = f"at node {format_path(path)} `{shown}`: "
        super().__init__(where + reason)

    def at(self, path: tuple[int, ...], node) -> "CodegenError":
        """The same error located at a node (unless it already names one)."""
        if self.path is not None:
            return self
        return CodegenError(self.reason, path, str(node))
