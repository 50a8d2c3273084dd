"""The notation's front door: which reader a text needs, and which printer a style.

Text in the paper notation (or its ASCII form, or the point-free subset of Lift's DSL) is
read by ``parser``/``program``; Lift program text as Lift's users write it (``val``
definitions, ``fun`` with types, ``$``, strings of C) by ``lift``. ``to_text`` prints the
paper notation or, with ``style="lift"``, Lift's spelling (``lift_printer``).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import (
    ArgumentError,
    ParseError,
    file_argument,
    flag_argument,
    mapping_argument,
    shown,
    text_argument,
)
from ..expr import Expr, expression_argument
from . import parser, program
from .lift import looks_like_lift, may_be_lift, parse_lift, parse_lift_program
from .lift_printer import to_lift
from .printer import to_text as paper_text

LIFT_PROGRAM = re.compile(r"(^|\n)[ \t]*((private|lazy)\s+)*(val|def)\s+\w+\s*(:[^=\n]*)?=")


def parse(text: str, definitions: dict[str, Expr] | None = None) -> Expr:
    """Parse an expression written in the paper notation, its ASCII form or Lift's DSL."""
    text_argument(text, "text")
    definitions = mapping_argument(definitions, "definitions",
                                   "names to expressions") if definitions is not None else None
    if definitions is None and looks_like_lift(text):
        return parse_lift(text)
    if definitions is None and "=>" in text:  # Lift's fun(x => ...), or the notation's
        try:
            return parse_lift(text)
        except ParseError:
            pass
    try:
        return parser.parse(text, definitions)
    except ParseError:
        if definitions is None and may_be_lift(text):
            try:
                return parse_lift(text)
            except ParseError:
                pass
        raise


def parse_program(text: str) -> program.Program:
    """Parse a program file: every definition resolved, type-checked against its signature.
    A Lift program (``val`` definitions, as in Lift's tests) gives its ``val`` definitions
    by name."""
    if LIFT_PROGRAM.search(text_argument(text, "text")):
        return parse_lift_program(text)
    return program.parse_program(text)


def user_functions(program_text: str) -> dict[str, Expr]:
    """The definitions of a program text by name (``program.user_functions_text``'s, in the
    paper notation or, where a user function is written in OpenCL C, in Lift's): the user
    functions a parsed expression may call."""
    if not program_text:
        return {}
    return dict(parse_program(program_text).items())


def load(path: str | Path) -> program.Program:
    """Read and parse a program file, in the paper notation or Lift's."""
    return program.load(file_argument(path, "path"), reader=parse_program)


# The columns a notebook's cell shows: longer expressions print on several lines.
NOTEBOOK_WIDTH = 100


def to_text(expr: Expr, ascii: bool = False, style: str = "paper",
            width: int | None = NOTEBOOK_WIDTH) -> str:
    """The expression in the papers' notation (``ascii``: with ``o`` and ``\\``), or with
    ``style="lift"`` in Lift's spelling. Paper text longer than ``width`` columns is laid out
    on several indented lines (``width=None``: one line, as ``str(expr)``); either reads
    back the same."""
    expression_argument(expr)
    ascii = flag_argument(ascii, "ascii")
    if text_argument(style, "style") == "lift":
        return to_lift(expr)
    if style != "paper":
        raise ArgumentError(f"style = {shown(style)}: an unknown style; give 'paper' or "
                            f"'lift'", "style")
    return paper_text(expr, ascii, width=width)
