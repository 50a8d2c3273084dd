"""The default completion (``rules.lowering.complete``) is ordinary rules applied at paths:
the copy a view on the way out needs (``copy-view``), then the default lowering. The code
generator compiles what it is given and rewrites nothing: the steps ``opencl(...,
complete=True)`` reports replay through ``apply``, from the user's program, to the same
completed expression and the same kernel, for every program of the library and the Lift
sets."""

import numpy as np
import pytest

from benchmarks import lift_programs as bench
from tests.data.lift_heldout import SECOND_BATCH, THIRD_BATCH
from tests.data.lift_heldout import TESTS as HELDOUT
from tests.data.lift_tests import TESTS as LIFT_TESTS
from tests.lift_sets import program_of
from tests.test_lift_heldout import UNSUPPORTED
from tests.test_lift_programs import inputs
from workbench import Derivation, parse, parse_program
from workbench.codegen import CodegenError
from workbench.codegen.program import opencl
from workbench.errors import WorkbenchError
from workbench.expr import Prim, size_arguments, walk
from workbench.primitives.skeletons import stage_variables
from workbench.programs import LIBRARY, library
from workbench.rules import RewriteRefused, apply
from workbench.run import run
from workbench.semantics import prepare_inputs
from workbench.typecheck import declared_type_of
from workbench.types import free_size_vars, function_parts

XS = np.random.default_rng(41).uniform(-1, 1, 64).astype(np.float32)


def assert_replays(expr, types, sizes=None):
    """The steps of the default completion, applied one by one from ``expr`` as a derivation
    does, give the completed expression and its kernel; False where nothing compiles."""
    try:
        completed = opencl(expr, *types, sizes=sizes, complete=True)
    except WorkbenchError:
        return False  # nothing to replay (refused with or without the completion)
    d = Derivation(expr, *types)
    for step in completed.completed:
        d.apply(step.rule, step.path, **step.params)
    again = opencl(d.current, *types, sizes=sizes, name=completed.name)
    assert again.expression == completed.expression
    assert again.source == completed.source
    return True


# --- the library --------------------------------------------------------------------------

def _library_programs():
    stems = [p.stem for p in sorted(LIBRARY.glob("*.lift"))] + \
        [f"lift/{p.stem}" for p in sorted((LIBRARY / "lift").glob("*.lift"))]
    # a function without a declared type is no program: other programs use it
    return [(stem, name) for stem in stems for name, expr in library(stem).items()
            if declared_type_of(expr) is not None]


def _sizes(expr, value=1024):
    """Every size variable of a program (of its declared type and its primitives' size
    arguments) given one value."""
    names = {n for t in function_parts(declared_type_of(expr))[0] for n in free_size_vars(t)}
    names |= {n for _, node in walk(expr) if isinstance(node, Prim)
              for a in size_arguments(node) for n in a.free_vars} - stage_variables(expr)
    return dict.fromkeys(names, value)


LIBRARY_PROGRAMS = _library_programs()


@pytest.mark.parametrize("stem,name", LIBRARY_PROGRAMS, ids=[f"{s}:{n}" for s, n in
                                                             LIBRARY_PROGRAMS])
def test_the_completion_of_a_library_program_replays(stem, name):
    expr = library(stem)[name]
    assert_replays(expr, (), _sizes(expr)) or _refused_alike(expr, _sizes(expr))


def _refused_alike(expr, sizes):
    """A program the code generator refuses is refused with and without the completion's
    rewrites applied by hand as well (nothing is left out of the replay)."""
    with pytest.raises(WorkbenchError):
        opencl(expr, sizes=sizes, complete=True)
    return True


def test_most_library_programs_compile_and_replay():
    replayed = sum(assert_replays(library(s)[n], (), _sizes(library(s)[n]))
                   for s, n in LIBRARY_PROGRAMS)
    assert replayed >= 40


# --- the Lift sets ------------------------------------------------------------------------

def _types(expr, args):
    return prepare_inputs(expr, args)[1]


@pytest.mark.parametrize("test", LIFT_TESTS, ids=[t.name for t in LIFT_TESTS])
def test_the_completion_of_a_lift_test_program_replays(test):
    f = parse_program(test.program)["f"]
    assert assert_replays(f, _types(f, inputs(test)))


HELD_OUT = [t for t in HELDOUT + SECOND_BATCH + THIRD_BATCH if t.name not in UNSUPPORTED]


@pytest.mark.parametrize("test", HELD_OUT, ids=[t.name for t in HELD_OUT])
def test_the_completion_of_a_held_out_lift_program_replays(test):
    f = program_of(test)
    assert assert_replays(f, _types(f, inputs(test)))


@pytest.mark.parametrize("name", sorted(bench.PROGRAMS))
def test_the_completion_of_a_lift_benchmark_program_replays(name):
    spec = bench.PROGRAMS[name]
    f = spec.program()
    assert assert_replays(f, _types(f, bench.inputs_of(name, spec.sizes["test"])))


# --- copy-view: the copy the code generator needs, as a rule ---------------------------------

