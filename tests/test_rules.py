"""Every rule is sound: on random well-typed instances the interpreter gives the same result
before and after the rewrite (SPEC 5). Refusals say which condition failed."""

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.test_rules_sharing import REFUSALS as SHARING_REFUSALS
from tests.test_rules_sharing import TEMPLATES as SHARING_TEMPLATES
from tests.test_turns import TEMPLATES as TURNS_TEMPLATES
from tests.test_zips import REFUSALS as ZIP_REFUSALS
from tests.test_zips import TEMPLATES as ZIP_TEMPLATES
from workbench import evaluate, parse
from workbench.rules import CATALOGUE, RewriteRefused, apply, rewrites, rules

UNARY = ["abs", "(λx. x * 3)", "(λx. x + 1.5)", "(λx. max x 0)", "(*2)", "(λx. x * x - 1)",
         "(λx. if x > 0 then x else 0.5 * x)"]
# Associative and commutative operators with their neutral element (reduce assumes both).
MONOIDS = [("(+)", "0"), ("(*)", "1"), ("max", "(-1000000.0)"), ("min", "1000000.0"),
           ("(λ(a, b). a + b)", "0"), ("(λa b. a + b)", "0")]  # a pair, or curried (Lift)

L = "[float]_{L}"
# vectorised, work-group and two-stage reductions; unrolling (rules.vectors, rules.reductions)
REDUCTION_TEMPLATES = {
    "reduce-vectorize": ["reduce {OP} {Z}", "reduce {OP} {Z} ∘ map {F}"],
    "map-reduce-vectorize": ["reduce {OP} {Z} ∘ map {F}"],
    "map-reduceSeq-fusion": ["reduce {OP} {Z} ∘ map {F}",
                             "join ∘ map (reduce {OP} {Z} ∘ map {F}) ∘ split {D}"],
    "workgroup-reduce": ["join ∘ mapWorkgroup (reduce {OP} {Z}) ∘ split {D}"],
    "workgroup-map-reduce": ["join ∘ mapWorkgroup (reduce {OP} {Z} ∘ map {F}) ∘ split {D}",
                             # a pair accumulator (two reductions fused: zip-reduce-fusion)
                             "join ∘ mapWorkgroup (reduce (λ(a, b). (a.0 + b.0, a.1 + b.1)) "
                             "(0.0, 0.0) ∘ map (λx. ({F} x, {G} x))) ∘ split {D}",
                             "join ∘ mapWorkgroup (reduce (λ(a, b). (a.0 * b.0, max (a.1, "
                             "b.1))) (1.0, -1000000.0) ∘ map (λx. (x * 0.001 + 1.0, {G} x))) ∘ "
                             "split {D}"],
    "two-stage-reduction": ["reduce {OP} {Z} ∘ map {F}"],
    "reduce-single": ["reduce (+) 0 ∘ join ∘ map (reduce {OP} {Z}) ∘ split {L}",
                      "reduce (*) 1 ∘ join ∘ map (reduce {OP} {Z} ∘ map {F}) ∘ split {L}"],
    "reduceSeq→reduceSeqUnroll": ["join ∘ map (reduceSeq {OP} {Z}) ∘ split 4",
                                  "join ∘ map (reduceSeq (λ(acc, x). acc * 0.5 + x) 0) ∘ "
                                  "split 2"],
    "mapSeq→mapSeqUnroll": ["join ∘ map (mapSeq {F}) ∘ split 4"],
}
MATRIX = "[[float]_{C}]_{R}"
F4 = "[<float>_4]_{L}"  # float4s
# Matrix multiplication (the program of the matrix-multiplication slides), and its tiled form.
MM = ("λa b. map (λrowA. join (map (λcolB. (reduce (+) 0 ∘ map (*)) (zip rowA colB)) "
      "(transpose b))) a", ["[[float]_{K}]_{R}", "[[float]_{C}]_{K}"])
MM_TILED = ("λa b. (untile ∘ map (λas. map (λbs. map (λrowA. map (λcolB. (reduce (+) 0 ∘ "
            "map (*)) (zip rowA colB)) bs) as) (split 2 (transpose b))) ∘ split 2) a",
            MM[1])
# A work-group's reduction with an array accumulator updated by its local maps (the shape of
# a tiled matrix multiplication): the copies into local, private and global memory apply.
GROUP_REDUCTION = (
    "λa b. mapWorkgroup (λ(m, n). reduceSeq (λ(acc, x). mapLocal 1 (λ(r, p). mapLocal 0 "
    "(λ(c, q). c + at 0 p * at 1 q) (zip r x.1)) (zip acc x.0)) (replicate 4 (replicate 4 0.0)) "
    "(zip m n)) (zip a b)", ["[[[[float]_4]_4]_{K}]_{R}", "[[[[float]_4]_4]_{K}]_{R}"])
# GROUP_REDUCTION with both tiles copied into local memory (local-copy, t = 0 and 1)
LOCAL_TILES = (
    "λa b. mapWorkgroup (λ(m, n). reduceSeq (λ(acc, x). (λBtile. (λAtile. mapLocal 1 (λ(r, p). "
    "mapLocal (λ(c, q). c + at 0 p * at 1 q) (zip r Btile)) (zip acc Atile)) (split 4 (join "
    "(join (toLocal (mapSeq (mapLocal 1 (mapLocal id))) (split 2 (split 2 (join x.0)))))))) "
    "(transpose (split 4 (join (join (toLocal (mapSeq (mapLocal 1 (mapLocal id))) (split 2 "
    "(split 2 (join (transpose x.1)))))))))) (replicate 4 (replicate 4 0.0)) (zip m n)) (zip a b)")
# a work-group's reduction whose element's parts are arrays of matrices (the tiles of a
# blocked matrix multiplication), and the same with A's tile copied along the rows of memory
# (local-copy t = 5) and B's interleaved by vectors (t = 4)
TILED_REDUCTION = (
    "λa b. mapWorkgroup (λ(m, n). reduceSeq (λ(acc, x). mapLocal 1 (λ(r, p). mapLocal 0 (λ(c, "
    "q). c + at 0 (at 1 p) * at 1 (at 0 q)) (zip r x.1)) (zip acc x.0)) (replicate 4 (replicate "
    "4 0.0)) (zip m n)) (zip a b)", ["[[[[[float]_4]_2]_4]_{K}]_{R}"] * 2)
