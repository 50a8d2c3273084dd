"""Logs of searches that measured nothing, for the tests of which candidates a strategy
proposes on a device: replaying one lists them, each "not in log"."""

import json
from pathlib import Path

from workbench.search.log import make_header
from workbench.search.strategies import VERSIONS


def header_only_log(path: Path, prog, types, kind: str, name: str,
                    version: int | None = None, options: dict | None = None,
                    definitions: str = "") -> Path:
    """A guided search's log of ``prog`` over ``types`` (their texts) on a device named
    ``name`` of this ``kind``, by the strategy's ``version`` (today's unless given) with these
    ``options``, that holds its header alone."""
    header = make_header(device={"name": name, "platform": "P", "driver": "1", "kind": kind},
                         program=str(prog), definitions=definitions,
                         types=[str(t) for t in types], sizes={}, strategy="guided",
                         strategy_version=VERSIONS["guided"] if version is None else version,
                         seed=0, options=options or {}, repeat=10)
    path.write_text(json.dumps(header) + "\n")
    return path
