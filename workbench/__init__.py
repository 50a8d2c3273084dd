"""rewrite-workbench: derive OpenCL kernels from functional expressions by rewrite rules.

The public surface (SPEC 14) is importable from here:

    >>> from workbench import parse, typecheck, evaluate
    >>> asum = parse("reduce (+) 0 ∘ map abs")
    >>> str(typecheck(asum, "[float]_N"))
    '[float]_1'
"""

from .codegen import CodegenError
from .codegen.program import opencl
from .derivation import Derivation, DerivationError
from .device.opencl import devices
from .errors import EvaluationError, ParseError, SizeError, TypeCheckError, WorkbenchError
from .expr import Expr
from .notation import Program, load, parse, parse_program, parse_type, to_text
from .rules import RewriteRefused, apply, rewrites, rules
from .search import SearchResult, search
from .semantics import evaluate
from .several.run import run
from .typecheck import annotate, typecheck

__version__ = "0.1.0"

__all__ = [
    "Expr", "Program", "parse", "parse_program", "parse_type", "load", "to_text", "typecheck",
    "annotate", "evaluate", "rewrites", "apply", "rules", "Derivation", "RewriteRefused",
    "DerivationError", "opencl", "run", "search", "SearchResult", "devices", "CodegenError",
    "WorkbenchError", "ParseError",
    "TypeCheckError", "SizeError", "EvaluationError",
    "__version__",
]