TILED_COPIES = (
    "λa b. mapWorkgroup (λ(m, n). reduceSeq (λ(acc, x). (λBtile. (λAtile. mapLocal 1 (λ(r, p). "
    "mapLocal (λ(c, q). c + at 0 (at 1 p) * at 1 (at 0 q)) (zip r Btile)) (zip acc Atile)) "
    "(toLocal (map transpose ∘ split 4 ∘ split 2 ∘ join ∘ join ∘ mapSeq (mapLocal 1 (mapLocal "
    "id))) (split 2 (split 2 (join (join (map transpose x.0))))))) (map (map join) (transpose "
    "(map transpose (split 1 (split 4 (split 4 (join (join (toLocal (mapSeq (mapLocal 1 "
    "(mapLocal id))) (split 2 (split 2 (join (join (join (map transpose (transpose (map (map "
    "(split 4)) x.1)))))))))))))))))) (replicate 4 (replicate 4 0.0)) (zip m n)) (zip a b)",
    TILED_REDUCTION[1])


def curried(template):
    """A template with its reductions' operators written curried, ``λacc x. e`` for
    ``λ(acc, x). e``, as Lift writes ReduceSeq's: the rules take them alike."""
    text, *types = template if isinstance(template, tuple) else (template,)
    text = re.sub(r"(reduceSeq \()λ\((\w+), (\w+)\)\.", r"\1λ\2 \3.", text)
    return (text, *types) if types else text


VEC_SRC = "splitVec {V} ∘ joinVec ∘ splitVec {V}"
WG = "join ∘ mapWorkgroup ({BODY}) ∘ split {D}"
PRIVATE_VECTORS = ("λa b. mapGlobal (λ(m, n). reduceSeq (λ(acc, x). mapSeq (λ(c, q). c + q) "
                   "(zip acc (mapSeq (λp. p.0 * p.1) (zip x.0 x.1)))) (replicate {C} 0.0) "
                   "(zip m n)) (zip a b)", ["[[[float]_{C}]_{K}]_{R}", "[[[float]_{C}]_{K}]_{R}"])

