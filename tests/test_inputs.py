"""Random inputs respect a program's domain: a program file declares input ranges per
definition (``name ranges : [low, high], _, ...``), the library programs declare ranges under
which none produces NaN, and the generator draws from them — for the CLI, the demo, the
widget and the search's workers alike."""

import json

import numpy as np
import pytest

from workbench import Derivation, ParseError, WorkbenchError, evaluate, parse_program, run
from workbench.cli import main
from workbench.domain import Interval, ranges_of
from workbench.errors import ResourceError
from workbench.inputs import random_inputs
from workbench.notation import parse_ranges, parse_type
from workbench.programs import LIBRARY, files, library
from workbench.types import function_parts, substitute_sizes

SIZES = {"N": 4096, "M": 8, "K": 4, "D": 4, "blockSize": 1024}

PROGRAM = """\
f : [(float, float)]_N -> [int]_N -> float -> [(float, float)]_N
f ranges : ([0, 10], _), [3, 5], [-2.5, -1]
f = λps is t. ps
"""


# --- the syntax --------------------------------------------------------------------------------

def test_a_ranges_line_gives_each_input_its_range():
    f = parse_program(PROGRAM)["f"]
    assert ranges_of(f) == ((Interval(0, 10), None), Interval(3, 5), Interval(-2.5, -1))


def test_ranges_print_back_and_parse_equal():
    program = parse_program(PROGRAM)
    again = parse_program(str(program))
    assert ranges_of(again["f"]) == ranges_of(program["f"])


@pytest.mark.parametrize("text", ["[0, 1]", "_", "[-1, 1e3], _, ([0, 2], [1, 1])",
                                  "[0, 1], (_, _)"])
def test_range_text_round_trips(text):
    from workbench.domain import ranges_text

    ranges = parse_ranges(text)
    assert parse_ranges(ranges_text(ranges)) == ranges


@pytest.mark.parametrize("line,column", [
    ("f ranges : [1, 0]", 16),                  # empty: high below low
    ("f ranges : [a, 1]", 13),                  # not a number
    ("f ranges : [0, 1] [2, 3]", 19),           # no comma
    ("f ranges : [0 1]", 15),                   # no comma inside
    ("f ranges : {0, 1}", 12),                  # not a range
    ("f ranges : [0, 1], _", 1),                # two ranges for one input
    ("f ranges : ([0, 1], _)", 1),              # a tuple of ranges for floats
])
def test_a_bad_ranges_line_is_a_parse_error_naming_line_and_column(line, column):
    text = f"f : [float]_N -> [float]_N\n{line}\nf = map abs\n"
    with pytest.raises(ParseError) as info:
        parse_program(text)
    assert (info.value.line, info.value.column) == (2, column)


@pytest.mark.parametrize("text", [
    "f ranges : [0, 1]\nf = map abs\n",                                      # no signature
    "f : [int]_N -> [int]_N\nf ranges : [0, 1.5]\nf = map abs\n",             # int, not whole
    "f : [int]_N -> [int]_N\nf ranges : [0, 3000000000]\nf = map abs\n",      # past 32 bits
    "f : [bool]_N -> [bool]_N\nf ranges : [0, 1]\nf = map id\n",              # not numbers
    "f : [float]_N -> [float]_N\nf ranges : [0, 1]\nf ranges : [0, 2]\nf = map abs\n",
])
def test_ranges_that_do_not_fit_the_signature_are_parse_errors(text):
    with pytest.raises(ParseError):
        parse_program(text)


# --- drawing from them -------------------------------------------------------------------------

def test_random_inputs_lie_in_their_ranges():
    f = parse_program(PROGRAM)["f"]
    types = [parse_type("[(float, float)]_N"), parse_type("[int]_N"), parse_type("float")]
    (a, b), ints, t = random_inputs(types, {"N": 1000}, 0, ranges_of(f))
    assert 0 <= a.min() and a.max() <= 10 and -1 <= b.min() and b.max() <= 1
    assert set(np.unique(ints)) == {3, 4, 5}  # ints: both ends included
    assert -2.5 <= t <= -1


def test_without_ranges_floats_are_in_minus_one_to_one_and_ints_index_the_arrays():
    xs, idx = random_inputs([parse_type("[float]_N"), parse_type("[int]_N")], {"N": 500}, 1)
    assert -1 <= xs.min() and xs.max() < 1
    assert 0 <= idx.min() and idx.max() < 500


