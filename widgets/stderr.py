"""The compiler's messages collected instead of flooding the notebook.

PoCL's compiler (clang) writes "N warnings generated." (and the warnings, when it prints
them) straight to file descriptor 2 of the process that builds a kernel, even where the build
log also holds them. In a notebook, ipykernel forwards that descriptor into the cell's output,
so a search (whose worker processes inherit the descriptor when they start) printed line
after line in pink. While a widget job runs (``collecting``), descriptor 2 points at a file of
ours instead; what was written there is kept in ``messages`` and the widget shows it on
request (``CompilerMessages``). Python's own ``sys.stderr`` in a notebook is not descriptor 2
(ipykernel sends it as messages), so tracebacks and warnings from Python are unaffected.
"""

from __future__ import annotations

import contextlib
import html
import os
import sys
import tempfile
import threading
import weakref
from collections.abc import Iterator

import ipywidgets as w

_lock = threading.Lock()
_depth = 0  # jobs collecting at once (the descriptor is the process's: shared by them)
_saved: int | None = None  # the descriptor 2 to restore
_file = None  # where descriptor 2 points while collecting (opened for appending)
messages: list[str] = []  # every line collected, oldest first (the last ``KEEP``)
listeners: list[weakref.WeakMethod] = []  # told when lines were added
KEEP = 2000


@contextlib.contextmanager
def collecting() -> Iterator[None]:
    """Descriptor 2 goes to a file of ours for the duration (nested and concurrent uses
    share one redirection: the last to leave restores the descriptor and reads the file)."""
    global _depth, _saved, _file
    with _lock:
        if _depth == 0:
            sys.stderr.flush()
            _file = tempfile.TemporaryFile(mode="a+b")
            _saved = os.dup(2)
            os.dup2(_file.fileno(), 2)
        elif not _ours():  # pointed elsewhere since (a test's capture): that is restored
            os.close(_saved)
            _saved = os.dup(2)
            os.dup2(_file.fileno(), 2)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            _collect(_file, final=_depth == 0)  # each job's lines as it ends
            if _depth == 0:
                if _ours():  # else whoever pointed it elsewhere restores their own
                    os.dup2(_saved, 2)
                os.close(_saved)
                _saved = None
                _file.close()
                _file = None


def _ours() -> bool:
    """Whether descriptor 2 is still our file."""
    mine, now = os.fstat(_file.fileno()), os.fstat(2)
    return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)


_read = 0  # how much of the file was kept


def _collect(file, final: bool) -> None:
    """Keep the whole lines the file holds beyond what was kept (and, when ``final``, the
    rest). Worker processes started while collecting may write on after the descriptor is
    restored: their lines land in the file and are kept when it is read, or are lost with
    it once it closes, never shown in the notebook."""
    global _read
    file.seek(_read)
    data = file.read()
    if not final:
        data = data[:data.rfind(b"\n") + 1]  # a line being written waits for its end
    _read = 0 if final else _read + len(data)
    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    if not lines:
        return
    messages[:] = (messages + lines)[-KEEP:]
    for ref in list(listeners):
        listener = ref()
        if listener is None:
            listeners.remove(ref)
        else:
            listener()


def summary(lines: list[str]) -> str:
    """"3 warnings" from PoCL's "N warnings generated." lines (and how many other lines)."""
    warned = 0
    for line in lines:
        words = line.split()
        if line.endswith("generated.") and words and words[0].isdigit():
            warned += int(words[0])
    others = sum(1 for line in lines if not line.endswith("generated."))
    parts = [f"{warned} compiler warning{'s' if warned != 1 else ''}"] if warned else []
    if others or not parts:
        parts.append(f"{others} line{'s' if others != 1 else ''} of compiler output")
    return ", ".join(parts)


class CompilerMessages(w.HTML):
    """What the compiler printed during runs and searches, closed until asked for."""

    def __init__(self):
        super().__init__("")
        self.add_class("wb-compiler-messages")
        listeners.append(weakref.WeakMethod(self.refresh))
        self.refresh()

    def refresh(self) -> None:
        if not messages:
            self.value = ""
            return
        shown = "\n".join(messages[-200:])
        self.value = (
            '<details style="font-size:11px;color:#52525b"><summary style="cursor:pointer">'
            f"{html.escape(summary(messages))} collected during builds (not shown in the "
            "notebook): open to read</summary>"
            '<pre class="wb-compiler-text" style="white-space:pre-wrap;overflow-wrap:anywhere;'
            'max-height:240px;overflow-y:auto;margin:2px 0;background:#fafafa;'
            f'border:1px solid #e4e4e7;padding:4px">{html.escape(shown)}</pre></details>')