TEMPLATES = {
    "iterate-decomposition": ["iterate {K} (join ∘ map (reduce {OP} {Z}) ∘ split 2)"],
    "iterate-once": ["iterate 1 (join ∘ map (reduce {OP} {Z}) ∘ split 2)",
                     "iterate 1 (map {F})"],
    "reorder-commute": ["reduce {OP} {Z} ∘ map {F} ∘ reorder"],
    "reorder-commute-back": ["reduce {OP} {Z} ∘ reorder ∘ map {F}"],
    "split-join": ["map {F}", "reduce {OP} {Z} ∘ map {F}"],
    "reduce-partial": ["reduce {OP} {Z}", "reduce {OP} {Z} ∘ map {F}"],
    "partial-reduce": ["reducePart {OP} {Z} 1"],
    "partial-partial": ["reducePart {OP} {Z} 1", "reducePart {OP} {Z} 2"],
    "partial-reorder": ["reduce {OP} {Z} ∘ reducePart {OP} {Z} {D}"],
    "partial-iterate": ["reducePart {OP} {Z} {D}"],
    "partial-split": ["reducePart {OP} {Z} {D}"],
    "join-split": ["join ∘ split {D}", "join ∘ split {D} ∘ map {F}"],
    "split-join-cancel": ["split {D} ∘ join ∘ split {D}"],
    "joinVec-splitVec": ["joinVec ∘ splitVec {V}"],
    "splitVec-joinVec": [VEC_SRC],
    "map-fusion": ["map {F} ∘ map {G}", "mapSeq {F} ∘ mapSeq {G}"],
    "reduceSeq-mapSeq-fusion": ["reduceSeq {OP} {Z} ∘ mapSeq {F}",
                                "reduceSeq (λ(acc, x). acc * 0.5 + x) 0 ∘ mapSeq {F}"],
    "map→mapGlobal": ["map {F}"],
    "map→mapWorkgroup": ["join ∘ map (map {F}) ∘ split {D}"],
    "map→mapLocal": [WG.replace("{BODY}", "map {F}")],
    "map→mapWarp": [WG.replace("{BODY}", "join ∘ map (map {F}) ∘ split 2")],
    "map→mapLane": [WG.replace("{BODY}", "join ∘ mapWarp (map {F}) ∘ split 2")],
    "map→mapSeq": ["map {F}", "reduce {OP} {Z} ∘ map {F}"],
    "reduce→reduceSeq": ["reduce {OP} {Z}", "join ∘ map (reduce {OP} {Z}) ∘ split {D}"],
    "reorder→reorderStride": ["reduce {OP} {Z} ∘ reorder", "reduce {OP} {Z} ∘ reorder ∘ map {F}"],
    "reorder→id": ["reduce {OP} {Z} ∘ reorder"],
    "toLocal": [WG.replace("{BODY}", "mapLocal {F}")],
    "toGlobal": [WG.replace("{BODY}", "mapLocal {F}")],
    "toPrivate": ["join ∘ mapGlobal (mapSeq {F}) ∘ split {D}"],
    "vectorize": ["map {F}"],
    "id-after": ["map {F}", "reduce {OP} {Z} ∘ map {F}"],
    "id-before": ["map {F}"],
    "id-elim": ["map {F} ∘ id", "id ∘ map {F}"],
    "id→map": ["id ∘ map {F}", "map {F} ∘ id"],
    "map-reduce-fusion": ["reduce {OP} {Z} ∘ map {F}"],
    "map-reduce-fusion-strided": ["reduce {OP} {Z} ∘ map {F}"],
    "reduce-chunks": ["reduce {OP} {Z}", "reduce {OP} {Z} ∘ map {F}"],
    "reduce-chunks-strided": ["reduce {OP} {Z}", "reduce {OP} {Z} ∘ map {F}"],
    # Futhark's kernel extraction (G1–G7)
    "map-nest→kernel": ["join ∘ map (map {F}) ∘ split {D}", "map {F}"],
    "map-distribution": ["join ∘ map (λr. map (λx. x * at 0 (reduce {OP} {Z} r)) r) ∘ split {D}",
                         "join ∘ map (λr. map {F} (map {G} r)) ∘ split {D}"],
    "reduce-map-interchange": [
        "join ∘ reduce (λ(a, b). map {OP} (zip a b)) (replicate {D} (float {Z})) ∘ split {D}"],
    "rearrange-distribution": ["join ∘ join ∘ map (rearrange (1, 0)) ∘ map (split 2) ∘ split {D}"],
    "rearrange-undistribution": ["join ∘ join ∘ rearrange (0, 2, 1) ∘ map (split 2) ∘ split {D}"],
    "transpose→rearrange": ["join ∘ transpose ∘ split {D}"],
    "rearrange→transpose": ["join ∘ rearrange (1, 0) ∘ split {D}"],
    "map-loop-interchange": [
        "join ∘ map (loop {K} (λi w. map (λy. y * 0.5 + float i) w)) ∘ split {D}",
        "join ∘ map (λr. loop {K} (λi w. map (λ(y, x). y * 0.5 + x) (zip w r)) r) ∘ split {D}"],
    "map-iterate-interchange": ["join ∘ map (iterate {K} (map {F})) ∘ split {D}"],
    "iterate→loop": ["iterate {K} (join ∘ map (reduce {OP} {Z}) ∘ split 2)"],
    "β-reduction": ["λxs. (λys. map {F} ys) xs", "map (λx. (λy. y * 2) x)"],
    "η-reduction": ["map (λx. {F} x)"],
    # scans (SkelCL)
    "scan→scanSeq": ["scan {OP} {Z}"],
    "scan→scanLocal": ["join ∘ mapWorkgroup (scan {OP} {Z}) ∘ split {D}"],
    "scan-blocks": ["scan {OP} {Z}"],
    # P2CL and SkelCL skeletons, P2CL's pattern fusion
    "opMap→split-join": ["opMap {D} (map {F})", "opMap {D} (gather (λi n. n - 1 - i))"],
    "allPairs→maps": ["join ∘ join ∘ (λa. allPairs (λx y. reduce {OP} {Z} (map (λ(p, q). p * q) "
                      "(zip x y))) a a) ∘ split {D}"],
    "copy-elimination": ["map {F} ∘ map id ∘ gather (λi n. n - 1 - i)",
                         "scatter (λi n. n - 1 - i) ∘ map id ∘ map {F}",
                         "reduce {OP} {Z} ∘ map id"],
    # PACT
    "innerSplit-innerJoin": ["innerSplit 2 ∘ innerJoin ∘ map (split 2) ∘ split {D}"],
    "innerJoin-innerSplit": ["innerJoin ∘ innerSplit 2 ∘ split {D}"],
    "reduce→iterate": ["reduce {OP} {Z}"],
    "reduce→reduceSeq (PACT)": [
        "join ∘ mapWorkgroup (join ∘ mapLocal (reduce {OP} {Z}) ∘ split 2) ∘ split {D}"],
    **REDUCTION_TEMPLATES,
    **SHARING_TEMPLATES,  # a shared array tiled through local memory (rules.sharing)
    **ZIP_TEMPLATES,  # computations side by side fused through their zip (rules.zips)
    **TURNS_TEMPLATES,  # a C function's sine of 2π·t as sinpi (rules.turns), with its functions
    "map-interchange": [("λxs ys. map (λa. map (λb. a * {F} b) ys) xs", [L, "[float]_{C}"]),
                        (MM[0].replace("join (", "(", 1), MM[1])],
    "map-fission": ["map ({F} ∘ {G})", "map (λx. {F} (x * 2.5))",
                    "join ∘ map (map {F} ∘ map {G}) ∘ split {D}",
                    ("map (λrow. join (map (map {F}) (split 2 row)))", [MATRIX])],
    "map-reduce-interchange": [("map (reduce {OP} {Z})", [MATRIX]),
                               ("map (reduceSeq (λ(acc, x). acc * 0.5 + {F} x) 0)",
                                [MATRIX])],
    "transpose-map-map": [("map (map {F})", [MATRIX])],
    "transpose-transpose": [("transpose ∘ transpose ∘ map (map {F})", [MATRIX])],
    "reduce-map-fusion": ["reduce {OP} {Z} ∘ map {F}",
                          ("map (reduce (λ(a, b). map (+) (zip a b)) (replicate {C} 0) ∘ "
                           "map (map {F}))", ["[[[float]_{C}]_{K}]_{R}"])],
    "map-fusion-apply": [("λxs. map {F} (map {G} xs)", [L])],
    "map-zip-fusion": [("λxs. map (λp. p.0 * p.1 - p.0) (zip xs (map {F} xs))", [L])],
    "zip-transpose": [("λm v. map (map (λp. p.0 * p.1)) (transpose (map (λrow. zip row v) "
                       "m))", [MATRIX, "[float]_{C}"]),
                      ("λm v. map (map (λp. p.0 - p.1)) (transpose (map (λrow. zip v "
                       "(map {F} row)) m))", [MATRIX, "[float]_{C}"])],
    "split-zip": [("λxs. map (map (λp. p.0 - p.1)) (split {D} (zip xs (map {F} xs)))", [L])],
    "reduce-split": ["reduce {OP} {Z}", "reduceSeq (λ(acc, x). acc * 0.5 + {F} x) 0",
                     ("reduce (λ(a, b). map (+) (zip a b)) (replicate {C} 0)", [MATRIX])],
    "untile": [("join ∘ map (map join ∘ transpose) ∘ map (map (map (map {F}))) ∘ tile 2 2",
                [MATRIX])],
    "tile-split-join": [("map (map {F})", [MATRIX])],
    "compose-apply": [("λxs. (map {F} ∘ map {G}) xs", [L])],
    "apply-compose": [("λxs. map {F} (map {G} xs)", [L])],
    "eta": ["map abs", "map (*2.5)", ("map (map {F})", [MATRIX])],
    "beta": [("λxs. (λys. map {F} ys) xs", [L]), "map (λx. (+) (x, 1.5))"],
    "map→mapSeqUnroll": ["map {F}", ("map (map {F})", [MATRIX])],
    "local-copy": [GROUP_REDUCTION, TILED_REDUCTION, curried(GROUP_REDUCTION),
                   curried(TILED_REDUCTION)],
    "private-accumulator": [GROUP_REDUCTION],
    "copy-out": [GROUP_REDUCTION],
    "private-vectors": [PRIVATE_VECTORS, curried(PRIVATE_VECTORS)],
    "prefetch": [(LOCAL_TILES, GROUP_REDUCTION[1]), TILED_COPIES,
                 curried((LOCAL_TILES, GROUP_REDUCTION[1]))],
    "pack": [("λa b. map (λrow. join (map (λcols. map (λc. (reduce (+) 0 ∘ map (*)) (zip row c)) "
              "cols) (split 2 (transpose b)))) a", MM[1])],
    # normal forms before an exploration (rules.normalisation)
    "reduce-map-fission": ["reduceSeq (λ(acc, x). acc + {F} x) 0",
                           "reduceSeq (λacc x. {F} x * acc) 1",
                           ("map (reduceSeq (λ(acc, p). acc + p.0 * p.1) 0 ∘ zip (replicate "
                            "{C} 2.5))", [MATRIX])],
    "map-at-join": [("map (λrow. at 0 (reduce {OP} {Z} row))", [MATRIX])],
    "transpose-transpose-introduction": [("λm. map (map {F}) m", [MATRIX])],
    "operator-η": [("λxs. map (λp. p.0 * p.1) (zip xs (map {F} xs))", [L]),
                   ("λxs. map (λp. (+) p.0 p.1) (zip xs xs)", [L])],
    "1d-blocking": [MM],
    "2d-blocking": [MM],
    "tiling": [MM],
    "innermost-tiling": [MM_TILED],
    # a stencil's result padded on its way out (rules.pads)
    "pad-map-interchange": [("λm. (map (padClamp 1 1) ∘ padClamp 1 2 ∘ map (map {F})) m",
                             [MATRIX]),
                            ("λm. (map (padMirror 2 1 ∘ padWrap 1 1) ∘ map (map {F})) m",
                             [MATRIX]),
                            "padWrap 2 1 ∘ map {F}", "padMirror 1 1 ∘ map {F}"],
    # the copy of a view on the way out (rules.lowering): of a program that computes nothing,
    # after a pad or a slide, after a splitVec in a map
    "copy-view": [("transpose", [MATRIX]), "padClamp 1 2 ∘ map {F}",
                  "λxs. padWrap 2 1 (map {F} xs)",
                  "slide 3 1 ∘ map {F}", "join ∘ map (splitVec 2 ∘ map {F}) ∘ split {D}",
                  ("λm. map (λr. padMirror 1 1 (map {F} r)) m", [MATRIX]), "λxs. xs"],
    # n rows at a time in the lanes of vectors (rules.vectors)
    "vectorize-lanes": [("map (λrow. reduce {OP} {Z} (map {F} row))", [MATRIX]),
                        ("map (map {F})", [MATRIX]),
                        ("λm v. map (λrow. map (λp. p.0 * p.1) (zip row v)) m",
                         [MATRIX, "[float]_{C}"])],
    # n float4s at a time, each component's lanes one vector (rules.opencl, rules.vectors)
    "vectorize-components": [("map (mapVec {F})", [F4]),
                             ("λps vs. map (λe. mapVec (λp. {F} (p.0 * p.1) + p.0) (e.0, e.1)) "
                              "(zip ps vs)", [F4, F4])],
    "vectorize-lanes-float4": [
        ("λps qs. map (λp. reduce (mapVec {OP}) {Z} (map (λq. mapVec (λx. {F} (x.0 - x.1)) "
         "(p, q)) qs)) ps", [F4, "[<float>_4]_{C}"]),
        ("λps vs qs. map (λe. (map (λa. mapVec (λx. x.0 + x.1 * x.2) (e.0, e.1, a)) ∘ "
         "reduce (mapVec (+)) 0 ∘ map (λq. mapVec {F} q)) qs) (zip ps vs)",
         [F4, F4, "[<float>_4]_{C}"])],
    # more outputs per work-item: maps of reductions over a shared array (rules.outputs)
    "block-outputs": [
        ("λm v. map (λrow. reduce {OP} {Z} (map (λp. p.0 * p.1) (zip row v))) m",
         [MATRIX, "[float]_{C}"]),
        ("λxs ys. map (λx. (reduce {OP} {Z} ∘ map (λy. {F} (x - y))) ys) xs",
         ["[float]_{R}", "[float]_{C}"]),
        ("λxs ys. map (λx. (map (λs. s * x) ∘ reduce {OP} {Z} ∘ map {F}) ys) xs",
         ["[float]_{R}", "[float]_{C}"]),
        ("λxs ys. map (λx. reduceSeq (λ(acc, y). acc * 0.5 + x * y) 0.0 ys) xs",
         ["[float]_{R}", "[float]_{C}"]),
        ("λm c. map (λrow. reduceSeq (λ(acc, cl). min acc (at 0 (reduce (+) 0 (map (λp. (p.0 "
         "- p.1) * (p.0 - p.1)) (zip row cl))))) 1000000.0 c) m", [MATRIX, "[[float]_{C}]_{K}"])],
    # the same, in vectors (after map-reduce-vectorize: GEMV's rows in float-n loads)
    "block-vector-outputs": [
        ("λm v. map (λrow. (reduce {OP} {Z} ∘ joinVec ∘ reduce (mapVec {OP}) {Z} ∘ map (mapVec "
         "(λp. p.0 * p.1)) ∘ splitVec 4) (zip row v)) m", [MATRIX, "[float]_{C}"]),
        ("λm v. map (λrow. (map (λs. s * 2) ∘ reduce (+) 0 ∘ joinVec ∘ reduce (mapVec (+)) 0 ∘ "
         "map (mapVec (λp. p.1 * {F} p.0)) ∘ splitVec 2) (zip v row)) m",
         [MATRIX, "[float]_{C}"]),
        ("λxs ys. map (λx. (reduce {OP} {Z} ∘ joinVec ∘ reduce (mapVec {OP}) {Z} ∘ map (mapVec "
         "{F}) ∘ splitVec 2) ys) xs", ["[float]_{R}", "[float]_{C}"])],
    # a small input read from constant memory (rules.constant)
    "input→toConstant": [("λxs ys. map (λx. (reduce {OP} {Z} ∘ map (λy. x * y)) ys) xs",
                          [L, "[float]_{C}"]),
                         ("λm v. map (λrow. reduce {OP} {Z} (map (λp. p.0 * {F} p.1) (zip row "
                          "v))) m", [MATRIX, "[float]_{C}"])],
}


