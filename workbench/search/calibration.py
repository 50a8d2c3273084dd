"""The cost model's calibration per device, kept in the user's cache: the search adapts to
the device at hand (SPEC 8).

A device is known by its name, platform and driver (``log.device_identity``): a calibration
stored for the same three is used as it is; any other (the same device under another
driver included) only lends a prior. On a device with none, the first guided search
measures what it needs once its first candidates are measured, before its ranking needs the
model (``measure_for_search``; its first progress is not held up): the device's ceilings
(``workbench.ceilings``: a copy's bandwidth) scale the prior — the shipped calibration of
the device's name (``calibration.json``), else a calibration of the same name under another
driver, else the shipped prior of its kind — and a few probe kernels (random walks of a map
and of a reduction, ``PROBES``), run in a worker process of their own, are fitted to it.
Every guided search then adds the candidates it measured (their features and times) to the
device's calibration and fits it again (``learn``), as the CASES surrogate is fitted to a
search as it goes: later searches start from what the earlier ones measured. The shipped
calibrations are a starting point, never a requirement.

A search's log header keeps the model the search started from (``calibration``), so that a
replay takes the same choices whatever the cache holds by then.

The folder is ``<user cache>/rewrite-workbench/calibrations`` (``userdirs.private_dir``), or
the one ``WORKBENCH_CALIBRATIONS`` names; ``WORKBENCH_CALIBRATIONS=off`` keeps none (a search
then starts from the shipped prior and measures nothing first). ``workbench calibrate``
shows, measures afresh or resets a device's calibration.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..errors import WorkbenchError
from . import cost

ENV = "WORKBENCH_CALIBRATIONS"  # the folder of the calibrations, or "off"
FORMAT = "rewrite-workbench calibration"
VERSION = 1
ROWS_KEPT = 1000  # measured candidates a calibration keeps (the oldest go first)
# the pull towards the prior, as if it were that many measurements: the probes on PoCL vary
# (their own times missed by a factor of 2 by any fit), and fitted with a weaker pull they
# predicted a search's candidates worse than the prior on a loaded machine (4.3 times off
# at a pull of 1; 1.3 at 32, the prior 1.9); on a quiet one, 1.1 to 2.8 times off at 32
# where the shipped prior was 2.1 to 3.0
STRENGTH = 32.0
MEMORY = ("coalesced", "streamed", "shared", "scattered")  # the weights bandwidth scales

# the probe kernels: random walks (and the default completion) of a map and of a
# reduction at PROBE_SIZE floats — launches, statements, accumulator chains, each pattern
# of global memory, barriers and local memory, in a few seconds on a CPU
PROBES = ("map abs", "reduce (+) 0 ∘ map abs")
PROBE_SIZE = 2 ** 20
PROBE_WALKS = 4
PROBE_TIMEOUT_S = 60.0


class CalibrationError(WorkbenchError):
    """A calibration that cannot be measured or read (the device, the file named)."""


@dataclass(frozen=True)
class Calibration:
    """A device's calibration: the device (``name``, ``platform``, ``driver``, ``kind``,
    ``compute_units``), its measured ceilings, the prior the weights are pulled to (and
    where it came from), the candidates measured on it (``rows``: a candidate's key hashed
    -> its features in ``cost.FEATURES`` order and milliseconds), the fitted weights, and
    the searches that added to it."""

    device: dict
    ceilings: dict
    prior: dict
    prior_source: str
    rows: dict = field(default_factory=dict)
    weights: dict = field(default_factory=dict)
    searches: int = 0
    probes: int = 0
    updated: str = ""

    @property
    def parallelism(self) -> int:
        return cost.parallelism_of(self.device["kind"], int(self.device["compute_units"]))

    def model(self) -> cost.CostModel:
        """The model a search starts from: the fitted weights, which its own fits are pulled
        towards."""
        weights = {k: float(self.weights.get(k, 0.0)) for k in cost.FEATURES}
        source = (f"calibrated on this device: {len(self.rows)} candidates ({self.probes} "
                  f"probes, {self.searches} searches)")
        return cost.CostModel(self.device["name"], self.device["kind"], self.parallelism,
                              weights, len(self.rows), source, prior=weights)

    def refitted(self, more: Mapping[str, tuple[list, float]] | None = None) -> Calibration:
        """The calibration with ``more`` rows (a row already kept is replaced), the oldest
        past ``ROWS_KEPT`` let go, and its weights fitted again to all of them."""
        more = dict(more or {})
        rows = {k: v for k, v in self.rows.items() if k not in more} | more
        rows = dict(list(rows.items())[-ROWS_KEPT:])
        weights = dict(self.prior)
        if rows:
            x = np.array([r[0] for r in rows.values()], dtype=float)
            t = np.array([r[1] for r in rows.values()], dtype=float)
            weights = cost.fit_weights_balanced(x, t, self.prior, STRENGTH)
        return replace(self, rows=rows, weights=weights,
                       updated=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))

    def as_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "device": self.device,
                "ceilings": self.ceilings, "prior": self.prior,
                "prior_source": self.prior_source, "weights": self.weights,
                "searches": self.searches, "probes": self.probes, "updated": self.updated,
                "rows": self.rows}

    @staticmethod
    def from_json(doc: dict) -> Calibration:
        if doc.get("format") != FORMAT or doc.get("version") != VERSION:
            raise ValueError(f"not a calibration of version {VERSION}")
        rows = {str(k): (list(map(float, v[0])), float(v[1]))
                for k, v in doc.get("rows", {}).items()}
        return Calibration(dict(doc["device"]), dict(doc.get("ceilings") or {}),
                           _weights(doc["prior"]), str(doc.get("prior_source", "")), rows,
                           _weights(doc.get("weights") or doc["prior"]),
                           int(doc.get("searches", 0)), int(doc.get("probes", 0)),
                           str(doc.get("updated", "")))

    def summary(self) -> dict:
        """What ``workbench calibrate`` shows: everything but the rows."""
        doc = {k: v for k, v in self.as_json().items() if k not in ("rows", "format")}
        return doc | {"candidates": len(self.rows)}


def _weights(doc: Mapping) -> dict[str, float]:
    return {k: float(doc.get(k, 0.0)) for k in cost.FEATURES}


# --- where calibrations are kept ---------------------------------------------------------------

def folder() -> Path | None:
    """The folder of the calibrations (None: ``WORKBENCH_CALIBRATIONS=off``)."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen.lower() == "off":
        return None
    if chosen:
        Path(chosen).mkdir(parents=True, exist_ok=True)
        return Path(chosen)
    from ..device.userdirs import private_dir

    return private_dir("calibrations")


