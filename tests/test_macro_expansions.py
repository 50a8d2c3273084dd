"""Every macro step of the pinned table (``tests/macro_expansions.py``: each macro at fixed
sites, and the macro steps of the saved derivations and recorded search logs) expands into
the same basic steps as when the table was written, or is refused with the same reason;
the basic steps replay to the macro's result. A macro's definition names the places it
rewrites by what they are, never by a numeric path."""

import ast
import inspect
import json

import pytest

from tests.macro_expansions import DATA, expansion
from workbench import Derivation
from workbench.rewriting.expansion import expand, is_macro
from workbench.rules import apply, blocking, macros, reductions, rules, sharing, vectors

TABLE = json.loads(DATA.read_text(encoding="utf-8"))


def test_the_table_covers_every_macro_of_the_catalogue():
    names = {r.name for r in rules if is_macro(r.name)}
    assert names and names <= {case["rule"] for case in TABLE}


@pytest.mark.parametrize("rule", sorted({case["rule"] for case in TABLE}))
def test_each_macro_expands_as_the_table_says(rule):
    for case in TABLE:
        if case["rule"] == rule:
            assert expansion(case) == case["expansion"], (case["source"], case["path"],
                                                          case["params"])


@pytest.mark.parametrize("rule", sorted({case["rule"] for case in TABLE}))
def test_the_basic_steps_replay_to_the_macro_result(rule):
    cases = [c for c in TABLE if c["rule"] == rule and isinstance(c["expansion"], list)]
    for case in cases[:4]:
        d = Derivation(case["before"], *case["types"], definitions=case["definitions"])
        steps = expand(d.start, rule, case["path"], *d.input_types, **case["params"])
        assert steps[-1].result == apply(d.start, rule, case["path"], *d.input_types,
                                         **case["params"])


def _path_literals(source: str) -> list[str]:
    """Tuples of numbers (other than a module's named constants) and ``path + (…)`` /
    ``path[…:…]`` arithmetic in Python source."""
    tree = ast.parse(source)
    constants = {id(n.value) for n in tree.body if isinstance(n, ast.Assign)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and node.elts and id(node) not in constants and all(
                isinstance(e, ast.Constant) and isinstance(e.value, int) for e in node.elts):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and \
                isinstance(node.right, ast.Tuple):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and \
                isinstance(node.value, ast.Name) and node.value.id in ("path", "at", "inner"):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("module", [blocking, macros, reductions, sharing, vectors],
                         ids=lambda m: m.__name__)
def test_no_macro_addresses_a_place_by_a_numeric_path(module):
    assert _path_literals(inspect.getsource(module)) == []


def test_the_check_for_numeric_paths_finds_them():
    source = ("SIZES = (2, 4)\n"
              "def f(inner):\n    return inner + (0, 1, 0), inner[:-2], g(at=(1, 0))\n")
    assert sorted(f.split(": ", 1)[1] for f in _path_literals(source)) == [
        "(0, 1, 0)", "(1, 0)", "inner + (0, 1, 0)", "inner[:-2]"]
