"""The four macro rules of CASES 2016 on matrix multiplication: each is one derivation step
made of basic rules (its expansion replays to the same expression), they compose in the
slides' order (blocking, tiling, tiling of the innermost loop), and a macro that does not
apply says which basic step refused and where."""

import numpy as np
import pytest

from workbench import Derivation, evaluate, load
from workbench.rewriting.expansion import expand, is_macro
from workbench.rules import CATALOGUE, RewriteRefused, apply

MM = load("workbench/programs/mm.lift")["mm"]
TYPES = ("[[float]_32]_16", "[[float]_8]_32")
RNG = np.random.default_rng(5)
A = RNG.uniform(-1, 1, (16, 32)).astype(np.float32)
B = RNG.uniform(-1, 1, (32, 8)).astype(np.float32)


def same(e):
    np.testing.assert_allclose(evaluate(e, A, B), A @ B, rtol=1e-4, atol=1e-4)


def test_1d_blocking_is_the_slides_register_blocking():
    e = apply(MM, "1d-blocking", "0.0", *TYPES, k=4)
    same(e)
    # Join ∘ Map(rowsA ⇒ Transpose ∘ Map(colB ⇒ Transpose ∘ Reduce((acc, pair) ⇒
    #   Map(x ⇒ x.0 + x.1 × pair.1) $ Zip(acc, pair.0)) $ Zip(Transpose $ rowsA, colB)) …
    assert ("transpose (reduceSeq (λ(acc, x). map (λq. q.0 + q.1 * x.1) (zip acc x.0)) "
            "(replicate 4 0.0) (zip (transpose xs) colB))") in str(e)
    assert str(e).endswith("∘ split 4) a")


def test_2d_blocking_accumulates_a_block():
    e = apply(MM, "2d-blocking", "0.0", *TYPES, k=4, l=2)
    same(e)
    # k rows of l columns, the rows outermost
    assert "(replicate 4 (replicate 2 0.0))" in str(e)


def test_blocking_tiling_and_innermost_tiling_compose_into_the_tiled_multiply():
    d = Derivation(MM, *TYPES, name="mm")
    d.apply("2d-blocking", "0.0", k=2, l=2)
    blocks = next(r.path for r in _rewrites(d, "tiling") if r.params["m"] == 2
                  and r.params["n"] == 2)
    d.apply("tiling", blocks, m=2, n=2)
    tile = next(p for p, r in [(r.path, r) for r in _rewrites(d, "innermost-tiling")])
    d.apply("innermost-tiling", tile, s=8)
    same(d.current)
    text = str(d.current)
    assert "untile" in text
    # the reduction over chunks of 8 of both tiles, zipped (TiledMultiply's Zip(aRows, bCols))
    assert "(zip (transpose (map (λxs. split 8 (transpose xs)) xs))" in text


def _rewrites(d, rule):
    from workbench.rules import rewrites

    return [r for r in rewrites(d.current, *d.input_types, rules=[CATALOGUE[rule]])]


@pytest.mark.parametrize("rule,params", [("1d-blocking", {"k": 4}),
                                         ("2d-blocking", {"k": 2, "l": 4}),
                                         ("tiling", {"m": 4, "n": 2})])
def test_a_macro_step_expands_into_basic_steps_that_replay_to_its_result(rule, params):
    d = Derivation(MM, *TYPES, name="mm")
    result = d.apply(rule, "0.0", **params)
    basic = d.expansion(1)
    assert basic[-1].result == result
    assert all(s.rule in CATALOGUE and not is_macro(s.rule) for s in basic)
    d.expand(1)
    assert len(d.steps) == len(basic) and d.current == result
    assert not any(d.is_macro(k) for k in range(1, len(d.steps) + 1))


def test_the_register_blocking_series_uses_the_slides_basic_rules():
    rules = {s.rule for s in expand(MM, "1d-blocking", "0.0", *TYPES, k=4)}
    assert {"split-join", "map-interchange", "map-fission", "map-reduce-interchange",
            "transpose-map-map", "transpose-transpose", "reduce-map-fusion",
            "map-fusion-apply"} <= rules


def test_exports_show_the_basic_steps_under_a_macro_step(tmp_path):
    d = Derivation(MM, *TYPES, name="mm")
    d.apply("tiling", "0.0", m=4, n=4)
    assert "(1.1)" in d.to_markdown(expand=True) and "(1.1)" not in d.to_markdown()
    assert "(1.1)" in d.to_latex(expand=True)
    assert "(1.1)" in d.to_text(expand=True)
    d.save(tmp_path / "mm.json")
    assert Derivation.load(tmp_path / "mm.json").current == d.current
    assert len(d.expanded().steps) == len(d.expansion(1))


def test_a_macro_that_does_not_apply_names_the_basic_step_and_the_place():
    with pytest.raises(RewriteRefused) as info:
        apply(MM, "1d-blocking", "0.0", *TYPES, k=3)
    reason = info.value.reason
    assert "basic step 2, split-join at 1 (of the site), does not apply" in reason
    assert "3 does not divide the array length 16" in reason
    with pytest.raises(RewriteRefused, match="two nested maps over independent arrays"):
        apply(MM, "tiling", "0.0.0.0.1.0", *TYPES, m=2, n=2)


def test_an_expansion_is_refused_for_a_basic_rule():
    from workbench import WorkbenchError

    with pytest.raises(WorkbenchError, match="basic rule, not a macro"):
        expand(MM, "split-join", "0.0", *TYPES, n=4)


def test_the_widget_shows_and_expands_macro_steps():
    for module in ("ipywidgets", "anywidget", "matplotlib"):
        pytest.importorskip(module, reason="the widget needs the lab extra: pip install -e "
                            "'.[lab]'")
    from widgets import Workbench

    d = Derivation(MM, *TYPES, name="mm")
    d.apply("1d-blocking", "0.0", k=4)
    wb = Workbench(d, auto_run=False)
    assert wb.paper.macro_step.options == (("(1) 1d-blocking", 1),)
    wb.paper.basic.value = True
    assert "wb-basic" in wb.paper.table.value
    assert "(1.1)" in wb.paper.export("Markdown")
    wb.paper.expand()
    assert len(wb.derivation.steps) > 1 and wb.paper.expand_button.disabled
