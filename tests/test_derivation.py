"""Derivations: saved paper derivations replay; undo/redo/branch; JSON that is validated on
load; Markdown and LaTeX in the style of ICFP Fig. 10."""

import json
from pathlib import Path

import numpy as np
import pytest

from workbench import Derivation, DerivationError, evaluate, parse, rewrites
from workbench.programs import library

SAVED = Path(__file__).parent.parent / "workbench" / "derivations"


@pytest.mark.parametrize("name,library_file,definition", [
    ("icfp_fig10_asum", "figures", "fig10_8"),
    ("icfp_fig3_vector_scaling", "figures", "vectorScalLow"),
    ("reduction_listing5_8", "reductions", "listing5_8"),
    ("reduction_listing5_13", "reductions", "listing5_13"),
])
def test_saved_derivations_replay_to_the_papers_expressions(name, library_file, definition):
    d = Derivation.load(SAVED / f"{name}.json")
    assert d.current == library(library_file)[definition]


def fig10_lines():
    figures = library("figures")
    lines = [figures[f"fig10_{i}"] for i in range(9)]
    # Line 1 of the figure leaves the number of partial results symbolic (N/128; N = 4096).
    lines[1] = parse(str(lines[1]).replace("(N/128)", "32"))
    return lines


def test_figure_10_lines_appear_in_order():
    d = Derivation.load(SAVED / "icfp_fig10_asum.json")
    exprs = d.expressions()
    positions = [exprs.index(line) for line in fig10_lines()]
    assert positions == sorted(positions) and positions[0] == 0
    assert positions[-1] == len(exprs) - 1


def test_each_figure_10_line_is_at_most_two_listed_rewrites_from_the_previous():
    lines = fig10_lines()
    for before, after in zip(lines, lines[1:]):
        first = {r.result for r in rewrites(before, "[float]_4096")}
        if after in first:
            continue
        second = {r.result for e in first for r in rewrites(e, "[float]_4096")}
        assert after in second, f"{after} is not within two rewrites of {before}"


@pytest.mark.parametrize("name", ["icfp_fig10_asum", "icfp_fig3_vector_scaling",
                                  "reduction_listing5_8", "reduction_listing5_13"])
def test_every_line_of_a_derivation_computes_the_same(name):
    xs = np.random.default_rng(1).uniform(-1, 1, 4096).astype(np.float32)
    d = Derivation.load(SAVED / f"{name}.json")
    sizes = {"blockSize": 1024}
    results = [evaluate(e, xs, sizes=sizes) for e in d.expressions()]
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], rtol=1e-4, atol=1e-4)


def test_markdown_and_latex_exports():
    d = Derivation.load(SAVED / "icfp_fig10_asum.json")
    md = d.to_markdown()
    assert "| (9) | 6f reduceSeq-mapSeq-fusion |" in md
    assert "`reduce (+) 0 ∘ join ∘ map (reduceSeq (λ(acc, x). acc + abs x) 0) ∘ split 128`" in md
    tex = d.to_latex()
    assert tex.startswith("\\begin{align*}") and tex.rstrip().endswith("\\end{align*}")
    assert "\\xrightarrow{\\text{6c split-join (n=128)}}" in tex
    assert "\\lambda" in tex and "\\circ" in tex


def test_undo_redo_and_branches():
    d = Derivation("map abs", "[float]_1024")
    d.apply("split-join", "root", n=128)
    d.apply("map→mapWorkgroup", "1", dim=0)
    assert str(d.current) == "join ∘ mapWorkgroup (map abs) ∘ split 128"
    d.undo()
    assert str(d.current) == "join ∘ map (map abs) ∘ split 128"
    d.redo()
    assert d.can_undo and not d.can_redo
    d.branch(1)  # try another rule after step 1, keeping the old branch
    d.apply("map→mapGlobal", "1", dim=0)
    assert str(d.current) == "join ∘ mapGlobal (map abs) ∘ split 128"
    assert len(d.branches) == 1
    d.switch(0)
    assert str(d.current) == "join ∘ mapWorkgroup (map abs) ∘ split 128"
    again = Derivation.from_json(json.loads(json.dumps(d.to_json())))
    assert again.current == d.current and len(again.branches) == 1
    assert str(again.branches[0][-1].result) == "join ∘ mapGlobal (map abs) ∘ split 128"


