"""The search log: one JSON line per evaluated candidate, appended (and flushed to disk) as
soon as it finishes, so a search that is stopped — even killed — loses nothing, and a search
started again with the same log resumes: what the log holds is not run again (SPEC 8).

Every search that writes to a log first writes a *header* line: where the times were taken
(the device's name, platform and driver), by what (the project's version, the strategy and
its version, seed and options) and of what (the program, its input types and sizes). The
records after a header belong to it, and each record's key names the device and the input
types too, so a time is never taken for another device or other inputs: a log whose header
does not match the search is refused, or its candidates are measured again when asked
(``remeasure``), under a header of their own.

A last line cut short by the kill (even inside a character), or a last line that is not a
record after the log's headers or records, is tolerated and reported (a resumed search
drops it before appending); a file whose only line is no JSON object is no log, and any
other line that is not a header or a record — a record whose fields have the wrong types
among them — is an error naming its line number. Plots read records only.

A record is a JSON object; ``Record`` is its typed form (``Record.from_json``, ``as_json``
gives the same object back, fields the record type does not name kept as they are).
"""

from __future__ import annotations

import json
import math
import os
import stat
import time
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import NotText, WorkbenchError, decode_utf8, path_argument

FORMAT = "rewrite-workbench search log"
VERSION = 2  # 1: records only, keyed by expression, sizes and the device as asked for

# what a header says of the device, of the inputs and of the search; a log is resumed only
# where the first two are the same (the search's fields may differ: a section per search)
DEVICE_FIELDS = ("name", "platform", "driver")
INPUT_FIELDS = ("program", "definitions", "types", "sizes")
SEARCH_FIELDS = ("strategy", "strategy_version", "seed", "options", "repeat", "workbench",
                 "build_options",
                 "calibration")


class LogError(WorkbenchError):
    """A log that cannot be read or used: ``path`` and, where one is at fault, its
    ``line``."""

    def __init__(self, message: str, path: Path | str | None = None, line: int | None = None):
        super().__init__(message)
        self.path = path
        self.line = line


def project_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rewrite-workbench")
    except PackageNotFoundError:  # run from a checkout that was not installed
        return "unknown"


# the sources that decide a kernel's text: a log's times are of kernels these generated
CODEGEN_SOURCES = ("codegen", "primitives", "rules/lowering.py", "runtime.py")


def codegen_version() -> str:
    """A hash of the code generator's sources as they are (``CODEGEN_SOURCES``): a header
    says which code generator made its kernels, and a log resumed by another one has its
    records measured again where the strategy meets them."""
    global _CODEGEN
    if _CODEGEN is None:
        import hashlib

        root = Path(__file__).resolve().parent.parent
        digest = hashlib.sha256()
        for part in CODEGEN_SOURCES:
            for path in sorted((root / part).rglob("*.py")) if (root / part).is_dir() \
                    else [root / part]:
                digest.update(path.relative_to(root).as_posix().encode() + b"\0")
                digest.update(path.read_bytes())
        _CODEGEN = digest.hexdigest()[:16]
    return _CODEGEN


_CODEGEN: str | None = None


def device_identity(info) -> dict:
    """What a header and a key say of a device (a ``DeviceInfo``)."""
    return {"name": info.name, "platform": info.platform, "driver": info.driver,
            "kind": info.kind}


def device_text(device: dict) -> str:
    """A device in one line: its name, platform and driver."""
    return f"{device.get('name')} ({device.get('platform')}, driver {device.get('driver')})"