def test_every_rule_has_a_soundness_test():
    assert set(TEMPLATES) == set(CATALOGUE)


@st.composite
def instances(draw, rule_name):
    template = draw(st.sampled_from(TEMPLATES[rule_name]))
    text, inputs, functions = (template + ({},))[:3] if isinstance(template, tuple) else \
        (template, [L], {})
    log2 = draw(st.integers(3, 9))
    length = 2 ** log2 * draw(st.sampled_from([1, 1, 3]))
    op, zero = draw(st.sampled_from(MONOIDS))
    fill = {
        "F": draw(st.sampled_from(UNARY)), "G": draw(st.sampled_from(UNARY)),
        "OP": op, "Z": zero, "L": str(length),
        "D": str(2 ** draw(st.integers(1, log2 - 1))),
        "V": str(draw(st.sampled_from([2, 4, 8]))),
        "K": str(draw(st.integers(2, 3))),
    }
    # matrices: rows, columns and a shared dimension, small (every size a power of two)
    dims = {"R": str(2 ** draw(st.integers(2, 4))), "C": str(2 ** draw(st.integers(2, 4)))}
    dims["K"] = str(2 ** draw(st.integers(2, 4))) if inputs != [L] else fill["K"]
    for key, value in fill.items():
        text = text.replace("{" + key + "}", value if key != "K" or inputs == [L]
                            else dims["K"])
    for key, value in dims.items():
        text = text.replace("{" + key + "}", value)
    types = []
    for t in inputs:
        for key, value in {**fill, **dims}.items():
            t = t.replace("{" + key + "}", value)
        types.append(t)
    return text, types, functions


