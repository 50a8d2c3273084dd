"""A map (of any level) of ``pad`` generates no code: it is a view that reads the padding
value outside each row, as ``pad2D`` is. Lift's ``PadConstant3D`` pads the inner dimensions
so (``map (map (pad …))`` between transposes); its kernels compute what the interpreter
does, on the default device."""

import numpy as np
import pytest

from workbench import evaluate, parse, parse_program
from workbench.layout import mapped_layout, needs_lowering, rearranges_only
from workbench.run import run

RNG = np.random.default_rng(83)


@pytest.mark.parametrize("text", ["map (pad 1 1 0.0)", "map (map (pad 2 1 0.0))",
                                  "map (transpose ∘ map (pad 1 1 0.0))"])
def test_a_map_of_pad_rearranges_only_and_needs_no_lowering(text):
    node = parse(text)
    assert rearranges_only(node) and mapped_layout(node) is not None
    assert not needs_lowering(node)


def test_pad_itself_is_still_no_layout_primitive_for_the_rules():
    # it adds values, so no rule may move a computation across it as across a permutation
    from workbench.layout import is_layout_primitive

    assert not is_layout_primitive(parse("pad 1 1 0.0"))


T3 = 'ArrayType(ArrayType(ArrayType(Float, SizeVar("A")), SizeVar("B")), SizeVar("C"))'
T2 = 'ArrayType(ArrayType(Float, SizeVar("A")), SizeVar("B"))'


@pytest.mark.parametrize("t,body,shape", [
    (T2, "MapGlb(1)(MapGlb(0)(id)) o Map(PadConstant(1, 2, 0.5f)) $ m", (3, 4)),
    (T3, "MapGlb(2)(MapGlb(1)(MapGlb(0)(id))) o Map(Map(PadConstant(1, 1, 0.0f))) $ m",
     (4, 3, 2)),
    (T3, "MapGlb(1)(MapGlb(0)(MapSeq(id))) o Map(Transpose()) o "
         "Map(Map(PadConstant(2, 1, 1.5f))) $ m", (3, 2, 5)),
    (T3, "MapGlb(2)(MapGlb(1)(MapGlb(0)(id))) o PadConstant3D(1, 1, 1, 0.0f) $ m", (4, 3, 2)),
    (T3, "MapGlb(2)(MapGlb(1)(MapGlb(0)(fun(w => ReduceSeqUnroll(add, 0.0f) o Join() o "
         "Join() $ w)))) o Slide3D(3, 1) o PadConstant3D(1, 1, 1, 0.0f) $ m", (5, 4, 3)),
])
def test_a_kernel_reading_through_a_map_of_pad_computes_what_the_interpreter_does(t, body,
                                                                                   shape):
    f = parse_program(f"val f = fun({t}, m => {body})")["f"]
    m = RNG.uniform(-1, 1, shape).astype(np.float32)
    result = run(f, m, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, f"{result.message}\n{result.source}"
    assert not result.completed  # nothing added: the pads are views


def test_a_box_stencil_with_constant_padding_in_three_dimensions():
    f = parse_program(f"val f = fun({T3}, m => MapGlb(2)(MapGlb(1)(MapGlb(0)(fun(w => "
                      "ReduceSeqUnroll(add, 0.0f) o Join() o Join() $ w)))) o Slide3D(3, 1) o "
                      "PadConstant3D(1, 1, 1, 0.0f) $ m)")["f"]
    m = RNG.uniform(-1, 1, (5, 4, 3)).astype(np.float32)
    windows = np.lib.stride_tricks.sliding_window_view(np.pad(m, 1), (3, 3, 3))
    np.testing.assert_allclose(evaluate(f, m)[..., 0], windows.sum(axis=(3, 4, 5)), atol=1e-5)
