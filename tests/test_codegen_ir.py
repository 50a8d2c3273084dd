"""The kernel IR and the passes over it, each on its own: IR built by hand (or translated
from a small expression), a pass applied, the result inspected as data — never as text,
except for the printer's own tests."""

import time
from dataclasses import replace

import numpy as np
import pytest

from workbench import parse
from workbench.codegen import CodegenError, emit, features, ir, launch, memory, unroll, wide
from workbench.codegen.arith import Index, var
from workbench.codegen.program import opencl
from workbench.codegen.wide import INT_MAX
from workbench.run import run
from workbench.sizes import Size
from workbench.types import FLOAT, ArrayType

XS = np.random.default_rng(3).uniform(-1, 1, 4096).astype(np.float32)


def buffer(name, n, role="temporary", space="global"):
    return ir.Buffer(name, space, ArrayType(FLOAT, Size.const(n)), role)


def kernel(*body, locals_=(), params=None):
    params = params or (buffer("in0", 64, "input"), buffer("out", 64, "output"))
    return ir.Kernel("k", params, tuple(locals_), tuple(body))


def loops(body):
    return [s for s, _ in ir.statements(body) if isinstance(s, ir.Loop)]


def copy_loop(level, n, dim=0, index="i", src="in0", dest="out"):
    i = var(index, n)
    return ir.Loop(index, level, n, (ir.Store(dest, i, ir.Load(src, i)),), dim=dim,
                   step=1 if level == "seq" else None)


# --- the IR and its printers --------------------------------------------------------------------

def test_the_ir_is_frozen_data_with_a_debug_listing():
    k = kernel(copy_loop("global", 64, index="gl1"))
    with pytest.raises(AttributeError):
        k.body[0].extent = 3
    listing = ir.dump(k)
    assert "for gl1 in global(0) < 64" in listing and "out[gl1] = in0[gl1]" in listing
    with pytest.raises(ValueError, match="unknown loop level"):
        ir.Loop("i", "sideways", 4, ())


def test_the_printer_writes_each_level_as_its_loop():
    bound, plan = launch.bind(kernel(copy_loop("global", 64, index="gl1")))
    source = emit.kernel_source(bound)
    # as many work-items as iterations: a block, no loop and no condition
    assert "    {\n        int gl1 = get_global_id(0);\n        out[gl1] = in0[gl1];\n    }" \
        in source and "for (" not in source and "if (" not in source
    # more iterations than work-items: the work-items' loop strides over the rest
    strided = emit.kernel_source(kernel(replace(copy_loop("global", 64, index="gl1"), step=16)))
    assert "for (int gl1 = get_global_id(0); gl1 < 64; gl1 += 16) {" in strided
    # fewer iterations than work-items (a global size rounded up): a block with a condition
    rounded = emit.kernel_source(kernel(replace(copy_loop("global", 60, index="gl1"), step=64)))
    assert "int gl1 = get_global_id(0);\n        if (gl1 < 60) {" in rounded
    # one vector a work-item: read and stored through pointers
    vector = ir.Store("out", var("i", 16) * 4, ir.Load("in0", var("i", 16) * 4, 4), 4)
    assert "*(global float4 *)(out + 4*i) = (*(global const float4 *)(in0 + 4*i));" in \
        emit.kernel_source(kernel(ir.Loop("i", "global", 16, (vector,), step=16)))
    # one work-item's loop walking its own chunk stores by vstoreN (PoCL: 2-3 times faster)
    chunk = ir.Store("out", var("gl", 4) * 16 + var("i", 4) * 4,
                     ir.Load("in0", var("gl", 4) * 16 + var("i", 4) * 4, 4), 4)
    walked = emit.kernel_source(kernel(ir.Loop("gl", "global", 4, (
        ir.Loop("i", "seq", 4, (chunk,), step=1),), step=4)))
    assert "vstore4((*(global const float4 *)(in0 + 16*gl + 4*i)), 0, out + 16*gl + 4*i);" \
        in walked, walked
    # a vector that starts between two vectors of its width keeps vloadN and vstoreN
    shifted = ir.Store("out", var("i", 15) * 4 + 2, ir.Load("in0", var("i", 15) * 4 + 1, 4), 4)
    assert "vstore4(vload4(0, in0 + 4*i + 1), 0, out + 4*i + 2);" in emit.kernel_source(
        kernel(ir.Loop("i", "global", 15, (shifted,), step=15)))
    with pytest.raises(ValueError, match="stride"):  # parallel strides come from the launch
        emit.kernel_source(kernel(copy_loop("local", 64, index="l1")))


