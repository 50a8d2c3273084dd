"""The usual spellings of a matrix product reach the same exploration: ``normalise`` brings
each to the library's form by basic rules (named dot products, nested applications, fused
reductions, compositions applied to the matrix, SkelCL's allPairs, an operand given by its
columns), and the CASES exploration starts from there."""

import numpy as np
import pytest

from workbench import evaluate, load, parse, parse_program, parse_type
from workbench.rules import apply
from workbench.rules.normalisation import normalise
from workbench.search import cases as C
from workbench.search import search

LIBRARY = load("workbench/programs/mm.lift")["mm"]
A, B, BT = "[[float]_16]_8", "[[float]_8]_16", "[[float]_16]_8"
CPU = C.Limits(kind="cpu", local_memory_bytes=32768, max_work_group_size=256,
               compute_units=2, min_work_group=1)

NAMED = """
dot = λxs ys. (reduce (+) 0 ∘ map (*)) (zip xs ys)
mm : [[float]_K]_M -> [[float]_N]_K -> [[float]_N]_M
mm = λA B. map (λrowA. join (map (λcolB. dot rowA colB) (transpose B))) A
"""

# each spelling with the types of its inputs; all of them compute A × B
SPELLINGS = {
    "named dot product": (parse_program(NAMED)["mm"], (A, B)),
    "nested applications": (
        "λa b. map (λrowA. join (map (λcolB. reduce (+) 0 (map (*) (zip rowA colB))) "
        "(transpose b))) a", (A, B)),
    "fused reduction": (
        "λa b. map (λrowA. join (map (λcolB. reduceSeq (λacc p. acc + p.0 * p.1) 0.0 "
        "(zip rowA colB)) (transpose b))) a", (A, B)),
    "composition applied": (
        "λa b. map (λrowA. (join ∘ map (λcolB. (reduce (+) 0 ∘ map (*)) (zip rowA colB)) ∘ "
        "transpose) b) a", (A, B)),
    "allPairs, B by columns (SkelCL)": (load("workbench/programs/skelcl.lift")["mm"], (A, BT)),
    "B by columns": (
        "λa bt. map (λrowA. join (map (λcolB. (reduce (+) 0 ∘ map (*)) (zip rowA colB)) bt)) a",
        (A, BT)),
}

# Lift's matrix products as its highLevel programs write them (mmNN, mmNT, mmTN): a reduction
# returns one element there, so the product keeps a dimension of one
LIFT = """
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")
val f = fun(
  ArrayType(ArrayType(Float, {a}), {a_outer}),
  ArrayType(ArrayType(Float, {b}), {b_outer}),
  (A, B) => {{
    Map(fun(aRow =>
      Map(fun(bCol =>
        Reduce(add, 0.0f) o Map(fun(x => mult(Get(x, 0), Get(x, 1)))) $ Zip(aRow, bCol)
      )){transpose_b} $ B
    )){transpose_a} $ A
  }})
"""
LIFT_SPELLINGS = {
    "mmNN": (dict(a="K", a_outer="M", b="N", b_outer="K", transpose_a="",
                  transpose_b=" o Transpose()"), (A, B)),
    "mmNT": (dict(a="K", a_outer="M", b="K", b_outer="N", transpose_a="", transpose_b=""),
             (A, BT)),
    "mmTN": (dict(a="M", a_outer="K", b="N", b_outer="K", transpose_a=" o Transpose()",
                  transpose_b=" o Transpose()"), ("[[float]_8]_16", B)),
}


def program(text_or_expr):
    return parse(text_or_expr) if isinstance(text_or_expr, str) else text_or_expr


def types_of(texts):
    return tuple(parse_type(t) for t in texts)


def counts(expr, types):
    """The count after each phase; the last, the candidates before code generation judges
    their vectors (whether a row of B lies contiguous depends on how B is given)."""
    found = C.explore(expr, types_of(types), C.Options(depth=1, keep=()), CPU)
    out = [p["count"] for p in found["phases"]]
    out[-1] += found["pruned"].get(C.NOT_CONTIGUOUS, 0)
    return out


def inputs(types, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, (t.size.value, t.elem.size.value)).astype(np.float32)
            for t in types_of(types)]


def test_the_library_form_is_its_own_normal_form():
    normal = normalise(LIBRARY, *types_of((A, B)))
    assert normal.steps == () and normal.expr == LIBRARY


@pytest.mark.parametrize("name", SPELLINGS)
def test_each_spelling_normalises_by_rules_to_the_library_form(name):
    expr, types = SPELLINGS[name]
    expr = program(expr)
    normal = normalise(expr, *types_of(types))
    assert normal.steps, "the spelling differs from the library's form"
    replayed = expr
    for step in normal.steps:  # the steps replay from the program as written
        replayed = apply(replayed, step.rule, step.path, *types)
    assert replayed == normal.expr
    if types == (A, B):  # (a zero written 0.0 stays as written)
        assert parse(str(normal.expr).replace(" 0.0 ", " 0 ")) == LIBRARY, str(normal.expr)
    else:  # B given by its columns reads as the transpose of a matrix given by its rows
        assert "(transpose (transpose" in str(normal.expr), str(normal.expr)
    a, b = inputs(types)
    expected = a @ (b if types == (A, B) else b.T)
    for e in (expr, normal.expr):
        got = np.asarray(evaluate(e, a, b), dtype=np.float32).reshape(expected.shape)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_every_spelling_reaches_the_same_exploration():
    expected = counts(LIBRARY, (A, B))
    for name, (expr, types) in SPELLINGS.items():
        assert counts(program(expr), types) == expected, name


