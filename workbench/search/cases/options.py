"""The options of a cases search (``Options``), its defaults for each kind of device
(``DEFAULTS``, read from ``search/cases_defaults.json`` with the measurement behind each) and
the options of a search read over them (``options_of``), unknown names refused."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path

from ...errors import WorkbenchError
from .resources import Limits
from .variants import GROUPS_AND_ITEMS, ONE_PER_GROUP


@dataclass
class Options:
    depth: int = 3  # macro rules applied in a row
    repeat: int = 2  # times each macro may be applied
    max_depth: int = 6  # the nesting-depth heuristic
    values: dict = field(default_factory=lambda: {
        "block": (1, 2, 4, 8, 16), "tile": (2, 4, 8, 16, 32, 64),
        "chunk": (4, 8, 16, 32, 64)})
    mappings: tuple[str, ...] = (GROUPS_AND_ITEMS, ONE_PER_GROUP)
    limits: Limits | None = None
    # after the random candidates (this share of the budget), the parameters of the fastest
    # programs refined: a neighbour is a parameter doubled or halved (0: random only)
    refine: float = 0.0
    # before refining, this share of the budget measured in the order a model of the
    # candidates' times, fitted to those measured so far, ranks them (``search.surrogate``;
    # 0: none)
    model: float = 0.0
    # only the phase-2 programs every one of these conditions describes (a search that can
    # measure few candidates samples the part of the space it cares about): words of their
    # description, or values of their choices (``variants.holds``)
    keep: tuple = ()
    # and none of these
    drop: tuple = ()


OPTION_NAMES = tuple(f.name for f in fields(Options))
DEFAULTS_FILE = Path(__file__).parent.parent / "cases_defaults.json"


def _defaults(doc: dict) -> dict[str, dict]:
    """The options of each kind of device, from the defaults' document (the reasons left
    out: ``PROVENANCE`` keeps them)."""
    out = {}
    for kind, entry in doc.items():
        if not isinstance(entry, dict):
            continue  # the document's description
        options = {o["name"]: o["value"] for o in entry["options"]}
        out[kind] = {**options, "keep": tuple(k["where"] for k in entry["keep"]),
                     "drop": tuple(d["where"] for d in entry["drop"])}
    return out


PROVENANCE: dict = json.loads(DEFAULTS_FILE.read_text(encoding="utf-8"))
# What a search with the library's defaults explores on each kind of device ("gpu", "cpu"):
# option name -> value, JSON values (a benchmark writes them into its results)
DEFAULTS: dict[str, dict] = _defaults(PROVENANCE)


def check_names(given: dict) -> None:
    """Refuse an option the cases strategy does not take, naming those it takes."""
    unknown = [name for name in given if name not in OPTION_NAMES]
    if unknown:
        raise WorkbenchError(f"the cases strategy takes no option {unknown[0]!r} (its options: "
                             f"{', '.join(OPTION_NAMES)})")


def options_of(ctx, kind: str | None = None) -> Options:
    """The search's options over the defaults for the device's kind (``DEFAULTS``)."""
    return read_options(dict(ctx.options or {}), kind)


def read_options(given: dict, kind: str | None = None) -> Options:
    """``Options`` from option names and values over the defaults for ``kind`` (None: the
    kind of the limits given)."""
    check_names(given)
    limits = given.pop("limits", None)
    if kind is None:
        kind = limits.get("kind") if isinstance(limits, dict) else \
            limits.kind if isinstance(limits, Limits) else None
    given = {**DEFAULTS.get(kind, {}), **given}
    options = Options(**{k: tuple(v) if isinstance(v, list) else v for k, v in given.items()})
    options.values = {k: tuple(v) for k, v in options.values.items()}
    if isinstance(limits, dict):
        options.limits = Limits(**limits)
    elif isinstance(limits, Limits):
        options.limits = limits
    return options
