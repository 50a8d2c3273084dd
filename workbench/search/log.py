"""The search log: one JSON line per evaluated candidate, appended (and flushed to disk) as
soon as it finishes, so a search that is stopped — even killed — loses nothing, and a search
started again with the same log resumes: what the log holds is not run again (SPEC 8).

A last line cut short by the kill is tolerated and reported; any other line that is not a
record is an error naming its line number. Plots read logs only.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

from ..errors import WorkbenchError

FORMAT = "rewrite-workbench search log"


class LogError(WorkbenchError):
    pass


def read(path: str | Path) -> list[dict]:
    """The records of a log file (empty when it does not exist yet)."""
    path = Path(path)
    if not path.exists():
        return []
    if path.suffix == ".gz":  # an archived log (benchmarks keep theirs compressed)
        import gzip

        text = gzip.decompress(path.read_bytes()).decode("utf-8")
    else:
        text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    complete = text.endswith("\n")
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            last = number == len(lines) or (number == len(lines) - 1 and not complete)
            if last and not complete:
                warnings.warn(f"{path}: line {number} is cut short (the search was stopped "
                              f"while writing it); it is ignored", stacklevel=2)
                continue
            raise LogError(f"{path}: line {number} is not a search record ({err.msg}, "
                           f"column {err.colno})") from None
        if not isinstance(record, dict) or "key" not in record:
            raise LogError(f"{path}: line {number} is not a search record (no \"key\")")
        records.append(record)
    return records


class Log:
    """An append-only log; ``None`` for a search that keeps its records in memory only."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path is not None else None
        self.records: list[dict] = read(self.path) if self.path is not None else []
        if self.path is not None and self.path.exists():
            text = self.path.read_text(encoding="utf-8")
            if text and not text.endswith("\n"):  # drop the cut line before appending
                self.path.write_text(text[:text.rfind("\n") + 1], encoding="utf-8")

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