def same_device(a: Mapping, b: Mapping) -> bool:
    """Whether two identities are of one device under one driver (what a calibration is
    used for as it is)."""
    return all(a.get(k) == b.get(k) for k in ("name", "platform", "driver"))


def path_of(identity: Mapping, where: Path) -> Path:
    """The file of a device's calibration: its name made a file name, and a hash of its
    name, platform and driver."""
    text = "|".join(str(identity.get(k)) for k in ("name", "platform", "driver"))
    slug = re.sub(r"[^A-Za-z0-9.]+", "-", str(identity.get("name")))[:48].strip("-")
    return where / f"{slug}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.json"


def stored(where: Path | None = None) -> list[Calibration]:
    """Every calibration the folder holds (files that are not one are passed over)."""
    where = where or folder()
    found = []
    for path in sorted(where.glob("*.json")) if where is not None else []:
        try:
            found.append(Calibration.from_json(json.loads(path.read_text())))
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            continue
    return found


def load(identity: Mapping, where: Path | None = None) -> Calibration | None:
    """The calibration stored for this device and driver (None: none, or an unreadable
    file, which the next calibration replaces)."""
    where = where or folder()
    if where is None:
        return None
    try:
        found = Calibration.from_json(json.loads(path_of(identity, where).read_text()))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    return found if same_device(found.device, identity) else None


def save(calibration: Calibration, where: Path | None = None) -> Path | None:
    """Write the calibration (whole, through a file renamed into place: two searches that
    save at once leave one of theirs, never a torn file)."""
    where = where or folder()
    if where is None:
        return None
    path = path_of(calibration.device, where)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(calibration.as_json()) + "\n")
    os.replace(partial, path)
    return path


def reset(identity: Mapping, where: Path | None = None) -> bool:
    """Forget the device's calibration; whether there was one."""
    where = where or folder()
    if where is None:
        return False
    path = path_of(identity, where)
    existed = path.exists()
    path.unlink(missing_ok=True)
    return existed


# --- the first calibration ----------------------------------------------------------------------

