"""Fuzzing the public surface's arguments: every function importable from ``workbench`` that
takes arguments (and ``Derivation``'s methods, the inputs' helpers, the program library), and
the command line's subcommands through ``workbench.cli.main``, called with one argument
replaced by a value of a wrong type or an odd one (None, numbers of every kind, NaN, huge and
negative integers, text, lists, mappings, arrays of the wrong shape or dtype, masked arrays,
``uint64`` past ``int``, paths that are FIFOs, ``/dev/full``, a symlink loop or a folder).

Whatever the value, a call returns (a result, or for ``run`` a result whose ``invalid
input`` names the argument) or raises a ``WorkbenchError`` that names the argument (its
``argument``, its ``input`` or its message) — never another exception and never a hang (each
call runs under an alarm). The command line answers with an exit status and a message, never
a traceback.

A few hundred calls run in CI (under a minute); ``WORKBENCH_FUZZ_EXAMPLES=2000`` runs a larger
campaign (random seeds then).
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench import (
    Derivation,
    ParseError,
    RewriteRefused,
    TypeCheckError,
    WorkbenchError,
    annotate,
    apply,
    devices,
    evaluate,
    load,
    opencl,
    parse,
    parse_program,
    parse_type,
    rewrites,
    run,
    search,
    to_text,
    typecheck,
)
from workbench.cli import main
from workbench.inputs import check_exact_inputs, format_bytes, random_inputs
from workbench.programs import library

EXAMPLES = int(os.environ.get("WORKBENCH_FUZZ_EXAMPLES", "0") or 0)


def fuzz(examples: int):
    return settings(max_examples=EXAMPLES or examples, derandomize=not EXAMPLES,
                    deadline=None, suppress_health_check=list(HealthCheck), database=None)


ASUM = library("blas")["asum"]
XS = np.linspace(-1, 1, 64, dtype=np.float32)
LIFT = Path(__file__).parent.parent / "workbench" / "programs" / "blas.lift"
HANG_S = 20  # a call that takes this long is taken as hanging


def _odd_paths() -> dict[str, Path]:
    """Paths that are no ordinary file: a FIFO (opening it to read waits for a writer),
    /dev/full (every write fails), a symlink loop, a folder, a file in a missing folder."""
    root = Path(tempfile.mkdtemp(prefix="wb-fuzz-"))
    os.mkfifo(root / "fifo")
    (root / "loop").symlink_to(root / "loop")
    (root / "folder").mkdir()
    return {"fifo": root / "fifo", "full": Path("/dev/full"), "loop": root / "loop",
            "folder": root / "folder", "missing": root / "missing" / "file.jsonl"}


PATHS = _odd_paths()
SCRATCH = PATHS["folder"]  # the working folder of the calls: a relative path lands there

ODD = [
    None, True, False, 0, -1, 1, 3, 2 ** 31, 2 ** 63, 2 ** 64, -(2 ** 70), 10 ** 400, 1.5, -0.0,
    math.nan, math.inf, -math.inf, "", "x", "N", "-1", "nan", "9" * 400, "🙂", "\x00", b"\xff",
    [], [None], [1, "a"], ["split-join"], (), {}, {"N": -1}, {"N": 2 ** 70}, {"N": math.nan},
    {"M": 3}, {1: 2}, {"N": "64"}, object(), print, np.int64(-5), np.uint64(2 ** 40),
    np.float32("nan"), np.array([]), np.zeros((2, 3), np.float32), np.ones(64, np.complex64),
    np.array(["a"] * 64), np.array([object()] * 64), np.ma.masked_array(XS, mask=XS < 0),
    np.full(64, 2 ** 40, np.uint64), np.full(64, -(2 ** 40), np.int64), np.ones(64, np.float16),
    np.ones(64, np.float64), XS[::2], XS.reshape(8, 8), np.ones(64, bool),
    *PATHS.values(), *map(str, PATHS.values()),
]

VALUES = st.one_of(st.sampled_from(ODD), st.integers(), st.floats(),
                   st.text(max_size=12), st.lists(st.integers(), max_size=3))


@dataclass
class Call:
    """A public function and valid arguments for it (by name); ``names``: the words an
    error about an argument may name it by (its own name by default)."""

    function: object
    arguments: dict
    names: dict = field(default_factory=dict)

    def __call__(self, arguments: dict):
        return self.function(**arguments)

    def words(self, argument: str) -> tuple[str, ...]:
        return (argument, *self.names.get(argument, ()))


def _derivation() -> Derivation:
    d = Derivation(ASUM, "[float]_64", name="asum")
    d.apply("two-stage-reduction", "0", groups=2, local=1, distribution="chunked")  # a macro
    d.branch(1)  # a branch to switch to
    return d


def _method(name: str):
    return lambda **kw: getattr(_derivation(), name)(**kw)


EXPR = ("expr", "expression", "program")
TYPES = ("type", "input")
SIZES = ("size",)
CALLS = {
    "evaluate": Call(lambda expr, input, sizes: evaluate(expr, input, sizes=sizes),
                     {"expr": ASUM, "input": XS, "sizes": None},
                     {"expr": EXPR, "input": ("input 1",), "sizes": SIZES}),
    "run": Call(lambda expr, input, **kw: run(expr, input, **kw),
                {"expr": ASUM, "input": XS, "device": None, "repeat": 1, "sizes": None,
                 "warmup": 0, "time_limit_ms": None, "expected": None, "cutoff_ms": None,
                 "build_options": None},
                {"expr": EXPR, "input": ("input 1",), "sizes": SIZES,
                 "build_options": ("build option",)}),
    "parse": Call(lambda text, definitions: parse(text, definitions),
                  {"text": "map abs", "definitions": None}, {"text": ("column",)}),
    "parse_type": Call(parse_type, {"text": "[float]_N"}, {"text": ("column", "type")}),
    "parse_program": Call(parse_program, {"text": "f = map abs"},
                          {"text": ("line", "column")}),
    "apply": Call(lambda expr, rule, path, type, n: apply(expr, rule, path, type, n=n),
                  {"expr": ASUM, "rule": "reduce-partial", "path": "0", "type": "[float]_64",
                   "n": 8}, {"expr": EXPR, "type": TYPES, "n": ("parameter",)}),
    "rewrites": Call(lambda expr, type, at: rewrites(expr, type, at=at),
                     {"expr": ASUM, "type": "[float]_64", "at": "1"},
                     {"expr": EXPR, "type": TYPES, "at": ("path",)}),
    "typecheck": Call(lambda expr, type, sizes: typecheck(expr, type, sizes=sizes),
                      {"expr": ASUM, "type": "[float]_N", "sizes": {"N": 64}},
                      {"expr": EXPR, "type": TYPES, "sizes": SIZES}),
    "annotate": Call(lambda expr, type, sizes: annotate(expr, type, sizes=sizes),
                     {"expr": ASUM, "type": "[float]_N", "sizes": {"N": 64}},
                     {"expr": EXPR, "type": TYPES, "sizes": SIZES}),
    "opencl": Call(lambda expr, type, **kw: opencl(expr, type, **kw),
                   {"expr": ASUM, "type": "[float]_64", "name": "asum", "sizes": None,
                    "complete": True},
                   {"expr": EXPR, "type": TYPES, "sizes": SIZES,
                    "complete": ("default lowering",)}),
    "to_text": Call(to_text, {"expr": ASUM, "ascii": False, "style": "paper", "width": 100},
                    {"expr": EXPR}),
    "load": Call(load, {"path": LIFT}, {"path": ("file",)}),
    "library": Call(library, {"name": "blas"}, {"name": ("library", "program")}),
    "Derivation": Call(lambda start, type, name, definitions:
                       Derivation(start, type, name=name, definitions=definitions),
                       {"start": ASUM, "type": "[float]_64", "name": "asum", "definitions": ""},
                       {"start": EXPR, "type": TYPES, "definitions": ("function",)}),
    "Derivation.apply": Call(lambda **kw: Derivation(ASUM, "[float]_64").apply(**kw),
                             {"rule": "reduce-partial", "path": "0", "n": 8},
                             {"n": ("parameter",)}),
    "Derivation.branch": Call(_method("branch"), {"k": 1}, {"k": ("step",)}),
    "Derivation.switch": Call(_method("switch"), {"i": 0}, {"i": ("branch",)}),
    "Derivation.expand": Call(_method("expand"), {"k": 1}, {"k": ("step",)}),
    "Derivation.expansion": Call(_method("expansion"), {"k": 1}, {"k": ("step",)}),
    "Derivation.is_macro": Call(_method("is_macro"), {"k": 1}, {"k": ("step",)}),
    "Derivation.save": Call(_method("save"), {"path": "d.json"},
                            {"path": ("file",)}),
    "Derivation.to_latex": Call(_method("to_latex"), {"expand": False}),
    "random_inputs": Call(random_inputs, {"types": [parse_type("[float]_N")],
                                          "sizes": {"N": 8}, "seed": 0, "ranges": None},
                          {"types": TYPES, "sizes": SIZES, "ranges": ("range",)}),
    "check_exact_inputs": Call(lambda arrays: check_exact_inputs(arrays), {"arrays": [XS]},
                               {"arrays": ("input",)}),
    "format_bytes": Call(format_bytes, {"n": 1024}),
    "devices": Call(devices, {"check": False, "progress": None}),
}
SEARCH = Call(lambda expr, type, **kw: search(expr, type, **kw),
              {"expr": ASUM, "type": "[float]_64", "strategy": "random", "budget": 1,
               "workers": 0, "repeat": 1, "seed": 0, "sizes": None, "options": None,
               "at": None, "time_limit": 5.0, "timeout": 60.0, "log": None,
               "build_options": None, "remeasure": False, "device": None,
               "replay_log": None, "seeds": None},
              {"expr": EXPR, "type": TYPES, "sizes": SIZES, "at": ("path",),
               "options": ("option",), "build_options": ("build option",),
               "replay_log": ("log",), "seeds": ("log", "seed")})


class Hang(BaseException):
    """A call that ran past ``HANG_S``."""


@contextlib.contextmanager
def alarm(seconds: int):
    def ring(_signum, _frame):
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def names_the_argument(err: WorkbenchError, call: Call, argument: str) -> bool:
    """The error names the argument: as its ``argument`` or ``input``, in its message, as
    the place and rule of a refused rewrite (a path, a rule, a rule's parameter), as the node
    and both types of a type error of a given type or start, or as the file, line and column
    of a parse error of the file read."""
    words = call.words(argument)
    if isinstance(err, RewriteRefused) and argument in ("path", "at", "rule", "n"):
        return True
    if isinstance(err, TypeCheckError) and argument in ("type", "start"):  # the node, the types
        return True
    if isinstance(err, ParseError) and argument == "path" and err.path:  # file, line, column
        return True
    if getattr(err, "argument", None) in words or getattr(err, "input", None) is not None \
            and "input" in argument:
        return True
    text = str(err).lower()
    return any(w.lower() in text for w in words)


def check_call(name: str, call: Call, argument: str, value) -> None:
    """The call with ``argument`` replaced by ``value``: a result, or an error naming it."""
    arguments = {**call.arguments, argument: value}
    try:
        with alarm(HANG_S), contextlib.chdir(SCRATCH):
            result = call(arguments)
    except WorkbenchError as err:
        assert names_the_argument(err, call, argument), \
            f"{name}({argument}={value!r:.80}): {type(err).__name__} does not name " \
            f"{argument}: {err}"
        return
    except Hang:
        pytest.fail(f"{name}({argument}={value!r:.80}) hangs")
    except Exception as err:
        raise AssertionError(f"{name}({argument}={value!r:.80}) escaped as "
                             f"{type(err).__name__}: {err}") from err
    error = getattr(result, "error", None)
    if name == "run" and result.status == "invalid input":
        assert error is not None and names_the_argument(error, call, argument), \
            f"run({argument}={value!r:.80}): the invalid input does not name it: " \
            f"{result.message}"


@st.composite
def calls(draw, table: dict[str, Call]):
    name = draw(st.sampled_from(sorted(table)))
    call = table[name]
    argument = draw(st.sampled_from(sorted(call.arguments)))
    return name, call, argument, draw(VALUES)


def test_each_call_is_right_as_given():
    """The valid arguments the fuzzing starts from give results (a test that fails where a
    call refuses them, so that the fuzzing tries each argument alone)."""
    for name, call in {**CALLS, "search": SEARCH}.items():
        with alarm(HANG_S), contextlib.chdir(SCRATCH):
            result = call(dict(call.arguments))
        if name == "run":
            assert result.correct, result.message


@fuzz(300)
@given(calls(CALLS))
def test_odd_arguments_give_a_result_or_an_error_naming_them(case):
    check_call(*case)


@fuzz(25)
@given(calls({"search": SEARCH}))
def test_odd_search_arguments_give_a_result_or_an_error_naming_them(case):
    check_call(*case)


def _id(value) -> str:
    """A test's name for a value, the same in every process (the odd paths lie in a
    temporary folder of each process's own name)."""
    return f"path {value.name}" if isinstance(value, Path) else repr(value)[:24]


@pytest.mark.parametrize("argument", sorted(SEARCH.arguments))
@pytest.mark.parametrize("value", [None, -1, math.nan, "x", [1], PATHS["fifo"],
                                   PATHS["full"], PATHS["loop"]], ids=_id)
def test_each_search_argument_takes_odd_values(argument, value):
    check_call("search", SEARCH, argument, value)


# the escapes the fuzzing found (each an exception of Python's, a hang or an error that did
# not say which argument): now refused, naming the argument
FOUND = [
    ("evaluate", "expr", None), ("evaluate", "sizes", True), ("parse", "text", None),
    ("parse", "definitions", 3), ("parse_type", "text", None), ("parse_program", "text", b""),
    ("apply", "type", "9" * 400), ("rewrites", "expr", 0), ("typecheck", "sizes", "N"),
    ("annotate", "sizes", {"N": math.nan}), ("opencl", "type", None),
    ("opencl", "complete", None), ("opencl", "name", 3), ("to_text", "width", 5),
    ("to_text", "style", np.array([])), ("load", "path", None), ("load", "path", "\x00"),
    ("load", "path", PATHS["fifo"]), ("load", "path", PATHS["loop"]),
    ("load", "path", PATHS["folder"]), ("library", "name", []), ("library", "name", "9" * 400),
    ("Derivation", "start", "x"), ("Derivation", "definitions", None),
    ("Derivation.branch", "k", np.array([])), ("Derivation.to_latex", "expand", np.array([1])),
    ("Derivation.save", "path", PATHS["fifo"]), ("Derivation.save", "path", PATHS["full"]),
    ("Derivation.save", "path", PATHS["missing"]), ("random_inputs", "ranges", "x"),
    ("random_inputs", "sizes", None), ("random_inputs", "types", None),
    ("check_exact_inputs", "arrays", None), ("format_bytes", "n", None),
    ("devices", "check", "yes"), ("run", "repeat", 2 ** 31), ("run", "warmup", 2 ** 63),
    ("run", "expected", ()), ("run", "expected", ["a"]), ("run", "expected", 10 ** 400),
    ("run", "device", ""),
]
FOUND_IN_SEARCH = [
    ("at", True), ("expr", None), ("log", True), ("log", "\x00"), ("remeasure", np.array([])),
    ("sizes", "N"), ("strategy", []), ("time_limit", 10 ** 400), ("type", "9" * 400),
    ("workers", "x"), ("device", 3), ("replay_log", [1]), ("replay_log", "\x00"),
    ("seeds", "\x00"),
]


def check_refused(name: str, call: Call, argument: str, value) -> None:
    """The call refuses ``value`` for ``argument``, naming it (``run``: in a result that
    is not ok, its status ``invalid input`` or ``no device``)."""
    arguments = {**call.arguments, argument: value}
    with alarm(HANG_S), contextlib.chdir(SCRATCH):
        try:
            result = call(arguments)
        except WorkbenchError as err:
            assert names_the_argument(err, call, argument), f"{name}({argument}): {err}"
            return
    assert name == "run" and result.status in ("invalid input", "no device"), (name, result)
    assert argument in result.message or names_the_argument(result.error, call, argument), \
        result.message


@pytest.mark.parametrize("name,argument,value", FOUND, ids=_id)
def test_each_escape_found_is_refused_naming_the_argument(name, argument, value):
    check_refused(name, CALLS.get(name), argument, value)


@pytest.mark.parametrize("argument,value", FOUND_IN_SEARCH, ids=_id)
def test_each_escape_found_in_search_is_refused_naming_the_argument(argument, value):
    check_refused("search", SEARCH, argument, value)


# --- evaluate refuses what run refuses ---------------------------------------------------------

@pytest.mark.parametrize("value", [np.ma.masked_array(XS, mask=XS < 0),
                                   np.ma.masked_array(XS)], ids=["some masked", "none masked"])
def test_evaluate_refuses_a_masked_array_naming_the_input(value):
    with pytest.raises(WorkbenchError, match="masked") as info:
        evaluate(library("blas")["dot"], XS, value)
    assert info.value.input == 2


@pytest.mark.parametrize("value,dtype", [(2 ** 40, np.uint64), (-(2 ** 40), np.int64),
                                         (2 ** 31, np.int64), (2 ** 63, np.uint64)])
def test_evaluate_refuses_integers_past_int_naming_the_input(value, dtype):
    with pytest.raises(WorkbenchError, match=str(value)) as info:
        evaluate(parse("map (λx. x + 1)"), np.full(64, value, dtype=dtype))
    assert info.value.input == 1


def test_evaluate_takes_integers_within_int_given_as_64_bits():
    out = evaluate(parse("map (λx. x + 1)"), np.full(64, 2 ** 31 - 2, dtype=np.int64))
    assert np.all(np.asarray(out) == 2 ** 31 - 1)


# --- the command line --------------------------------------------------------------------------

ASUM_FILE = f"@{LIFT}:asum"
COMMANDS = {
    "check": [ASUM_FILE],
    "codegen": [ASUM_FILE, "--size", "N=64"],
    "eval": [ASUM_FILE, "--size", "N=64"],
    "rules": [ASUM_FILE, "--type", "[float]_64"],
    "apply": [ASUM_FILE, "reduce-partial", "--at", "0", "--param", "n=8", "--type",
              "[float]_64"],
    "run": [ASUM_FILE, "--size", "N=64", "--repeat", "1"],
    "search": [ASUM_FILE, "--size", "N=64", "--budget", "1", "--workers", "0", "--repeat",
               "1"],
    "derive": [str(PATHS["folder"] / "missing.json")],
}
OPTIONS = ["--type", "--size", "--at", "--param", "--device", "--repeat", "--seed", "--log",
           "--plot", "--seeds", "--budget", "--time-limit", "--timeout", "--workers",
           "--strategy", "--build-option", "--json", "--lift", "--markdown"]
TOKENS = st.one_of(
    st.sampled_from(["-1", "0", "1", "nan", "inf", "1e999", "9" * 40, "", "N", "N=", "=64",
                     "N=-1", "N=nan", "N=99999999999999999999", "M=64", "[float]_N",
                     "[float]_-1", "float", "map abs", "@", "@nowhere.lift", f"@{LIFT}:nothing",
                     "reduce-partial", "n=-1", "n=x", "0.9.9", "🙂", "\x00",
                     *[str(p) for p in PATHS.values()], *[f"@{p}" for p in PATHS.values()]]),
    st.text(max_size=8))


@st.composite
def command_lines(draw):
    command = draw(st.sampled_from(sorted(COMMANDS)))
    odd = draw(st.lists(st.tuples(st.sampled_from(OPTIONS), TOKENS), min_size=1, max_size=2))
    place = draw(st.booleans())  # the odd options before the valid ones, or after them
    extra = [t for pair in odd for t in pair]
    base = COMMANDS[command]
    # a search's budget and workers stay small whatever comes before them
    tail = ["--budget", "1", "--workers", "0"] if command == "search" else []
    return [command, *(extra + base if place else base + extra), *tail]


def check_command_line(argv: list[str], capsys) -> None:
    try:
        with alarm(HANG_S), contextlib.chdir(SCRATCH):
            code = main(argv)
    except SystemExit as stop:  # the parser's refusal: status 2 and its usage line
        code = stop.code
    except Hang:
        pytest.fail(f"workbench {' '.join(map(repr, argv))} hangs")
    except Exception as err:
        raise AssertionError(f"workbench {' '.join(map(repr, argv))} escaped as "
                             f"{type(err).__name__}: {err}") from err
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out, (argv, err[-2000:])
    assert isinstance(code, int), (argv, code)
    if code not in (0, 130):
        assert err.strip(), f"workbench {argv} failed ({code}) without a word"


@fuzz(60)
@given(command_lines())
def test_odd_command_lines_answer_with_a_status_and_a_message(capsys, argv):
    check_command_line(argv, capsys)


# the command lines the fuzzing found escaping: a traceback, or a run that did not end
@pytest.mark.parametrize("argv", [
    ["run", *COMMANDS["run"], "--device", ""],
    ["search", *COMMANDS["search"], "--plot", "\x00"],
    ["search", *COMMANDS["search"], "--log", str(PATHS["fifo"])],
    ["derive", str(PATHS["loop"])],
], ids=["empty device", "NUL in the plot's path", "a FIFO as the log", "a link loop"])
def test_each_command_line_found_escaping_answers_in_one_message(capsys, argv):
    check_command_line(argv, capsys)
