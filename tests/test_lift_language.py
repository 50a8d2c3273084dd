"""The parts of Lift's language that its benchmarks and stencils are written in: tuple
accessors ``x._0``, the pipes ``:>>`` and ``<<:``, ``.at(i)``, bodies built by string
concatenation, ``def`` helpers, ``Value`` texts, the 2-D and 3-D helpers, vector
accumulators, ``Filter`` and Lift's predefined user functions. Each program is read,
evaluated and compared with NumPy, and prints in Lift's spelling to text that reads back
to the same program."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import ParseError, evaluate, parse, parse_program
from workbench.notation import to_text
from workbench.notation.lift_printer import lift_program, user_fun, user_functions

RNG = np.random.default_rng(29)


def floats(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def close(got, expected):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            close(g, e)
        return
    got = np.asarray(got, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert got.size == expected.size, (got.shape, expected.shape)
    np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=1e-4, atol=1e-5)


def reads_back(f):
    """The program printed in Lift's spelling reads back to the same program, with its user
    functions printed as Lift's ``UserFun`` definitions before it."""
    text = to_text(f, style="lift")
    assert "∘" not in text and "λ" not in text
    definitions = "\n".join(user_fun(fn) for fn in user_functions(f))
    assert parse_program(f"{definitions}\nval f = {text}")["f"] == f, text
    again = parse_program(lift_program(f, "f"))["f"]
    assert again == f
    assert str(again.declared_type) == str(f.declared_type)


def program(text):
    f = parse_program(text)["f"]
    reads_back(f)
    return f


def clamp_windows(x, size, pad):
    padded = np.pad(x, pad, mode="edge")
    return np.lib.stride_tricks.sliding_window_view(padded, (size,) * x.ndim)


# --- tuple accessors -------------------------------------------------------------------------

def test_tuple_accessors_are_get():
    # Lift's highLevel/mriqPhiMag
    f = program('''
val phiMag = UserFun("phiMag", Array("phiR", "phiI"), "{ return phiR * phiR + phiI * phiI; }",
                     Seq(Float, Float), Float)
val k = SizeVar("K")
val f = fun(ArrayTypeWSWC(Float, k), ArrayTypeWSWC(Float, k),
  (phiR, phiI) => Map(\\(x => phiMag(x._0, x._1))) $ Zip(phiR, phiI))
''')
    assert str(f) == "λphiR phiI. map (λx. phiMag x.0 x.1) (zip phiR phiI)"
    r, i = floats(64), floats(64)
    close(evaluate(f, r, i), r * r + i * i)


def test_scala_tuples_count_from_one_and_lift_tuples_from_zero():
    f = program('''
val N = SizeVar("N")
val f = fun(ArrayType(TupleType(Float, Float, Float), N), xs => Map(fun(x => {
  val pair = (x._2, x._0)
  subtract(pair._1, pair._2)
})) $ xs)''')
    a, b, c = floats(16), floats(16), floats(16)
    close(evaluate(f, (a, b, c)), c - a)


# --- pipes -----------------------------------------------------------------------------------

def test_pipes_apply_functions_in_reading_order():
    # Lift's highLevel/nearestNeighbour
    f = program('''
val distance = UserFun("distance_", Array("loc", "lat", "lng"),
    "{ return sqrt( (lat - loc._0) * (lat - loc._0) + (lng - loc._1) * (lng - loc._1) ); }",
    Seq(TupleType(Float, Float), Float, Float), Float)
val N = SizeVar("N")
val f = fun(ArrayTypeWSWC(TupleType(Float, Float), N), Float, Float,
  (locations, lat, lng) => {
    locations :>> Map( \\(loc => distance(loc, lat, lng)) )
  })''')
    a, b = floats(32), floats(32)
    close(evaluate(f, (a, b), np.float32(0.25), np.float32(-0.5)),
          np.sqrt((0.25 - a) ** 2 + (-0.5 - b) ** 2))


