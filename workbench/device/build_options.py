"""The OpenCL build options a user may allow: the math options (OpenCL 1.2, sect. 5.6.4.2)
that let the compiler trade IEEE exactness for speed — contract ``a * b + c`` into one
``mad`` (``-cl-mad-enable``), ignore the sign of zero, reassociate float arithmetic and
assume no NaN or infinity (``-cl-unsafe-math-optimizations``, ``-cl-finite-math-only``, all
of them: ``-cl-fast-relaxed-math``), flush denormals to zero — and
``-cl-single-precision-constant``, which takes a C body's double constants (``0.5`` without
``f``, as Rodinia's SRAD writes its coefficient) as floats, so that a body over floats
computes in float instead of converting each operand to double and back (SRAD's first step
on PoCL: twice as fast).

None is used unless the user allows it (``run(..., build_options=[...])`` builds with them;
``search(..., build_options=[...])`` may choose among them), since a kernel built with them
may compute other numbers than the interpreter: every such kernel is still checked against
the interpreter, with the tolerance of any other kernel. A body's constants are left as the
user wrote them otherwise: ``0.5 * g2`` is double arithmetic in C, and making it float is
the user's choice, named in the kernel's record, not the code generator's. Other options
(``-D``, ``-I``, ``-cl-std``) are refused: they change what the source means, not how it is
compiled.
"""

from __future__ import annotations

from ..errors import ArgumentError

# the options allowed, in the order a kernel's record names them
MATH_OPTIONS = ("-cl-single-precision-constant", "-cl-mad-enable", "-cl-no-signed-zeros",
                "-cl-unsafe-math-optimizations", "-cl-finite-math-only", "-cl-fast-relaxed-math",
                "-cl-denorms-are-zero")


def build_options(value, argument: str = "build_options") -> tuple[str, ...]:
    """The build options ``value`` names (None, one option or several in a string separated
    by spaces, or a list of them; each may be written without its ``-cl-`` prefix: ``mad-
    enable``), each once, in ``MATH_OPTIONS``' order; an ``ArgumentError`` naming
    ``argument`` for anything else."""
    if value is None:
        return ()
    if isinstance(value, str):
        names = value.split()
    elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        names = [n for v in value for n in v.split()]
    else:
        raise ArgumentError(f"{argument} = {value!r}: give OpenCL build options as a list of "
                            f"text (such as ['-cl-fast-relaxed-math'])", argument)
    given = set()
    for name in names:
        option = name if name.startswith("-") else f"-cl-{name}"
        if option not in MATH_OPTIONS:
            raise ArgumentError(
                f"{argument}: {name!r} is not an option the workbench builds with (it takes "
                f"the math options {', '.join(MATH_OPTIONS)}; others would change what the "
                f"kernel's source means)", argument)
        given.add(option)
    return tuple(o for o in MATH_OPTIONS if o in given)


def option_sets(allowed: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The build options a search tries beside none, when it may use ``allowed``: each one
    alone, then all of them together (``-cl-fast-relaxed-math`` implies the others but
    ``-cl-denorms-are-zero``; each alone says which one a kernel gains from)."""
    sets = [(option,) for option in allowed]
    if len(allowed) > 1:
        sets.append(tuple(allowed))
    return sets


def options_text(options) -> str:
    """The options as a build takes them, and as a record names them ("" for none)."""
    return " ".join(options or ())
