"""Barrier placement and the written-once check, each a pass over the kernel IR: tested on
IR built by hand and on kernels translated from expressions (their IR, not their text)."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from workbench import Derivation, parse
from workbench.codegen import CodegenError, barriers, ir, launch, written
from workbench.codegen.arith import var
from workbench.codegen.program import opencl
from workbench.run import run
from workbench.sizes import Size
from workbench.types import FLOAT, ArrayType

XS = np.random.default_rng(5).uniform(-1, 1, 4096).astype(np.float32)
DERIVATIONS = Path(__file__).parent.parent / "workbench" / "derivations"


def buf(name, n, role="temporary", space="global"):
    return ir.Buffer(name, space, ArrayType(FLOAT, Size.const(n)), role)


PARAMS = (buf("in0", 256, "input"), buf("out", 256, "output"))
LOCALS = (buf("lcl", 64, space="local"),)


def group_kernel(*body):
    """A kernel of one work-group loop of 4 groups of 64 work-items."""
    return ir.Kernel("k", PARAMS, LOCALS, (ir.Loop("wg", "workgroup", 4, tuple(body)),))


def local_loop(index, store_to, store_at, read_from, read_at):
    return ir.Loop(index, "local", 64, (ir.Store(store_to, store_at, ir.Load(read_from,
                                                                             read_at)),))


def placed(kernel):
    bound, plan = launch.bind(kernel)
    return barriers.place(bound, plan)


def barriers_in(kernel):
    return [(s, around) for s, around in ir.statements(kernel.body)
            if isinstance(s, ir.Barrier)]


def test_reading_what_another_work_item_wrote_needs_a_barrier_with_its_fence():
    l1, l2, wg = var("l1", 64), var("l2", 64), var("wg", 4)
    kernel = group_kernel(local_loop("l1", "lcl", l1, "in0", l1 + wg * 64),
                          local_loop("l2", "out", l2 + wg * 64, "lcl", (l2 + 1) % 64))
    (barrier, around), = barriers_in(placed(kernel))
    assert barrier.fences == ("local",) and [f.level for f in around] == ["workgroup"]


def test_reading_back_ones_own_element_needs_no_barrier():
    l1, l2, wg = var("l1", 64), var("l2", 64), var("wg", 4)
    kernel = group_kernel(local_loop("l1", "lcl", l1, "in0", l1 + wg * 64),
                          local_loop("l2", "out", l2 + wg * 64, "lcl", l2))
    assert not barriers_in(placed(kernel))


def test_what_one_work_item_wrote_for_its_group_is_waited_for():
    l, wg = var("l", 64), var("wg", 4)
    single = ir.Guard("workgroup", (ir.Store("lcl", var("wg", 4) * 0, ir.Literal("1.0f")),))
    kernel = group_kernel(single, local_loop("l", "out", l + wg * 64, "lcl", l * 0))
    assert len(barriers_in(placed(kernel))) == 1


def test_a_reused_buffer_gets_a_barrier_at_the_end_of_a_loop_run_again():
    i, l1, l2 = var("i", 8), var("l1", 64), var("l2", 64)
    body = (local_loop("l1", "lcl", l1, "in0", l1 + i * 32),
            local_loop("l2", "out", l2 + i * 32, "lcl", (l2 + 1) % 64))
    kernel = ir.Kernel("k", PARAMS, LOCALS, (
        ir.Loop("wg", "workgroup", 1, (ir.Loop("i", "seq", 8, body, step=1),)),))
    seq = placed(kernel).body[0].body[0]
    # between the two maps, and before the next iteration overwrites what was read
    assert [type(s).__name__ for s in seq.body] == ["Loop", "Barrier", "Loop", "Barrier"]


@pytest.mark.parametrize("runs", [2, 3])
def test_a_sequential_loop_run_only_a_few_times_still_waits_before_its_next_round(runs):
    """Run twice is run again: the next round's first writes must wait for this round's
    reads of other work-items' elements."""
    i, l1, l2 = var("i", runs), var("l1", 64), var("l2", 64)
    body = (local_loop("l1", "lcl", l1, "in0", l1 + i * 64),
            local_loop("l2", "out", l2 + i * 64, "lcl", (l2 + 1) % 64))
    params = (buf("in0", 64 * runs, "input"), buf("out", 64 * runs, "output"))
    kernel = ir.Kernel("k", params, LOCALS, (
        ir.Loop("wg", "workgroup", 1, (ir.Loop("i", "seq", runs, body, step=1),)),))
    seq = placed(kernel).body[0].body[0]
    assert [type(s).__name__ for s in seq.body] == ["Loop", "Barrier", "Loop", "Barrier"]