@pytest.mark.parametrize("body,expected", [
    # :>> associates to the left, <<: (ending in ':') to the right
    ("xs :>> Map(neg) :>> Map(plusOne)", "map plusOne (map neg xs)"),
    ("Map(plusOne) <<: Map(neg) <<: xs", "map plusOne (map neg xs)"),
    # both bind tighter than $ and o (operators named by letters or $), and ':' tighter
    # than '<'
    ("Map(plusOne) $ xs :>> Map(neg)", "map plusOne (map neg xs)"),
    ("Map(plusOne) o Map(neg) <<: xs", "map plusOne ∘ map neg xs"),
    ("Map(plusOne) <<: xs :>> Map(neg)", "map plusOne (map neg xs)"),
])
def test_pipes_have_scalas_precedence(body, expected):
    text = f'fun(ArrayType(Float, SizeVar("N")), xs => {body})'
    if "∘" in expected:  # (f o g) applied to an array is not what Scala reads either
        with pytest.raises(ParseError, match="type-check"):
            parse(text)
        return
    f = parse(text)
    assert str(f.body) == expected
    xs = floats(8)
    close(evaluate(f, xs), 1 - xs)


STAGES = {"Map(neg)": np.negative, "Map(plusOne)": lambda x: x + 1,
          "Map(square)": np.square}


@settings(max_examples=25, deadline=None)
@given(stages=st.lists(st.sampled_from(sorted(STAGES)), min_size=1, max_size=4),
       style=st.sampled_from([":>>", "<<:", "$"]))
def test_a_pipeline_in_any_spelling_is_the_composition(stages, style):
    # xs :>> f :>> g and g <<: f <<: xs are g $ (f $ xs); g o f $ xs computes the same
    nested = "xs"
    for stage in stages:
        nested = f"{stage} $ ({nested})"
    body = {":>>": " :>> ".join(["xs", *stages]),
            "<<:": " <<: ".join([*reversed(stages), "xs"]),
            "$": " o ".join(reversed(stages)) + " $ xs"}[style]
    f = parse(f'fun(ArrayType(Float, SizeVar("N")), xs => {body})')
    if style != "$":
        assert f == parse(f'fun(ArrayType(Float, SizeVar("N")), xs => {nested})')
    assert parse(to_text(f, style="lift")) == f
    xs = floats(8)
    expected = xs
    for stage in stages:
        expected = STAGES[stage](expected)
    close(evaluate(f, xs), expected)


@settings(max_examples=25, deadline=None)
@given(items=st.lists(st.one_of(st.integers(-5, 5), st.floats(-4, 4, width=32)),
                      min_size=2, max_size=4))
def test_a_tuple_value_text_reads_as_the_tuple_of_its_numbers(items):
    types = ", ".join("Int" if isinstance(v, int) else "Float" for v in items)
    text = ", ".join(str(v) if isinstance(v, int) else f"{v!r}f" for v in items)
    f = parse(f'fun(Float, x => Value("{{{text}}}", TupleType({types})))')
    got = evaluate(f, np.float32(0))
    close(tuple(np.asarray(g) for g in got), tuple(np.asarray(v) for v in items))
    assert parse(to_text(f, style="lift")) == f


# --- .at(i), def helpers, val (a, b) = ... ----------------------------------------------------

def test_at_reads_an_element_of_a_neighbourhood():
    f = program('''
val N = SizeVar("N")
val f = fun(ArrayType(Float, N), xs =>
  Map(\\(w => add(w.at(0), mult(w.at(2), 2.0f)))) o Slide(3, 1) o Pad(1, 1, Pad.Boundary.Clamp)
    $ xs)''')
    assert "at 0" in str(f)
    xs = floats(20)
    p = np.pad(xs, 1, mode="edge")
    close(evaluate(f, xs), p[:-2] + 2 * p[2:])