def test_ranges_for_a_different_number_of_inputs_are_refused():
    with pytest.raises(WorkbenchError):
        random_inputs([parse_type("[float]_N")], {"N": 4}, 0, (None, None))


def test_inputs_larger_than_the_memory_are_refused_naming_the_sizes(monkeypatch):
    import workbench.inputs as inputs

    monkeypatch.setattr(inputs, "available_memory", lambda: 1 << 20)
    with pytest.raises(ResourceError) as info:
        random_inputs([parse_type("[[float]_M]_N")], {"N": 1024, "M": 512, "K": 3}, 0)
    assert info.value.sizes == {"N": 1024, "M": 512}
    assert random_inputs([parse_type("[float]_N")], {"N": 1024}, 0)[0].shape == (1024,)


# --- the library -------------------------------------------------------------------------------

def definitions():
    for path in files():
        for name, expr in library(path.stem).items():
            yield path.stem, name, expr


def declared(expr):
    from workbench.typecheck import declared_type_of

    return declared_type_of(expr)


@pytest.mark.parametrize("file,name,expr", list(definitions()),
                         ids=[f"{f}:{n}" for f, n, _ in definitions()])
def test_no_library_definition_produces_nan_on_its_random_inputs(file, name, expr):
    inputs, _ = function_parts(declared(expr))
    types = [substitute_sizes(t, SIZES) for t in inputs]
    for seed in range(3):
        values = random_inputs(types, SIZES, seed, ranges_of(expr))
        out = evaluate(expr, *values, sizes=SIZES)
        for part in (out if isinstance(out, tuple) else (out,)):
            assert np.all(np.isfinite(part)), (name, seed)


@pytest.mark.parametrize("name,sizes", [("blackscholes:blackScholes", ["N=4096"]),
                                        ("md:md", ["N=1024", "K=16"])])
def test_blackscholes_and_md_run_correct_from_the_cli(capsys, name, sizes):
    file, _, definition = name.partition(":")
    argv = ["run", f"@{LIBRARY / file}.lift:{definition}", "--repeat", "2", "--json"]
    for s in sizes:
        argv += ["--size", s]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    assert doc["correct"] and doc["status"] == "ok"


def test_md_on_inputs_holding_a_particle_that_is_its_own_neighbour_runs_correct():
    md = library("md")["md"]
    rng = np.random.default_rng(3)
    ps = tuple(rng.uniform(0, 10, 256).astype(np.float32) for _ in range(3))
    nbhs = np.tile(np.arange(256, dtype=np.int32)[:, None], (1, 4))  # each its own neighbour
    forces = evaluate(md, ps, nbhs, np.float32(8))
    assert all(np.all(f == 0) for f in forces)
    result = run(md, ps, nbhs, np.float32(8), repeat=1)
    assert result.status == "ok" and result.correct


def test_a_derivation_keeps_the_ranges_of_its_start(tmp_path):
    d = Derivation(library("blackscholes")["blackScholes"])
    d.apply("map→mapGlobal", "root", dim=0)
    path = tmp_path / "bs.json"
    d.save(path)
    again = Derivation.load(path)
    assert ranges_of(again.start) == (Interval(0, 1),)
    assert ranges_of(again.current) == (Interval(0, 1),)


def test_the_demo_draws_its_inputs_from_the_derivations_ranges():
    from workbench.studies.demo import _inputs

    d = Derivation.load(LIBRARY.parent / "derivations" / "blackscholes.json")
    (xs,) = _inputs(d, {"N": 4096}, 0)
    assert 0 <= xs.min() and xs.max() <= 1


def test_search_workers_draw_inputs_from_the_ranges(monkeypatch):
    import workbench.inputs as inputs
    from workbench.search import search

    drawn = []
    original = inputs.random_inputs

    def recording(*args, **kwargs):
        values = original(*args, **kwargs)
        drawn.append(values)
        return values

    monkeypatch.setattr(inputs, "random_inputs", recording)
    start = library("blackscholes")["blackScholes"]
    result = search(start, "[float]_1024", strategy="random", budget=2, workers=0, repeat=1)
    assert drawn and all(0 <= v[0].min() and v[0].max() <= 1 for v in drawn)
    assert result.best is not None
