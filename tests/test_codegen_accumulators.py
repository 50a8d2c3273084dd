"""Reductions whose accumulator is an array (CASES 2016's register blocks): private arrays
of a work-item, private arrays of a work-group spread over its work-items, updates in place
where the operator allows them, and clear refusals where it does not. Every kernel is
compared with the interpreter."""

import numpy as np
import pytest

from workbench import opencl, parse
from workbench.codegen import CodegenError
from workbench.run import run

RNG = np.random.default_rng(3)
A = RNG.uniform(-1, 1, (32, 16)).astype(np.float32)
B = RNG.uniform(-1, 1, (16, 32)).astype(np.float32)


def checked(text: str, *inputs):
    result = run(parse(text), *inputs, repeat=2)
    assert result.status == "ok" and result.correct, result.message
    return result


def test_a_work_item_keeps_its_accumulator_in_a_private_array(golden):
    sums = "mapGlobal (λm. join (reduceSeq (λ(acc, row). mapSeq (+) (zip acc row)) " \
           "(replicate 8 0) m))"
    result = checked(sums, RNG.uniform(-1, 1, (4, 16, 8)).astype(np.float32))
    golden("kernels/accumulator_in_a_private_array.cl", result.source)  # float prv…[8]


def test_an_operator_that_reads_other_elements_writes_a_second_buffer():
    # acc reversed before adding: element i reads element 7 - i, so not in place
    text = ("mapGlobal (λm. join (reduceSeq (λ(acc, row). mapSeq (+) (zip (gather (λi n. n - 1 "
            "- i) acc) row)) (replicate 8 0) m))")
    result = checked(text, RNG.uniform(-1, 1, (4, 16, 8)).astype(np.float32))
    assert result.source.count("float prv") == 2


ONE_D = ("λa b. (map join ∘ join ∘ mapGlobal 1 (λrowsA. transpose (mapGlobal 0 (λcolB. "
         "transpose (reduceSeq (λ(acc, p). mapSeq (λx. x.0 + x.1 * p.1) (zip acc p.0)) "
         "(replicate 4 0) (zip (transpose rowsA) colB))) (transpose b))) ∘ split 4) a")
TWO_D = ("λa b. (map join ∘ untile ∘ mapWorkgroup 1 (λrowsA. mapWorkgroup 0 (λcolsB. map "
         "transpose (transpose (reduceSeq (λ(acc, p). mapSeqUnroll (λ(accRow, x). mapSeqUnroll "
         "(λ(y, bv). y + x * bv) (zip accRow p.1)) (zip acc p.0)) (replicate 4 (replicate 4 0)) "
         "(zip (transpose rowsA) (transpose colsB))))) (split 4 (transpose b))) ∘ split 4) a")


@pytest.mark.parametrize("text", [ONE_D, TWO_D], ids=["1-D", "2-D"])
def test_register_blocked_matrix_multiplications_match_the_interpreter(text):
    result = checked(text, A, B)
    assert "[4];" in result.source or "[16];" in result.source


def tiled(t1=16, t2=16, s=8, r1=4, r2=4):
    """A tiled, register-blocked matrix multiplication (the slides' TiledMultiply with 2-D
    blocking): tiles of A and B copied into local memory by the work-group, each
    work-item's r1×r2 block of the accumulator in its private memory."""
    l1, l0 = t1 // r1, t2 // r2
    u = "mapSeqUnroll"

    def copy(x):
        return (f"split {'{cols}'} (join (join (toLocal (mapSeq (mapLocal 1 (mapLocal 0 id))) "
                f"(split {l1} (split {l0} (join {x}))))))")
    init = (f"toPrivate (mapLocal 1 (mapLocal 0 ({u} ({u} id)))) "
            f"(replicate {l1} (replicate {l0} (replicate {r1} (replicate {r2} 0.0))))")
    inner = (f"join (reduceSeq (λ(racc, q). {u} (λ(rrow, av). {u} (λ(x, bv). x + av * bv) "
             f"(zip rrow q.1)) (zip racc q.0)) accBlk (zip (transpose aBlk) bBlk))")
    op = (f"λ(acc, p). (λtA tB. mapLocal 1 (λ(accRow, aBlk). mapLocal 0 (λ(accBlk, bBlk). "
          f"{inner}) (zip accRow (transpose (map (split {r2}) tB)))) (zip acc (split {r1} tA))) "
          f"({copy('p.0').replace('{cols}', str(s))}) "
          f"({copy('p.1').replace('{cols}', str(t2))})")
    tile = (f"untile (toGlobal (mapLocal 1 (mapLocal 0 ({u} ({u} id)))) "
            f"(join (reduceSeq ({op}) ({init}) (zip aRows bCols))))")
    return (f"λa b. untile (mapWorkgroup 1 (λaRows. mapWorkgroup 0 (λbCols. {tile}) "
            f"(transpose (tile {s} {t2} b))) (tile {t1} {s} a))")


def test_a_work_groups_private_accumulator_is_spread_over_its_work_items(golden):
    result = checked(tiled(), A, B)
    # each of the 4×4 work-items holds its 4×4 block, not the 16×16 tile (float prv3[16]);
    # a barrier after the copies into local memory and one before they are overwritten
    golden("kernels/tiled_register_blocked_mm.cl", result.source)


def test_copies_in_rounds_need_no_barrier_between_rounds():
    program = opencl(parse(tiled(s=16)), A, B)
    loops = program.source.split("/* mapSeq (mapLocal 1 (mapLocal id)) */")
    assert len(loops) == 3 and all("barrier" not in loop.split("}\n")[0] for loop in loops[1:])


def test_a_work_groups_private_array_read_by_other_work_items_is_refused():
    # the accumulator spread over the work-items, then written out by one work-item only
    text = tiled().replace("untile (toGlobal (mapLocal 1 (mapLocal 0 (mapSeqUnroll "
                           "(mapSeqUnroll id)))) (join", "untile ((join")
    with pytest.raises(CodegenError, match="spread over the work-items"):
        opencl(parse(text), A, B)


def test_a_work_groups_private_array_in_parts_of_different_shapes_is_refused():
    text = tiled().replace("toGlobal (mapLocal 1 (mapLocal 0 (mapSeqUnroll (mapSeqUnroll id))))",
                           "toGlobal (mapLocal 0 (mapLocal 1 (mapSeqUnroll (mapSeqUnroll id))))")
    with pytest.raises(CodegenError, match="private array"):
        opencl(parse(text), A, B)