def test_def_helpers_with_parameters_are_inlined():
    # the shape of Lift's PPCG stencils (highLevel/stencil/cgo/ppcg/j2d5pt): a helper
    # returning a Scala tuple of neighbours, destructured by val (a, b, ...) = ...
    f = program('''
def vonNeumann5pt(x: Param) = {
  val top = x.at(0).at(1)
  val bottom = x.at(2).at(1)
  val left = x.at(1).at(0)
  val right = x.at(1).at(2)
  val center = x.at(1).at(1)
  (top, bottom, left, right, center)
}
val M = SizeVar("M")
val N = SizeVar("N")
def jacobi = UserFun("jacobi", Array("top", "bottom", "left", "right", "center"),
  "return (5 * top + 12 * left + 15 * center + 5 * bottom + 12 * right) / 118;",
  Seq(Float, Float, Float, Float, Float), Float)
val f = λ(
  ArrayType(ArrayType(Float, M), N),
  input => {
    Map(Map(λ(nbh => {
      val (top, bottom, left, right, center) = vonNeumann5pt(nbh)
      λ(x => jacobi(x, bottom, left, right, center)) $ top
    }))) o Slide2D(3, 1) o Pad2D(1, 1, Pad.Boundary.Clamp) $ input
  })''')
    m = floats(6, 7)
    w = clamp_windows(m, 3, 1)
    close(evaluate(f, m), (5 * w[..., 0, 1] + 12 * w[..., 1, 0] + 15 * w[..., 1, 1]
                           + 5 * w[..., 2, 1] + 12 * w[..., 1, 2]) / 118)


def test_helpers_with_type_parameters_and_result_types():
    f = program('''
val N = SizeVar("N")
def twice[T](x: T): Expr = mult(x, 2.0f)
def pair(a: Float, b: Float) = (a, b)
val f = fun(ArrayType(Float, N), xs =>
  Map(fun(x => { val (u, v) = pair(twice(x), x); add(u, v) })) $ xs)''')
    xs = floats(6)
    close(evaluate(f, xs), 3 * xs)


def test_scala_constants_computed_with_math_and_arrays():
    # the constants of Lift's highLevel/stencil/acoustic
    f = program('''
val SR = 441.0f
val c = 344.0f
val k = 1 / SR
val h = Math.sqrt(3.0f) * c * k
val cf1: Array[Float] = Array(h.toFloat, 1.0f)
val f = fun(ArrayType(Float, SizeVar("N")), xs => Map(fun(x => mult(x, cf1(0)))) $ xs)''')
    xs = floats(5)
    close(evaluate(f, xs), xs * (np.sqrt(3) * 344 / 441))
    with pytest.raises(ParseError, match="element 2 of a Scala array of 2 items") as info:
        parse_program("val a = Array(1.0f, 2.0f)\nval f = fun(Float, x => mult(x, a(2)))")
    assert (info.value.line, info.value.column) == (2, 35)
    with pytest.raises(ParseError, match="Math.sqrt computes with numbers while the program"):
        parse_program("val f = fun(Float, x => Math.sqrt(x))")


def test_backquoted_names_are_names():
    # Lift's highLevel/stencil/acoustic names neighbours `tile[1][1][1]`
    f = program('''
val f = fun(ArrayType(ArrayType(Float, SizeVar("M")), SizeVar("N")), xs =>
  Map(Map(fun(w => {
    val `tile[0][1]` = w.at(0).at(1)
    val `tile[1][1]` = w.at(1).at(1)
    subtract(`tile[1][1]`, `tile[0][1]`)
  }))) o Slide2D(3, 1) $ xs)''')
    m = floats(5, 6)
    w = np.lib.stride_tricks.sliding_window_view(m, (3, 3))
    close(evaluate(f, m), w[..., 1, 1] - w[..., 0, 1])
    with pytest.raises(ParseError, match="a name `... is not closed on its line"):
        parse_program("val N = 1\nval `a = 1")


def test_a_helper_is_called_with_its_number_of_arguments_and_ends():
    with pytest.raises(ParseError, match=r"twice takes 1 argument \(x\), got 2") as info:
        parse_program('''def twice(x: Float) = mult(x, 2.0f)
val f = fun(Float, x => twice(x, x))''')
    assert (info.value.line, info.value.column) == (2, 30)
    with pytest.raises(ParseError, match=r"the helper loop is called 50 deep") as info:
        parse_program('''val N = 1
def loop(x: Float) = loop(x)
val f = fun(Float, x => loop(x))''')
    assert info.value.line == 2


# --- C bodies over several strings, Value texts, sizes in bodies ------------------------------