def make_header(*, device: dict, program: str, definitions: str, types: list[str],
                sizes: dict, strategy: str, strategy_version: int | None, seed: int,
                options: dict, repeat: int, build_options=()) -> dict:
    """A search's header; ``build_options``, the OpenCL math options the search may choose
    among, is written only where there are any (a header of a search without them reads as
    one written before they were)."""
    return {"format": FORMAT, "version": VERSION, "device": dict(device), "program": program,
            "definitions": definitions, "types": list(types), "sizes": dict(sizes),
            "strategy": strategy, "strategy_version": strategy_version, "seed": seed,
            "options": dict(options), "repeat": repeat, "workbench": project_version(),
            "codegen": codegen_version(),
            **({"build_options": list(build_options)} if build_options else {}),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def same_device(a: dict, b: dict) -> bool:
    return all(a.get(k) == b.get(k) for k in DEVICE_FIELDS)


def same_inputs(a: dict, b: dict) -> bool:
    return all(a.get(k) == b.get(k) for k in INPUT_FIELDS)


def mismatch(old: dict | None, new: dict) -> str:
    """Why the records under header ``old`` cannot answer a search with header ``new``
    ('' when they can)."""
    if old is None:
        return ("it has no header (it was written before logs said where their times were "
                "taken), so its times cannot be told to be of this device and these inputs")
    if not same_device(old["device"], new["device"]):
        return (f"its times were taken on {device_text(old['device'])}; this search runs on "
                f"{device_text(new['device'])}")
    if old.get("types") != new["types"] or old.get("sizes") != new["sizes"]:
        return (f"its times are for inputs {', '.join(old.get('types') or [])}; this search's "
                f"are {', '.join(new['types'])}")
    if old.get("program") != new["program"] or old.get("definitions") != new["definitions"]:
        return (f"it holds a search of another program ({old.get('program')}); this search "
                f"is of {new['program']}")
    return ""


def _other_codegen(old: dict | None, new: dict) -> bool:
    """Whether a record's header names another code generator than the search's (a header
    written before headers named it is taken as this one's)."""
    return old is not None and old.get("codegen") is not None and \
        old.get("codegen") != new.get("codegen")


def _still_holds(record: dict, header: dict | None, new: dict, same_source) -> bool:
    """Whether a record under a header of this device and these inputs answers for the
    search with header ``new``: under the same code generator (or a header that names none,
    written before headers did), or under another whose kernel for the record's candidate
    is still the same source (``same_source(record)``: its ``source_sha256`` against the
    source generated now; a record without one is measured again)."""
    if not _other_codegen(header, new):
        return True
    return bool(record.get("source_sha256")) and same_source is not None \
        and same_source(record)


@dataclass
class Contents:
    """What a log file holds: its headers, its records, and for each record the index of
    the header it comes under (-1: before any header, a log of version 1)."""

    headers: list[dict] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    sections: list[int] = field(default_factory=list)
    cut_from: int | None = None  # where a last line that is no record starts (dropped)

    def header_of(self, i: int) -> dict | None:
        s = self.sections[i]
        return self.headers[s] if s >= 0 else None


def read(path: str | Path) -> list[dict]:
    """The records of a log file (empty when it does not exist yet)."""
    return read_log(path).records


def read_log(path: str | Path) -> Contents:
    """The headers and records of a log file (empty when it does not exist yet; a path that
    is no path refused naming the log)."""
    return _read(path_argument(path, "log"))


def _is_device(path: Path) -> bool:
    """A character device such as /dev/null: read as empty, written without fsync."""
    try:
        return stat.S_ISCHR(path.stat().st_mode)
    except OSError:
        return False


def _check_usable(path: Path) -> None:
    """Refuse a log path that is no file to read and append to: a named pipe or a socket
    (reading it would wait for a writer), a symbolic link loop, a folder."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return  # a new log (or a link to one)
    except OSError as err:  # a link loop, a part of the path that is a file
        raise LogError(f"{path}: cannot be a search log ({err.strerror}); give a log file",
                       path) from None
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISDIR(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a named pipe or socket"
        raise LogError(f"{path}: {kind}, not a file; give a log file", path)


def _text(path: Path) -> str:
    try:
        data = b"" if _is_device(path) else path.read_bytes()
        if path.suffix == ".gz":  # an archived log (benchmarks keep theirs compressed)
            import gzip
            import zlib

            try:
                data = gzip.decompress(data)
            except (OSError, EOFError, zlib.error) as err:
                raise LogError(f"{path}: not a readable gzip file ({err})", path) from None
        return _decode(data)
    except NotText as err:
        raise LogError(f"{path}: {err}", path, err.line) from None
    except OSError as err:
        raise LogError(f"cannot read {path}: {err.strerror}", path) from None


def _decode(data: bytes) -> str:
    """UTF-8 text; a last line cut inside a character (a kill while writing it) is read
    with the cut character replaced, so that it is reported as cut short like any other."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.reason == "unexpected end of data" and err.end == len(data):
            return decode_utf8(data[:err.start]) + "\ufffd"
    return decode_utf8(data)


def _read(path: Path) -> Contents:
    _check_usable(path)
    return _parse(path, _text(path)) if path.exists() else Contents()


def _parse(path: Path, text: str) -> Contents:
    """The headers and records of a log's text (``path`` names it in messages)."""
    found = Contents()
    lines = text.split("\n")
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1) + 1
    offset = 0
    for number, line in enumerate(lines, start=1):
        start, offset = offset, offset + len(line) + 1
        if not line.strip():
            continue
        kind, value, problem = _line(line)
        if kind == "header":
            found.headers.append(value)
            continue
        if kind == "record":
            found.records.append(value)
            found.sections.append(len(found.headers) - 1)
            continue
        if number != last or (not found.headers and not found.records
                              and not line.lstrip().startswith("{")):
            # every line a search writes is a JSON object: a file whose only line does not
            # start as one was not cut short by a kill, and is no search log
            raise LogError(f"{path}: line {number} is not a search record ({problem})", path,
                           number)
        cut = not text.endswith("\n")
        why = ("is cut short (the search was stopped while writing it)" if cut else
               f"is not a search record ({problem})")
        warnings.warn(f"{path}: line {number}, the last, {why}; it is ignored",
                      stacklevel=3)
        found.cut_from = start
    return found