def starting_prior(identity: Mapping, gb_per_s: float | None,
                   where: Path | None = None) -> tuple[dict[str, float], str]:
    """The weights a device's calibration is pulled towards, and where they come from: the
    shipped calibration of its name; else the calibration of the same name under another
    driver; else the shipped prior of its kind, its memory weights scaled by the measured
    copy bandwidth over the one the prior assumes."""
    kind = "gpu" if identity.get("kind") == "gpu" else "cpu"
    which, entry = cost.shipped_entry(str(identity.get("name")), kind)
    if which == "device":
        return _weights(entry["weights"]), f"shipped ({entry.get('source', 'calibration')})"
    others = [c for c in stored(where) if c.device.get("name") == identity.get("name")
              and not same_device(c.device, identity)]
    if others:
        other = max(others, key=lambda c: c.updated)
        return dict(other.weights), f"the same device under driver {other.device['driver']}"
    weights = _weights(entry["weights"])
    reference = entry.get("gb_per_s")
    if not (gb_per_s and reference):
        return weights, f"shipped for the {kind} kind"
    scale = float(reference) / gb_per_s
    weights |= {k: weights[k] * scale for k in MEMORY}
    return weights, f"shipped for the {kind} kind, scaled to {gb_per_s:.0f} GB/s"


def device_of(device: str | None) -> tuple[dict, str | None]:
    """The identity (with compute units) of the device a spec names, and the spec."""
    from ..device.opencl import find_device
    from .log import device_identity

    info, _ = find_device(device)
    return device_identity(info) | {"compute_units": info.compute_units}, device


MEASURABLE = ("cpu", "gpu", "accelerator")  # kinds whose times calibrate a model


def calibrate(device: str | None = None, where: Path | None = None,
              evaluator=None) -> Calibration:
    """Measure a device's calibration afresh and keep it: its ceilings, its prior, then the
    probe kernels (``probe_rows``, in ``evaluator``'s workers where given) fitted to it."""
    from ..ceilings import ceilings, launch_floor

    identity, spec = device_of(device)
    if identity["kind"] not in MEASURABLE:
        raise CalibrationError(f"{identity['name']} is a {identity['kind']}: its times "
                               f"say nothing of a device's, and calibrate no model")
    measured = ceilings(spec)
    floor = launch_floor(spec)
    prior, source = starting_prior(identity, measured.gb_per_s, where)
    found = {"gb_per_s": measured.gb_per_s, "gflop_per_s": measured.gflop_per_s,
             "launch_ms": floor.median_ms if floor is not None else None}
    blank = Calibration(identity, found, prior, source)
    rows = probe_rows(spec, blank.parallelism, identity["kind"], evaluator)
    calibration = replace(blank.refitted(rows), probes=len(rows))
    save(calibration, where)
    return calibration


def probe_jobs(device: str | None, parallelism: int, kind: str,
               seed: int = 0) -> list[tuple[dict, list[float]]]:
    """The probe kernels as a search's worker takes them, each with its features: for each
    of ``PROBES``, its default completion and ``PROBE_WALKS`` random walks (the same
    every time), each kernel once."""
    from ..codegen.program import opencl
    from ..notation import parse, parse_type
    from ..rules.lowering import lower
    from .evaluation import KERNEL_NAME, job_key
    from .space import DeadEnd, random_walk

    rng = random.Random(seed)
    jobs, seen = [], set()
    for text in PROBES:
        start, types = parse(text), (parse_type(f"[float]_{PROBE_SIZE}"),)
        found = [lower(start, *types)[0]]
        for _ in range(PROBE_WALKS):
            try:
                found.append(random_walk(start, types, rng)[0])
            except DeadEnd:
                continue
        for expr in found:
            try:
                program = opencl(expr, *types, complete=True, name=KERNEL_NAME)
            except WorkbenchError:
                continue
            if str(expr) in seen:
                continue
            seen.add(str(expr))
            features = cost.program_features(program, parallelism, kind)
            key = job_key(str(expr), {}, device, [str(t) for t in types])
            jobs.append(({"key": key, "expression": str(expr), "reference": text,
                          "definitions": "", "types": [str(t) for t in types],
                          "ranges": None, "sizes": {}, "device": device, "seed": seed,
                          "repeat": 10, "steps": []},
                         [features[k] for k in cost.FEATURES]))
    return jobs