GESUMMV = '''
val N = SizeVar("N")
val K = SizeVar("M")
val f = UserFun("f", Array("acc", "a", "b", "x"),
  "{ Tuple t = { acc._0 + a * x, acc._1 + b * x };" +
    "return t; }",
  Seq(TupleType(Float, Float), Float, Float, Float), TupleType(Float, Float))
val g = UserFun("g", Array("alpha", "a", "beta", "b"),
  "{ return alpha * a + beta * b; }",
  Seq(Float, Float, Float, Float), Float)
val fused = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  ArrayTypeWSWC(Float, K),
  Float, Float,
  (A, B, x, alpha, beta) =>
    Zip(A, B) :>> MapGlb(\\( p => {
      val aRow = p._0
      val bRow = p._1
      Zip(aRow, bRow, x) :>>
        ReduceSeq(\\( (acc, p) => {
          val a = p._0
          val b = p._1
          val x = p._2
          f(acc, a, b, x)
        }), Value("{0.0f, 0.0f}", TupleType(Float, Float))) :>>
        MapSeq(\\( p => { g(alpha, p._0, beta, p._1) })) :>> toGlobal(MapSeq(id))
    }))
)'''


def test_gesummv_as_lifts_benchmark_writes_it():
    # Lift's src/main/benchmarks/GESUMMV.scala (fused): a body over two strings, a tuple
    # Value, tuple accessors and pipes
    fused = parse_program(GESUMMV)["fused"]
    reads_back(fused)
    a, b, x = floats(8, 16), floats(8, 16), floats(16)
    close(evaluate(fused, a, b, x, np.float32(1.5), np.float32(-0.5)),
          1.5 * (a @ x) - 0.5 * (b @ x))


def test_value_texts_of_tuples_and_arrays_of_tuples():
    f = program('''
val N = SizeVar("N")
val f = fun(ArrayType(Float, N), xs =>
  ReduceSeq(\\((acc, x) => Tuple(max(acc._0, x), add(acc._1, 1))),
            Value("{-3.40282347e+38, 0}", TupleType(Float, Int))) $ xs)''')
    xs = floats(40)
    close(evaluate(f, xs), (np.array([xs.max()]), np.array([40])))
    g = program('''
val f = fun(ArrayType(Float, SizeVar("N")), xs =>
  Map(fun(t => add(t._0, t._1))) $ Value("{1.5f, 2}", ArrayType(TupleType(Float, Float), 3)))''')
    close(evaluate(g, floats(4)), np.full(3, 3.5))


def test_constant_sizes_are_numbers_in_bodies_and_symbolic_ones_are_refused():
    f = program('''
val K = 4
val W = Cst(3)
val scale = UserFun("scale", "x", "{ return x * " + K + " + " + W + "; }", Float, Float)
val f = fun(ArrayType(Float, SizeVar("N")), xs => Map(fun(x => add(scale(x), W))) $ xs)''')
    xs = floats(8)
    close(evaluate(f, xs), xs * 4 + 3 + 3)
    with pytest.raises(ParseError, match="the size N is joined to a string") as info:
        parse_program('''val N = SizeVar("N")
val s = UserFun("s", "x", "{ return x * " + N + "; }", Float, Float)''')
    assert info.value.line == 2
    with pytest.raises(ParseError, match="the size N is used as a value"):
        parse('fun(ArrayType(Float, SizeVar("N")), xs => '
              'Map(fun(x => mult(x, SizeVar("N")))) $ xs)')


# --- 2-D and 3-D helpers ----------------------------------------------------------------------

