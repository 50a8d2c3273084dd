"""Every macro step of the pinned table (``tests/macro_expansions.py``: each macro at fixed
sites, and the macro steps of the saved derivations and recorded search logs) expands into
the same basic steps as when the table was written, or is refused with the same reason."""

import json

import pytest

from tests.macro_expansions import DATA, expansion

TABLE = json.loads(DATA.read_text(encoding="utf-8"))


def test_the_table_covers_every_macro_of_the_catalogue():
    from workbench.rules import rules
    from workbench.rules.expansion import is_macro

    macros = {r.name for r in rules if is_macro(r.name)}
    assert macros and macros <= {case["rule"] for case in TABLE}


@pytest.mark.parametrize("rule", sorted({case["rule"] for case in TABLE}))
def test_each_macro_expands_as_the_table_says(rule):
    for case in TABLE:
        if case["rule"] == rule:
            assert expansion(case) == case["expansion"], (case["source"], case["path"],
                                                          case["params"])
