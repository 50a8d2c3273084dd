"""Type inference: the papers' types, the nesting-free checks, errors that name the node."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench import (
    EvaluationError,
    SizeError,
    TypeCheckError,
    WorkbenchError,
    annotate,
    evaluate,
    parse,
    parse_type,
    typecheck,
)
from workbench.types import Type

from .strategies import expressions


@pytest.mark.parametrize("text,inputs,result", [
    ("map abs", ["[float]_N"], "[float]_N"),
    ("reduce (+) 0 ∘ map abs", ["[float]_N"], "[float]_1"),
    ("split 128", ["[float]_N"], "[[float]_128]_{N/128}"),
    ("join ∘ split 128", ["[float]_N"], "[float]_N"),
    ("λxs ys. zip xs ys", ["[float]_N", "[int]_N"], "[(float, int)]_N"),
    ("λxs ys. (reduce (+) 0 ∘ map (*)) (zip xs ys)", ["[float]_N", "[float]_N"], "[float]_1"),
    ("transpose", ["[[float]_N]_M"], "[[float]_M]_N"),
    ("splitVec 4", ["[float]_N"], "[<float>_4]_{N/4}"),
    ("joinVec ∘ mapLocal (mapVec (λx. x * 3)) ∘ splitVec 4", ["[float]_N"], "[float]_N"),
    ("iterate 3 (join ∘ map (reduce (+) 0) ∘ split 2)", ["[float]_N"], "[float]_{N/8}"),
    ("iterate k (join ∘ map (reduce (+) 0) ∘ split 2)", ["[float]_N"], "[float]_{N/2^k}"),
    ("reducePart (+) 0 4", ["[float]_N"], "[float]_4"),
    ("reorderStride 8", ["[float]_N"], "[float]_N"),
    ("reduceSeq (λ(acc, a). acc + abs a) 0", ["[float]_N"], "[float]_1"),
    ("slide 3 1", ["[float]_N"], "[[float]_3]_{N - 2}"),
    ("pad 1 1 0", ["[float]_N"], "[float]_{N + 2}"),
    ("innerSplit 4", ["[[float]_N]_M"], "[[[float]_4]_{N/4}]_M"),
    ("innerJoin", ["[[[float]_4]_K]_M"], "[[float]_{4*K}]_M"),
    ("map (λp. p.1)", ["[(float, int)]_N"], "[int]_N"),
    ("toLocal (mapLocal (mapSeq id))", ["[[float]_1]_N"], "[[float]_1]_N"),
])
def test_types_of_paper_expressions(text, inputs, result):
    assert typecheck(parse(text), *inputs) == parse_type(result)


def test_literal_adopts_the_element_type():
    assert str(typecheck(parse("reduce (+) 0"), "[double]_N")) == "[double]_1"
    assert str(typecheck(parse("map (λx. x * 3)"), "[int]_N")) == "[int]_N"
    assert str(typecheck(parse("map (λx. x * 3.5)"), "[int]_N")) == "[float]_N"


def test_ill_typed_composition_names_the_node_and_both_types():
    with pytest.raises(TypeCheckError) as info:
        typecheck(parse("map (*) ∘ split 4"), "[float]_64")
    err = info.value
    message = str(err)
    assert err.path == (0, 0)
    assert "(*)" in message and "[float]_4" in message


def test_split_that_does_not_divide_names_the_sizes():
    with pytest.raises(SizeError) as info:
        typecheck(parse("split 3"), "[float]_64")
    assert "3 does not divide the array length 64" in str(info.value)
    assert info.value.path == ()


def test_symbolic_split_records_its_assumption():
    note = annotate(parse("split 128"), "[float]_N")
    assert [str(a) for a in note.assumptions] == ["128 divides N (split 128)"]


def test_zip_of_different_lengths():
    with pytest.raises(SizeError, match=r"lengths differ \(N vs M\)"):
        typecheck(parse("λxs ys. zip xs ys"), "[float]_N", "[float]_M")


@pytest.mark.parametrize("text,inputs,words", [
    ("map abs", ["float"], "expects an array, found float"),
    ("join", ["[float]_N"], "join (elements) expects an array"),
    ("reduce (λ(a, b). a < b) 0", ["[float]_N"], "must return float"),
    ("map (λ(a, b). a)", ["[float]_N"], "expects a 2-tuple"),
    ("λx. x.2", ["(float, float)"], "has only 2 components"),
    ("map (λx. x && true)", ["[float]_N"], "expects two bools"),
    ("map (λx. abs x x)", ["[float]_N"], "abs expects 1 data argument, got 2"),
    ("zip", ["[float]_N"], "at least two arrays"),
    ("mapVec abs", ["[float]_N"], "expects a vector"),
    ("λx. 3 x", ["float"], "not a function"),
])
def test_type_errors(text, inputs, words):
    with pytest.raises(TypeCheckError) as info:
        typecheck(parse(text), *inputs)
    assert words in str(info.value)


def test_annotate_records_typings_by_path():
    note = annotate(parse("reduce (+) 0 ∘ map abs"), "[float]_N")
    assert str(note.typings[(1,)].args[0]) == "[float]_N"
    assert str(note.typings[(0,)].result) == "[float]_1"
    assert str(note.typings[(1, 0)].args[0]) == "float"


def test_evaluate_refuses_sizes_that_do_not_divide():
    with pytest.raises(SizeError, match="128 does not divide the array length 100"):
        evaluate(parse("join ∘ map (map abs) ∘ split 128"), np.ones(100, np.float32))


def test_evaluate_names_a_missing_size():
    with pytest.raises(WorkbenchError, match="blockSize"):
        evaluate(parse("split blockSize"), np.ones(128, np.float32))


def test_evaluate_checks_declared_inputs():
    from workbench.programs import library

    dot = library("blas")["dot"]
    with pytest.raises(EvaluationError, match="expected"):
        evaluate(dot, np.ones(8, np.float32), np.ones(9, np.float32))
    with pytest.raises(EvaluationError, match="takes 2 inputs"):
        evaluate(dot, np.ones(8, np.float32))


TYPES = st.sampled_from(["float", "int", "[float]_N", "[float]_64", "[[float]_4]_N",
                         "[(float, int)]_N", "<float>_4", "(float, float)", "[int]_12"])


@given(expressions(), st.lists(TYPES, max_size=3))
def test_typecheck_returns_a_type_or_a_workbench_error(e, inputs):
    try:
        result = typecheck(e, *inputs)
    except WorkbenchError:
        return
    assert isinstance(result, Type)


def test_deeply_nested_expressions_are_refused_cleanly():
    from workbench.expr import Prim

    e = Prim("id")
    for _ in range(5000):
        e = Prim("map", (e,))
    t = "float"
    for _ in range(50):
        t = f"[{t}]_2"
    with pytest.raises(WorkbenchError):
        typecheck(e, t)


# A user function in C that takes a float4 accumulator (Lift's ``Value(0.0f, Float4)``).
SHIFT = ('val shift = UserFun("shift", Array("f", "p"), """{ f.x += p.x; f.y += 2.0f * p.y; '
         'return f; }""", Seq(Float4, Float4), Float4)')