def test_hotspot3d_with_zip3d_slide3d_and_pad3d():
    # Lift's highLevel/stencil/cgo/handwritten/hotspot3D, with fewer neighbours
    f = program('''
val m = SizeVar("M")
val n = SizeVar("N")
val o = SizeVar("O")
val calc = UserFun("calc", Array("tInC", "cc", "tInN", "tInT", "pInC"),
  "{ return tInC*cc + tInN*0.25f + tInT*0.5f + pInC; }", Seq(Float, Float, Float, Float, Float),
  Float)
val f = fun(
  ArrayType(ArrayType(ArrayType(Float, m), n), o),
  ArrayType(ArrayType(ArrayType(Float, m), n), o),
  (temp, power) => {
    Map(Map(Map(fun((m) => {
      val cc = 0.86186665296554565430f
      val tInC = Get(m, 1).at(1).at(1).at(1)
      val tInN = Get(m, 1).at(1).at(0).at(1)
      val tInT = Get(m, 1).at(1).at(1).at(2)
      fun(x => calc(x, cc, tInN, tInT, Get(m, 0))) $ tInC
    })))) $ Zip3D(power, Slide3D(3,1) o Pad3D(1, 1, 1, Pad.Boundary.Clamp) $ temp)
  })''')
    t, p = floats(4, 5, 6), floats(4, 5, 6)
    w = clamp_windows(t, 3, 1)
    close(evaluate(f, t, p), w[..., 1, 1, 1] * np.float32(0.86186665296554565430)
          + w[..., 1, 0, 1] * 0.25 + w[..., 1, 1, 2] * 0.5 + p)


def test_rodinia_hotspot3d_opt1_with_its_own_zip3d():
    # Lift's TestStencilRodinia.rodiniaHotspot3DOpt1 at a smaller size: a Scala lambda of
    # three arrays applied as a function, tuple accessors on a tuple of arrays, Slide3D with
    # a window of one plane, Pad3D with no padding in z
    f = program('''
val zip3d = \\((A, B, C) =>
  Map(Map(\\(tuple => Zip(tuple._0, tuple._1, tuple._2)))) o
    Map(\\(tuple => Zip(tuple._0, tuple._1, tuple._2))) $ Zip(A, B, C)
)
val f = fun(
  ArrayType(ArrayType(ArrayType(Float, 8), 6), 4),
  (input) => {
    MapSeq(MapGlb(1)(MapGlb(0)(\\(nbh =>
      toGlobal(MapSeq(\\(acc => add(acc, nbh._2)))) o
        MapSeq(\\(acc => add(acc, nbh._1))) o
        ReduceSeqUnroll(add, 0.0f) o Join() o Join() $ nbh._0)
    ))) $ zip3d(
      Slide3D(3, 1, 3, 1, 1, 1) o Pad3D(1, 1, 0, Pad.Boundary.Clamp) $ input,
      input, // leftshift z - upper element
      input) // rightshift z - lower element
  }
)''')
    t = floats(4, 6, 8)
    planes = np.pad(t, ((0, 0), (1, 1), (1, 1)), mode="edge")
    window = np.lib.stride_tricks.sliding_window_view(planes, (3, 3), axis=(1, 2))
    close(evaluate(f, t), window.sum(axis=(-1, -2)) + 2 * t)


def test_zip2d_pairs_the_elements_of_matrices():
    f = program('''
val M = SizeVar("M")
val N = SizeVar("N")
val f = fun(ArrayType(ArrayType(Float, M), N), ArrayType(ArrayType(Float, M), N),
  (a, b) => Map(Map(fun(p => mult(p._0, p._1)))) $ Zip2D(a, b))''')
    a, b = floats(3, 5), floats(3, 5)
    close(evaluate(f, a, b), a * b)


def test_padconstant2d_pads_rows_and_columns_with_a_number():
    sym = program('''
val f = fun(ArrayType(ArrayType(Float, SizeVar("M")), SizeVar("N")),
  xs => PadConstant2D(1, 2, 0.5f) $ xs)''')
    m = floats(3, 4)
    close(evaluate(sym, m), np.pad(m, (1, 2), constant_values=0.5))
    full = program('''
val f = fun(ArrayType(ArrayType(Float, SizeVar("M")), SizeVar("N")),
  xs => PadConstant2D(1, 0, 2, 3, 0.5f) $ xs)''')
    close(evaluate(full, m), np.pad(m, ((1, 0), (2, 3)), constant_values=0.5))


@settings(max_examples=15, deadline=None)
@given(x=st.integers(0, 2), y=st.integers(0, 2), z=st.integers(0, 2),
       value=st.sampled_from([0.0, 1.5, -2.0]))
