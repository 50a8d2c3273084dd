"""Lift's own program text: definitions, user functions with C bodies, ``fun`` with types,
``$`` and ``o``; printing back in Lift's spelling; and what is refused, with the reason."""

import numpy as np
import pytest

from tests.data.lift_tests import TESTS
from workbench import ParseError, evaluate, parse, parse_program
from workbench.errors import ArgumentError
from workbench.notation import to_text
from workbench.notation.lift_printer import lift_program

RNG = np.random.default_rng(3)


def test_a_program_gives_its_definitions_by_name_with_their_types():
    program = parse_program('''
val N = SizeVar("N")
val mul3 = UserFun("mul3", "x", "{ return x * 3.0f; }", Float, Float)
val scal = fun(ArrayTypeWSWC(Float, N), in => MapGlb(mul3) $ in)
''')
    assert list(program) == ["mul3", "scal"]
    assert str(program["scal"]) == "mapGlobal mul3"  # in => f $ in is f
    assert str(program["scal"].declared_type) == "[float]_N -> [float]_N"
    xs = RNG.uniform(-1, 1, 64).astype(np.float32)
    np.testing.assert_allclose(evaluate(program["scal"], xs), xs * 3)


@pytest.mark.parametrize("text,expected", [
    ("Join() o MapWrg(Join() o MapLcl(MapSeq(id)) o Split(4)) o Split(1024)",
     "join ∘ mapWorkgroup (join ∘ mapLocal (mapSeq id) ∘ split 4) ∘ split 1024"),
    ("MapGlb(0)(MapGlb(1)(id)) o Split(8) o Gather(reverse) o Join()",
     "mapGlobal (mapGlobal 1 id) ∘ split 8 ∘ gather (λi n. n - 1 - i) ∘ join"),
    ("MapGlb(MapSeqUnroll(id)) o Slide(3, 1) o Pad(1, 1, Pad.Boundary.Clamp)",
     "mapGlobal (mapSeqUnroll id) ∘ slide 3 1 ∘ padClamp 1 1"),
    ("toGlobal(MapSeq(id)) o ReduceSeq(add, id(0.0f))",
     "toGlobal (mapSeq id) ∘ reduceSeq (+) (id 0.0)"),
    ("asScalar() o MapGlb(plusOne.vectorize(4)) o asVector(4)",
     "joinVec ∘ mapGlobal (mapVec plusOne) ∘ splitVec 4"),
    ("MapSeq(id) o Head() o Tail()", "mapSeq id ∘ head ∘ tail"),
    ("Slide2D(3, 1) o Pad2D(1, 1, Pad.Boundary.Wrap)",
     "slide2D 3 1 ∘ map (padWrap 1 1) ∘ padWrap 1 1"),
    ("Untile2D() o Tile(4)",
     "join ∘ map (map join ∘ transpose) ∘ map (map transpose ∘ split 4 ∘ transpose) ∘ split 4"),
    ("Scatter(ReorderWithStride(4)) o MapGlb(id) o Gather(ReorderWithStride(4))",
     "scatter (λi n. i / (n / 4) + 4 * (i % (n / 4))) ∘ mapGlobal id ∘ reorderStride 4"),
])
def test_point_free_lift_expressions_read_as_the_primitives_they_are(text, expected):
    assert str(parse(text)) == expected


def test_c_bodies_of_user_functions_are_read_into_the_scalar_language():
    program = parse_program('''
val negPair = UserFun("pair", "x", "{ x._0 = -x._0; x._1 = -x._1; return x; }",
  TupleType(Float, Float), TupleType(Float, Float))
val clip = UserFun("clip", Array("x", "m"), "{ float y = fabs(x); return y > m ? m : y; }",
  Seq(Float, Float), Float)
''')
    assert str(program["negPair"].body) == "λx. (-x.0, -x.1)"
    assert str(program["clip"].body) == "λx m. if abs x > m then m else abs x"


