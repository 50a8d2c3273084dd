"""The reduction macros (rules.vectors, rules.reductions): each builds the same result as
the sequence of basic rules it names, and produces the kernels of the reduction case study
(vector accumulators, work-group trees, two stages), with the work distribution chosen."""

import pytest

from workbench import Derivation, parse
from workbench.expr import Compose
from workbench.rewriting.application import annotation_of, site_at
from workbench.rewriting.macro import run
from workbench.rules import CATALOGUE, RewriteRefused, apply, rewrites
from workbench.rules.rule import Refused

MACROS = {"map-reduce-vectorize", "map-reduceSeq-fusion", "workgroup-reduce",
          "workgroup-map-reduce", "two-stage-reduction"}


def _as_expr(produced):
    if isinstance(produced, list):
        return produced[0] if len(produced) == 1 else Compose(tuple(produced))
    return produced


@pytest.mark.parametrize("text,path,input_type", [
    ("reduce (+) 0 ∘ map abs", "0", "[float]_4096"),
    ("reduce max (-1000.0) ∘ map (λx. x * x)", "0", "[float]_512"),
    ("reduce (+) 0 ∘ joinVec ∘ reduce (mapVec (+)) 0 ∘ map (mapVec abs) ∘ splitVec 4", "2",
     "[float]_8192"),
    ("join ∘ mapWorkgroup (reduce (+) 0 ∘ map abs) ∘ split 256", "1.0.0", "[float]_1024"),
    ("join ∘ mapWorkgroup (reduce (*) 1) ∘ split 64", "1.0", "[float]_1024"),
])
def test_each_macro_is_the_sequence_of_basic_rules_it_names(text, path, input_type):
    """For every parameter choice, the macro's direct result is the last expression of its
    expansion into basic steps (which are all in the catalogue)."""
    expr = parse(text)
    note = annotation_of(expr, (input_type,))
    checked = 0
    for found in rewrites(expr, input_type, at=path):
        if found.rule not in MACROS:
            continue
        site = site_at(expr, found.path, note)
        ran = run(site, CATALOGUE[found.rule], found.params)
        assert not isinstance(ran, Refused), (found.rule, found.params, ran)
        expansion = ran[0]
        assert all(step.rule in CATALOGUE for step in expansion.steps)
        direct = _as_expr(CATALOGUE[found.rule].rewrite(site, dict(found.params)))
        assert expansion.expr == direct, (found.rule, found.params)
        checked += 1
    assert checked


def test_two_stage_reduction_for_a_gpu_is_two_work_group_trees():
    result = apply(parse("reduce (+) 0 ∘ map abs"), "two-stage-reduction", "0", "[float]_65536",
                   groups=64, local=256, distribution="strided")
    assert str(result) == (
        "join ∘ mapWorkgroup (reduceSeq (+) 0 ∘ iterate 6 (join ∘ mapLocal (reduceSeqUnroll "
        "(+) 0) ∘ split 2) ∘ join ∘ toLocal (mapLocal (reduceSeq (+) 0)) ∘ split 1 ∘ "
        "reorderStride 64) ∘ split 64 ∘ join ∘ mapWorkgroup (reduceSeq (+) 0 ∘ iterate 8 (join "
        "∘ mapLocal (reduceSeqUnroll (+) 0) ∘ split 2) ∘ join ∘ toLocal (mapLocal (reduceSeq "
        "(λ(acc, x). acc + abs x) 0)) ∘ split 4 ∘ reorderStride 256) ∘ split 1024")


def test_two_stage_reduction_for_a_cpu_is_few_work_items_and_a_sequential_sum():
    result = apply(parse("reduce (+) 0 ∘ map abs"), "two-stage-reduction", "0", "[float]_65536",
                   groups=4, local=1, distribution="chunked")
    assert str(result) == ("reduceSeq (+) 0 ∘ join ∘ mapWorkgroup (reduceSeq (λ(acc, x). acc + "
                           "abs x) 0) ∘ split 16384")
    strided = apply(parse("reduce (+) 0 ∘ map abs"), "two-stage-reduction", "0",
                    "[float]_65536", groups=4, local=1, distribution="strided")
    assert str(strided).endswith("split 16384 ∘ reorderStride 4")


