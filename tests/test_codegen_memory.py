"""Results placed in private or local memory (``toPrivate``, ``toLocal``): scalars as well as
arrays, one copy per work-item where local memory is shared by the group, and private
arrays bounded per work-item; each kernel checked against the interpreter."""

import numpy as np
import pytest

from workbench import parse
from workbench.codegen import CodegenError
from workbench.codegen.program import opencl
from workbench.run import run

RNG = np.random.default_rng(7)
XS = RNG.uniform(-1, 1, 256).astype(np.float32)


@pytest.mark.parametrize("text", [
    "mapGlobal (toPrivate (λx. x * 2))",
    "join ∘ mapWorkgroup (mapLocal (toLocal id)) ∘ split 16",   # Lift's MapLcl(toLocal(id))
    "join ∘ mapWorkgroup (mapLocal (toPrivate id)) ∘ split 16",
    "join ∘ mapWorkgroup (mapLocal (abs ∘ toLocal (λx. x - 1))) ∘ split 16",
    "λxs ys. mapGlobal (toPrivate (λ(a, b). (b, a * 2))) (zip xs ys)",  # a tuple
    "λxs ys. mapGlobal (λp. toPrivate (λ(a, b). a * b) p + 1) (zip xs ys)",
])
def test_a_scalar_result_in_private_or_local_memory_is_computed(text):
    args = (XS, XS[::-1].copy()) if "ys" in text else (XS,)
    result = run(parse(text), *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


def test_a_scalar_in_local_memory_has_a_slot_per_work_item():
    text = "join ∘ mapWorkgroup (mapLocal (toLocal id)) ∘ split 16"
    source = opencl(parse(text), "[float]_256").source
    # 16 work-items of a group each store their own element, not one shared float
    assert "local float lcl3[16];" in source and "lcl3[l2] = " in source, source


def test_a_work_items_local_array_is_its_own():
    # each work-item's copy in local memory used to be one array shared by the whole group
    text = "mapWorkgroup (mapLocal (mapSeq (λx. x * 2) ∘ toLocal (mapSeq id))) ∘ split 4"
    xs = XS[:128].reshape(16, 8)
    program = opencl(parse(text), "[[float]_8]_16")
    assert "local float lcl3[32];" in program.source, program.source
    result = run(parse(text), xs, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


def test_local_memory_inside_map_global_is_refused():
    with pytest.raises(CodegenError, match="local temporary inside mapGlobal"):
        opencl(parse("mapGlobal (toLocal (λx. x * 2))"), "[float]_256")


def test_a_private_array_larger_than_the_bound_is_refused_before_building():
    # 256 KiB per work-item ended PoCL's process with a segmentation fault
    text = "mapGlobal (toPrivate (mapSeq id))"
    with pytest.raises(CodegenError, match=r"private array prv2 .* 65536 floats \(256 KiB\) "
                                           r"per work-item.*bounded at 32 KiB") as err:
        opencl(parse(text), "[[float]_65536]_4")
    assert err.value.path == ()
    result = run(parse(text), RNG.uniform(-1, 1, (4, 65536)).astype(np.float32), repeat=1)
    assert result.status == "codegen error" and "prv2" in result.message
    # at the bound it is generated (and computes what the interpreter does)
    xs = RNG.uniform(-1, 1, (4, 8192)).astype(np.float32)
    result = run(parse(text), xs, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


def test_private_arrays_alive_together_are_added_up():
    from workbench.codegen import ir, private
    from workbench.sizes import Size
    from workbench.types import FLOAT, ArrayType

    def alloc(name, n):
        return ir.Allocate(ir.Buffer(name, "private", ArrayType(FLOAT, Size.const(n)),
                                     "temporary"))

    def kernel(*body):
        return ir.Kernel("k", (), (), (ir.Loop("gl", "global", 4, tuple(body),
                                               origin="mapGlobal f"),))

    private.check(kernel(alloc("a", 4096), alloc("b", 4096)))  # 32 KiB
    # the copies of an unrolled body, each in its own block, are not alive together
    private.check(kernel(*(ir.Block((alloc(f"a{k}", 8192),)) for k in range(4))))
    with pytest.raises(CodegenError, match=r"private array b in `mapGlobal f` holds 6000 "
                                           r"floats.*alive beside it, 39 KiB"):
        private.check(kernel(alloc("a", 4096), ir.Block((alloc("b", 6000),))))
