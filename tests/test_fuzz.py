"""Fuzzing the readers of user text: the expression parser, the program-file parser and the
type parser, over mutated library programs and random text (non-ASCII, huge numbers, deep
nesting), and the readers of files (program files, saved derivations, search logs) over
bytes cut short, re-encoded or changed. Whatever the input, the answer is a value or a
``WorkbenchError``; an expression or a program that parses prints back to text that parses
to an equal one.

A few hundred examples per test run in CI (seconds); ``WORKBENCH_FUZZ_EXAMPLES=20000``
runs a larger campaign (random seeds then, so each campaign tries new inputs).
"""

import json
import os
import re
import warnings
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.data.lift_tests import TESTS as LIFT_TESTS
from workbench import (
    Derivation,
    WorkbenchError,
    load,
    parse,
    parse_program,
    parse_type,
    typecheck,
)
from workbench.programs import files, library
from workbench.search import Log, read
from workbench.typecheck import declared_type_of

EXAMPLES = int(os.environ.get("WORKBENCH_FUZZ_EXAMPLES", "0") or 0)
FUZZ = settings(max_examples=EXAMPLES or 200, derandomize=not EXAMPLES, deadline=None,
                suppress_health_check=list(HealthCheck), database=None)

PROGRAMS = [p.read_text(encoding="utf-8") for p in files()]
LINES = [line for text in PROGRAMS for line in text.splitlines() if line.strip()]
BODIES = [line.split("=", 1)[1].strip() for line in LINES
          if " = " in line and not line.startswith((" ", "-"))]
# The library's definitions, so that mutated bodies can name the functions they use.
DEFINITIONS = {name: e for p in files() for name, e in library(p.stem).items()}
SIGNATURES = [line.split(":", 1)[1].strip() for line in LINES
              if " : " in line and not line.startswith((" ", "-"))]

# Pieces that broke readers before: huge literals, non-ASCII names, operators of every kind.
TOKENS = ["(", ")", "[", "]", "{", "}", "<", ">", "λ", "\\", ".", ",", "∘", " o ", "->",
          "→", "=>", "_", ":", "=", "^", "-", "+", "*", "/", "%", "!", "&&", "||", "==",
          "0", "1", "128", "0.5", "1e999", "1e-999", "9" * 5000, "9" * 40, "1" + "0" * 400,
          "0.0f", "N", "N/128", "𝔽N", "ℕ", "é", "α", "Σ", "\u200b", "\x00", "\t", "\n",
          "\n  ", "map", "reduce", "split", "join", "iterate", "zip", "get", "select", "if",
          "then", "else", "fun", "Split(", "Join()", "float", "int", "bool", "double",
          "[float]_N", "<float>_4", "(float, float)", "--", "#", "//", "'"]
ALPHABET = st.characters(codec="utf-8") | st.sampled_from("()[]{}<>λ∘._,:=-+*/0123456789 \n")


@st.composite
def mutated(draw, corpus: list[str]) -> str:
    """A text of ``corpus`` with a few characters or tokens inserted, deleted, replaced
    or duplicated."""
    text = draw(st.sampled_from(corpus))
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3, 4]))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 8)))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "token", "duplicate"]))
        if kind == "insert":
            text = text[:i] + draw(st.text(ALPHABET, min_size=1, max_size=3)) + text[i:]
        elif kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "replace":
            text = text[:i] + draw(st.text(ALPHABET, min_size=1, max_size=3)) + text[j:]
        elif kind == "token":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        else:
            text = text[:i] + text[i:j] * draw(st.integers(2, 50)) + text[i:]
    return text


# Numbers that broke the Lift reader and the type checker before: negative indices, counts
# and widths (read as Python's count from the end), fractions, zero divisors.
NUMBERS = ["-1", "-3", "0", "(0-2)", "2 - 3", "1.5f", "1/2", "99999999", "0 / 0", "N"]


@st.composite
def numbers_changed(draw, corpus: list[str]) -> str:
    """A text of ``corpus`` with one to three of its whole numbers replaced."""
    text = draw(st.sampled_from(corpus))
    for _ in range(draw(st.integers(1, 3))):
        numbers = list(re.finditer(r"\b\d+\b", text))
        if not numbers:
            break
        m = draw(st.sampled_from(numbers))
        text = text[:m.start()] + draw(st.sampled_from(NUMBERS)) + text[m.end():]
    return text


@st.composite
def nested(draw) -> str:
    """Deep nesting of every bracketing construct (past Python's recursion limit)."""
    depth = draw(st.sampled_from([50, 300, 3000]))
    open_, inner, close = draw(st.sampled_from([
        ("(", "x", ")"), ("[", "float", "]_N"), ("map (", "abs", ")"), ("λx. ", "x", ""),
        ("-", "1", ""), ("!", "x", ""), ("(λx. x) (", "1", ")"), ("<", "float", ">_4"),
        ("(1, ", "2", ")"), ("if x then ", "1", " else 2"), ("", "x", ".0"),
        ("x + ", "1", ""), ("", "abs", " ∘ abs"), ("float -> ", "float", ""),
    ]))
    return open_ * depth + inner + close * depth


def random_text() -> st.SearchStrategy[str]:
    return st.one_of(st.text(ALPHABET, max_size=80),
                     st.lists(st.sampled_from(TOKENS), max_size=20).map(" ".join),
                     nested())


