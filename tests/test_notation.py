"""The notation: every spelling of SPEC 3, printing that parses back, clear errors."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import ParseError, parse, parse_program, parse_type, to_text
from workbench.errors import ArgumentError
from workbench.expr import Apply, Compose, Lambda, Prim, Section, Var, walk
from workbench.notation.printer import _postfix_form
from workbench.sizes import Size

from .strategies import expressions


# Derandomised, and enough examples that a bracket the printer drops (a section's operand, the
# right operand of '-', a negated operand, an argument) is caught on every run.
@settings(max_examples=1000, derandomize=True, deadline=None, database=None)
@given(expressions())
def test_printed_expressions_parse_back_equal(e):
    assert parse(str(e)) == e
    assert parse(to_text(e, ascii=True)) == e


@given(expressions())
def test_printing_is_stable(e):
    assert str(parse(str(e))) == str(e)


def test_composition_spellings_agree():
    unicode = parse("reduce (+) 0 ∘ map abs")
    assert parse("reduce (+) 0 o map abs") == unicode
    assert isinstance(unicode, Compose) and len(unicode.fns) == 2
    assert parse("(reduce (+) 0 ∘ join) ∘ map abs") == parse("reduce (+) 0 ∘ (join ∘ map abs)")


@pytest.mark.parametrize("text", [
    "λx. x * 3", "\\x. x * 3", "λ(acc, x). acc + abs x", "\\(acc, x). acc + abs x",
    "λxs ys. zip xs ys",
])
def test_lambdas(text):
    assert isinstance(parse(text), Lambda)


def test_equality_is_up_to_renaming_of_bound_variables():
    assert parse("λx. x * 3") == parse("λy. y * 3")
    assert parse("λ(acc, x). acc + x") == parse("λ(s, v). s + v")
    assert parse("λx. λy. x") != parse("λx. λy. y")
    assert hash(parse("map (λa. a)")) == hash(parse("map (λb. b)"))


@pytest.mark.parametrize("spellings", [
    ["mapWorkgroup f", "map-workgroup f", "mapWrg f", "MapWrg(f)"],
    ["mapLocal f", "map-local f", "mapLcl f", "MapLcl(f)"],
    ["mapGlobal f", "mapGlb f", "MapGlb(f)", "MapGlb(0)(f)", "mapGlobal 0 f"],
    ["mapSeq f", "map-seq f", "MapSeq(f)"],
    ["reduceSeq (+) 0", "reduce-seq (+) 0", "ReduceSeq(add, 0)"],
    ["reducePart (+) 0 4", "part-red (+) 0 4"],
    ["reorderStride 4", "reorder-stride 4", "ReorderStride(4)"],
    ["toLocal f", "asLocal f"],
    ["toGlobal f", "asGlobal f"],
    ["mapVec f", "vect f"],
    ["iterate 7 f", "iterate^7 f", "Iterate(7)(f)"],
    ["mapWarp f", "map-warp f"],
    ["mapLane f", "map-lane f"],
    ["split 4", "Split(4)", "outerSplit 4"],
    ["join", "Join()", "outerJoin"],
    ["transpose", "Transpose()"],
    ["splitVec 4", "asVector 4"],
    ["joinVec", "asScalar"],
])
def test_paper_and_lift_spellings_agree(spellings):
    wrap = [f"λf. {s}" if " f" in s or "(f)" in s else s for s in spellings]
    first = parse(wrap[0])
    for other in wrap[1:]:
        assert parse(other) == first, other


def test_lift_dsl_example_parses():
    e = parse("Join() o MapWrg(Join() o MapLcl(MapSeq(id)) o Split(4)) o Split(1024)")
    assert e == parse("join ∘ mapWorkgroup (join ∘ mapLocal (mapSeq id) ∘ split 4) ∘ split 1024")
    assert parse("ReduceSeq(add, 0.0f)") == parse("reduceSeq (+) 0.0")
    assert parse("λxs ys. Zip(xs, ys)") == parse("λxs ys. zip xs ys")
    assert parse("toLocal(MapLcl(MapSeq(id)))") == parse("toLocal (mapLocal (mapSeq id))")
    assert parse("fun(x => x * 2)") == parse("λx. x * 2")


def test_dimensions_of_opencl_maps():
    e = parse("mapGlobal 1 (mapGlobal id)")
    assert e.args[0] == 1 and e.args[1].args[0] == 0
    assert str(e) == "mapGlobal 1 (mapGlobal id)"


def test_sections_tuples_projections():
    sec = parse("λa. map (*a)").body.args[0]
    assert isinstance(sec, Section) and sec.op == "*" and sec.right == Var("a")
    assert parse("λp. p.0") == parse("λp. get 0 p")
    assert parse("λp. p.1.0") == parse("λp. get 0 (get 1 p)")
    assert isinstance(parse("(2*)"), Section)
    assert str(parse("λx. (x, 1.5)")) == "λx. (x, 1.5)"


def test_symbolic_sizes_in_arguments():
    e = parse("split (N/4) ∘ split blockSize")
    assert e.fns[0] == Prim("split", (Size.var("N") / 4,))
    assert str(e) == "split (N/4) ∘ split blockSize"


def test_scalar_language():
    e = parse("λx. if x > 0 then sqrt x else -x")
    assert isinstance(e.body, Apply) and e.body.fn == Prim("select")
    assert parse("λx y. fma x y 1.0 + min x (max y 0)") is not None
    assert parse("λx. float (int x) / 2") is not None


@pytest.mark.parametrize("text", ["[float]_N", "[[float]_4]_{N/4}", "<float>_4",
                                  "[float]_N -> [float]_N -> [float]_1", "(float, int)",
                                  "[(float, float)]_N", "[<float>_4]_(N/4)", "float -> float"])
def test_types_round_trip(text):
    t = parse_type(text)
    assert parse_type(str(t)) == t


def test_program_file():
    program = parse_program(
        "asum : [float]_N -> [float]_1\n"
        "asum = reduce (+) 0 ∘ map abs\n\n"
        "-- a comment\n"
        "mul3 : float -> float\n"
        "mul3 = λx. x * 3\n\n"
        "scale : [float]_N -> [float]_N\n"
        "scale = map mul3\n"
        "   ∘ id\n")
    assert list(program) == ["asum", "mul3", "scale"]
    assert str(program["scale"]) == "map mul3 ∘ id"
    assert str(program["asum"].declared_type) == "[float]_N -> [float]_1"
    assert parse_program(str(program))["scale"] == program["scale"]


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text,line,column,words", [
    ("map (", 1, 6, "ends too early"),
    ("map f)", 1, 6, "unbalanced"),
    ("map (abs", 1, 9, "')'"),
    ("reduce (+) 0 ∘ mapp abs", 1, 16, "unknown name 'mapp'"),
    ("reduce (+)", 1, 1, "reduce expects its arguments (f, z)"),
    ("split", 1, 1, "split expects its argument (n)"),
    ("λ. x", 1, 2, "at least one parameter"),
    ("map @ f", 1, 5, "unexpected character"),
    ("x ^ 2", 1, 3, "'^' is only for sizes"),
])
def test_parse_errors_name_the_place(text, line, column, words):
    with pytest.raises(ParseError) as info:
        parse(text if "x ^" not in text else "λx. x ^ 2")
    err = info.value
    if "x ^" not in text:
        assert (err.line, err.column) == (line, column), str(err)
    assert words in str(err)


def test_unknown_name_suggests_close_matches():
    with pytest.raises(ParseError, match="did you mean map"):
        parse("mapp abs")


def test_program_errors_name_the_line():
    with pytest.raises(ParseError) as info:
        parse_program("asum : [float]_N -> [float]_1\nasum = reduce (+) 0 ∘ map abs)\n")
    assert info.value.line == 2
    with pytest.raises(ParseError, match="cycle"):
        parse_program("f = g\ng = f\n")
    with pytest.raises(ParseError, match="signature but no definition"):
        parse_program("f : float -> float\n")
    with pytest.raises(ParseError, match="does not have its declared type"):
        parse_program("f : [float]_N -> [float]_N\nf = reduce (+) 0\n")


def test_deep_nesting_is_an_error_not_a_crash():
    with pytest.raises(ParseError):
        parse("(" * 5000 + "x" + ")" * 5000)


@given(st.text(alphabet="mapλx.()∘o+*01 ,_[]NsplitjoinreduceΣ\\-'", max_size=40))
def test_any_text_parses_or_raises_parse_error(text):
    try:
        e = parse(text)
    except ParseError:
        return
    assert parse(str(e)) == e


LIFT_ID = '''
val N = SizeVar("N")
val id = UserFun("id", "x", "{ return x; }", Float, Float)
val f = fun(ArrayType(Float, N), in => Map(id) o Reorder() $ in)
'''


def test_the_identity_primitive_reads_back_beside_a_user_function_named_id():
    """A Lift program's own ``id``: a rewrite that adds the primitive ``id`` printed ``id``,
    which the program's definitions read back as the user function."""
    from workbench import rewrites
    from workbench.notation.program import user_functions, user_functions_text

    f = parse_program(LIFT_ID)["f"]
    definitions = user_functions(user_functions_text(f))
    assert "id" in definitions
    found = [r for r in rewrites(f, "[float]_64") if any(
        isinstance(n, Prim) and n.name == "id" for _, n in walk(r.result))]
    assert {r.rule for r in found} >= {"id-after", "id-before", "reorder→id"}
    for r in found:
        text = to_text(r.result)
        assert parse(text, definitions) == r.result, (r.rule, text)
        assert parse(to_text(r.result, ascii=True), definitions) == r.result
    assert to_text(parse("map id ∘ id", {"id": definitions["id"]})) == "map id ∘ id"
    both = Compose((Prim("map", (definitions["id"],)), Prim("id")))
    assert to_text(both) == "map id ∘ Id"
    assert to_text(Compose((Prim("map", (Prim("id"),)), Prim("id")))) == "map id ∘ id"


