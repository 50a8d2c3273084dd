"""``codegen.emit.source_map``: the expression path of every line of a program's OpenCL (the
widget links tree nodes and lines by it). One entry per line of the source, the same text
either way, and a line's path names a node of the expression that generated it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench
from workbench import CodegenError, WorkbenchError, load, opencl
from workbench.codegen.emit import source_map
from workbench.expr import subterm

PROGRAMS = Path(workbench.__file__).parent / "programs"
SIZES = {"N": 256, "M": 64, "K": 64}


def _programs():
    out = []
    for name in ("blas.lift", "reductions.lift", "mm.lift"):
        for key, expr in load(str(PROGRAMS / name)).items():
            if getattr(expr, "declared_type", None) is not None:
                out.append((f"{name}:{key}", expr))
    return out


PROGRAMS_GENERATED = _programs()


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(PROGRAMS_GENERATED))
def test_every_line_has_its_path_and_the_path_is_a_node(named):
    _, expr = named
    try:
        program = opencl(expr, sizes=SIZES, complete=True)
    except (CodegenError, WorkbenchError):
        return  # a program these sizes do not fit
    paths = source_map(program.module)
    lines = program.source.rstrip("\n").split("\n")
    assert len(paths) == len(lines)
    kernels = [k for k, line in enumerate(lines) if line.startswith("kernel void")]
    assert kernels and all(paths[k] is not None for k in kernels)
    if not program.completed:  # fully low-level: the paths are the expression's own
        for p in {p for p in paths if p is not None}:
            subterm(expr, p)  # raises when the path names no node


def test_a_map_loop_carries_the_maps_path():
    program = opencl(load(str(PROGRAMS / "blas.lift"))["asum"], sizes={"N": 4096},
                     complete=True)
    lines = program.source.rstrip("\n").split("\n")
    paths = dict(zip(lines, source_map(program.module)))
    loop = next(line for line in lines if "asum_abs" in line and "=" in line)
    assert paths[loop] == (1,)  # map abs is the composition's second function
    assert paths[lines[0]] is None  # a declaration


if not PROGRAMS_GENERATED:  # pragma: no cover
    pytest.skip("no library program with a signature", allow_module_level=True)
