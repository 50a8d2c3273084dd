"""Errors the workbench reports to its users.

Every error a user can provoke is a ``WorkbenchError``: it carries a one-paragraph message
that names the place (line and column, node path, rule, sizes), so the CLI can print it
without a traceback and the widget can show it next to the thing that is wrong.
"""

from __future__ import annotations

import operator
import os
import stat
from collections.abc import Mapping
from pathlib import Path


class WorkbenchError(Exception):
    """Base class of every error caused by user input (never by a bug of the workbench)."""

    def _render_traceback_(self) -> list[str]:
        """What IPython (a notebook, a console) shows for it: the error's kind and its
        located message with its notes, without the workbench's own frames, which say
        nothing about the input (``traceback.print_exception`` still shows them)."""
        lines = f"{type(self).__name__}: {self}".split("\n")
        for note in getattr(self, "__notes__", ()):
            lines += str(note).split("\n")
        return lines


class ParseError(WorkbenchError):
    """Malformed text: carries the line and column (1-based) and what was expected."""

    def __init__(self, message: str, line: int, column: int, source_line: str = "",
                 expected: str = "", path: str | None = None):
        self.line = line
        self.column = column
        self.expected = expected
        self.source_line = source_line
        self.path = path  # the file, when the text came from one
        caret = ""
        if source_line:
            shown, at = _window(source_line, column)
            caret = f"\n    {shown}\n    {' ' * (at - 1)}^"
        where = f"{path}: " if path else ""
        super().__init__(f"{where}line {line}, column {column}: {message}{caret}")
        self.reason = message


def _window(line: str, column: int, width: int = 100) -> tuple[str, int]:
    """The part of a long source line around ``column`` (and the column within it)."""
    if len(line) <= width:
        return line, column
    start = max(0, min(column - 1 - width // 2, len(line) - width))
    shown = line[start:start + width]
    prefix = "..." if start else ""
    suffix = "..." if start + width < len(line) else ""
    return prefix + shown + suffix, column - start + len(prefix)


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
    """The interpreter was given inputs that do not match the expression.

    ``input`` is the (1-based) number of the input at fault and ``size`` the name of the
    size at fault, when there is one."""

    def __init__(self, message: str, input: int | None = None, size: str | None = None):
        super().__init__(message)
        self.input = input
        self.size = size


class ArgumentError(WorkbenchError):
    """An argument of a call that is out of its range (``repeat=0``): names the
    ``argument``."""

    def __init__(self, message: str, argument: str):
        super().__init__(message)
        self.argument = argument


class ResourceError(WorkbenchError):
    """A request this machine cannot serve, such as inputs larger than the memory
    available; ``sizes`` names the sizes that asked for it."""

    def __init__(self, message: str, sizes: dict[str, int] | None = None):
        super().__init__(message)
        self.sizes = dict(sizes or {})


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

class NotText(WorkbenchError):
    """File contents that are not UTF-8 text: ``line`` and ``column`` (1-based) locate the
    first byte that is not."""

    def __init__(self, reason: str, line: int, column: int):
        super().__init__(f"line {line}, column {column}: {reason}")
        self.reason = reason
        self.line = line
        self.column = column


def decode_utf8(data: bytes) -> str:
    """The text of a file read as bytes: UTF-8, with a leading byte-order mark dropped.
    Raises ``NotText`` naming the line and column of the first byte that is not UTF-8 (and
    what the file looks like instead: UTF-16, binary)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[:err.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            kind = "it looks like UTF-16; save it as UTF-8"
        elif b"\x00" in data[:1024]:
            kind = "it looks like a binary file"
        else:
            kind = f"byte 0x{data[err.start]:02x} starts no UTF-8 character"
        raise NotText(f"not UTF-8 text ({kind})", line, column) from None
    return text[1:] if text.startswith("\ufeff") else text


# --- arguments of the public functions: each refused with an ArgumentError naming it --------

def shown(value: object, width: int = 60) -> str:
    """A value as an error message shows it: its repr, shortened."""
    text = repr(value).replace("\n", " ")
    return text if len(text) <= width else text[:width - 3] + "..."


def text_argument(value: object, argument: str) -> str:
    """``value``, where it is text (a ``str``)."""
    if not isinstance(value, str):
        raise ArgumentError(f"{argument} = {shown(value)}: give text (a str), not "
                            f"{type(value).__name__}", argument)
    return value


def flag_argument(value: object, argument: str) -> bool:
    """``value``, where it is True or False (NumPy's booleans among them)."""
    if type(value).__name__ not in ("bool", "bool_"):
        raise ArgumentError(f"{argument} = {shown(value)}: give True or False", argument)
    return bool(value)


def mapping_argument(value: object, argument: str, what: str = "names and values"):
    """``value``, where it is a mapping (None: an empty one)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ArgumentError(f"{argument} = {shown(value)}: give a mapping of {what} (a dict), "
                            f"not {type(value).__name__}", argument)
    return value


def sizes_argument(value: object, argument: str = "sizes") -> dict[str, int]:
    """Size values given by name (``{"N": 1024}``; None: none): names that are text, values
    that are whole numbers (NumPy's integers and constant sizes among them; a check of their
    range is the caller's)."""
    sizes = mapping_argument(value, argument, "size names to whole numbers, e.g. {'N': 1024}")
    for name, size in sizes.items():
        if not isinstance(name, str):
            raise ArgumentError(f"{argument}: the size name {shown(name)} is not text", argument)
        whole = _whole(size) or getattr(size, "is_integer_constant", False) is True
        if isinstance(size, bool) or not whole:  # a Size constant is whole
            raise ArgumentError(f"{argument}: size {name} = {shown(size)} is not a whole "
                                f"number", argument)
    return dict(sizes)


def _whole(value: object) -> bool:
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def path_argument(value: object, argument: str):
    """``value`` as a path, where it is text or a path-like object holding no NUL."""
    if isinstance(value, bytes) or not isinstance(value, str | os.PathLike):
        raise ArgumentError(f"{argument} = {shown(value)}: give a file's path (text or a "
                            f"pathlib.Path), not {type(value).__name__}", argument)
    path = Path(value)
    if "\x00" in str(path):
        raise ArgumentError(f"{argument} = {shown(str(path))}: a path holds no NUL character",
                            argument)
    return path


def file_argument(value: object, argument: str, *, reading: bool = True):
    """The path of a file to read (``reading``) or to write, from text or a path-like
    object: refused where it is no path, or where it names something that is no file to
    read — a folder, a FIFO (opening it waits for the other end), a device (one may be
    written: ``/dev/null``), a link that loops."""
    path = path_argument(value, argument)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return path
    except OSError as err:  # a link loop, a name too long, no permission
        raise ArgumentError(f"{argument} = {shown(str(path))}: {err.strerror}",
                            argument) from None
    if stat.S_ISDIR(mode):
        raise ArgumentError(f"{argument} = {shown(str(path))}: a folder, not a file", argument)
    if stat.S_ISFIFO(mode) or reading and not stat.S_ISREG(mode):
        raise ArgumentError(f"{argument} = {shown(str(path))}: not a regular file (a pipe or "
                            f"a device), which cannot be {'read' if reading else 'written'} "
                            f"as a file", argument)
    return path


def whole_argument(value: object, argument: str) -> int:
    """``value``, where it is a whole number (NumPy's integers among them, not a bool)."""
    try:
        if isinstance(value, bool):
            raise TypeError
        return operator.index(value)
    except TypeError:
        raise ArgumentError(f"{argument} = {shown(value)}: give a whole number",
                            argument) from None