def test_padconstant3d_pads_each_dimension_with_its_width(x, y, z, value):
    f = program(f'''
val f = fun(ArrayType(ArrayType(ArrayType(Float, SizeVar("M")), SizeVar("N")), SizeVar("O")),
  xs => PadConstant3D({x}, {y}, {z}, {value}f) $ xs)''')
    t = floats(2, 3, 4)
    close(evaluate(f, t), np.pad(t, ((z, z), (y, y), (x, x)), constant_values=value))


@settings(max_examples=15, deadline=None)
@given(sizes=st.lists(st.integers(1, 3), min_size=3, max_size=3),
       steps=st.lists(st.integers(1, 2), min_size=3, max_size=3),
       counts=st.lists(st.integers(1, 3), min_size=3, max_size=3))
def test_slide3d_gives_the_neighbourhoods_of_each_dimension(sizes, steps, counts):
    (sx, sy, sz), (tx, ty, tz) = sizes, steps
    f = program(f'''
val f = fun(ArrayType(ArrayType(ArrayType(Float, SizeVar("M")), SizeVar("N")), SizeVar("O")),
  xs => Slide3D({sx}, {tx}, {sy}, {ty}, {sz}, {tz}) $ xs)''')
    t = floats(*(s + step * (k - 1) for s, step, k in zip((sz, sy, sx), (tz, ty, tx),
                                                           reversed(counts))))
    w = np.lib.stride_tricks.sliding_window_view(t, (sz, sy, sx))[::tz, ::ty, ::tx]
    close(evaluate(f, t), w)


def test_map_seq_slide_maps_over_the_windows():
    # the shape of Lift's TestMapSeqSlide / the MSS stencils of TestStencilsTACO
    f = program('''
val f = fun(ArrayType(ArrayType(Float, SizeVar("M")), SizeVar("N")), xs =>
  MapGlb(0)(fun(col => toGlobal(MapSeqSlide(fun(w => ReduceSeq(add, 0.0f) $ w), 3, 1)) $ col))
    o Transpose() $ xs)''')
    m = floats(7, 4)
    w = np.lib.stride_tricks.sliding_window_view(m.T, 3, axis=1)
    close(evaluate(f, m), w.sum(axis=-1))


def test_symmetric_slide3d_is_the_asymmetric_one_with_equal_sizes():
    assert parse("Slide3D(3, 1)") == parse("Slide3D(3, 1, 3, 1, 3, 1)")


@pytest.mark.parametrize("alternative", [
    # Lift's TestStencil3D.slide3DInTermsOfSlide2D: other ways of writing Slide3D(3, 1)
    "SlideND3",
    "Map(Map(Transpose())) o Map(Map(Map(Transpose()))) o Slide2D(3, 1) o Map(Map(Slide(3, 1)))",
    "Map(Map(Transpose())) o Map(Transpose()) o Slide(3, 1) o Map(Slide2D(3, 1))",
    "Map(Map(Transpose())) o Map(Transpose()) o Map(Map(Slide2D(3, 1))) o Slide(3, 1)",
])
def test_slide3d_is_what_lifts_alternatives_compute(alternative):
    if alternative == "SlideND3":  # Lift's comment on SlideND(3)
        alternative = ("Map(Map(Transpose())) o Map(Transpose()) o Map(Map(Map(Transpose()))) o "
                       "Slide(3, 1) o Map(Slide(3, 1)) o Map(Map(Slide(3, 1)))")
    t3 = 'ArrayType(ArrayType(ArrayType(Float, SizeVar("M")), SizeVar("N")), SizeVar("O"))'
    slide3d = parse(f"fun({t3}, xs => Slide3D(3, 1) $ xs)")
    other = parse(f"fun({t3}, xs => {alternative} $ xs)")
    t = floats(5, 4, 6)
    close(evaluate(other, t), evaluate(slide3d, t))


