"""Errors the workbench reports to its users.

Every error a user can provoke is a ``WorkbenchError``: it carries a one-paragraph message
that names the place (line and column, node path, rule, sizes), so the CLI can print it
without a traceback and the widget can show it next to the thing that is wrong.
"""

from __future__ import annotations


class WorkbenchError(Exception):
    """Base class of every error caused by user input (never by a bug of the workbench)."""


class ParseError(WorkbenchError):
    """Malformed text: carries the line and column (1-based) and what was expected."""

    def __init__(self, message: str, line: int, column: int, source_line: str = "",
                 expected: str = ""):
        self.line = line
        self.column = column
        self.expected = expected
        self.source_line = source_line
        caret = ""
        if source_line:
            caret = f"\n    {source_line}\n    {' ' * (column - 1)}^"
        super().__init__(f"line {line}, column {column}: {message}{caret}")
        self.reason = message


class NameError_(WorkbenchError):
    """An identifier that is neither bound, a primitive, a scalar function nor a definition."""


class TypeCheckError(WorkbenchError):
    """An ill-typed expression: names the node (path and printed form) and both types."""

    def __init__(self, message: str, path: tuple[int, ...] = (), node_text: str = ""):
        self.path = path
        self.node_text = node_text
        self.reason = message
        where = ""
        if node_text:
            shown = node_text if len(node_text) <= 80 else node_text[:77] + "..."
            where = f"at node {format_path(path)} `{shown}`: "
        super().__init__(where + message)


class SizeError(TypeCheckError):
    """Sizes that do not fit: a split that does not divide, mismatching lengths."""


class EvaluationError(WorkbenchError):
    """The interpreter was given inputs that do not match the expression."""


def format_path(path: tuple[int, ...]) -> str:
    """Print a node path the way users type it: ``0.1.0``; the root is ``root``."""
    return ".".join(str(i) for i in path) if path else "root"


def parse_path(text: str) -> tuple[int, ...]:
    """Inverse of ``format_path``; accepts ``root``, ``.`` or the empty string for the root."""
    text = text.strip()
    if text in ("", ".", "root"):
        return ()
    try:
        steps = tuple(int(part) for part in text.split("."))
    except ValueError:
        raise WorkbenchError(
            f"bad path {text!r}: expected dot-separated child numbers such as 0.1.2, or 'root'"
        ) from None
    if any(step < 0 for step in steps):
        raise WorkbenchError(f"bad path {text!r}: child numbers are not negative")
    return steps


def as_path(path: object) -> tuple[int, ...]:
    """A node path from what users write: ``"1.0.2"``, ``"root"``, a child number ``0``, or a
    tuple or list of child numbers; anything else is a ``WorkbenchError`` saying what a path
    is."""
    if isinstance(path, str):
        return parse_path(path)
    if isinstance(path, int) and not isinstance(path, bool):
        if path < 0:
            raise WorkbenchError(f"bad path {path}: child numbers are not negative")
        return (path,)
    if isinstance(path, tuple | list) and all(isinstance(i, int) and not isinstance(i, bool)
                                              for i in path):
        if any(i < 0 for i in path):
            raise WorkbenchError(f"bad path {format_path(tuple(path))}: child numbers are not "
                                 f"negative")
        return tuple(path)
    raise WorkbenchError(f"bad path {path!r}: a node path is 'root', a child number such as 0, "
                         f"dot-separated child numbers such as '1.0.2', or a tuple of them")