def _arrays(types, seed):
    from workbench import parse_type
    from workbench.inputs import random_inputs

    return random_inputs([parse_type(t) for t in types], {}, seed)


def _declared(expr, types):
    """``expr`` declaring its input types where they hold vectors (float4 inputs are read as
    vectors only where a type says so; arrays of numbers need none)."""
    from workbench import parse_type
    from workbench.expr import Signature, with_signature
    from workbench.typecheck import annotate
    from workbench.types import FunctionType

    if not any("<" in t for t in types):
        return expr
    declared = annotate(expr, *types).result
    for t in reversed(types):
        declared = FunctionType(parse_type(t), declared)
    return with_signature(expr, Signature("template", declared))


@pytest.mark.parametrize("rule", rules, ids=lambda r: r.name)
@given(data=st.data())
def test_rule_is_sound(rule, data):
    text, types, functions = data.draw(instances(rule.name))
    expr = parse(text, functions or None)
    found = rewrites(expr, *types, rules=[rule])
    assert found, f"{rule.name} applies nowhere in {text} : {types}"
    rewrite = data.draw(st.sampled_from(found))
    arrays = _arrays(types, data.draw(st.integers(0, 2 ** 16)))
    before = evaluate(_declared(expr, types), *arrays)
    after = evaluate(_declared(rewrite.result, types), *arrays)
    scale = 1 + float(np.max(np.abs(before))) if np.size(before) else 1.0
    np.testing.assert_allclose(after, before, rtol=1e-4, atol=1e-4 * scale,
                               err_msg=f"{text} → {rewrite.result}")


# --- refusals --------------------------------------------------------------------------------

@pytest.mark.parametrize("text,rule,path,params,words", [
    ("map abs", "map→mapLocal", "root", {"dim": 0}, "mapLocal must be inside a mapWorkgroup"),
    ("map abs", "split-join", "root", {"n": 3}, "3 does not divide the array length 64"),
    ("reduce (+) 0", "split-join", "root", {"n": 2}, "it rewrites a high-level map f"),
    ("join ∘ mapWorkgroup (join ∘ mapLocal (map abs) ∘ split 2) ∘ split 8", "map→mapLocal",
     "1.0.1.0", {"dim": 0}, "nested in another mapLocal of dimension 0"),
    ("join ∘ mapWorkgroup (map abs) ∘ split 8", "map→mapLane", "1.0", {},
     "mapLane must be inside a mapWarp"),
    ("map abs", "join-split", "root", {}, "no right neighbour"),
    ("split 8 ∘ join ∘ split 4", "split-join-cancel", "0", {}, "have length 4, not 8"),
    ("join ∘ map (map abs) ∘ split 4", "vectorize", "1", {"n": 4},
     "vectors hold scalars; the elements here are [float]_4"),
    ("reduce (+) 0 ∘ map abs", "map-reduce-fusion", "0", {"chunk": 5},
     "5 does not divide the array length 64"),
])
def test_refusals_name_the_condition(text, rule, path, params, words):
    with pytest.raises(RewriteRefused) as info:
        apply(parse(text), rule, path, "[float]_64", **params)
    assert rule in str(info.value)
    assert words in str(info.value)