def test_index_functions_written_in_scala():
    # Lift's shiftRight of highLevel/stencil/cgo/ppcg/j2d5pt, and Shift(k), which Lift
    # defines as it: a rotation for k = 1
    f = program('''
val shiftRight: (ArithExpr, Type) => ArithExpr =
    (i, t) => {
      val n = Type.getLength(t)
      (i + 1) - n*(i / (n-1))
  }
val f = fun(ArrayType(Float, SizeVar("N")), xs => Scatter(shiftRight) o MapGlb(id) $ xs)''')
    assert f == parse_program('''
val f = fun(ArrayType(Float, SizeVar("N")), xs => Scatter(Shift(1)) o MapGlb(id) $ xs)''')["f"]
    xs = floats(9)
    close(evaluate(f, xs), np.roll(xs, 1))
    with pytest.raises(ParseError, match=r"Type.getLength\(2\): only the length of an index "
                                         r"function's array is read") as info:
        parse_program("val f = fun(Float, x => Type.getLength(2))")
    assert (info.value.line, info.value.column) == (1, 40)


# --- vector accumulators ----------------------------------------------------------------------

@pytest.mark.parametrize("reducer", ["VectorizeUserFun(4, add)", "add.vectorize(4)"])
def test_a_vector_zero_starts_a_vector_accumulator(reducer):
    # Lift's TestMisc.reduceVector
    f = program(f'''
val f = fun(ArrayTypeWSWC(Float, SizeVar("N")),
  in => {{
    in :>>
      asVector(4) :>>
      ReduceSeq({reducer}, Value(0.0f).vectorize(4)) :>>
      asScalar() :>>
      ReduceSeq(add, 0.0f) :>>
      toGlobal(MapSeq(id))
  }})''')
    xs = floats(32)
    close(evaluate(f, xs), [xs.sum()])


def test_a_vectorised_user_function_accumulates_lane_by_lane():
    # Lift's TestReduce.INTEL_DERIVED, smaller
    f = program('''
val f = fun(ArrayTypeWSWC(Float, SizeVar("N")), (in) => {
  Join() o MapWrg(
    asScalar() o Join() o Join() o MapWarp(
      MapLane( toGlobal(MapSeq(id.vectorize(4))) o
               ReduceSeq(absAndSumUp.vectorize(4), Value(0.0f).vectorize(4)) )
    ) o Split(1) o Split(8) o asVector(4)
  ) o Split(64) $ in
})''')
    xs = floats(128)
    close(evaluate(f, xs), np.abs(xs).reshape(2, 2, 8, 4).sum(axis=2).reshape(-1))


# --- Filter -----------------------------------------------------------------------------------

def test_filter_gathers_by_an_index_array():
    # the shape of Lift's highLevel/molecularDynamics: neighbours by index
    f = program('''
val N = SizeVar("N")
val M = SizeVar("M")
val f = fun(
  ArrayTypeWSWC(Float, N),
  ArrayTypeWSWC(ArrayTypeWSWC(Int, N), M),
  (particles, neighbourIds) =>
    Zip(particles, Transpose() $ neighbourIds) :>>
      Map( \\(p =>
        Filter(particles, p._1) :>>
          ReduceSeq(\\((force, n) => add(force, mult(n, p._0))), 0.0f)
      ) ))''')
    xs = floats(10)
    ids = RNG.integers(0, 10, (3, 10)).astype(np.int32)
    close(evaluate(f, xs, ids), (xs[ids].sum(axis=0) * xs))
    curried = program('''
val f = fun(ArrayType(Float, SizeVar("N")), ArrayType(Int, SizeVar("M")),
  (xs, ids) => Filter()(xs, ids))''')
    close(evaluate(curried, xs, ids[0]), xs[ids[0]])


# --- predefined user functions ----------------------------------------------------------------

def test_lifts_predefined_user_functions():
    f = program('''
val N = SizeVar("N")
val f = fun(ArrayType(Float, N), ArrayType(Float, N), (a, b) =>
  Map(fun(p => add(Float)(max(Float)(p._0, p._1), first(Float, Float)(square(p._0), p._1))))
    $ Zip(a, b))''')
    a, b = floats(16), floats(16)
    close(evaluate(f, a, b), np.maximum(a, b) + a * a)
    g = program('''
val N = SizeVar("N")
val f = fun(ArrayType(Bool, N), ArrayType(Bool, N), (a, b) =>
  Map(fun(p => or(p._0, not(p._1)))) $ Zip(a, b))''')
    a, b = RNG.integers(0, 2, 16).astype(bool), RNG.integers(0, 2, 16).astype(bool)
    close(evaluate(g, a, b), a | ~b)


