"""SkelCL's explicit redistribution, written in a program: ``redistribute block``,
``redistribute copy`` or ``redistribute (overlap h)`` says that from there on the array is
spread over the devices that way (Steuwer's thesis, Sect. 3.2.3).

A distribution never changes what a program computes, so its meaning is the identity
(``[A]_N -> [A]_N``), and on one device the code generator treats it as a view that moves no
element. On several devices (``several.run``) a program runs in stages between its
redistributions: each stage's output is gathered and spread again as the redistribution
says before the next stage runs on it.
"""

from __future__ import annotations

from ..primitive import ALGORITHMIC, DISTRIBUTION, Layout, Primitive, define
from .algorithmic import array_arg

WORDS = ("block", "copy")  # the distributions written as one word; the third: (overlap h)


def distribution_refusal(text) -> str | None:
    """Why ``text`` is not a distribution as a ``redistribute`` holds it (``"block"``,
    ``"copy"``, ``"overlap h"`` with a whole number ``h >= 0``), or None."""
    if text in WORDS:
        return None
    if isinstance(text, str):
        words = text.split()
        if len(words) == 2 and words[0] == "overlap" and words[1].isdigit():
            return None
    return (f"{text!r} is not a distribution: write block, copy or (overlap h) with h a whole "
            f"number of halo rows")


def written(text: str) -> str:
    """The distribution as the printer writes it after ``redistribute``."""
    return text if text in WORDS else f"({text})"


def redistribute_type(chk, node, args, env, path):
    return array_arg(chk, args[0], path, "redistribute")  # [A]_N -> [A]_N


def redistribute_semantics(ev, node, args):
    return args[0]  # a distribution does not change a result


def _same_element(node, input_type, calls):
    return lambda *indices: indices


define(Primitive(
    "redistribute", ALGORITHMIC, "[A]_N -> [A]_N", "SkelCL (redistribution, thesis Sect. 3.2.3)",
    "The array from here on distributed as d (block, copy or overlap h): the same array.",
    redistribute_type, redistribute_semantics, params=(DISTRIBUTION(),),
    layout=Layout(read=_same_element, write=_same_element)))