def _line(line: str) -> tuple[str, dict | None, str | None]:
    """("header" | "record", the value, None), or ("", None, what is wrong)."""
    try:
        value = json.loads(line)
    except json.JSONDecodeError as err:
        return "", None, f"{err.msg}, column {err.colno}"
    except RecursionError:
        return "", None, "nested too deeply"
    if isinstance(value, dict) and value.get("format") == FORMAT and "key" not in value:
        problem = _header_problem(value)
        return ("header", value, None) if problem is None else ("", None, problem)
    if not isinstance(value, dict) or "key" not in value:
        return "", None, "no \"key\""
    try:
        Record.from_json(value)
    except RecordError as err:
        return "", None, str(err)
    return "record", value, None


def _kind(value) -> str:
    return "null" if value is None else type(value).__name__


# a record's fields and the types they must have (those a search or a plot reads)
_NUMBER = (int, float)
RECORD_FIELDS: dict[str, tuple] = {
    "key": (str,), "expression": (str,), "status": (str,), "message": (str, type(None)),
    "correct": (bool,), "kernel_ms": _NUMBER + (type(None),),
    "kernel_ms_min": _NUMBER + (type(None),), "kernel_ms_max": _NUMBER + (type(None),),
    "predicted_ms": _NUMBER + (type(None),), "cutoff_ms": _NUMBER + (type(None),),
    "finished": _NUMBER, "seconds": _NUMBER, "runs": (int, type(None)),
    "sizes": (dict,), "steps": (list,), "features": (dict, type(None)),
    "details": (dict, type(None)), "strategy": (str,), "device": (str,),
    "device_name": (str, type(None)), "build_options": (list, type(None)),
    "source_sha256": (str, type(None))}


class RecordError(ValueError):
    """A JSON object that is not a search record: what is wrong with its fields."""


