"""The OpenCL C names of what the user named: user functions, their parameters and programs.

A user function is named by the program it comes from (a Lift ``UserFun("out", …)`` may
be called anything, a Lift program's ``val`` too), and a parameter by its lambda. Taken
verbatim, a function called ``out`` or ``in0`` would be hidden by the kernel's buffers of
that name, a parameter called ``fmin`` would hide the built-in its function calls, ``float``
is a keyword, and a name that is not an identifier would become code. So:

- a user function ``mul`` is ``uf_mul`` in C: no buffer, variable, built-in or keyword
  starts so, and the generator's own functions (``kernel_f3``) do not either;
- a parameter ``x`` is ``x_``: no name the generator makes, no keyword and no built-in ends
  with an underscore;
- every character that an identifier may not hold is written as ``_xHH_`` (its code point
  in hex): ``α`` is ``_x3b1_``.

Distinct names stay distinct: the functions of a program and the parameters of a function
are each given a number when two would otherwise share a C name (``CNames``).
"""

from __future__ import annotations


def identifier(name: str) -> str:
    """``name`` with every character that a C identifier may not hold spelled ``_xHH_``."""
    text = "".join(c if c.isascii() and (c.isalnum() or c == "_") else f"_x{ord(c):x}_"
                   for c in name)
    return text or "_"


def user_function(name: str) -> str:
    """The C name of a user function (before it is made unique in its program)."""
    return "uf_" + identifier(name)


def parameter(name: str) -> str:
    """The C name of a parameter (before it is made unique in its function)."""
    text = identifier(name) + "_"
    return text if not text[0].isdigit() else "v" + text


def program(name: str) -> str:
    """A program's name as the stem of its kernels' names (``asum`` → ``asum_0``)."""
    text = identifier(name)
    return text if not text[0].isdigit() else "k" + text


class CNames:
    """Names taken in one C scope; a name asked for again gets a number (``uf_mul2``)."""

    def __init__(self, taken=()):
        self.taken: set[str] = set(taken)

    def unique(self, base: str) -> str:
        name, k = base, 2
        while name in self.taken:
            name, k = f"{base}{k}", k + 1
        self.taken.add(name)
        return name