SHIFT4 = ('val shift4 = UserFun("shift4", Array("f", "p"), """{ f.x += p.x; return f; }""", '
          'Seq(Int4, Float4), Int4)')


@pytest.mark.parametrize("operator", [
    "λ(acc, i). shift acc (at i xs)", "λacc i. shift acc (at i xs)",
    "λ(acc, i). (λf n. shift f n) (acc, at i xs)", "λacc i. (λ(f, n). shift f n) (acc, at i xs)"])
def test_a_literal_accumulator_folding_indices_takes_the_vector_type_it_is_passed_as(operator):
    """MD after map-reduce fusion: the fold's elements are neighbour indices (ints), so no
    element says the accumulator ``0.0`` is a float4; the declared parameter it is passed
    to does (directly, or through the curried operator the fusion applies to a pair)."""
    from workbench.notation.reading import user_functions

    expr = parse(f"λxs is. reduceSeq ({operator}) 0.0 is", user_functions(SHIFT))
    assert str(typecheck(expr, "[<float>_4]_8", "[int]_5")) == "[<float>_4]_1"


def test_a_literal_accumulator_not_of_the_declared_vectors_numbers_is_refused():
    from workbench.notation.reading import user_functions

    expr = parse("λxs is. reduceSeq (λ(acc, i). shift4 acc (at i xs)) 0.0 is",
                 user_functions(SHIFT4))
    with pytest.raises(TypeCheckError, match="the literal 0.0 is not an int"):
        typecheck(expr, "[<float>_4]_8", "[int]_5")
    # and where no declared function takes the accumulator whole, the operator's own error
    expr = parse("λxs is. reduceSeq (λ(acc, i). shift (at 0 acc) (at i xs)) 0.0 is",
                 user_functions(SHIFT))
    with pytest.raises(TypeCheckError, match="at expects a vector, found float"):
        typecheck(expr, "[<float>_4]_8", "[int]_5")