# --- layout on several lines (to_text's width) -----------------------------------------------

@settings(max_examples=400, derandomize=True, deadline=None, database=None)
@given(expressions(), st.integers(20, 120), st.booleans())
def test_laid_out_text_parses_back_equal(e, width, ascii):
    text = to_text(e, ascii=ascii, width=width)
    assert parse(text) == e
    flat = to_text(e, ascii=ascii, width=None)
    if len(flat) <= width:
        assert text == flat  # what fits stays on one line
    elif isinstance(e, Compose | Lambda) or (isinstance(e, Apply) and not _postfix_form(e)):
        assert "\n" in text  # a composition, lambda or application too long is broken


def test_library_definitions_are_laid_out_within_the_width_and_read_back():
    from workbench import load
    from workbench.programs import LIBRARY, files

    for path in files():
        for name, e in load(path).items():
            body = getattr(e, "body", None) if not hasattr(e, "children") else e
            if body is None:
                continue
            for width in (40, 100):
                text = to_text(body, width=width)
                assert parse(text, load(path)) == body or parse(text) == body, (name, text)
                if len(str(body)) > width:
                    assert "\n" in text
            assert max(map(len, to_text(body).splitlines())) <= 100 or "\n" not in to_text(body)
    deep = load(LIBRARY / "reductions.lift")["listing5_13"]
    lines = to_text(deep).splitlines()
    assert len(lines) > 10 and max(map(len, lines)) <= 100
    assert lines[1].startswith("∘ ") and lines[3].startswith("     ∘ ")  # nested, indented


def test_a_width_below_twenty_columns_is_refused():
    with pytest.raises(ArgumentError, match="at least 20") as info:
        to_text(parse("map abs"), width=5)
    assert info.value.argument == "width"


def test_a_notebook_shows_a_long_expression_laid_out_and_a_short_one_inline():
    from workbench import load
    from workbench.programs import LIBRARY

    short = parse("map abs")
    assert short._repr_markdown_() == "`map abs`"
    long = load(LIBRARY / "reductions.lift")["listing5_13"]
    shown = long._repr_markdown_()
    assert shown.startswith("```\n") and shown.endswith("\n```")
    body = shown[4:-4]
    assert parse(body) == long and max(map(len, body.splitlines())) <= 100