def test_a_vectorised_reduction_has_a_vector_accumulator():
    d = Derivation("reduce (+) 0 ∘ map abs", "[float]_4096")
    d.apply("map-reduce-vectorize", "0", n=8)
    assert str(d.current) == \
        "reduce (+) 0 ∘ joinVec ∘ reduce (mapVec (+)) 0 ∘ map (mapVec abs) ∘ splitVec 8"
    d.apply("map-reduceSeq-fusion", "2")
    assert str(d.current) == \
        "reduce (+) 0 ∘ joinVec ∘ reduceSeq (mapVec (λ(acc, x). acc + abs x)) 0 ∘ splitVec 8"


def test_dot_vectorises_its_zipped_input_into_pairs_of_vectors():
    d = Derivation("λxs ys. (reduce (+) 0 ∘ map (*)) (zip xs ys)", "[float]_1024",
                   "[float]_1024")
    d.apply("map-reduce-vectorize", "0.0.0", n=4)
    d.apply("map-reduceSeq-fusion", "0.0.2")
    assert "reduceSeq (mapVec (λ(acc, x). acc + (*) x)) 0 ∘ splitVec 4) (zip xs ys)" in \
        str(d.current)


@pytest.mark.parametrize("text,rule,params,words", [
    ("reduce (+) 2", "reduce-vectorize", {"n": 4}, "it must be 0, the neutral element of (+)"),
    ("reduce (*) 0", "reduce-vectorize", {"n": 4}, "it must be 1, the neutral element of (*)"),
    ("reduce (λ(a, b). a * b + 1) 0", "reduce-vectorize", {"n": 4},
     "must be (+), (*), min or max"),
    ("reduce (+) 0", "reduce-vectorize", {"n": 3}, "3 does not divide the array length 64"),
    ("reduceSeq (+) 0", "mapSeq→mapSeqUnroll", {}, "it rewrites mapSeq"),
])
def test_reduction_rules_say_why_they_do_not_apply(text, rule, params, words):
    with pytest.raises(RewriteRefused) as info:
        apply(parse(text), rule, "root", "[float]_64", **params)
    assert words in info.value.reason


def test_min_and_max_reductions_vectorise_from_any_start():
    result = apply(parse("reduce min 5.0"), "reduce-vectorize", "root", "[float]_64", n=4)
    assert str(result) == "reduce min 5.0 ∘ joinVec ∘ reduce (mapVec min) 5.0 ∘ splitVec 4"


def test_the_distribution_is_a_named_choice_kept_in_a_saved_derivation(tmp_path):
    d = Derivation("reduce (+) 0 ∘ map abs", "[float]_4096")
    d.apply("two-stage-reduction", "0", groups=16, local=64, distribution="strided")
    d.save(tmp_path / "d.json")
    again = Derivation.load(tmp_path / "d.json")
    assert again.current == d.current
    assert "distribution = strided" in again.steps[0].describe()
    with pytest.raises(RewriteRefused, match="chunked or strided, not sideways"):
        apply(parse("reduce (+) 0 ∘ map abs"), "two-stage-reduction", "0", "[float]_4096",
              groups=16, local=64, distribution="sideways")


def test_the_parameters_offered_fit_the_input():
    found = [r for r in rewrites(parse("reduce (+) 0 ∘ map abs"), "[float]_4096", at="0")
             if r.rule == "two-stage-reduction"]
    combos = {(int(r.params["groups"]), int(r.params["local"]), r.params["distribution"])
              for r in found}
    assert (16, 256, "strided") in combos and (2, 1, "chunked") in combos
    assert all(4096 % (g * max(local, 1)) == 0 for g, local, _ in combos)
    unrolled = rewrites(parse("join ∘ map (reduceSeq (+) 0) ∘ split 64"), "[float]_4096",
                        at="1.0")
    assert not [r for r in unrolled if r.rule == "reduceSeq→reduceSeqUnroll"]