def test_a_group_by_with_lifts_generic_user_functions():
    # Lift's TestDbQueries.groupBy: first(Int, Int), equality(Int), not, id(T, name),
    # Gather(shiftRight) and tuple accessors
    f = program('''
val toInt = UserFun("to_int", "x", "return x;", Bool, Int)
val N = SizeVar("N")
val int_fst = first(Int, Int)
val tuple_id = id(TupleType(Int, Int, Int), "tuple_id")
val int_eq = equality(Int)
val filterOnX = UserFun(
  "filterOnX", Array("x_ref", "row"), "return (row._0 == x_ref) ? row._1 : 0;",
  Seq(Int, TupleType(Int, Int)), Int
)
val f = fun(
  ArrayTypeWSWC(TupleType(Int, Int), N),
  table => {
    Join() o MapGlb(
      fun(bx =>
        toGlobal(MapSeq(tuple_id)) o
        MapSeq(fun(tot => Tuple(toInt $ bx._0, bx._1, tot))) o
        ReduceSeq(addI, 0) o
        MapSeq(filterOnX) o
        MapSeq(fun(row => Tuple(bx._1, row))) $ table
      )
    ) $ Zip(
      MapSeq(not o int_eq) o fun(xs => Zip(
        xs,
        MapSeq(idI) o Gather(shiftRight) o MapSeq(idI) $ xs)) o MapSeq(int_fst) $ table,
      MapSeq(int_fst) $ table
    )
  }
)''')
    keys = np.sort(RNG.integers(0, 4, 12)).astype(np.int32)
    values = RNG.integers(0, 100, 12).astype(np.int32)
    last = keys != np.roll(keys, -1)  # the last row of each key (and of the table)
    sums = np.array([values[keys == k].sum() for k in keys])
    close(evaluate(f, (keys, values)), (last.astype(np.int32), keys, sums))


# --- what remains refused, where --------------------------------------------------------------

@pytest.mark.parametrize("text,message,where", [
    ('val f = fun(ArrayType(Float, SizeVar("N")), xs => Map(fun(x => x.y)) $ xs)',
     r"the member \.y is not supported here", (1, 65)),
    ('val f = fun(ArrayType(Float, SizeVar("N")), xs => Map(fun(w => w.at(-1))) o '
     'Slide(3, 1) $ xs)', r"\.at\(-1\): an index counts from 0", (1, 69)),
    ('val f = fun(ArrayType(Float, SizeVar("N")), xs => Map(fun(w => w.at(SizeVar("N")))) o '
     'Slide(3, 1) $ xs)', r"the size N has no value inside an expression", (1, 76)),
    ('val f = fun(Float, x => Value("{1.0f, 2.0f}", Float))',
     r"a \{\.\.\.\} value is a tuple, and float is not a tuple type", (1, 30)),
    ('val f = fun(ArrayType(Float, SizeVar("N")), xs => Scatter(Shift(2)) $ xs)',
     r"Shift\(2\): Lift's shift .* only Shift\(1\) \(shiftRight\) is read", (1, 65)),
    ('val f = fun(ArrayType(Float, SizeVar("N")), xs => Gather(shift2Right) $ xs)',
     r"Shift\(2\): Lift's shift", (1, 57)),
    ('val t = (1, 2)\nval f = fun(Float, x => mult(x, t._3))',
     r"a Scala tuple of 2 items has the fields _1 to _2, not _3", (2, 34)),
    # a Lift tuple's components count from 0: one past the last is refused where it is
    ('val f = fun(Float, Float, (x, y) => mult(Tuple(x, y)._1, Tuple(x, y)._2))',
     r"the tuple `\(x, y\)` has the components _0 to _1, not _2", (1, 69)),
])
def test_what_is_not_supported_is_refused_where_it_is_written(text, message, where):
    with pytest.raises(ParseError, match=message) as info:
        parse_program(text)
    assert (info.value.line, info.value.column) == where
