"""Redistributions written in a program (``redistribute block``, ``redistribute copy``,
``redistribute (overlap h)``): the notation reads and prints them, their meaning is the
identity, one device runs a program as if they were not there, and the interpreter's
staged meaning on several devices (``distribution.evaluate_distributed``) is the program's
result for every distribution. Runs on two devices are in ``test_multidevice``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import evaluate, parse, run
from workbench.errors import ParseError, TypeCheckError, WorkbenchError
from workbench.expr import Prim
from workbench.notation.parser import parse_type
from workbench.rules import rewrites
from workbench.several.distribution import Block, Copy, Overlap, evaluate_distributed, stages
from workbench.typecheck import typecheck

# a program of each kind with redistributions, the distributions its inputs take, and how
# it is made from random inputs
BLUR = ("λimg ws. (map (map (*2)) ∘ redistribute block ∘ map (join ∘ map (λnbh. reduce (+) 0 "
        "(map (*) (zip (join nbh) ws)))) ∘ slide2D 3 1 ∘ pad2D 1 1 0.0) img")
MAP_COPY = "λxs. map abs (redistribute copy (map (*2) xs))"
SUM_SCALE = ("λa xs. (map (*a) ∘ redistribute copy ∘ reduce (+) 0 ∘ redistribute block ∘ "
             "map (*2)) xs")
BLOCKS_TO_STENCIL = ("λxs. (map (λw. reduce (+) 0 w) ∘ slide 3 1 ∘ pad 1 1 0.0 ∘ "
                     "redistribute (overlap 1) ∘ map abs) xs")
SPELLINGS = ["redistribute block", "redistribute copy", "redistribute (overlap 0)",
             "redistribute (overlap 3)"]


def floats(shape, seed):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def close(got, want) -> bool:
    return np.allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-4,
                       atol=1e-4)


@pytest.mark.parametrize("text", SPELLINGS + [MAP_COPY, SUM_SCALE, BLUR, BLOCKS_TO_STENCIL])
def test_the_notation_prints_a_redistribution_as_it_reads(text):
    expr = parse(text)
    assert str(expr) == text
    assert parse(str(expr)) == expr


def test_a_redistribution_holds_its_distribution():
    held = [parse(t).args[0] for t in SPELLINGS]
    assert held == ["block", "copy", "overlap 0", "overlap 3"]
    assert [s.into for s in stages(parse(SUM_SCALE), 2)] == [Block(), Copy(), None]
    assert stages(parse(BLOCKS_TO_STENCIL), 1)[0].into == Overlap(1)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 40), cols=st.integers(1, 4), which=st.sampled_from(SPELLINGS),
       seed=st.integers(0, 2**16))
def test_a_redistribution_means_the_identity(n, cols, which, seed):
    x = floats((n, cols), seed)
    assert np.array_equal(evaluate(parse(f"λxs. {which} xs"), x), x)
    assert typecheck(parse(which), parse_type(f"[[float]_{cols}]_{n}")) == \
        parse_type(f"[[float]_{cols}]_{n}")


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 60), rows=st.integers(1, 20), d=st.integers(1, 4),
       halo=st.integers(1, 3), vector=st.sampled_from(["block", "copy"]),
       image_as=st.sampled_from(["overlap", "copy"]), seed=st.integers(0, 2**16))
def test_a_program_with_redistributions_gives_the_interpreters_result_on_any_devices(
        n, rows, d, halo, vector, image_as, seed):
    """The staged meaning: each stage split by its rule, its output redistributed as written
    for the next; equal to the single-device interpreter on random inputs, whichever
    distribution each input is given among those its first stage takes."""
    x, image, weights = floats(n, seed), floats((rows, 5), seed + 1), floats(9, seed + 2)
    image_dist = ("overlap", halo) if image_as == "overlap" else "copy"
    for text, inputs, dists in (
            (MAP_COPY, (x,), [vector]),
            (SUM_SCALE, (np.float32(1.5), x), ["copy", vector]),
            (BLUR, (image, weights), [image_dist, "copy"]),
            (BLOCKS_TO_STENCIL, (x,), [vector])):
        program = parse(text)
        got = evaluate_distributed(program, *inputs, distributions=dists, devices=d)
        assert close(got, evaluate(program, *inputs)), (text, d)


def test_one_device_runs_a_program_as_if_its_redistributions_were_not_there():
    x = floats(1024, 0)
    with_them = run(parse(SUM_SCALE), np.float32(2), x, repeat=2)
    without = run(parse("λa xs. (map (*a) ∘ reduce (+) 0 ∘ map (*2)) xs"), np.float32(2), x,
                  repeat=2)
    assert with_them.correct and without.correct, (with_them, without)
    assert close(with_them.output, without.output)


@pytest.mark.parametrize("text, words", [
    ("λxs. redistribute xs", "redistribute takes a distribution before the data: block, copy "
                             "or (overlap h)"),
    ("λxs. redistribute (overlap x) xs", "the halo h is a whole number of rows"),
    ("λxs. redistribute (overlap (-2)) xs", "the halo h is a whole number of rows"),
    ("redistribute", "redistribute expects its argument (d) before the data"),
])
def test_a_redistribution_written_wrong_is_refused_where_it_is(text, words):
    with pytest.raises(ParseError) as err:
        parse(text)
    assert words in str(err.value)


def test_a_redistribution_holding_no_distribution_does_not_type_check():
    with pytest.raises(TypeCheckError, match="'blocks' is not a distribution"):
        typecheck(Prim("redistribute", ("blocks",)), parse_type("[float]_8"))


@pytest.mark.parametrize("text, inputs, dists, words", [
    ("λxs. (map abs ∘ redistribute block) xs", 1, ["block"],
     "redistribute block is the program's first stage: there is nothing computed"),
    ("λxs. (map abs ∘ redistribute block ∘ redistribute copy ∘ map abs) xs", 1, ["block"],
     "redistribute block right after redistribute copy"),
    ("λxs. (map (reduce (+) 0) ∘ redistribute block ∘ slide 3 1) xs", 1, ["block"],
     "stage 1 (slide 3 1): the program does not split"),
    ("λxs. (map (λw. reduce (+) 0 w) ∘ slide 3 1 ∘ pad 1 1 0.0 ∘ redistribute block ∘ "
     "map abs) xs", 1, ["block"], "stencil: the stencil reads input 0 (stage), distributed "
                                 "as block"),
])
def test_a_stage_that_does_not_split_is_named_with_the_reason(text, inputs, dists, words):
    with pytest.raises(WorkbenchError) as err:
        evaluate_distributed(parse(text), *[floats(12, i) for i in range(inputs)],
                             distributions=dists, devices=2)
    assert words in str(err.value)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_every_rewrite_of_a_program_with_redistributions_keeps_its_meaning(seed):
    """The rules that know nothing of a redistribution leave it alone (they do not apply to
    it); every rewrite that applies anywhere around it keeps the program's result."""
    x = floats(16, seed)
    for text in (MAP_COPY, "λxs. (join ∘ redistribute block ∘ map (map (*2)) ∘ redistribute "
                           "(overlap 1) ∘ split 4) xs"):
        program = parse(text)
        found = rewrites(program, "[float]_16")
        assert found, text
        for step in found:
            assert close(evaluate(step.result, x), evaluate(program, x)), (step.rule, text)
            assert "redistribute" in str(step.result), (step.rule, text)