def test_applying_a_refused_rule_leaves_the_derivation_unchanged():
    from workbench import RewriteRefused

    d = Derivation("map abs", "[float]_64")
    with pytest.raises(RewriteRefused, match="mapLocal must be inside a mapWorkgroup"):
        d.apply("map→mapLocal", "root", dim=0)
    assert len(d) == 0 and str(d.current) == "map abs"


def saved(name="icfp_fig10_asum"):
    return json.loads((SAVED / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("corrupt,entry,step", [
    (lambda doc: doc["steps"][3].update(rule="split-jion"), "steps", 4),    # unknown rule
    (lambda doc: doc["steps"][2].update(path="7.7"), "steps", 3),           # no such node
    (lambda doc: doc["steps"][1].update(result="map abs"), "steps", 2),     # another result
    (lambda doc: doc["steps"][0]["params"].update(n="3"), "steps", 1),      # does not replay
    (lambda doc: doc.pop("steps"), "steps", None),                           # truncated
    (lambda doc: doc.update(format="something else"), "format", None),
    (lambda doc: doc.update(start="reduce (+ 0"), "start", None),
    (lambda doc: doc.update(inputs=[None]), "inputs", None),
    (lambda doc: doc.update(ranges="[1, 0]"), "ranges", None),
])
def test_bad_saved_derivations_name_the_entry(tmp_path, corrupt, entry, step):
    doc = saved()
    corrupt(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(DerivationError) as info:
        Derivation.load(path)
    assert (info.value.source, info.value.entry, info.value.step) == ("bad.json", entry, step)


def test_truncated_file(tmp_path):
    text = (SAVED / "icfp_fig10_asum.json").read_text(encoding="utf-8")
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(DerivationError) as info:
        Derivation.load(path)
    assert info.value.line == text[: len(text) // 2].count("\n") + 1  # where the text ends


def test_a_derivation_prints_as_the_paper_does():
    d = Derivation.load(SAVED / "icfp_fig10_asum.json")
    lines = str(d).splitlines()
    assert lines[:4] == [
        "asum : [float]_4096",
        "asum = reduce (+) 0 ∘ map abs",
        "(1) → reduce-partial (n=32) at 0, Fig. 6d (1)",
        "    = reduce (+) 0 ∘ reducePart (+) 0 32 ∘ map abs"]
    numbered = [line for line in lines if line.startswith("(")]
    assert [line.split(")")[0] + ")" for line in numbered] == [f"({i})" for i in range(1, 10)]
    assert all(step.rule in line for step, line in zip(d.steps, numbered))
    assert lines[-1] == "    = " + str(d.current)
    assert str(d) == d.to_text()
    assert repr(d).startswith("<Derivation asum: 9 steps, now `reduce (+) 0 ∘ join")


def test_an_expression_shows_its_notation_and_its_structure_on_request():
    e = parse("map abs")
    assert repr(e) == "parse('map abs')"
    assert repr([e]) == "[parse('map abs')]"
    assert e.structure() == "Prim(name='map', args=(Prim(name='abs', args=()),))"
    assert e._repr_markdown_() == "`map abs`"


@pytest.mark.parametrize("path", [1, "1", (1,), [1]])
def test_paths_are_given_as_text_numbers_or_tuples(path):
    d = Derivation("join ∘ map (map abs) ∘ split 128", "[float]_1024")
    d.apply("map→mapWorkgroup", path, dim=0)
    assert str(d.current) == "join ∘ mapWorkgroup (map abs) ∘ split 128"
    assert rewrites(d.current, "[float]_1024", at=path) == \
        rewrites(d.current, "[float]_1024", at=(1,))


@pytest.mark.parametrize("path,words", [
    (7, "path 7 does not exist: node root `join ∘ map (map abs) ∘ split 128` has 3 children "
        "(0 to 2)"),
    ((1, 0, 5), "path 1.0.5 does not exist: node 1.0 `map abs` has 1 child (0)"),
    (1.5, "bad path 1.5: a node path is 'root', a child number such as 0"),
    (-1, "bad path -1: child numbers are not negative"),
    ("1.x", "bad path '1.x'"),
    (None, "bad path None"),
])
def test_a_bad_path_is_a_located_error(path, words):
    from workbench import WorkbenchError

    d = Derivation("join ∘ map (map abs) ∘ split 128", "[float]_1024")
    with pytest.raises(WorkbenchError) as info:
        d.apply("map→mapWorkgroup", path, dim=0)
    assert words in str(info.value)
    assert len(d) == 0