@dataclass(frozen=True, eq=False)
class Record(Mapping):
    """One evaluated candidate, a line of the log (``RECORD_FIELDS`` gives each field's
    JSON types; a field the line lacks is None here, and absent again in ``as_json``).
    The search reads its fields as attributes; the record is also a read-only mapping of
    the log line's fields (``record["kernel_ms"]``, ``record.get("status")``, equal to the
    line's object), as records read from a log file are.

    What it is: ``key`` (expression, sizes, input types and device, ``evaluation.job_key``),
    ``expression``, ``steps`` (its derivation from the search's start: rule, path,
    parameters), ``sizes``. What was measured: ``status`` (``ok``, ``compile error``,
    ``wrong result``, ``timeout``, …), ``correct``, ``message``, ``kernel_ms`` (median),
    ``kernel_ms_min``, ``kernel_ms_max``, ``runs``, ``cutoff_ms`` (timed once past it).
    Where it comes from: ``strategy`` (the one that proposed it), ``device`` (as the search
    asked for it), ``device_name`` (the device it ran on), ``finished`` (when, in seconds
    since the epoch) and ``seconds`` (how long it took). The cost model's view:
    ``features`` and ``predicted_ms``. What the strategy noted of it: ``details`` (the
    cases strategy: its program and parameters). How it was built: ``build_options`` (the
    OpenCL math options a search allowed and chose for it; absent: none) and from which
    source: ``source_sha256``, the hash of its kernel's OpenCL source (a log resumed by
    another code generator keeps the records whose source it still generates). Whatever
    else a worker records (``max_error``, ``codegen_ms``, ``build_ms``, a cluster worker's
    host) is in ``other``; ``fields`` are the names the line has, in its order."""

    key: str
    expression: str | None = None
    steps: list | None = None
    sizes: dict | None = None
    status: str | None = None
    correct: bool | None = None
    message: str | None = None
    kernel_ms: float | None = None
    kernel_ms_min: float | None = None
    kernel_ms_max: float | None = None
    runs: int | None = None
    cutoff_ms: float | None = None
    strategy: str | None = None
    device: str | None = None
    device_name: str | None = None
    finished: float | None = None
    seconds: float | None = None
    features: dict | None = None
    predicted_ms: float | None = None
    details: dict | None = None
    build_options: list | None = None
    source_sha256: str | None = None
    other: dict = field(default_factory=dict)
    fields: tuple[str, ...] = ()

    @staticmethod
    def from_json(value: dict) -> Record:
        """The record of a log line's object (``RecordError`` saying which field is wrong)."""
        if not isinstance(value, dict) or "key" not in value:
            raise RecordError("no \"key\"")
        problem = record_problem(value)
        if problem is not None:
            raise RecordError(problem)
        typed = {k: v for k, v in value.items() if k in RECORD_FIELDS}
        other = {k: v for k, v in value.items() if k not in RECORD_FIELDS}
        return Record(**typed, other=other, fields=tuple(value))

    def as_json(self) -> dict:
        """The log line's object, as it was read (or would be written)."""
        return {name: getattr(self, name) if name in RECORD_FIELDS else self.other[name]
                for name in self.fields}

    @staticmethod
    def of(value: Record | Mapping) -> Record:
        """A record, or the record of a log line's object."""
        return value if isinstance(value, Record) else Record.from_json(dict(value))

    @property
    def measured(self) -> bool:
        """A correct kernel with a time (one that may be the best)."""
        return bool(self.correct) and self.kernel_ms is not None

    @property
    def failure(self) -> str:
        """What went wrong, in a word (its status, or ``failed`` without one)."""
        return self.status or "failed"

    # the read-only mapping of the log line's fields
    def __getitem__(self, name: str):
        if name not in self.fields:
            raise KeyError(name)
        return getattr(self, name) if name in RECORD_FIELDS else self.other[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def __repr__(self) -> str:
        return f"Record({self.as_json()!r})"


def record_problem(record: dict) -> str | None:
    """What is wrong with a record's fields (None when nothing is)."""
    for name, kinds in RECORD_FIELDS.items():
        if name not in record:
            continue
        value = record[name]
        bad = not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds)
        if bad:
            return f"its \"{name}\" is {_kind(value)} {json.dumps(value)[:40]}"
    problem = _measurement_problem(record)
    if problem is not None:
        return problem
    for i, step in enumerate(record.get("steps", [])):
        if not (isinstance(step, dict) and isinstance(step.get("rule"), str)
                and isinstance(step.get("path", ""), str)
                and isinstance(step.get("params", {}), dict)):
            return f"its step {i + 1} is not a rule, a path and parameters"
    return None


def _measurement_problem(record: dict) -> str | None:
    """What makes a record's times no measurement (None when nothing does): a time that is
    negative or not finite, a median outside its range, a correct kernel without a time."""
    times = {k: record.get(k) for k in ("kernel_ms_min", "kernel_ms", "kernel_ms_max")}
    for name, value in times.items():
        if value is not None and not (math.isfinite(value) and value >= 0):
            return f"its \"{name}\" is {json.dumps(value)}, not a time"
    low, mid, high = times.values()
    if mid is not None and any(b is not None and a is not None and a > b * (1 + 1e-9)
                               for a, b in ((low, mid), (mid, high))):
        return (f"its \"kernel_ms\" {mid} lies outside its range "
                f"[{low}, {high}]")
    if record.get("correct") is True and mid is None:
        return "it is correct but has no \"kernel_ms\""
    return None


def _header_problem(header: dict) -> str | None:
    if not isinstance(header.get("device"), dict):
        return "a header without a device"
    if not isinstance(header.get("types"), list) or not isinstance(header.get("sizes"), dict):
        return "a header without input types and sizes"
    return None