def test_lifts_spellings_reach_one_exploration():
    found = {}
    for name, (fill, types) in LIFT_SPELLINGS.items():
        expr = parse_program(LIFT.format(**fill))["f"]
        found[name] = counts(expr, types)
        a, b = inputs(types, 1)
        left = a.T if name == "mmTN" else a
        right = b.T if name == "mmNT" else b
        got = np.asarray(evaluate(expr, a, b), dtype=np.float32)
        np.testing.assert_allclose(got.reshape(8, 8), left @ right, rtol=1e-4, atol=1e-4)
    assert len({tuple(c) for c in found.values()}) == 1, found
    assert found["mmNN"][0] >= counts(LIBRARY, (A, B))[0]


def test_a_search_of_a_named_dot_product_measures_what_the_librarys_form_does():
    a, b = inputs((A, B), 2)
    options = {"depth": 1, "limits": CPU.as_json(), "keep": [], "refine": 0}
    runs = {}
    for name, expr in (("library", LIBRARY), ("named", SPELLINGS["named dot product"][0])):
        result = search(expr, a, b, strategy="cases", budget=3, workers=0, seed=4,
                        options=options)
        assert all(r["correct"] for r in result.log)
        runs[name] = result
    measured = {name: [(r["details"]["label"], r["details"]["parameters"]) for r in run.log]
                for name, run in runs.items()}
    assert measured["named"] == measured["library"]
    assert runs["named"].details["normalised"] == ["β-reduction at 0.0.0.0.1.0.0.0"]
    assert runs["library"].details["normalised"] == []
    # the best candidate by the library's times is the named spelling's same candidate
    times = {(r["details"]["label"], str(r["details"]["parameters"])): r["kernel_ms"]
             for r in runs["library"].log}
    named_best = min(runs["named"].log, key=lambda r: times[(r["details"]["label"],
                                                              str(r["details"]["parameters"]))])
    library_best = min(runs["library"].log, key=lambda r: r["kernel_ms"])
    assert (named_best["details"]["label"], named_best["details"]["parameters"]) == \
        (library_best["details"]["label"], library_best["details"]["parameters"])


def test_cases_takes_the_defaults_of_the_devices_kind():
    class Given:
        options = {"depth": 2}

    cpu = C.options_of(Given(), "cpu")
    gpu = C.options_of(Given(), "gpu")
    assert cpu.depth == gpu.depth == 2  # given options replace the defaults one by one
    assert cpu.mappings == (C.ONE_PER_GROUP, C.ONE_PER_GROUP_DOWN)
    assert gpu.mappings == ("work-groups and work-items",)
    assert {"register blocks unrolled": True} in cpu.keep and {"accumulator": "private"} in gpu.keep
    assert C.options_of(Given(), None).keep == ()  # a device of no known kind: no sampling


def test_the_defaults_keep_every_program_where_none_has_the_kept_parts():
    from workbench import parse_type
    from workbench.programs import library

    found = C.explore(library("blas")["scal"], (parse_type("float"), parse_type("[float]_256")),
                      C.Options(**C.DEFAULTS["cpu"]), CPU)
    sampled = next(p for p in found["phases"] if p["phase"] == "sampled")
    assert sampled["count"] > 0 and sampled["what"].startswith("no program is described by '")
    assert found["candidates"]


@pytest.mark.parametrize("text", [
    "reduceSeq (λ(acc, x). acc + acc * x) 0",  # the element's part reads the accumulator
    "reduce (λ(acc, x). acc * (x + acc)) 1",
    "map (λrow. reduceSeq (λ(acc, x). acc + x * acc) 0 row)",
])
def test_normalisation_never_splits_a_fold_whose_element_reads_the_accumulator(text):
    """reduce (λ(acc, x). acc ⊕ e) z → reduce (⊕) z ∘ map (λx. e) holds only where e does
    not use acc: elsewhere the rule refuses, and normalising keeps the fold (and its value)."""
    from workbench.rules import RewriteRefused

    types = ("[[float]_8]_4",) if text.startswith("map") else ("[float]_8",)
    expr = parse(text)
    path = "0.0.0" if text.startswith("map") else "root"
    with pytest.raises(RewriteRefused, match="uses the accumulator"):
        apply(expr, "reduce-map-fission", path, *types)
    normal = normalise(expr, *types_of(types))
    assert all(s.rule != "reduce-map-fission" for s in normal.steps), normal.steps
    xs = np.random.default_rng(3).uniform(0.5, 1, (4, 8) if types[0].startswith("[[")
                                          else 8).astype(np.float32)
    np.testing.assert_allclose(evaluate(normal.expr, xs), evaluate(expr, xs), rtol=1e-5)
