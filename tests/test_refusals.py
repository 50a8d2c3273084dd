"""Refusal messages, pinned: a fixed list of rules tried where they must refuse, with the
reason each gives. A rule's reason says which part of its left-hand side or which side
condition failed (the widget shows it next to the rule); a change to a rule's matching
keeps every reason here, or improves it and updates its row.

Each row: rule, expression, path, parameters, input types, reason.
"""

import pytest

from workbench import parse
from workbench.rules import RewriteRefused, apply

F = "[float]_64"
M = "[[float]_8]_8"

REFUSALS = [
    # interchange.py: the basic rules of register blocking and tiling
    ("map-interchange", "map abs", "root", {}, F,
     "it rewrites map (λa. map (λb. e) ys) xs (a map applied to an array)"),
    ("map-interchange", "λxs. map abs xs", "0", {}, F,
     "the outer map's function must be a lambda λa. …"),
    ("map-interchange", "λm. map (map abs) m", "0", {}, M,
     "the outer map's function must be a lambda λa. …"),
    ("map-interchange", "λm. map (λr. abs r) m", "0", {}, F,
     "the outer map's body must be a map applied to an array: λa. map (λb. e) ys"),
    ("map-interchange", "λm. map (λr. map abs r) m", "0", {}, M,
     "the inner map's function must be a lambda λb. …"),
    ("map-interchange", "λm. map (λr. map (λx. x + 1) r) m", "0", {}, M,
     "the inner map's array depends on r, the outer map's variable"),
    ("map-fission", "map abs", "root", {"at": 1}, F,
     "the function must be a composition f ∘ g or a lambda λx. g e"),
    ("map-fission", "mapSeq abs", "root", {"at": 1}, F,
     "it rewrites a high-level map f"),
    ("map-fission", "map (abs ∘ sqrt)", "root", {"at": 2}, F,
     "the cut is between two of the 2 functions: 1 to 1, not 2"),
    ("map-fission", "map (λx. abs x)", "root", {"at": 2}, F,
     "a lambda λx. g e is cut once (at 1), not at 2"),
    ("map-fission", "map (λx. x + 1)", "root", {"at": 1}, F,
     "the lambda's body must apply a function to one value: λx. g e"),
    ("map-fission", "map (λx. (λy. x + y) x)", "root", {"at": 1}, F,
     "the function applied last, λy. x + y, depends on x"),
    ("map-reduce-interchange", "map abs", "root", {}, F,
     "it rewrites map (reduce f z) or map (reduceSeq f z)"),
    ("transpose-map-map", "map abs", "root", {}, F,
     "it rewrites map (map f)"),
    ("transpose-transpose", "join ∘ split 4", "0", {}, F,
     "it rewrites transpose ∘ transpose"),
    ("transpose-transpose", "transpose", "root", {}, M,
     "it rewrites a function and the one composed after it (f ∘ g); this node has no right "
     "neighbour in a composition"),
    ("reduce-map-fusion", "reduce (+) 0 ∘ reorder", "0", {}, F,
     "it rewrites reduce f z ∘ map g"),
    ("map-fusion-apply", "map abs", "root", {}, F,
     "it rewrites map f (map g xs)"),
    ("map-fusion-apply", "λxs. map abs (reorder xs)", "0", {}, F,
     "the array must itself be a map: map f (map g xs)"),
    ("map-zip-fusion", "map abs", "root", {}, F,
     "it rewrites map f (zip … (map g ys) …)"),
    ("map-zip-fusion", "λxs. map abs (reorder xs)", "0", {}, F,
     "the map's array must be a zip"),
    ("map-zip-fusion", "λxs. map (λp. p.0 * p.1) (zip xs xs)", "0", {}, F,
     "no argument of the zip is a map g ys"),
    ("zip-transpose", "map abs", "root", {}, F,
     "it rewrites transpose (map (λx. zip c (e x)) xs)"),
    ("zip-transpose", "λm. transpose (reorder m)", "0", {}, M,
     "the transposed array must be a map applied to an array"),
    ("zip-transpose", "λm. transpose (map (map abs) m)", "0", {}, M,
     "the map's function must be a lambda λx. zip …"),
    ("zip-transpose", "λm. transpose (map (λx. map abs x) m)", "0", {}, M,
     "the map's function must zip two arrays: λx. zip c (e x)"),
    ("zip-transpose", "λm. transpose (map (λx. zip x x) m)", "0", {}, M,
     "both arrays of the zip depend on x"),
    ("split-zip", "λxs. map abs xs", "0", {}, F,
     "it rewrites split n (zip xs ys)"),
    ("split-zip", "λxs. split 4 (reorder xs)", "0", {}, F,
     "the split array must be a zip"),
    ("reduce-split", "map abs", "root", {"s": 4}, F,
     "it rewrites reduce f z or reduceSeq f z"),
    ("reduce-split", "reduce (+) 0", "root", {"s": 3}, F,
     "chunks of 3: 3 does not divide the array length 64"),
    ("untile", "join ∘ map (split 2) ∘ split 4", "0", {}, F,
     "the map's function must be map join ∘ transpose"),
    ("untile", "map abs", "root", {}, F,
     "it rewrites a function and the one composed after it (f ∘ g); this node has no right "
     "neighbour in a composition"),
    ("tile-split-join", "map abs", "root", {"m": 2, "n": 2}, F,
     "it rewrites map (map f)"),
    ("tile-split-join", "map (map abs)", "root", {"m": 3, "n": 2}, M,
     "tiles of 3 rows: 3 does not divide the array length 8"),
    ("tile-split-join", "map (map abs)", "root", {"m": 2, "n": 3}, M,
     "tiles of 3 columns: 3 does not divide the array length 8"),
    ("compose-apply", "λxs. map abs xs", "0", {}, F,
     "it rewrites (f ∘ g) x"),
    ("apply-compose", "λxs. map abs xs", "0", {}, F,
     "the argument must itself be a function (not a lambda) applied to one value: f (g x)"),
    ("apply-compose", "λxs. map abs ((λy. y) xs)", "0", {}, F,
     "the argument must itself be a function (not a lambda) applied to one value: f (g x)"),
    ("eta", "map (λx. abs x)", "root", {}, F,
     "the function is already a lambda"),
    ("eta", "mapSeq abs", "root", {}, F,
     "it rewrites a high-level map f"),
    ("beta", "λxs. map abs xs", "0", {}, F,
     "it rewrites (λx. e) a, a lambda applied to an argument, or (⊕) (a, b), an operator "
     "applied to a pair"),
    ("beta", "map abs", "root", {}, F,
     "it rewrites (λx. e) a, a lambda applied to an argument, or (⊕) (a, b), an operator "
     "applied to a pair"),
    # algorithmic.py: ICFP Fig. 6
    ("iterate-decomposition", "map abs", "root", {"m": 1}, F,
     "it rewrites iterate n f"),
    ("iterate-decomposition", "iterate 3 (map abs)", "root", {"m": 3}, F,
     "m must be between 1 and 3 - 1"),
    ("reorder-commute", "reorder ∘ map abs", "0", {}, F,
     "it rewrites map f ∘ reorder"),
    ("reorder-commute-back", "map abs ∘ reorder", "0", {}, F,
     "it rewrites reorder ∘ map f"),
    ("split-join", "reduce (+) 0", "root", {"n": 4}, F,
     "it rewrites a high-level map f"),
    ("split-join", "map abs", "root", {"n": 3}, F,
     "split 3: 3 does not divide the array length 64"),
    ("split-join", "map abs", "root", {"n": 0}, F,
     "split 0: 0 is not a positive whole number"),
    ("reduce-partial", "map abs", "root", {"n": 4}, F,
     "it rewrites reduce f z"),
    ("reduce-partial", "reduce (+) 0", "root", {"n": 5}, F,
     "reducePart to 5 results: 5 does not divide the array length 64"),
    ("partial-partial", "reduce (+) 0", "root", {"m": 4}, F,
     "it rewrites reducePart f z n"),
    ("partial-partial", "reducePart (+) 0 4", "root", {"m": 6}, F,
     "reducePart to 6 results: 6 does not divide the array length 64"),
    ("partial-partial", "reducePart (+) 0 4", "root", {"m": 2}, F,
     "4 results must come from 2 by whole chunks (4 does not divide 2)"),
    ("partial-reduce", "reducePart (+) 0 2", "root", {}, F,
     "it rewrites reducePart f z 1"),
    ("partial-reorder", "reduce (+) 0", "root", {}, F,
     "it rewrites reducePart f z n"),
    ("partial-iterate", "reduce (+) 0", "root", {"k": 2}, F,
     "it rewrites reducePart f z n"),
    ("partial-iterate", "reducePart (+) 0 1", "root", {"k": 65}, F,
     "the number of iterations is a whole number from 1 to 64, not 65"),
    ("partial-iterate", "reducePart (+) 0 2", "root", {"k": 2}, F,
     "32 (= 64/2) is not a 2-th power of a whole number"),
    ("partial-split", "reduce (+) 0", "root", {"j": 2}, F,
     "it rewrites reducePart f z n"),
    ("partial-split", "reducePart (+) 0 4", "root", {"j": 3}, F,
     "3 does not divide the number of results 4"),
    ("join-split", "split 4 ∘ join", "0", {}, M,
     "it rewrites join ∘ split"),
    ("split-join-cancel", "join ∘ split 4", "0", {}, F,
     "it rewrites split ∘ join"),
    ("split-join-cancel", "split 4 ∘ join", "0", {}, M,
     "the joined chunks have length 8, not 4"),
    ("joinVec-splitVec", "join ∘ split 4", "0", {}, F,
     "it rewrites joinVec ∘ splitVec"),
    ("splitVec-joinVec", "join ∘ split 4", "0", {}, F,
     "it rewrites splitVec ∘ joinVec"),
    ("map-fusion", "map abs ∘ mapSeq abs", "0", {}, F,
     "it rewrites map f ∘ map g (two maps of the same kind)"),
    ("map-fusion", "map abs", "root", {}, F,
     "it rewrites a function and the one composed after it (f ∘ g); this node has no right "
     "neighbour in a composition"),
    ("reduceSeq-mapSeq-fusion", "reduceSeq (+) 0 ∘ map abs", "0", {}, F,
     "it rewrites reduceSeq f z ∘ mapSeq g"),
    # extraction.py's η and β, and the one-line renamings of opencl.py, scans.py and reductions.py
    ("η-reduction", "map (λx. x * 2)", "0", {}, F,
     "it rewrites λx. f x (x not used by f)"),
    ("η-reduction", "map (λx. (λy. x + y) x)", "0", {}, F,
     "it rewrites λx. f x (x not used by f)"),
    ("β-reduction", "map abs", "root", {}, F,
     "it rewrites (λx. e) a, a lambda applied to an argument, or (⊕) (a, b), an operator "
     "applied to a pair"),
    ("β-reduction", "λxs ys. (λ(a, b). map abs a) (xs, ys)", "0", {}, (F, F),
     "the lambda's parameters are not one plain name per argument"),
    ("β-reduction", "map (λx. (λy. y * 2) (x + 1))", "0.0", {}, F,
     "an argument computes something (inlining it could compute it again); only variables "
     "and views of them (zip, get, split, …) are inlined"),
    ("reduce→reduceSeq", "map abs", "root", {}, F,
     "it rewrites reduce f z"),
    ("scan→scanSeq", "map abs", "root", {}, F,
     "it rewrites scan f z"),
    ("reduceSeq→reduceSeqUnroll", "reduce (+) 0", "root", {}, F,
     "it rewrites reduceSeq"),
    ("reduceSeq→reduceSeqUnroll", "reduceSeq (+) 0", "root", {}, F,
     "unrolling pays for short loops (up to 32); this one has 64"),
    ("mapSeq→mapSeqUnroll", "map abs", "root", {}, F,
     "it rewrites mapSeq"),
    ("mapSeq→mapSeqUnroll", "mapSeq abs", "root", {}, F,
     "unrolling pays for short loops (up to 32); this one has 64"),
]


def test_the_table_covers_every_rule_of_interchange_and_algorithmic():
    from workbench.rules import algorithmic, interchange

    named = {row[0] for row in REFUSALS}
    assert {r.name for r in interchange.RULES + algorithmic.RULES} <= named
    assert len(REFUSALS) >= 25


@pytest.mark.parametrize("rule,text,path,params,types,reason", REFUSALS,
                         ids=[f"{row[0]} at {row[2]} of {row[1]}" for row in REFUSALS])
def test_a_misapplied_rule_gives_its_reason(rule, text, path, params, types, reason):
    types = types if isinstance(types, tuple) else (types,)
    with pytest.raises(RewriteRefused) as refused:
        apply(parse(text), rule, path, *types, **params)
    assert refused.value.reason == reason