@pytest.mark.parametrize("text,types,at", [
    ("transpose", ["[[float]_4]_8"], "root"),  # computes nothing: its result is copied
    ("λxs. transpose xs", ["[[float]_4]_8"], "0"),
    ("λx. x", ["[float]_64"], "0"),
    ("padClamp 1 1 ∘ map abs", ["[float]_64"], "0"),  # a pad on the way out
    ("λxs. padClamp 1 1 (map abs xs)", ["[float]_64"], "0.0"),
    ("λxs. splitVec 4 (map abs xs)", ["[float]_64"], "0.0"),
    ("join ∘ map (splitVec 4) ∘ split 8 ∘ map abs", ["[float]_64"], "1.0"),  # in a map
    ("join ∘ map (λx. padClamp 1 1 (map abs x)) ∘ split 8", ["[float]_64"], "1.0.0.0"),
    ("transpose ∘ map (padClamp 1 1) ∘ transpose ∘ map (map abs)", ["[[float]_4]_8"], "1"),
])
def test_the_completion_copies_where_the_result_cannot_be_written(text, types, at):
    program = opencl(parse(text), *types, complete=True)
    first = program.completed[0]
    assert (first.rule, ".".join(map(str, first.path)) or "root") == ("copy-view", at)
    assert assert_replays(parse(text), types)


@pytest.mark.parametrize("text", [
    "λxs. padClamp 1 1 (map abs xs)", "λxs. pad 2 1 0.0 (map (λx. x * 3) xs)",
    "λxs. splitVec 4 (map abs xs)", "join ∘ map (splitVec 4) ∘ split 8 ∘ map abs",
    "join ∘ map (λx. padWrap 1 2 (map abs x)) ∘ split 8",
])
def test_a_pad_or_a_splitvec_as_the_last_step_runs_through_the_recorded_copy(text):
    result = run(parse(text), XS, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source
    assert result.completed[0].startswith("copy-view at ")


def test_a_result_written_where_it_is_computed_gets_no_copy():
    program = opencl(parse("join ∘ map (map abs) ∘ split 8"), "[float]_64", complete=True)
    assert [s.rule for s in program.completed] == ["map→mapGlobal", "map→mapSeq"]


@pytest.mark.parametrize("text,path,words", [
    ("join ∘ map (map abs) ∘ split 8", "0", "needs no copy: the layouts after its computation can "
                                      "be written through"),
    ("padClamp 1 1 ∘ map abs", "1", "the copy goes at 0 `padClamp 1 1`, the first layout on "
                                    "the way out that cannot be written through"),
    ("λxs. transpose (split 8 xs)", "0.1", "the copy goes at 0 `transpose (split 8 xs)`, the "
                                           "program's result (it computes nothing)"),
])
def test_copy_view_says_why_it_does_not_apply(text, path, words):
    with pytest.raises(RewriteRefused) as info:
        apply(parse(text), "copy-view", path, "[float]_64")
    assert words in info.value.reason, info.value.reason


def test_copy_view_copies_arrays_only():
    with pytest.raises(RewriteRefused, match="only an array is copied"):
        apply(parse("λx. x"), "copy-view", "0", "float")


def test_without_the_completion_the_code_generator_rewrites_nothing_and_names_the_rule():
    with pytest.raises(CodegenError) as info:
        opencl(parse("padClamp 1 1 ∘ mapGlobal abs"), "[float]_64")
    message = str(info.value)
    assert "cannot be written through" in message
    assert "copy-view adds the copy at 0 `padClamp 1 1`" in message
    with pytest.raises(CodegenError, match="copy-view adds the copy at root `transpose`"):
        opencl(parse("transpose"), "[[float]_4]_8")
    # the copy applied by hand compiles as the completion does
    by_hand = apply(parse("padClamp 1 1 ∘ mapGlobal abs"), "copy-view", "0", "[float]_64")
    assert str(by_hand) == "map id ∘ padClamp 1 1 ∘ mapGlobal abs"
    assert opencl(by_hand, "[float]_64", complete=True).source == \
        opencl(parse("padClamp 1 1 ∘ mapGlobal abs"), "[float]_64", complete=True).source


LIFT_LAST_STEP = '''
val plusOne = UserFun("plusOne", "x", "{ return x+1; }", Float, Float)
val N = SizeVar("N")
val M = SizeVar("M")
val f = fun(ArrayType(ArrayType(Float, M), N), input => BODY)
'''


@pytest.mark.parametrize("body,at", [
    ("Map(asVector(4) o Map(plusOne)) $ input", "0.0"),  # refused before copy-view
    ("Map(fun(row => Pad(1, 1, Pad.Boundary.Clamp) $ row)) o Map(Map(plusOne)) $ input", "0"),
])
def test_a_lift_program_whose_last_step_is_a_view_runs_through_the_recorded_copy(body, at):
    f = parse_program(LIFT_LAST_STEP.replace("BODY", body))["f"]
    args = [np.arange(64, dtype=np.float32).reshape(8, 8)]
    result = run(f, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source
    assert result.completed[0] == f"copy-view at {at}"
    assert assert_replays(f, _types(f, args))
