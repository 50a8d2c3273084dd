"""The shape of the search package, read from its source: functions short enough to read at
once, and places in a program found by traversals and strategies (never by arithmetic on
paths, which breaks silently when a rule's result changes shape).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SEARCH = Path(__file__).parent.parent / "workbench" / "search"
LONGEST = 60


def _sources() -> list[Path]:
    return sorted(SEARCH.rglob("*.py"))


def _trees():
    for path in _sources():
        yield path.relative_to(SEARCH.parent), ast.parse(path.read_text(encoding="utf-8"))


def long_functions(tree: ast.AST) -> list[tuple[str, int]]:
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno - node.lineno + 1 > LONGEST]


def _numbers(node: ast.AST) -> bool:
    """A literal tuple of integers (``(0,)``, ``(1, 0)``): a step of a path written out."""
    return isinstance(node, ast.Tuple) and bool(node.elts) and all(
        isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts)


def _constant_bound(node: ast.AST | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def path_arithmetic(tree: ast.AST) -> list[tuple[int, str]]:
    """Where a path is extended by written-out steps (``path + (0,)``) or cut by a constant
    (``path[:-1]``, ``operator[1:]``)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and (
                _numbers(node.left) or _numbers(node.right)):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and (
                _constant_bound(node.slice.lower) or _constant_bound(node.slice.upper)):
            name = ast.unparse(node.value).lower()
            if "path" in name or "operator" in name or "site" in name or "at" == name:
                found.append((node.lineno, ast.unparse(node)))
    return found


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(SEARCH.parent)))
def test_no_function_of_the_search_is_longer_than_sixty_lines(path):
    assert long_functions(ast.parse(path.read_text(encoding="utf-8"))) == []


def test_the_search_writes_no_path_by_hand():
    found = {str(name): hits for name, tree in _trees() if (hits := path_arithmetic(tree))}
    assert found == {}


def test_the_checks_see_what_they_look_for():
    tree = ast.parse("def f(path, operator):\n"
                     "    a = path + (0,)\n"
                     "    b = path[:-1]\n"
                     "    c = operator[:-1]\n"
                     "    d = path[:len(a)]\n"
                     + "    x = 1\n" * LONGEST)
    assert [line for line, _ in path_arithmetic(tree)] == [2, 3, 4]
    assert long_functions(tree) == [("f", LONGEST + 5)]
