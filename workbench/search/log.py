"""The search log: one JSON line per evaluated candidate, appended (and flushed to disk) as
soon as it finishes, so a search that is stopped — even killed — loses nothing, and a search
started again with the same log resumes: what the log holds is not run again (SPEC 8).

A last line cut short by the kill, or a last line that is not a record, is tolerated and
reported (a resumed search drops it before appending); any other line that is not a record
is an error naming its line number. Plots read logs only.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

from ..errors import NotText, WorkbenchError, decode_utf8

FORMAT = "rewrite-workbench search log"


class LogError(WorkbenchError):
    """A log that cannot be read: ``path`` and, where one is at fault, its ``line``."""

    def __init__(self, message: str, path: Path | str | None = None, line: int | None = None):
        super().__init__(message)
        self.path = path
        self.line = line


def read(path: str | Path) -> list[dict]:
    """The records of a log file (empty when it does not exist yet)."""
    return _read(Path(path))[0]


def _text(path: Path) -> str:
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":  # an archived log (benchmarks keep theirs compressed)
            import gzip
            import zlib

            try:
                data = gzip.decompress(data)
            except (OSError, EOFError, zlib.error) as err:
                raise LogError(f"{path}: not a readable gzip file ({err})", path) from None
        return decode_utf8(data)
    except NotText as err:
        raise LogError(f"{path}: {err}", path, err.line) from None
    except OSError as err:
        raise LogError(f"cannot read {path}: {err.strerror}", path) from None


def _read(path: Path) -> tuple[list[dict], int | None]:
    """The records, and where the last line starts when it is not a record (cut short by a
    kill, or garbage) so that a resumed search can drop it; None when the file ends well."""
    if not path.exists():
        return [], None
    text = _text(path)
    lines = text.split("\n")
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1) + 1
    records = []
    offset = 0
    for number, line in enumerate(lines, start=1):
        start, offset = offset, offset + len(line) + 1
        if not line.strip():
            continue
        record, problem = _record(line)
        if problem is None:
            records.append(record)
            continue
        if number != last:
            raise LogError(f"{path}: line {number} is not a search record ({problem})", path,
                           number)
        cut = not text.endswith("\n")
        why = ("is cut short (the search was stopped while writing it)" if cut else
               f"is not a search record ({problem})")
        warnings.warn(f"{path}: line {number}, the last, {why}; it is ignored",
                      stacklevel=3)
        return records, start
    return records, None


def _record(line: str) -> tuple[dict | None, str | None]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        return None, f"{err.msg}, column {err.colno}"
    except RecursionError:
        return None, "nested too deeply"
    if not isinstance(record, dict) or "key" not in record:
        return None, "no \"key\""
    return record, None


class Log:
    """An append-only log; ``None`` for a search that keeps its records in memory only."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path is not None else None
        self.records: list[dict] = []
        if self.path is None:
            return
        self.records, bad_from = _read(self.path)
        if not self.path.exists():
            return
        text = _text(self.path)
        if bad_from is not None:
            if not self.records and text.endswith("\n"):
                # No record, only a line that is not one: some other file, not a log.
                raise LogError(f"{self.path}: not a search log (no line is a search "
                               f"record); remove it or give another log file", self.path, 1)
            self.path.write_text(text[:bad_from], encoding="utf-8")  # dropped, then appended
        elif text and not text.endswith("\n"):  # a last record complete but for its newline
            self.path.write_text(text + "\n", encoding="utf-8")

    def append(self, record: dict) -> None:
        self.records.append(record)
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def by_key(self) -> dict[str, dict]:
        found: dict[str, dict] = {}
        for r in self.records:
            found.setdefault(r["key"], r)
        return found