def test_a_work_group_loop_whose_groups_each_run_it_twice_waits_between_rounds():
    """A work-group loop over twice as many groups as are launched runs twice in each."""
    l1, l2, wg = var("l1", 64), var("l2", 64), var("wg", 8)
    kernel = ir.Kernel("k", (buf("in0", 512, "input"), buf("out", 512, "output")), LOCALS, (
        ir.Loop("wg", "workgroup", 8, (
            local_loop("l1", "lcl", l1, "in0", l1 + wg * 64),
            local_loop("l2", "out", l2 + wg * 64, "lcl", (l2 + 1) % 64)),),))
    plan = ir.Launch("k", (256,), (64,))  # 4 groups launched for the loop's 8
    bound = replace(kernel, body=launch.with_strides(kernel.body, plan))
    assert bound.body[0].step == 4
    loop = barriers.place(bound, plan).body[0]
    assert [type(s).__name__ for s in loop.body] == ["Loop", "Barrier", "Loop", "Barrier"]


def test_writes_that_nothing_reads_between_them_need_no_barrier():
    """Work-items writing their own elements, and then others' elements that nobody reads
    in between, need no order among them: no barrier (a barrier costs every group a
    meeting)."""
    l1, l2, l3, wg = var("l1", 64), var("l2", 64), var("l3", 64), var("wg", 4)
    kernel = group_kernel(
        ir.Loop("l1", "local", 64, (ir.Store("lcl", l1, ir.Literal("0.0f")),)),
        ir.Loop("l2", "local", 64, (ir.Store("lcl", l2, ir.Load("in0", l2 + wg * 64)),)),
        local_loop("l3", "out", l3 + wg * 64, "in0", l3 + wg * 64))
    assert not barriers_in(placed(kernel))


def test_reads_of_what_a_barrier_already_ordered_need_no_second_barrier():
    l1, l2, l3, wg = var("l1", 64), var("l2", 64), var("l3", 64), var("wg", 4)
    kernel = group_kernel(local_loop("l1", "lcl", l1, "in0", l1 + wg * 64),
                          local_loop("l2", "out", l2 + wg * 64, "lcl", (l2 + 1) % 64),
                          local_loop("l3", "out", l3 + wg * 64, "lcl", (l3 + 3) % 64))
    # one barrier before the first read of other work-items' elements; the second read
    # follows only reads and a write of each work-item's own output element
    assert len(barriers_in(placed(kernel))) == 1


def test_no_barrier_follows_the_last_access():
    program = opencl(parse("join ∘ mapWorkgroup (join ∘ mapLocal (mapSeq id) ∘ split 4) "
                           "∘ split 1024"), "[float]_4096")
    assert not barriers_in(program.module.kernels[0])


def test_work_items_of_different_groups_cannot_be_ordered_by_a_barrier():
    g1, g2 = var("g1", 256), var("g2", 256)
    kernel = ir.Kernel("k", PARAMS + (buf("tmp", 256),), (), (
        ir.Loop("g1", "global", 256, (ir.Store("tmp", g1, ir.Load("in0", g1)),)),
        ir.Loop("g2", "global", 256, (ir.Store("out", g2, ir.Load("tmp", 255 - g2)),))))
    with pytest.raises(CodegenError, match="no barrier can order them"):
        placed(kernel)


def test_a_dependency_inside_one_work_items_loop_is_refused():
    l, m1, m2 = var("l", 4), var("m1", 16), var("m2", 16)
    inner = (ir.Loop("m1", "local", 16, (ir.Store("lcl", m1, ir.Load("in0", m1)),), dim=0),
             ir.Loop("m2", "local", 16, (ir.Store("out", m2 + l * 16,
                                                  ir.Load("lcl", 15 - m2)),), dim=0))
    kernel = group_kernel(ir.Loop("l", "local", 4, inner, dim=1, origin="mapLocal 1 f"))
    with pytest.raises(CodegenError, match="a barrier cannot stand there"):
        placed(kernel)