class Log:
    """An append-only log; ``None`` for a search that keeps its records in memory only.
    ``begin(header)`` checks that the log's records answer for the search's device and
    inputs and writes the search's header."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path is not None else None
        self.contents = Contents()
        self.device = self.path is not None and _is_device(self.path)
        if self.path is None:
            return
        _check_usable(self.path)
        if not self.path.exists():
            return
        text = _text(self.path)
        self.contents = _parse(self.path, text)
        if self.device:
            return
        if self.contents.cut_from is not None:
            if not self.contents.records and not self.contents.headers \
                    and text.endswith("\n"):
                # No record, only a line that is not one: some other file, not a log.
                raise LogError(f"{self.path}: not a search log (no line is a search "
                               f"record); remove it or give another log file", self.path, 1)
            self.path.write_text(text[:self.contents.cut_from], encoding="utf-8")
        elif text and not text.endswith("\n"):  # a last record complete but for its newline
            self.path.write_text(text + "\n", encoding="utf-8")

    @property
    def records(self) -> list[dict]:
        return self.contents.records

    def begin(self, header: dict, remeasure: bool = False, same_source=None
              ) -> tuple[list[dict], list[dict]]:
        """Write the search's header (unless the last one says the same) and return the
        records that answer for it (``matching``) and, with ``remeasure``, those that do not
        but whose candidates are to be measured again. Records of other devices or inputs
        never answer; a log that holds only such records is refused (``LogError``) unless
        they are to be measured again. A record made by another code generator answers only
        where ``same_source(record)`` says its kernel's source is still the one it
        measured (``_still_holds``)."""
        c = self.contents
        matching, others, why = [], [], ""
        for i, record in enumerate(c.records):
            problem = mismatch(c.header_of(i), header)
            if not problem and not _still_holds(record, c.header_of(i), header, same_source):
                continue  # its kernel differs now: measured again where it is met
            if problem:
                others.append(record)
                why = why or problem
            else:
                matching.append(record)
        if others and not matching and not remeasure:
            raise LogError(
                f"{self.path}: {why}. Its times do not hold for this search: give another log "
                f"file, or remeasure=True (--remeasure) to measure its {len(others)} "
                f"candidates again here and go on", self.path)
        last = c.headers[-1] if c.headers else None
        if last is None or any(last.get(k) != header.get(k)
                               for k in ("device", "codegen") + INPUT_FIELDS + SEARCH_FIELDS):
            self._write(header)
            c.headers.append(header)
        return matching, others if remeasure else []

    def restate(self, header: dict) -> None:
        """Write the search's header again with what the search learned after it began (the
        calibration it measured after its first candidates): the records after it come
        under it, and a replay reads the last header."""
        self._write(header)
        self.contents.headers.append(header)

    def append(self, record: Record | dict) -> Record:
        """Append a record, or a log line's object (refused, ``LogError``, when its fields
        have the wrong types: it would make the log unreadable); the record appended."""
        if isinstance(record, Record):
            record = record.as_json()
        try:
            typed = Record.from_json(record)
        except RecordError as err:
            raise LogError(f"{self.path or 'the search'}: a record to append is not a search "
                           f"record ({err}): {json.dumps(record, default=repr)[:200]}",
                           self.path) from None
        self.records.append(record)
        self.contents.sections.append(len(self.contents.headers) - 1)
        self._write(record)
        return typed

    def _write(self, value: dict) -> None:
        if self.path is None:
            return
        try:
            if not self.device:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(value, ensure_ascii=False) + "\n")
                f.flush()
                if not self.device:
                    os.fsync(f.fileno())
        except OSError as err:  # a full disk or device (/dev/full), no permission
            raise LogError(f"cannot write the search log {self.path}: {err.strerror}",
                           self.path) from None

    def by_key(self) -> dict[str, dict]:
        found: dict[str, dict] = {}
        for r in self.records:
            found.setdefault(r["key"], r)
        return found


def upgrade(path: str | Path, header: dict) -> int:
    """Give a log of version 1 (records only) its header, and its records keys that name
    the header's device and input types; a compressed log stays compressed. How many
    records it holds. A log that has a header already is left as it is."""
    from .evaluation import job_key

    path = Path(path)
    contents = _read(path)
    if contents.headers:
        return len(contents.records)
    device = device_text(header["device"])
    lines = [header] + [dict(r, key=job_key(r["expression"], r.get("sizes") or {}, device,
                                            header["types"]))
                        for r in contents.records]
    text = "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in lines).encode()
    if path.suffix == ".gz":
        import gzip

        text = gzip.compress(text, mtime=0)
    path.write_bytes(text)
    return len(contents.records)
