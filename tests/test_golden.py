"""The OpenCL source of every saved derivation's final expression and of every library
program that can be generated, at fixed sizes, against its golden file under
``tests/golden/`` (a change to the code generator shows as a diff of each kernel it
touches; ``pytest --update-golden`` rewrites them). Only source is generated here; the
kernels' runs are checked against the interpreter in ``test_saved_derivations_run.py`` and
``test_codegen_run.py``."""

import pytest

from tests.test_saved_derivations_run import DERIVATIONS, EXTRA, SIZES, load
from workbench import parse
from workbench.codegen import CodegenError
from workbench.codegen.program import opencl
from workbench.programs import files, library
from workbench.types import free_size_vars, function_parts, substitute_sizes

SIZE = 1024  # every size variable of a library program, unless PROGRAM_SIZES says otherwise
PROGRAM_SIZES = {("reductions", "listing5_13"): {"N": 4096, "blockSize": 2048}}

# Library programs no kernel is generated for yet, with the reason's beginning: when one of
# them starts to generate, it is taken off this list and gets its golden file.
NOT_GENERATED = {
    ("futhark", "example"): "at node root",
    ("futhark", "columnSums"): "at node 0.0.0 `mapGlobal (+)`: mapGlobal writes a private",
    ("md", "updateF"): "output out: arrays of (float, float, float)",  # a tuple, no array
    ("p2cl", "bitReversal"): "nothing to compute",
    ("skelcl", "manhattan"): "at node root",
}


def header(what: str, types, sizes: dict) -> str:
    shown = ", ".join(f"{k}={v}" for k, v in sorted(sizes.items()))
    return f"// {what} on {', '.join(map(str, types))}" + (f" ({shown})" if shown else "") + "\n"


def derivation_source(stem: str) -> str:
    d = load(stem)
    sizes = SIZES[stem][0]  # the smallest of the sizes its run test uses
    expr = d.current
    if stem == "icfp_fig10_asum":  # as in its run test: the last line without its signature
        expr = parse(str(expr))
    types = [substitute_sizes(t, sizes) for t in function_parts(d.start.declared_type)[0]]
    program = opencl(expr, *types, sizes={**sizes, **EXTRA.get(stem, {})}, complete=True,
                     name=stem)
    return header(f"derivation {stem}", types, {**sizes, **EXTRA.get(stem, {})}) + program.source


def typed_programs() -> list[tuple[str, str]]:
    return [(path.stem, name) for path in files() for name, expr in library(path.stem).items()
            if getattr(expr, "declared_type", None) is not None]


def program_source(file: str, name: str) -> str:
    expr = library(file)[name]
    inputs = function_parts(expr.declared_type)[0]
    variables = sorted(set().union(set(), *(free_size_vars(t) for t in inputs)))
    sizes = PROGRAM_SIZES.get((file, name), {v: SIZE for v in variables})
    types = [substitute_sizes(t, sizes) for t in inputs]
    program = opencl(expr, *types, sizes=sizes, complete=True, name=name)
    return header(f"program {file}.{name}", types, sizes) + program.source


@pytest.mark.parametrize("stem", sorted(p.stem for p in DERIVATIONS.glob("*.json")))
def test_saved_derivations_generate_their_golden_kernels(stem, golden):
    source = derivation_source(stem)
    assert derivation_source(stem) == source  # deterministic
    golden(f"derivations/{stem}.cl", source)


@pytest.mark.parametrize("file,name", [p for p in typed_programs() if p not in NOT_GENERATED],
                         ids=lambda v: v)
def test_library_programs_generate_their_golden_kernels(file, name, golden):
    source = program_source(file, name)
    assert program_source(file, name) == source  # deterministic
    golden(f"programs/{file}.{name}.cl", source)


@pytest.mark.parametrize("file,name", sorted(NOT_GENERATED), ids=lambda v: v)
def test_programs_without_a_kernel_are_still_refused(file, name):
    with pytest.raises(CodegenError) as refused:
        program_source(file, name)
    assert str(refused.value).startswith(NOT_GENERATED[file, name]), str(refused.value)


def test_every_golden_file_belongs_to_a_kernel():
    from tests.golden import GOLDEN

    expected = {f"derivations/{p.stem}.cl" for p in DERIVATIONS.glob("*.json")}
    expected |= {f"programs/{f}.{n}.cl" for f, n in typed_programs() if (f, n) not in NOT_GENERATED}
    found = {str(p.relative_to(GOLDEN)) for p in GOLDEN.glob("*/*.cl")
             if p.parent.name in ("derivations", "programs")}
    assert found == expected