# --- launch inference ---------------------------------------------------------------------------

def test_the_launch_is_read_from_the_loops():
    groups = ir.Loop("wg", "workgroup", 8, (copy_loop("local", 128, index="l"),))
    bound, plan = launch.bind(kernel(groups))
    assert plan.global_size == (1024,) and plan.local_size == (128,)
    assert [(lp.index, lp.step) for lp in loops(bound.body)] == [("wg", 8), ("l", 128)]
    warps = ir.Loop("w", "warp", 4, (ir.Loop("ln", "lane", 32, (), step=32),), counter="k")
    assert launch.infer(kernel(ir.Loop("wg", "workgroup", 2, (warps,)))).local_size == (128,)
    capped = launch.infer(kernel(copy_loop("global", 1 << 24, index="gl")))
    assert capped.global_size == (launch.MAX_GLOBAL,) and capped.local_size is None
    single = launch.infer(kernel(copy_loop("seq", 4)))
    assert (single.global_size, single.local_size, single.args) == ((1,), (1,), ("in0", "out"))


def test_a_loop_over_a_dimension_the_launch_lacks_is_refused():
    bad = ir.Loop("gl", "global", 4, (copy_loop("global", 4, dim=1, index="g1"),))
    with pytest.raises(CodegenError, match="dimension"):
        launch.with_strides((bad,), ir.Launch("k", (4,), None))


# --- unrolling ----------------------------------------------------------------------------------

def test_unrolled_loops_become_one_copy_per_iteration_with_constant_offsets():
    body = unroll.unroll(kernel(copy_loop("unrolled", 3))).body
    stores = [s for s in body if isinstance(s, ir.Store)]
    assert not loops(body)
    assert [s.offset for s in stores] == [Index.of(0), Index.of(1), Index.of(2)]
    declaring = ir.Loop("i", "unrolled", 2, (ir.Declare("t", FLOAT, ir.Load("in0", var("i", 2))),
                                             ir.Store("out", var("i", 2), ir.Name("t"))))
    blocks = [s for s in unroll.unroll(kernel(declaring)).body if isinstance(s, ir.Block)]
    assert len(blocks) == 2  # each copy's variables in a scope of their own


def test_reduce_seq_unroll_generates_no_loop_and_the_same_result():
    text = "join ∘ mapGlobal (reduceSeqUnroll (+) 0) ∘ split 4"
    program = opencl(parse(text), "[float]_4096")
    assert [lp.level for lp in loops(program.module.kernels[0].body)] == ["global"]
    result = run(parse(text), XS, repeat=1)
    assert result.status == "ok" and result.correct, result.message


# --- 64-bit indices -----------------------------------------------------------------------------

def test_loops_reaching_two_to_the_31_get_64_bit_indices():
    program = opencl(parse("mapGlobal abs"), "[float]_4294967296")
    (loop,) = loops(program.module.kernels[0].body)
    assert loop.wide and "long gl" in program.source and "int gl" not in program.source
    small = opencl(parse("mapGlobal abs"), "[float]_4096")
    assert not any(lp.wide for lp in loops(small.module.kernels[0].body))
    # an offset that reaches 2^31 through a product, not the loop's own extent
    rows = opencl(parse("mapGlobal (mapSeq abs)"), "[[float]_65536]_65536").module.kernels[0]
    assert {lp.index: lp.wide for lp in loops(rows.body)} == {"gl1": True, "i2": False}


def test_the_wide_pass_marks_what_an_offset_needs():
    i, j = var("i", 1 << 20), var("j", 1 << 12)
    store = ir.Store("out", i * 4096 + j, ir.Literal("0"))
    nest = ir.Loop("i", "seq", 1 << 20, (ir.Loop("j", "seq", 1 << 12, (store,), step=1),), step=1)
    widened = wide.widen(kernel(nest))
    assert {lp.index: lp.wide for lp in loops(widened.body)} == {"i": True, "j": False}