def test_what_the_reader_cannot_read_is_refused_with_the_reason():
    with pytest.raises(ParseError, match="line 1, column 3 of its C body: the statement "
                                         "'switch'"):
        parse_program('val f = UserFun("f", "x", "{ switch (x) {} return x; }", Float, Float)')
    with pytest.raises(ParseError, match=r"unknown name 'MapGbl'.*did you mean MapGlb"):
        parse('fun(ArrayType(Float, SizeVar("N")), in => MapGbl(id) $ in)')
    with pytest.raises(ParseError, match="2 components for a tuple of 3"):
        parse('fun(ArrayType(Float, SizeVar("N")), in => ReduceSeq(fun((a, x) => a), '
              'Value("{0.0f, 0.0f}", TupleType(Float, Float, Float))) $ in)')
    with pytest.raises(ParseError, match="unknown qualified name nn.Sigmoid"):
        parse('fun(ArrayType(Float, SizeVar("N")), in => Map(nn.Sigmoid) $ in)')
    with pytest.raises(ParseError) as info:
        parse_program('val f = fun(ArrayType(Float, SizeVar("N")), in => MapGlb(id) $ in')
    assert info.value.line == 1


@pytest.mark.parametrize("test", TESTS[::3], ids=[t.name for t in TESTS[::3]])
def test_programs_print_in_lift_spelling_and_read_back(test):
    f = parse_program(test.program)["f"]
    again = parse_program(lift_program(f, "f"))["f"]
    assert str(again.declared_type) == str(f.declared_type)
    text = to_text(f, style="lift")
    assert "∘" not in text and "λ" not in text
    assert parse(text) is not None


def test_an_expression_prints_in_lift_spelling():
    e = parse("reduce (+) 0 ∘ join ∘ mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) "
              "∘ split 1 ∘ iterate 7 (join ∘ mapLocal (toLocal (mapSeq id) ∘ "
              "reduceSeq (+) 0) ∘ split 2)) ∘ split 128")
    text = to_text(e, style="lift")
    assert text == ("Reduce(add, 0) o Join() o MapWrg(Join() o toGlobal(MapLcl(MapSeq(Id()))) "
                    "o Split(1) o Iterate(7)(Join() o MapLcl(toLocal(MapSeq(Id())) o "
                    "ReduceSeq(add, 0)) o Split(2))) o Split(128)")
    assert parse(text) == e
    with pytest.raises(ArgumentError, match="unknown style") as info:
        to_text(e, style="scala")
    assert info.value.argument == "style"


def test_the_command_line_reads_lift_programs_and_prints_lift(tmp_path, capsys):
    from workbench.cli import main

    program = tmp_path / "scal.scala"
    program.write_text('val N = SizeVar("N")\n'
                       'val f = fun(ArrayTypeWSWC(Float, N), Float, (in, a) =>\n'
                       '  Join() o MapGlb(MapSeq(fun(x => mult(a, x)))) o Split(4) $ in)\n')
    assert main(["check", f"@{program}:f"]) == 0
    assert "[float]_N -> float -> [float]_N" in capsys.readouterr().out
    assert main(["check", "reduce (+) 0 o map abs", "--type", "[float]_N", "--lift"]) == 0
    assert "Reduce(add, 0) o Map(abs)" in capsys.readouterr().out
    assert main(["derive", "workbench/derivations/reduction_listing5_13.json", "--lift"]) == 0
    text = capsys.readouterr().out
    assert 'val blockSize = SizeVar("blockSize")' in text and "MapWarp(" in text
    assert parse_program(text)["vecSum"] is not None


def test_lifts_backslash_lambda_and_curried_patterns():
    e = parse('\\(ArrayTypeWSWC(ArrayTypeWSWC(Float, SizeVar("M")), SizeVar("N")), '
              'in => MapGlb(1)(MapGlb(0)(plusOne)) $ in)')
    assert str(e) == "mapGlobal 1 (mapGlobal plusOne)"
    assert str(e.declared_type) == "[[float]_M]_N -> [[float]_M]_N"