def test_missing_parameter_lists_candidates():
    with pytest.raises(RewriteRefused, match=r"give n \(e.g. one of \['2', '4'"):
        apply(parse("map abs"), "split-join", "root", "[float]_64")


def test_unknown_rule_and_parameter():
    from workbench import WorkbenchError

    with pytest.raises(WorkbenchError, match="unknown rule 'split-jon'.*split-join"):
        apply(parse("map abs"), "split-jon", "root", "[float]_64")
    with pytest.raises(WorkbenchError, match="has no parameter 'm'"):
        apply(parse("map abs"), "split-join", "root", "[float]_64", m=2)


def test_symbolic_split_is_accepted_under_an_assumption():
    result = apply(parse("map abs"), "split-join", "root", "[float]_N", n=128)
    assert str(result) == "join ∘ map (map abs) ∘ split 128"


def test_rewrites_lists_paths_rules_params_and_results():
    found = rewrites(parse("reduce (+) 0 ∘ map abs"), "[float]_4096")
    fusions = [r for r in found if r.rule == "map-reduce-fusion"
               and str(r.params["chunk"]) == "128"]
    assert len(fusions) == 1
    assert fusions[0].path == (0,)
    assert str(fusions[0].result) == \
        "reduce (+) 0 ∘ join ∘ map (reduceSeq (λ(acc, x). acc + abs x) 0) ∘ split 128"
    assert {"path", "rule", "params", "result"} <= set(fusions[0].as_json())


def test_strided_fusion_reads_neighbouring_elements_in_neighbouring_reductions():
    result = apply(parse("reduce (+) 0 ∘ map abs"), "map-reduce-fusion-strided", "0",
                   "[float]_4096", chunk=128)
    assert str(result) == ("reduce (+) 0 ∘ join ∘ map (reduceSeq (λ(acc, x). acc + abs x) 0) "
                           "∘ split 128 ∘ reorderStride 32")


def test_a_reduction_gets_a_parallel_first_stage_in_one_step():
    result = apply(parse("reduce (+) 0"), "reduce-chunks-strided", "root", "[float]_4096",
                   chunk=128)
    assert str(result) == ("reduce (+) 0 ∘ join ∘ map (reduceSeq (+) 0) ∘ split 128 "
                           "∘ reorderStride 32")
    # and again on what is left: three stages
    again = apply(result, "reduce-chunks", "0", "[float]_4096", chunk=8)
    assert str(again).startswith("reduce (+) 0 ∘ join ∘ map (reduceSeq (+) 0) ∘ split 8 ∘ join")


def test_vectorisation_happens_at_most_once_on_a_path():
    # PACT's [¬vec : vec] pre/post condition: a vectorised map is not vectorised again,
    # neither itself nor through an enclosing map.
    once = apply(parse("map abs"), "vectorize", "root", "[float]_64", n=4)
    assert str(once) == "joinVec ∘ map (mapVec abs) ∘ splitVec 4"
    with pytest.raises(RewriteRefused, match="already vectorised"):
        apply(once, "vectorize", "1", "[float]_64", n=2)
    nested = apply(parse("map (map abs)"), "vectorize", "0", "[[float]_8]_4", n=4)
    assert str(nested) == "map (joinVec ∘ map (mapVec abs) ∘ splitVec 4)"
    assert not [r for r in rewrites(nested, "[[float]_8]_4") if r.rule == "vectorize"]