@pytest.mark.parametrize("extent, step, wide_index", [
    (INT_MAX - 100, 256, True),  # its last increment passes 2^31 - 1: i += 256 overflows
    (INT_MAX - 100, 102, True),
    (INT_MAX - 100, 101, False),  # i reaches exactly 2^31 - 1 at most
    (INT_MAX - 100, 64, False),
    (1 << 20, 1 << 10, False),
])
def test_a_loops_index_is_wide_where_its_step_takes_it_past_int(extent, step, wide_index):
    """A strided loop's index takes values up to extent + step - 1 before its test fails:
    the step, not only the extent, says whether an int holds it."""
    loop = ir.Loop("gl", "global", extent, (ir.Store("out", Index.of(0), ir.Literal("0")),),
                   step=step)
    marked = wide.widen(kernel(loop))
    assert next(iter(loops(marked.body))).wide == wide_index


def test_index_functions_on_arrays_too_long_for_int_are_refused_naming_the_node():
    with pytest.raises(CodegenError, match="int indices") as err:
        opencl(parse("mapGlobal abs ∘ gather (λi n. if i < n then n - 1 - i else i)"),
               "[float]_4294967296")
    assert err.value.path is not None


def test_arithmetic_index_functions_are_index_arithmetic_widened_past_int():
    """An index function of parameters, literals, + - * and division by a literal is no
    call: its arithmetic is the index's, 64-bit where the array's length needs it."""
    program = opencl(parse("mapGlobal abs ∘ gather (λi n. n - 1 - i)"), "[float]_4294967296")
    assert "index" not in program.source.split("kernel void")[-1]
    assert next(iter(loops(program.module.kernels[0].body))).wide


# --- memory planning ----------------------------------------------------------------------------

def test_temporaries_live_from_their_first_to_their_last_kernel():
    program = opencl(parse("mapGlobal abs ∘ mapGlobal abs ∘ mapGlobal abs ∘ mapGlobal abs"),
                     "[float]_1024")
    uses = [memory.used_buffers(k) for k in program.module.kernels]
    spans = memory.lifetimes(uses, [b.name for b in program.buffers if b.role == "temporary"])
    assert sorted(spans.values()) == [(0, 1), (1, 2), (2, 3)]
    assert len(program.storages) == 2


# --- features -----------------------------------------------------------------------------------

def test_features_count_accesses_per_space_and_per_work_item():
    text = ("join ∘ mapWorkgroup (join ∘ mapLocal (reduceSeq (+) 0) ∘ split 2 ∘ join "
            "∘ toLocal (mapLocal (mapSeq (λx. x + 1))) ∘ split 1) ∘ split 128")
    (k,) = opencl(parse(text), "[float]_4096").features.kernels
    assert k.loads == {"global": 4096, "local": 4096}
    assert k.stores == {"local": 4096, "global": 2048}
    assert k.barriers == 1 and k.work_items == 4096 and k.work_group == 128
    assert k.global_bytes == (4096 + 2048) * 4
    (v,) = opencl(parse("joinVec ∘ mapGlobal (mapVec abs) ∘ splitVec 4"),
                  "[float]_4096").features.kernels
    assert v.vector_accesses == 2048 and v.loads == {"global": 4096}


def test_the_cost_model_reads_features_and_prefers_parallel_launches():
    from workbench.search.cost import estimate

    parallel = opencl(parse("mapGlobal abs"), "[float]_65536")
    serial = opencl(parse("join ∘ mapGlobal (mapSeq abs) ∘ split 16384"), "[float]_65536")
    assert estimate(parallel) < estimate(serial)
    assert features.of(parallel.module) == parallel.features


# --- code generation time -----------------------------------------------------------------------

def test_codegen_time_grows_linearly_with_the_number_of_stages():
    def seconds(n):
        # the fastest of three: a collection or another process's burst in one run is
        # not the growth this measures
        expr = parse(" ∘ ".join(["map abs"] * n))
        times = []
        for _ in range(3):
            start = time.perf_counter()
            program = opencl(expr, "[float]_1024", complete=True)
            times.append(time.perf_counter() - start)
            assert len(program.launches) == n
        return min(times)

    seconds(20)  # warm up
    small, large = seconds(50), seconds(500)
    assert large < 2.0 and large < 20 * small, (small, large)