def parses_or_refuses(read, text):
    """``read(text)``, or None when it raises a WorkbenchError (anything else fails). The
    outcomes are hypothesis events (``--hypothesis-show-statistics`` counts them)."""
    try:
        value = read(text)
    except WorkbenchError as err:
        event(f"refused: {type(err).__name__}")
        return None
    event("read")
    return value


def assert_expression_round_trips(text):
    e = parses_or_refuses(lambda t: parse(t, DEFINITIONS), text)
    if e is not None:
        assert parse(str(e), DEFINITIONS) == e, str(e)


def assert_program_round_trips(text):
    program = parses_or_refuses(parse_program, text)
    if program is not None:
        again = parse_program(str(program))
        assert list(again) == list(program)
        assert all(again[name] == program[name] for name in program)


def assert_type_round_trips(text):
    t = parses_or_refuses(parse_type, text)
    if t is not None:
        assert parse_type(str(t)) == t


@FUZZ
@given(st.one_of(mutated(BODIES), mutated(BODIES), mutated(BODIES), random_text()))
def test_expression_parser_answers_an_expression_or_a_workbench_error(text):
    assert_expression_round_trips(text)


def definitions() -> st.SearchStrategy[str]:
    """A definition whose body or signature is random or deeply nested text."""
    return st.one_of(random_text().map(lambda text: f"f = {text}\n"),
                     random_text().map(lambda text: f"f : {text}\nf = id\n"))


@FUZZ
@given(st.one_of(mutated(PROGRAMS), mutated(LINES), random_text(), definitions()))
def test_program_parser_answers_a_program_or_a_workbench_error(text):
    assert_program_round_trips(text)


@FUZZ
@given(st.one_of(mutated(SIGNATURES), mutated(SIGNATURES), random_text()))
def test_type_parser_answers_a_type_or_a_workbench_error(text):
    assert_type_round_trips(text)


def assert_program_typechecks_or_refuses(text):
    """Parsing ``text`` and type-checking each definition that declares its type answers a
    value or a ``WorkbenchError`` (a Lift ``fun`` with parameter types is checked as read)."""
    program = parses_or_refuses(parse_program, text)
    for name in program or ():
        if declared_type_of(program[name]) is not None:
            parses_or_refuses(typecheck, program[name])


LIFT_PROGRAMS = [test.program for test in LIFT_TESTS]


@FUZZ
@given(st.one_of(numbers_changed(LIFT_PROGRAMS), mutated(LIFT_PROGRAMS)))
def test_lift_programs_changed_read_and_typecheck_or_are_refused(text):
    assert_program_typechecks_or_refuses(text)


@FUZZ
@given(st.one_of(numbers_changed(PROGRAMS), mutated(PROGRAMS)))
def test_library_programs_changed_typecheck_or_are_refused(text):
    assert_program_typechecks_or_refuses(text)


# --- files: program files, saved derivations and search logs as bytes ---------------------------

SAVED = sorted((Path(__file__).parent.parent / "workbench" / "derivations").glob("*.json"))
LOG_LINES = [json.dumps({"key": f"k{i}", "expression": "map abs", "status": "ok",
                         "correct": True, "kernel_ms": 0.1 * i}) for i in range(4)]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(ALPHABET, max_size=20)
    | st.sampled_from(["9" * 5000, "split-join", "0.1", "root", "[float]_N", "N=4"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6)


@st.composite
def mutated_bytes(draw, corpus: list[bytes]) -> bytes:
    """A file of ``corpus`` cut short, re-encoded, or with bytes changed."""
    data = draw(st.sampled_from(corpus))
    kind = draw(st.sampled_from(["cut", "utf-16", "utf-32", "bytes", "binary"]))
    if kind == "cut":
        return data[:draw(st.integers(0, len(data)))]
    if kind in ("utf-16", "utf-32"):
        return data.decode("utf-8").encode(kind)
    if kind == "binary":
        return draw(st.binary(max_size=200))
    i = draw(st.integers(0, len(data)))
    return data[:i] + draw(st.binary(min_size=1, max_size=4)) + data[i + 1:]


def reads_or_refuses(read, path):
    parses_or_refuses(read, path)


@FUZZ
@given(mutated_bytes([p.read_bytes() for p in files()]))
def test_a_program_file_of_any_bytes_loads_or_is_refused(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("lift") / "p.lift"
    path.write_bytes(data)
    reads_or_refuses(load, path)


@FUZZ
@given(mutated_bytes([p.read_bytes() for p in SAVED]))
def test_a_saved_derivation_of_any_bytes_loads_or_is_refused(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("derivation") / "d.json"
    path.write_bytes(data)
    reads_or_refuses(Derivation.load, path)


@FUZZ
@given(st.sampled_from(SAVED), st.data())
def test_a_saved_derivation_with_any_entry_changed_loads_or_is_refused(saved, data):
    doc = json.loads(saved.read_text(encoding="utf-8"))
    target = doc
    if doc["steps"] and data.draw(st.booleans()):
        target = data.draw(st.sampled_from(doc["steps"]))
        if data.draw(st.booleans()):
            target = target.setdefault("params", {})
    key = data.draw(st.sampled_from(sorted(target) + ["n", "extra"]))
    target[key] = data.draw(JSON_VALUES)
    parses_or_refuses(lambda d: Derivation.from_json(d, saved.name), doc)


@FUZZ
@given(mutated_bytes(["\n".join(LOG_LINES).encode() + b"\n"]))
def test_a_search_log_of_any_bytes_reads_or_is_refused(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("log") / "log.jsonl"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reads_or_refuses(read, path)
        reads_or_refuses(Log, path)