def test_lifts_spelling_has_no_redistribution_and_says_so():
    from workbench.notation.lift_printer import to_lift

    with pytest.raises(ValueError, match="redistribute copy has no Lift spelling"):
        to_lift(parse(MAP_COPY))


def _int_type(shape: tuple[int, ...]) -> str:
    t = f"[int]_{shape[-1]}"
    for n in reversed(shape[:-1]):
        t = f"[{t}]_{n}"
    return t


@pytest.mark.parametrize("text,shape", [
    ("redistribute block", (12,)), ("redistribute copy", (3, 5)),
    ("split 2 ∘ redistribute (overlap 1) ∘ join", (4, 6)),
    ("transpose ∘ redistribute block", (3, 7)),
])
def test_a_redistributions_views_read_and_write_every_element_where_the_interpreter_does(
        text, shape):
    from workbench.codegen.arith import Index
    from workbench.codegen.views import layout_view

    source = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    expected = evaluate(parse(text), source)
    reading = layout_view(parse(text), _int_type(shape))
    for index in np.ndindex(*expected.shape):
        offset = reading.access([Index.of(i) for i in index]).offset.evaluate({})
        assert source.reshape(-1)[offset] == expected[index], (text, index)
    writing = layout_view(parse(text), _int_type(shape), buffer="out", output=True)
    written = np.full(expected.size, -1, dtype=np.int64)
    for index in np.ndindex(*shape):
        offset = writing.access([Index.of(i) for i in index]).offset.evaluate({})
        assert written[offset] == -1, (text, index, "written twice")
        written[offset] = source[index]
    np.testing.assert_array_equal(written.reshape(expected.shape), expected, err_msg=text)


def test_a_kernel_writes_through_a_redistribution_without_a_copy():
    x = floats(4096, 3)
    result = run(parse("redistribute block ∘ mapGlobal abs ∘ redistribute copy"), x, repeat=1)
    assert result.correct, result.message + "\n" + result.source
    assert result.source.count("kernel void") == 1