def probe_rows(device: str | None, parallelism: int, kind: str,
               evaluator=None) -> dict[str, tuple]:
    """The probe kernels measured in worker processes (a kernel that crashes the driver
    ends only its process): ``evaluator``'s (a search's own, between its batches), else one
    started for them; the rows of those that ran correctly."""
    from .evaluation import PoolEvaluator

    jobs = probe_jobs(device, parallelism, kind)
    features = {job["key"]: row for job, row in jobs}
    own = evaluator is None
    evaluator = PoolEvaluator(1, PROBE_TIMEOUT_S) if own else evaluator
    try:
        records = list(evaluator.evaluate([job for job, _ in jobs]))
    finally:
        if own:
            evaluator.close()
    return {row_key(r["key"]): (features[r["key"]], float(r["kernel_ms"]))
            for r in records if r.get("correct") and r.get("kernel_ms")}


def row_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


# --- what searches use and add ------------------------------------------------------------------

def model_for_search(device: str | None, identity: Mapping | None) -> cost.CostModel | None:
    """The model a search on this device starts from: its stored calibration, measured
    first where there is none (``calibrate``). None where calibrations are off, the device
    cannot be found here (an executor's workers') or measured (a simulator)."""
    found = stored_model(identity)
    return found if found is not None else measure_for_search(device, identity)


def stored_model(identity: Mapping | None) -> cost.CostModel | None:
    """The model of the device's stored calibration, measuring nothing (None: calibrations
    are off, or none is kept for it)."""
    where = folder()
    if where is None or not identity or not identity.get("platform"):
        return None
    found = load(identity, where)
    return found.model() if found is not None else None


def to_measure(identity: Mapping | None) -> bool:
    """Whether a search on this device measures its calibration (``measure_for_search``):
    calibrations are kept, the device is found here, its times calibrate a model (not a
    simulator's) and none is kept for it yet."""
    return folder() is not None and bool(identity) and bool(identity.get("platform")) \
        and identity.get("kind") in MEASURABLE and stored_model(identity) is None


def measure_for_search(device: str | None, identity: Mapping | None,
                       evaluator=None) -> cost.CostModel | None:
    """The device's calibration measured now and kept (``calibrate``; the probes in the
    search's workers, ``evaluator``, where given), its model; None where calibrations are off
    or the device cannot be found here or measured."""
    where = folder()
    if where is None or not identity or not identity.get("platform"):
        return None
    try:
        return calibrate(device, where, evaluator).model()
    except (CalibrationError, WorkbenchError):
        return None


def learn(identity: Mapping | None, records: Iterable[Mapping]) -> Calibration | None:
    """The device's calibration with the measured candidates of a search added (the correct
    ones with the model's features) and fitted again; None where it has none."""
    where = folder()
    found = load(identity, where) if identity and where is not None else None
    if found is None:
        return None
    more = {row_key(r["key"]): ([float(r["features"].get(k, 0.0)) for k in cost.FEATURES],
                                float(r["kernel_ms"]))
            for r in records if r.get("correct") and r.get("kernel_ms")
            and isinstance(r.get("features"), Mapping)
            and set(cost.FEATURES) <= set(r["features"])}
    if not more:
        return found
    updated = replace(found.refitted(more), searches=found.searches + 1)
    try:
        save(updated, where)
    except OSError:  # a full or read-only cache: the search's own result stands
        return found
    return updated


def report(device: str | None = None, reset_it: bool = False) -> dict:
    """What ``workbench calibrate`` says of a device: where its calibration is kept and the
    calibration (measured now where there is none); with ``reset_it``, forgotten instead
    (the next search, or this command, measures it afresh)."""
    where = folder()
    if where is None:
        raise CalibrationError(f"{ENV}=off: no calibration is kept (searches start from "
                               f"the shipped priors)")
    identity, _ = device_of(device)
    doc = {"device": identity, "file": str(path_of(identity, where)), "measured": False}
    if reset_it:
        return doc | {"reset": reset(identity, where), "calibration": None}
    found = load(identity, where)
    if found is None:
        found = calibrate(device, where)
        doc["measured"] = True
    return doc | {"calibration": found.summary()}


def prediction_error(model: cost.CostModel, rows: Iterable[tuple[Mapping, float]]) -> float:
    """The geometric mean of the factor by which the model's predictions miss the measured
    times (1.0: every one exact)."""
    misses = [abs(math.log(max(model.predict(f), 1e-9) / ms)) for f, ms in rows if ms > 0]
    return math.exp(sum(misses) / len(misses)) if misses else float("nan")


__all__ = ["Calibration", "CalibrationError", "ENV", "calibrate", "folder", "learn", "load",
           "measure_for_search", "model_for_search", "prediction_error", "report", "reset",
           "save", "stored", "stored_model", "to_measure"]