# One refusal per rule: (expression, path, parameters, words of the reason), on [float]_64.
REFUSALS = {
    "iterate-decomposition": ("iterate 3 (join ∘ map (reduce (+) 0) ∘ split 2)", "root",
                              {"m": 5}, "m must be between 1 and 3 - 1"),
    "iterate-once": ("iterate 2 (join ∘ map (reduce (+) 0) ∘ split 2)", "root", {},
                     "it iterates 2 times, not once"),
    "reorder-commute": ("reorder ∘ map abs", "0", {}, "it rewrites map f ∘ reorder"),
    "reorder-commute-back": ("map abs ∘ reorder", "0", {}, "it rewrites reorder ∘ map f"),
    "split-join": ("map abs", "root", {"n": 3}, "3 does not divide the array length 64"),
    "reduce-partial": ("reduce (+) 0", "root", {"n": 5}, "5 does not divide the array length 64"),
    "partial-partial": ("reducePart (+) 0 4", "root", {"m": 6}, "6 does not divide"),
    "partial-reduce": ("reducePart (+) 0 2", "root", {}, "it rewrites reducePart f z 1"),
    "partial-reorder": ("reduce (+) 0", "root", {}, "it rewrites reducePart f z n"),
    "partial-iterate": ("reducePart (+) 0 2", "root", {"k": 2}, "is not a 2-th power"),
    "partial-split": ("reducePart (+) 0 4", "root", {"j": 3}, "3 does not divide the number"),
    "join-split": ("join ∘ map (split 2) ∘ split 4", "0", {}, "it rewrites join ∘ split"),
    "split-join-cancel": ("split 8 ∘ join ∘ split 4", "0", {}, "have length 4, not 8"),
    "joinVec-splitVec": ("join ∘ split 4", "0", {}, "it rewrites joinVec ∘ splitVec"),
    "splitVec-joinVec": ("join ∘ split 4", "0", {}, "it rewrites splitVec ∘ joinVec"),
    "map-fusion": ("map abs ∘ mapSeq abs", "0", {}, "two maps of the same kind"),
    "reduceSeq-mapSeq-fusion": ("reduceSeq (+) 0 ∘ map abs", "0", {},
                                "it rewrites reduceSeq f z ∘ mapSeq g"),
    "map→mapGlobal": ("join ∘ mapWorkgroup (map abs) ∘ split 8", "1.0", {"dim": 0},
                      "mapGlobal cannot run inside a mapWorkgroup"),
    "map→mapWorkgroup": ("join ∘ mapWorkgroup (map abs) ∘ split 8", "1.0", {"dim": 0},
                         "nested in another mapWorkgroup of dimension 0"),
    "map→mapLocal": ("map abs", "root", {"dim": 0}, "mapLocal must be inside a mapWorkgroup"),
    "map→mapWarp": ("map abs", "root", {}, "mapWarp must be inside a mapWorkgroup"),
    "map→mapLane": ("join ∘ mapWorkgroup (map abs) ∘ split 8", "1.0", {},
                    "mapLane must be inside a mapWarp"),
    "map→mapSeq": ("mapSeq abs", "root", {}, "it rewrites a high-level map f"),
    "reduce→reduceSeq": ("map abs", "root", {}, "it rewrites reduce f z"),
    "reorder→reorderStride": ("reorder", "root", {"s": 3}, "3 does not divide the array length"),
    "reorder→id": ("map abs", "root", {}, "it rewrites reorder"),
    "toLocal": ("map abs", "root", {}, "it wraps a mapLocal"),
    "toGlobal": ("map abs", "root", {}, "it wraps a mapLocal"),
    "toPrivate": ("map abs", "root", {}, "it wraps a mapSeq"),
    "vectorize": ("map abs", "root", {"n": 3}, "3 does not divide the array length 64"),
    "id-after": ("reduce (+) 0", "0", {}, "next to functions on arrays"),
    "id-before": ("reduce (+) 0 ∘ map abs", "root", {}, "one function of the composition"),
    "id-elim": ("map abs ∘ map abs", "0", {}, "it removes an id next to a function"),
    "id→map": ("map abs", "root", {}, "it rewrites id"),
    "map-reduce-fusion": ("map abs ∘ map abs", "0", {"chunk": 2},
                          "it rewrites reduce f z ∘ map g"),
    "map-reduce-fusion-strided": ("reduce (+) 0 ∘ map abs", "0", {"chunk": 3},
                                  "3 does not divide the array length 64"),
    "reduce-chunks": ("map abs", "root", {"chunk": 2}, "it rewrites reduce f z"),
    "reduce-chunks-strided": ("reduce (+) 0", "root", {"chunk": 3},
                              "3 does not divide the array length 64"),
    "map-nest→kernel": ("join ∘ mapGlobal (map abs) ∘ split 8", "1.0", {},
                        "this map is inside an OpenCL map"),
    "map-distribution": ("map (λx. x * 2)", "root", {"k": 0}, "computes nothing in parallel"),
    "reduce-map-interchange": ("reduce (+) 0", "root", {}, "not a vector operator"),
    "rearrange-distribution": ("map abs", "root", {}, "it rewrites map (rearrange p)"),
    "rearrange-undistribution": ("join ∘ rearrange (1, 0) ∘ split 8", "1", {},
                                 "keep the outer dimension first"),
    "transpose→rearrange": ("map abs", "root", {}, "it rewrites transpose"),
    "rearrange→transpose": ("map abs", "root", {}, "it rewrites rearrange (1, 0)"),
    "map-loop-interchange": ("map abs", "root", {}, "not a loop"),
    "map-iterate-interchange": ("map abs", "root", {}, "it rewrites map (iterate n f)"),
    "iterate→loop": ("map abs", "root", {}, "it rewrites iterate n f"),
    "β-reduction": ("map (λx. (λy. y * 2) (x + 1))", "0.0", {}, "an argument computes something"),
    "η-reduction": ("map (λx. x * 2)", "0", {}, "it rewrites λx. f x"),
    "scan→scanSeq": ("map abs", "root", {}, "it rewrites scan f z"),
    "scan→scanLocal": ("scan (+) 0", "root", {}, "it must be inside a mapWorkgroup"),
    "scan-blocks": ("scan (+) 0", "root", {"b": 3}, "3 does not divide the array length 64"),
    "opMap→split-join": ("map abs", "root", {}, "it rewrites opMap n f"),
    "allPairs→maps": ("map abs", "root", {}, "it rewrites allPairs f"),
    "copy-elimination": ("map abs ∘ map abs", "0", {}, "it removes a copy (map id)"),
    "innerSplit-innerJoin": ("innerSplit 4 ∘ innerJoin ∘ map (split 2) ∘ split 8", "0", {},
                             "have length 2, not 4"),
    "innerJoin-innerSplit": ("join ∘ split 8", "0", {}, "it rewrites innerJoin ∘ innerSplit"),
    "reduce→iterate": ("reduce (+) 0", "root", {"k": 4}, "64 is not a 4-th power"),
    "reduce→reduceSeq (PACT)": ("reduce (+) 0", "root", {},
                                "only inside a map-local or a map-lane"),
    "reduce-vectorize": ("reduce (+) 1", "root", {"n": 4},
                         "it must be 0, the neutral element of (+)"),
    "map-reduce-vectorize": ("reduce (λ(a, b). a - b) 0 ∘ map abs", "0", {"n": 4},
                             "must be (+), (*), min or max"),
    "map-reduceSeq-fusion": ("reduce (+) 0 ∘ mapSeq abs", "0", {},
                             "it rewrites reduce f z ∘ map g"),
    "workgroup-reduce": ("reduce (+) 0", "root", {"local": 8, "distribution": "strided"},
                         "stands directly inside a mapWorkgroup"),
    "workgroup-map-reduce": ("join ∘ mapWorkgroup (reduce (+) 0 ∘ map abs) ∘ split 16", "1.0.0",
                             {"local": 8, "distribution": "diagonal"},
                             "the distribution is chunked or strided, not diagonal"),
    "two-stage-reduction": ("reduce (+) 0 ∘ map abs", "0",
                            {"groups": 16, "local": 32, "distribution": "strided"},
                            "16 groups of 32 work-items: 512 does not divide the array "
                            "length 64"),
    "reduce-single": ("reduce (+) 0", "root", {}, "the input must have one element"),
    "reduceSeq→reduceSeqUnroll": ("reduceSeq (+) 0", "root", {},
                                  "unrolling pays for short loops (up to 48)"),
    "mapSeq→mapSeqUnroll": ("map abs", "root", {}, "it rewrites mapSeq"),
    "map-interchange": ("map (λx. x + 1)", "root", {}, "a map applied to an array"),
    "map-fission": ("map abs", "root", {"at": 1}, "a composition f ∘ g or a lambda"),
    "map-reduce-interchange": ("map abs", "root", {}, "map (reduce f z)"),
    "transpose-map-map": ("map abs", "root", {}, "it rewrites map (map f)"),
    "transpose-transpose": ("join ∘ split 4", "0", {}, "transpose ∘ transpose"),
    "reduce-map-fusion": ("reduce (+) 0 ∘ reorder", "0", {}, "reduce f z ∘ map g"),
    "map-fusion-apply": ("λxs. map abs (reorder xs)", "0", {}, "must itself be a map"),
    "map-zip-fusion": ("λxs. map (λp. p.0 * p.1) (zip xs xs)", "0", {},
                       "no argument of the zip is a map"),
    "zip-transpose": ("map abs", "root", {}, "transpose (map (λx. zip c (e x)) xs)"),
    "split-zip": ("λxs. map abs xs", "0", {}, "split n (zip xs ys)"),
    "reduce-split": ("reduce (+) 0", "root", {"s": 3}, "3 does not divide the array length"),
    "untile": ("join ∘ map (split 2) ∘ split 4", "0", {}, "map join ∘ transpose"),
    "tile-split-join": ("map abs", "root", {"m": 2, "n": 2}, "it rewrites map (map f)"),
    "compose-apply": ("λxs. map abs xs", "0", {}, "(f ∘ g) x"),
    "apply-compose": ("λxs. map abs xs", "0", {}, "applied to one value"),
    "eta": ("map (λx. abs x)", "root", {}, "already a lambda"),
    "beta": ("λxs. map abs xs", "0", {}, "(λx. e) a"),
    "1d-blocking": ("map abs", "root", {"k": 4}, "it rewrites a map of a lambda"),
    "2d-blocking": ("map (λx. abs x)", "root", {"k": 4, "l": 4},
                    "no map over columns inside the map over rows"),
    "map→mapSeqUnroll": ("mapSeq abs", "root", {}, "it rewrites a high-level map f"),
    "local-copy": ("map abs", "root", {"k": 0, "t": 0, "l1": 2, "l0": 2},
                   "a reduction's operator λ(acc, x). e"),
    "private-accumulator": ("map abs", "root", {}, "it rewrites reduceSeq f z"),
    "copy-out": ("map abs", "root", {}, "reduceSeq f z xs"),
    "private-vectors": ("map abs", "root", {"k": 0, "w": 4},
                        "a reduction's operator λ(acc, x). e"),
    "prefetch": ("map abs", "root", {}, "a reduction's operator λ(acc, x). e"),
    "pack": ("map abs", "root", {"k": 0, "t": 0}, "a whole program λxs. e"),
    "tiling": ("map (λx. abs x)", "root", {"m": 4, "n": 4}, "two nested maps"),
    "reduce-map-fission": ("reduce (+) 0", "root", {}, "already an operator"),
    "map-at-join": ("map abs", "root", {}, "the function is not λy. at 0 e"),
    "transpose-transpose-introduction": ("map abs", "root", {},
                                         "it rewrites an array variable xs"),
    "operator-η": ("map abs", "root", {}, "it rewrites λp. p.0 ⊕ p.1"),
    "innermost-tiling": ("λxs. map abs xs", "0", {"s": 4}, "two nested maps"),
    "pad-map-interchange": ("pad 1 1 0.0 ∘ map abs", "root", {}, "follows pads that repeat"),
    "vectorize-lanes": ("map abs", "root", {"n": 4}, "the elements must be arrays"),
    "vectorize-components": ("map abs", "root", {"n": 8}, "must be float2/3/4"),
    "vectorize-lanes-float4": ("map abs", "root", {"n": 8}, "must be float2/3/4"),
    "copy-view": ("padClamp 1 1 ∘ map abs", "1", {}, "the copy goes at 0 `padClamp 1 1`"),
    **SHARING_REFUSALS,
    **ZIP_REFUSALS,
    "block-outputs": ("map abs", "root", {"k": 4, "distribution": "chunked"},
                      "computes no reduction"),
    "input→toConstant": ("map abs", "root", {"input": "xs"}, "a whole program λxs. e"),
    "block-vector-outputs": ("map abs", "root", {"k": 4, "distribution": "chunked"},
                             "reduces no vectors whose lanes it then joins"),
    # and where the function is written in C (tests.test_turns)
    "sin-cos-turns": ("map abs", "root", {}, "it rewrites a user function written in C"),
}


