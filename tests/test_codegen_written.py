"""The written check (``codegen.written``) against a run: every buffer that a kernel writes is
filled with a sentinel before the program runs, twice with two different sentinels. An
output element still holding the sentinel was never written; outputs that differ between
the two runs read an element that nothing wrote. Whatever the check accepts must pass
both (soundness), over random derivations of the library programs and over programs
built to fail it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import evaluate, parse, rewrites
from workbench.codegen import CodegenError, emit, written
from workbench.codegen.program import compile_module, concrete, refuse_high_level
from workbench.codegen.stages import translate
from workbench.errors import WorkbenchError
from workbench.programs import library
from workbench.rules.lowering import LoweringRefused, lower
from workbench.run import run
from workbench.typecheck import annotate, input_types_of
from workbench.types import function_parts, substitute_sizes

SENTINELS = {"f": (1.0e6, -3.0e6), "i": (0, 1)}  # ints stay valid indices


def unchecked(expr, types, sizes=None):
    """The kernel IR of an expression after all passes but the written check."""
    expr, types = concrete(expr, tuple(types), sizes)
    expr, _ = lower(expr, *types)
    refuse_high_level(expr)
    note = annotate(expr, *types)
    module = translate(expr, note, input_types_of(expr, types), "checked", "")
    return compile_module(module, check=False)


def verdict(module):
    """None when the written check accepts the program, else its reason."""
    try:
        written.check(module)
    except CodegenError as err:
        return str(err)
    return None


def _context():
    from workbench.device.opencl import DeviceError
    from workbench.runtime import context_for

    try:
        return context_for(None)
    except DeviceError as err:
        pytest.skip(f"no OpenCL device: {err}")


def _run_with(module, inputs, sentinel_index):
    import pyopencl as cl

    from workbench.runtime import build

    ctx = _context()
    program, _ = build(ctx, emit.program_source(module))
    mf = cl.mem_flags
    host, device = {}, {}
    for b in module.buffers:
        if b.space not in ("global", "constant"):  # an input in constant memory is a buffer
            continue
        dtype = b.scalar_dtype()
        if b.role == "input":
            data = np.ascontiguousarray(inputs[b.name], dtype=dtype).reshape(-1)
            device[b.name] = cl.Buffer(ctx.context, mf.READ_ONLY | mf.COPY_HOST_PTR,
                                       hostbuf=data)
            continue
        fill = SENTINELS["f" if dtype.kind == "f" else "i"][sentinel_index]
        host[b.name] = np.full(b.length, fill, dtype=dtype)
        device[b.name] = cl.Buffer(ctx.context, mf.READ_WRITE | mf.COPY_HOST_PTR,
                                   hostbuf=host[b.name])
    kernels = {k.name: cl.Kernel(program, k.name) for k in module.kernels}
    for launch in module.launches:
        kernels[launch.kernel](ctx.queue, launch.global_size, launch.local_size,
                               *[device[a] for a in launch.args])
    outputs = {}
    for b in module.outputs:
        cl.enqueue_copy(ctx.queue, host[b.name], device[b.name])
        outputs[b.name] = host[b.name]
    ctx.queue.finish()
    return outputs


def dynamic_problem(module, inputs):
    """What two runs with different sentinels show (None: every output element written, and
    nothing unwritten read)."""
    first, second = (_run_with(module, inputs, k) for k in (0, 1))
    for b in module.outputs:
        dtype = b.scalar_dtype()
        a_fill, b_fill = (np.asarray(s, dtype) for s in SENTINELS["f" if dtype.kind == "f"
                                                                     else "i"])
        never = (first[b.name] == a_fill) & (second[b.name] == b_fill)
        if never.any():
            return f"{int(never.sum())} elements of {b.name} never written"
        if not np.array_equal(first[b.name], second[b.name], equal_nan=True):
            return f"{b.name} depends on what was in memory before the run"
    return None


def input_values(module, args):
    """The input buffers' contents, by name, from the program's arguments."""
    from workbench.values import leaves

    return {b.name: np.asarray(leaf) for parts, arg in zip(module.inputs, args)
            for b, leaf in zip(parts, leaves(arg))}


# --- programs built to fail, and the program that used to ----------------------------------

XS = np.random.default_rng(3).uniform(-1, 1, (16, 8)).astype(np.float32)
YS = np.random.default_rng(4).uniform(-1, 1, 8).astype(np.float32)
DECOMPOSE = "λxs ys. mapGlobal (mapSeq (λ(a, b). a * b)) (mapGlobal (λx. zip x ys) xs)"


def test_a_map_of_zips_stores_its_temporary():
    """Lift's TestMisc.decompose: the first kernel, a map of zips only, stored nothing and the
    second read its temporary anyway. The zipped elements are now stored."""
    expr = parse(DECOMPOSE)
    module = unchecked(expr, ["[[float]_8]_16", "[float]_8"])
    assert verdict(module) is None
    assert dynamic_problem(module, input_values(module, (XS, YS))) is None
    result = run(expr, XS, YS, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


def test_the_lift_decompose_program_runs():
    from workbench import parse_program

    program = parse_program('''
val N = SizeVar("N")
val M = SizeVar("M")
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  ArrayTypeWSWC(Float, M),
  (X, Y) => MapGlb(MapSeq(mult)) o MapGlb(fun(x => Zip(x, Y))) $ X
)''')
    result = run(program["f"], XS, YS, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


@pytest.mark.parametrize("text", [
    "mapGlobal (mapSeq abs) ∘ mapGlobal (id ∘ id)",
    "mapGlobal (mapSeq abs) ∘ join ∘ mapGlobal (id ∘ id) ∘ split 2",
])
def test_a_temporary_that_nothing_writes_is_refused_and_a_run_agrees(text):
    module = unchecked(parse(text), ["[[float]_8]_16"])
    reason = verdict(module)
    assert reason is not None and "stores nothing" in reason and "tmp" in reason, reason
    assert "`mapGlobal (id ∘ id)`" in reason  # the computation that should have stored it
    assert dynamic_problem(module, input_values(module, (XS,))) is not None
    result = run(parse(text), XS, repeat=1)
    assert result.status == "codegen error" and "stores nothing" in result.message


def test_reads_of_a_partly_written_temporary_are_found_on_hand_built_ir():
    from workbench.codegen import ir
    from workbench.codegen.arith import var
    from workbench.sizes import Size
    from workbench.types import FLOAT, ArrayType

    def buf(name, role):
        return ir.Buffer(name, "global", ArrayType(FLOAT, Size.const(64)), role)

    params = (buf("in0", "input"), buf("tmp", "temporary"), buf("out", "output"))
    i = var("i", 32)
    first = ir.Kernel("k0", params, (), (ir.Loop("i", "seq", 32, (
        ir.Store("tmp", i * 2, ir.Load("in0", i)),), step=1),))   # the even elements
    j = var("j", 64)
    second = ir.Kernel("k1", params, (), (ir.Loop("j", "seq", 64, (
        ir.Store("out", j, ir.Load("tmp", j)),), step=1),))
    launches = tuple(ir.Launch(k.name, (1,), (1,)) for k in (first, second))
    module = ir.Module("p", (), (first, second), params, ((params[0],),), (params[2],),
                       launches)
    with pytest.raises(CodegenError, match=r"32 elements \(from 1 to 63\) of the temporary"):
        written.check(module)
    even = ir.Kernel("k1", params, (), (ir.Loop("j", "seq", 32, (
        ir.Store("out", j, ir.Load("tmp", var("j", 32) * 2)),), step=1),))
    # reads only what was written (its output is then half written, which is refused too)
    with pytest.raises(CodegenError, match="the output out is not written exactly once"):
        written.check(ir.Module("p", (), (first, even), params, ((params[0],),),
                                (params[2],), launches))
    written.check_reads(ir.Module("p", (), (first, even), params, ((params[0],),),
                                  (params[2],), launches))


# --- random derivations ----------------------------------------------------------------------

CASES = {
    "asum": ("blas", "asum", {"N": 512}),
    "dot": ("blas", "dot", {"N": 256}),
    "scal": ("blas", "scal", {"N": 256}),
    "gemv": ("blas", "gemv", {"N": 32, "M": 16}),
    "mm": ("mm", "mm", {"M": 8, "K": 16, "N": 4}),
    "listing5_8": ("reductions", "listing5_8", {"N": 512}),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_what_the_check_accepts_a_run_finds_written(case, data):
    from workbench.inputs import random_inputs

    file, name, sizes = CASES[case]
    expr = library(file)[name]
    types = [substitute_sizes(t, sizes) for t in function_parts(expr.declared_type)[0]]
    args = random_inputs(function_parts(expr.declared_type)[0], sizes,
                         data.draw(st.integers(0, 1 << 16)))
    for _ in range(data.draw(st.integers(0, 6))):
        found = rewrites(expr, *types)
        if not found:
            break
        expr = data.draw(st.sampled_from(found)).result
    try:
        module = unchecked(expr, types)
    except (CodegenError, LoweringRefused, WorkbenchError):
        return  # not generated: nothing to compare
    reason = verdict(module)
    problem = dynamic_problem(module, input_values(module, args))
    assert reason is not None or problem is None, (str(expr), problem)
    if reason is None:  # and what it accepts computes what the interpreter computes
        expected = evaluate(expr, *args)
        got = [_run_with(module, input_values(module, args), 0)[b.name]
               for b in module.outputs]
        from workbench.values import leaves

        for g, e in zip(got, leaves(expected)):
            e = np.asarray(e, dtype=np.float64).reshape(-1)
            np.testing.assert_allclose(g, e, rtol=1e-3, atol=1e-3 * (1 + np.abs(e).max()))


# --- the counts themselves: a gap of one element, anywhere, is found -------------------------

@st.composite
def _tiling_with_a_gap(draw):
    """A length, stores covering [0, length) in intervals of random widths, and the one
    element left out of them (the intervals around it split there)."""
    length = draw(st.integers(2, 200))
    cuts = sorted(set(draw(st.lists(st.integers(1, length - 1), max_size=8))))
    bounds = [0, *cuts, length]
    gap = draw(st.integers(0, length - 1))
    spans = []
    for a, b in zip(bounds, bounds[1:]):
        if a <= gap < b:
            spans += [(a, gap), (gap + 1, b)]
        else:
            spans.append((a, b))
    return length, [(a, b) for a, b in spans if a < b], gap


@given(_tiling_with_a_gap(), st.booleans())
def test_an_output_missing_one_element_is_never_counted_written_once(case, as_points):
    from workbench.codegen.written import _Count

    length, spans, gap = case
    count = _Count(length)
    if as_points:  # offsets counted one by one
        count.points.append((np.array([i for a, b in spans for i in range(a, b)],
                                      dtype=np.int64), 1))
    else:
        count.intervals += [(a, b, 1) for a, b in spans]
    problem = count.problem()
    assert problem is not None and "never written" in problem
    assert f"{gap}" in problem  # it names the element (or the first one missing)
    complete = _Count(length)
    complete.intervals += [(a, b, 1) for a, b in spans] + [(gap, gap + 1, 1)]
    assert complete.problem() is None


@given(_tiling_with_a_gap(), st.booleans())
def test_a_read_of_a_temporary_missing_one_element_finds_that_element(case, as_points):
    from workbench.codegen.written import _Count, _Coverage

    length, spans, gap = case
    coverage = _Coverage(length)
    count = _Count(length)
    if as_points:
        count.points.append((np.array([i for a, b in spans for i in range(a, b)],
                                      dtype=np.int64), 1))
    else:
        count.intervals += [(a, b, 1) for a, b in spans]
    coverage.add(count)
    assert coverage.missing(0, length) == (gap, gap, 1)
    assert coverage.missing_points(np.arange(length)) == (gap, gap, 1)
    assert coverage.missing(gap, gap + 1) == (gap, gap, 1)
    if gap > 0:
        assert coverage.missing(0, gap) is None
