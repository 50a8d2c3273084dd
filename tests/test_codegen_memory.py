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