def test_every_rule_has_a_refusal_test():
    assert set(REFUSALS) == set(CATALOGUE)


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_each_rule_says_why_it_is_refused(name):
    text, path, params, words = REFUSALS[name]
    with pytest.raises(RewriteRefused) as info:
        apply(parse(text), name, path, "[float]_64", **params)
    assert words in info.value.reason, info.value.reason


def test_a_registered_rule_is_found_by_rewrites_apply_and_derivations(tmp_path):
    from workbench import Derivation
    from workbench.expr import Compose, Prim
    from workbench.rules import CATALOGUE, Refused, Rule, register, rewrites, unregister

    def double_abs(site, params):
        node = site.node
        if not (isinstance(node, Prim) and node.name == "map" and str(node.args[0]) == "abs"):
            return Refused("not map abs")
        return Compose((node, node))

    rule = Rule("abs-twice", "map abs → map abs ∘ map abs", "algorithmic", "test",
                double_abs)
    register(rule)
    try:
        with pytest.raises(ValueError):
            register(rule)
        assert any(r.rule == "abs-twice" for r in rewrites(parse("map abs"), "[float]_N"))
        d = Derivation("map abs", "[float]_N")
        d.apply("abs-twice", "root")
        d.save(tmp_path / "d.json")
        assert str(Derivation.load(tmp_path / "d.json").current) == "map abs ∘ map abs"
    finally:
        unregister("abs-twice")
    assert "abs-twice" not in CATALOGUE