@pytest.mark.parametrize("path", sorted(DERIVATIONS.glob("*.json")), ids=lambda p: p.stem)
def test_barriers_stand_only_where_every_work_item_of_the_group_reaches_them(path):
    d = Derivation.load(path)
    sizes = {"N": 4096, "M": 64, "K": 16, "blockSize": 2048}
    program = opencl(d.current, sizes=sizes, complete=True)
    for kernel in program.module.kernels:
        for _, around in barriers_in(kernel):
            assert not any(isinstance(f, ir.Guard) or f.level in ("local", "lane", "global")
                           for f in around), (path.stem, ir.dump(kernel))


# --- written once ---------------------------------------------------------------------------

def test_a_kernel_that_never_writes_its_output_is_refused_naming_the_node():
    text = "join ∘ mapWorkgroup (id ∘ id) ∘ split 4 ∘ mapGlobal abs"
    with pytest.raises(CodegenError, match="never written") as err:
        opencl(parse(text), "[float]_64")
    assert err.value.path == (1,) and "mapWorkgroup (id ∘ id)" in err.value.node_text
    result = run(parse(text), XS[:64], repeat=1)
    assert result.status == "codegen error" and "never written" in result.message


def _module(*stores, launch_size=((64,), None)):
    kernel = ir.Kernel("k", PARAMS, (), tuple(stores))
    plan = ir.Launch("k", *launch_size)
    return ir.Module("p", (), (kernel,), PARAMS, (), (PARAMS[1],), (plan,))


def test_outputs_stored_twice_or_not_at_all_are_found():
    i = var("i", 256)
    whole = ir.Loop("i", "seq", 256, (ir.Store("out", i, ir.Literal("0")),), step=1)
    written.check(_module(whole, launch_size=((1,), (1,))))
    half = ir.Loop("i", "seq", 128, (ir.Store("out", var("i", 128), ir.Literal("0")),), step=1)
    with pytest.raises(CodegenError, match="128 to 255 are never written"):
        written.check(_module(half, launch_size=((1,), (1,))))
    with pytest.raises(CodegenError, match="more than once"):
        written.check(_module(whole, half, launch_size=((1,), (1,))))
    # every one of 64 work-items storing the same elements
    with pytest.raises(CodegenError, match="not written exactly once"):
        written.check(_module(whole))
    # a permutation through divisions is counted element by element
    perm = ir.Loop("i", "seq", 256, (ir.Store("out", (i % 4) * 64 + i // 4, ir.Literal("0")),),
                   step=1)
    written.check(_module(perm, launch_size=((1,), (1,))))
    clash = ir.Loop("i", "seq", 256, (ir.Store("out", (i % 4) * 64, ir.Literal("0")),), step=1)
    with pytest.raises(CodegenError, match="never written"):
        written.check(_module(clash, launch_size=((1,), (1,))))


def test_vector_stores_are_counted_lane_by_lane_as_one_interval():
    """A float16 store at 16·i covers [16·i, 16·i + 16): the lanes are the unit digit of the
    offset's radix (one interval, not one enumeration per lane); lanes that overlap the
    next vector are found."""
    i = var("i", 16)
    vectors = ir.Loop("i", "seq", 16, (ir.Store("out", i * 16, ir.Literal("0"), 16),), step=1)
    written.check(_module(vectors, launch_size=((1,), (1,))))
    count = written._Count(256)
    written._record(count, vectors.body[0], (vectors,), 1)
    assert count.intervals == [(0, 256, 1)] and not count.points
    i = var("i", 32)
    overlapping = ir.Loop("i", "seq", 32, (ir.Store("out", i * 8, ir.Literal("0"), 16),),
                          step=1)
    with pytest.raises(CodegenError, match="more than once|outside"):
        written.check(_module(overlapping, launch_size=((1,), (1,))))
