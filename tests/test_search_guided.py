"""The calibrated cost model and the guided descent: the model reads access patterns and
work from the kernel IR, fits its weights to measurements, and the guided search measures
the candidates it predicts fastest, fits the model again to what it measured, and replays
from a recorded log to the same candidates."""

import gzip
import random
from pathlib import Path

import numpy as np
import pytest

from tests.replays import header_only_log
from workbench import Derivation, parse
from workbench.codegen.access import bytes_by_pattern
from workbench.codegen.program import opencl
from workbench.errors import WorkbenchError
from workbench.programs import library
from workbench.search import Log, cost, read, read_log, search
from workbench.search.evaluation import ReplayEvaluator
from workbench.search.guided import Candidates, GuidedState, rank_moves
from workbench.search.space import fits_device

DATA = Path(__file__).parent / "data"
ASUM = library("blas")["asum"]
N = 1 << 16


def compiled(steps, start=ASUM, types=(f"[float]_{N}",)):
    d = Derivation(start, *types)
    for rule, path, params in steps:
        d.apply(rule, path, **params)
    return opencl(d.current, *types, complete=True)


CPU_STYLE = [("map-reduce-vectorize", "0", {"n": 8}),
             ("two-stage-reduction", "2", {"groups": 4, "local": 1, "distribution": "chunked"})]
GPU_STYLE = [("map-reduce-vectorize", "0", {"n": 4}),
             ("two-stage-reduction", "2", {"groups": 64, "local": 64,
                                           "distribution": "strided"})]


# --- access patterns and features ------------------------------------------------------------

def test_access_patterns_tell_a_cpus_reads_from_a_gpus():
    cpu = bytes_by_pattern(compiled(CPU_STYLE).module)
    gpu = bytes_by_pattern(compiled(GPU_STYLE).module)
    assert cpu["streamed"] >= 4 * N and cpu["coalesced"] < N  # each work-item a chunk
    assert gpu["coalesced"] >= 4 * N and gpu["streamed"] < N  # neighbours read neighbours
    gemv = opencl(parse("λm x. mapGlobal (λrow. (reduceSeq (λ(acc, p). acc + p.0 * p.1) 0) "
                        "(zip row x)) m"), "[[float]_64]_32", "[float]_64")
    patterns = bytes_by_pattern(gemv.module)
    assert patterns["shared"] == 32 * 64 * 4  # every row reads all of x
    scattered = opencl(parse("reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (+) 0) ∘ split 64 ∘ "
                             "reorderStride 8 ∘ join ∘ transpose ∘ split 64"), f"[float]_{N}")
    assert bytes_by_pattern(scattered.module)["scattered"] > 0


def test_a_vector_accumulator_is_less_sequential_work():
    scalar = cost.program_features(compiled([
        ("two-stage-reduction", "0", {"groups": 4, "local": 1, "distribution": "chunked"})]), 2)
    vector = cost.program_features(compiled(CPU_STYLE), 2)
    assert vector["chain"] * 6 < scalar["chain"]
    assert vector["kernels"] == scalar["kernels"] + 1  # the lanes are added at the end


# --- the model -------------------------------------------------------------------------------

def test_the_weights_are_fitted_to_measured_times():
    rng = np.random.default_rng(0)
    true = {"kernels": 0.01, "groups": 0.1, "work": 0.3, "chain": 2.0, "coalesced": 0.03,
            "streamed": 0.02, "shared": 0.001, "scattered": 0.3, "barriers": 0.5, "local": 1.0}
    records = []
    for _ in range(60):
        f = {k: float(rng.uniform(0, 1)) / true[k] for k in cost.FEATURES}  # each matters
        ms = sum(true[k] * f[k] for k in cost.FEATURES) * float(rng.uniform(0.97, 1.03))
        records.append({"features": f, "kernel_ms": ms, "correct": True})
    prior = cost.CostModel("test", "cpu", 2, dict.fromkeys(cost.FEATURES, 1.0))
    fitted = prior.fit(records, strength=0.01)
    assert fitted.fitted_on == 60 and fitted.source == "fitted"
    for k in cost.FEATURES:
        assert fitted.weights[k] == pytest.approx(true[k], rel=0.15)
    assert all(w >= 0 for w in fitted.weights.values())
    # failed candidates and candidates without features teach it nothing
    assert prior.fit([{"correct": False, "kernel_ms": None, "features": {}}]) is prior


def test_each_kind_of_device_has_a_prior():
    gpu = cost.prior_for("some GPU", "gpu", 132)
    cpu = cost.prior_for("some CPU", "cpu", 2)
    assert gpu.parallelism == 132 * 2048 and cpu.parallelism == 2
    cpu_style, gpu_style = compiled(CPU_STYLE), compiled(GPU_STYLE)
    # each prior prefers the kernel written for its kind of device
    assert cpu.predict(cpu.features(cpu_style)) < cpu.predict(cpu.features(gpu_style))
    assert gpu.predict(gpu.features(gpu_style)) < gpu.predict(gpu.features(cpu_style))


# --- the guided search -----------------------------------------------------------------------

def _context(types=(f"[float]_{N}",), budget=8):
    from workbench.search import Context, SearchSpec

    spec = SearchSpec(ASUM, tuple(parse_types(types)), budget, "guided", repeat=3, batch=2,
                      replayed=[])
    return Context(spec, ReplayEvaluator([]), Log(None))


def parse_types(types):
    from workbench.notation import parse_type

    return [parse_type(t) for t in types]


def test_moves_are_ranked_by_the_best_predicted_candidate_below_them():
    ctx = _context()
    state = GuidedState.of(ctx)
    pool = Candidates(ctx, state)
    ranked = rank_moves(ctx, pool, ASUM, [], random.Random(0))
    predicted = [candidate.predicted_ms for _, _, candidate in ranked]
    assert predicted == sorted(predicted) and len(ranked) > 10
    # every candidate is complete, and predicted as the model predicts its features
    for _, first, candidate in ranked[:5]:
        assert candidate.steps[0] == first
        assert state.model.predict(candidate.features) == pytest.approx(candidate.predicted_ms)
        assert "reduce " not in str(candidate.expr)  # lowered: no high-level reduce left
        expr, steps, fields = candidate.job()
        assert (expr, steps) == (candidate.expr, candidate.steps)
        # a replay runs nothing: no program travels with the candidate
        assert fields == {"features": candidate.features,
                          "predicted_ms": candidate.predicted_ms}


def test_vector_widths_the_device_does_not_run_are_left_out():
    wide = parse("reduce (+) 0 ∘ joinVec ∘ reduce (mapVec (+)) 0 ∘ splitVec 16")
    assert fits_device(wide, (2, 4, 8, 16)) and not fits_device(wide, (2, 4, 8))
    assert fits_device(wide, None)


# the candidates the guided search measures before its descent, all left out
NONE_FIRST = {"default_first": False, "grids_first": False, "unrolled_first": False,
              "lanes_first": False, "vector_reductions_first": False}


def test_the_guided_search_measures_what_it_predicts_fastest_and_calibrates(tmp_path):
    log = tmp_path / "guided.jsonl"
    # the descent alone (on a CPU the default measures the start in vector lanes first)
    result = search(ASUM, f"[float]_{N}", strategy="guided", budget=8, workers=1, repeat=3,
                    log=log, options=NONE_FIRST)
    assert result.evaluated == 8 and result.best_record["correct"]
    records = read(log)
    assert all("features" in r and "predicted_ms" in r for r in records)
    # the first candidates are the best predicted below the first moves: first the best of
    # three different rules, in that order (one worker: they finish in the order they were
    # sent), then the best predicted of the others
    diverse = records[:3]
    assert [r["predicted_ms"] for r in diverse] == sorted(r["predicted_ms"] for r in diverse)
    assert len({r["steps"][0]["rule"] for r in diverse}) == 3
    rest = [r["predicted_ms"] for r in records[3:6]]
    assert rest == sorted(rest)
    assert result.model["fitted_on"] == sum(1 for r in records if r["correct"])
    assert result.model["source"] == "fitted"
    assert result.model["weights"] != cost.prior_for(kind="cpu").weights
    assert result.fixed  # a step was fixed after the first measurements


def test_a_recorded_guided_search_replays_to_the_same_candidates():
    """The log was written by version 2 of the guided strategy, which measured nothing
    before its descent unless asked: its header says so, and the replay takes version 2's
    defaults (``strategies.EARLIER_DEFAULTS``)."""
    recorded = DATA / "asum_4096_guided.jsonl"
    assert read_log(recorded).headers[0]["strategy_version"] == 2
    log = read(recorded)
    result = search(ASUM, "[float]_4096", strategy="guided", budget=len(log),
                    replay_log=recorded, repeat=3)
    # the same candidates (the log holds them in the order they finished on two workers)
    assert sorted(r["expression"] for r in result.log) == sorted(r["expression"] for r in log)
    assert not [r for r in result.log if r["status"] == "not in log"]
    best = min((r for r in log if r["correct"]), key=lambda r: r["kernel_ms"])
    assert result.best_kernel_ms == best["kernel_ms"]
    again = search(ASUM, "[float]_4096", strategy="guided", budget=len(log),
                   replay_log=recorded, repeat=3)
    assert [r["key"] for r in again.log] == [r["key"] for r in result.log]
    # today's defaults measure the default completion first: its records alone (no header
    # saying which version wrote them) do not replay
    today = search(ASUM, "[float]_4096", strategy="guided", budget=len(log), replay_log=log,
                   repeat=3)
    assert [r["status"] for r in today.log].count("not in log") > 0


def test_a_guided_search_resumed_from_a_long_log_goes_on_to_new_candidates(tmp_path):
    """An H100 log of 247 candidates holds the best predicted candidate below every move the
    descent meets: the search then measures the next best below them (in a replay, those
    the log does not hold are answered "not in log"), where it once stopped at once. The
    log's candidates count against the budget."""
    archived = DATA / "asum_16777216_h100_guided.jsonl.gz"
    recorded = read(archived)
    log = tmp_path / "resumed.jsonl"
    log.write_bytes(gzip.decompress(archived.read_bytes()))
    result = search(ASUM, "[float]_16777216", strategy="guided", budget=len(recorded) + 30,
                    replay_log=archived, log=log)
    logged = {r["key"] for r in recorded}
    new = [r for r in result.log if r["key"] not in logged]
    assert result.from_log == len(recorded)
    assert result.evaluated == len(recorded) + 30 and len(new) >= 20


def test_a_code_generator_bug_is_an_internal_error_and_a_refusal_is_not(monkeypatch):
    from workbench.codegen import CodegenError
    from workbench.search import guided

    def buggy(expr, *types, **options):
        raise KeyError("a bug of the code generator")

    def refusing(expr, *types, **options):
        raise CodegenError("not generated here")

    ctx = _context()
    state = GuidedState.of(ctx)
    monkeypatch.setattr(guided, "opencl", refusing)
    assert Candidates(ctx, state).complete(ASUM, []) is None and not ctx.internal_errors
    state.completions.clear()
    state.compiled.clear()
    monkeypatch.setattr(guided, "opencl", buggy)
    assert Candidates(ctx, state).complete(ASUM, []) is None
    [error] = ctx.internal_errors
    assert error.where == "completion (guided)" and error.expression == str(ASUM)
    assert error.error == "KeyError: 'a bug of the code generator'"
    assert "in buggy" in error.traceback and "raise KeyError" in error.traceback


def test_a_search_reports_its_internal_errors_with_their_tracebacks(monkeypatch):
    from workbench.search import guided

    generate = guided.opencl

    def buggy_for_warps(expr, *types, **options):
        if "mapWarp" in str(expr):
            raise IndexError("a bug of the code generator")
        return generate(expr, *types, **options)

    monkeypatch.setattr(guided, "opencl", buggy_for_warps)
    result = search(ASUM, "[float]_4096", strategy="guided", budget=4,
                    replay_log=DATA / "asum_4096_guided.jsonl", repeat=3)
    assert result.internal_errors and result.best is not None
    assert all("mapWarp" in e.expression for e in result.internal_errors)
    assert f"; {len(result.internal_errors)} internal error" in result.outcome
    assert "IndexError: a bug of the code generator" in str(result)
    reported = result.as_json()["internal_errors"][0]
    assert "raise IndexError" in reported["traceback"]


def test_each_guided_candidate_is_compiled_once(monkeypatch):
    """The program the guided search compiles for its cost model travels with the candidate
    to the worker, which runs it without compiling it again: it is the program the worker
    would have compiled from the candidate's text. After the search the best is timed
    again with its program too."""
    from collections import Counter

    from workbench.codegen.program import opencl
    from workbench.notation import parse
    from workbench.search import guided
    from workbench.search.evaluation import declared_for

    from .compilations import count_compilations

    by_search, by_worker = count_compilations(monkeypatch, guided)
    result = search(ASUM, "[float]_4096", strategy="guided", budget=6, workers=0, repeat=2)
    assert result.evaluated == 6 and result.timing == "re-timed"
    assert all(by_search[r.expression] == 1 for r in result.log)  # compiled once each
    assert by_worker == Counter()  # the best is timed again with its program too
    types = parse_types(["[float]_4096"])
    for r in result.log:  # the very program the worker compiles from the candidate's text
        again = opencl(declared_for(parse(r.expression), ["[float]_4096"]), *types,
                       complete=True)
        assert r.source_sha256 == again.sha256


def test_a_move_is_never_fixed_on_a_wrong_kernels_time():
    """A candidate that computed something else (its time measured all the same) says
    nothing of its move: the descent fixes the move whose fastest *correct* candidate is
    fastest."""
    from types import SimpleNamespace

    from workbench.search.guided import _fastest_move
    from workbench.search.log import Record

    wrong_fast = parse("mapGlobal abs")
    right_slow = parse("mapSeq abs")
    records = {
        str(wrong_fast): Record("a", status="wrong result", correct=False, kernel_ms=0.01),
        str(right_slow): Record("b", status="ok", correct=True, kernel_ms=5.0)}

    class Searched:  # what _fastest_move reads of a search: the record of an expression
        def record_of(self, expr):
            return records.get(str(expr))

    ranked = [(SimpleNamespace(rule="map→mapGlobal"), "first A",
               [SimpleNamespace(expr=wrong_fast)]),
              (SimpleNamespace(rule="map→mapSeq"), "first B",
               [SimpleNamespace(expr=right_slow)])]
    option, first = _fastest_move(Searched(), ranked)
    assert first == "first B"
    records[str(right_slow)] = Record("b", status="wrong result", correct=False,
                                      kernel_ms=5.0)
    assert _fastest_move(Searched(), ranked) is None  # nothing correct below any move


# --- what the guided search measures before its descent (its version 6's defaults) -----------

def test_the_candidates_measured_first_suit_the_device_kind():
    from workbench.search.guided import first_options
    from workbench.search.strategies import option_names

    assert first_options("gpu") == {"default_first": True, "grids_first": True,
                                    "unrolled_first": False, "lanes_first": False,
                                    "rows_first": True, "pads_first": False,
                                    "fusion_first": True, "fused_first": True,
                                    "vector_blocks_first": False, "groups_first": True,
                                    "float4_lanes_first": False,
                                    "turns_first": False,
                                    "vector_reductions_first": False,
                                    "lane_sums_first": False}
    assert first_options("cpu") == {"default_first": True, "grids_first": False,
                                    "unrolled_first": True, "lanes_first": True,
                                    "rows_first": False, "pads_first": True,
                                    "fusion_first": True, "fused_first": True,
                                    "vector_blocks_first": True, "groups_first": False,
                                    "float4_lanes_first": True,
                                    "turns_first": True,
                                    "vector_reductions_first": True,
                                    "lane_sums_first": True}
    assert all(option_names("guided")[k] is None for k in first_options("cpu"))
    with pytest.raises(WorkbenchError, match="grids_first = 1: give True or False"):
        search(ASUM, "[float]_64", budget=1, replay_log=[], options={"grids_first": 1})


def test_a_log_replays_with_the_defaults_of_the_version_that_wrote_it():
    from workbench.search.strategies import VERSIONS, replay_options, replays

    old = {"strategy": "guided", "strategy_version": 2, "options": {"grids_first": True}}
    assert replay_options("guided", old, None) == {
        "default_first": False, "grids_first": True, "unrolled_first": False,
        "lanes_first": False, "rows_first": False, "pads_first": False, "fusion_first": False,
        "fused_first": False, "vector_blocks_first": False, "lane_widths": [8, 16],
        "groups_first": False, "float4_lanes_first": False,
        "turns_first": False,
        "vector_reductions_first": False, "lane_sums_first": False}
    # options given win over the header's; those neither names take the version's defaults
    assert replay_options("guided", old, {"lanes_first": True})["grids_first"] is False
    today = dict(old, strategy_version=VERSIONS["guided"])
    assert replay_options("guided", today, None) == {"grids_first": True}
    assert replay_options("guided", None, None) == {}
    assert replay_options("guided", dict(old, strategy_version=3), None) == {
        "grids_first": True, "rows_first": False, "pads_first": False, "fusion_first": False,
        "fused_first": False, "vector_blocks_first": False, "lane_widths": [8, 16],
        "groups_first": False, "float4_lanes_first": False,
        "turns_first": False,
        "vector_reductions_first": False, "lane_sums_first": False}
    # version 4 took 8 and 16 lanes whatever the device, and measured no vector blocks
    assert replay_options("guided", dict(old, strategy_version=4), None) == {
        "grids_first": True, "fusion_first": False, "fused_first": False,
        "vector_blocks_first": False, "lane_widths": [8, 16], "groups_first": False,
        "float4_lanes_first": False, "turns_first": False, "vector_reductions_first": False,
        "lane_sums_first": False}
    # version 5 put no float4 elements in lanes, measured nothing in turns (sinpi) first, no
    # reductions in vectors and two stages, no lanes' sums unrolled
    assert replay_options("guided", dict(old, strategy_version=5), None) == {
        "grids_first": True, "float4_lanes_first": False, "turns_first": False,
        "vector_reductions_first": False, "lane_sums_first": False}
    assert replays("guided", 2) and replays("guided", 3) and replays("guided", 4)
    assert replays("guided", 5) and replays("guided", 6)
    assert not replays("guided", 1)
    assert not replays("mcts", 1)


def _header_only_log(path, kind: str, name: str, prog, types) -> Path:
    """A log of a search on a device of this kind that measured nothing: a replay of it
    shows the candidates the search proposes there, each "not in log"."""
    return header_only_log(path, prog, types, kind, name)


def test_on_a_gpu_skelcls_blur_is_put_on_a_2d_grid_after_its_default_mapping(tmp_path):
    """SkelCL writes a row of its stencil as ``join ∘ map (λnbh. reduce …)``: the grids are
    found once that join is split off (``grids.layouts_split``). On a GPU (the log's
    device) the guided search measures the default mapping first, then the 2-D grid, the
    innermost map on dimension 0, then the grids with rows per work-item; on a CPU the
    default mapping, then its reduction unrolled, and no grid."""
    from workbench.rules.lowering import lower

    blur = library("skelcl")["gaussianBlur"]
    types = ["[[float]_64]_64", "[float]_9"]
    default = str(lower(blur, *parse_types(types))[0])
    gpu = _header_only_log(tmp_path / "gpu.jsonl", "gpu", "NVIDIA H200", blur, types)
    found = search(blur, *types, budget=4, replay_log=gpu).log
    assert found[0]["expression"] == default
    assert [s["rule"] for s in found[1]["steps"]][:2] == ["map-fission", "map-nest→kernel"]
    assert "mapGlobal 1 (mapGlobal (λnbh." in found[1]["expression"]
    assert all(s["rule"] == "split-join" for r in found[2:] for s in r["steps"][1:2])
    cpu = _header_only_log(tmp_path / "cpu.jsonl", "cpu", "pthread-AMD EPYC", blur, types)
    found = search(blur, *types, budget=2, replay_log=cpu).log
    assert found[0]["expression"] == default
    assert found[1]["steps"][-1]["rule"] == "reduceSeq→reduceSeqUnroll"
    assert "mapGlobal 1" not in found[1]["expression"]


def test_on_a_cpu_a_stencils_pads_move_onto_its_input_right_after_its_default_mapping(
        tmp_path):
    """PPCG's Jacobi as Lift writes it pads its result: on a CPU the guided search measures
    the default mapping (a second kernel copies the result through the pads), then the pads
    moved onto the input (one kernel); on a GPU the pads move with the grids, not alone."""
    from workbench.rules.lowering import lower

    jacobi = library("lift/stencils")["jacobi2d5pt"]
    types = ["[[float]_32]_32"]
    cpu = _header_only_log(tmp_path / "cpu.jsonl", "cpu", "pthread-AMD EPYC", jacobi, types)
    found = search(jacobi, *types, budget=2, replay_log=cpu).log
    assert found[0]["expression"] == str(lower(jacobi, *parse_types(types))[0])
    assert [s["rule"] for s in found[1]["steps"]][0] == "pad-map-interchange"
    gpu = _header_only_log(tmp_path / "gpu.jsonl", "gpu", "NVIDIA H200", jacobi, types)
    found = search(jacobi, *types, budget=2, replay_log=gpu).log
    assert "mapGlobal 1" in found[1]["expression"]


@pytest.mark.parametrize("text, types, dims", [
    ("λimg ws. map (join ∘ map (λnbh. reduce (+) 0 (map (*) (zip (join nbh) ws)))) "
     "(slide2D 3 1 (pad2D 1 1 0.0 img))", ["[[float]_24]_16", "[float]_9"], (24, 16)),
    ("map (join ∘ map (join ∘ map (λx. reduce (+) 0 (map abs x))))",
     ["[[[[float]_4]_12]_8]_6"], (12, 8, 6)),
])
def test_a_nest_of_maps_whose_functions_end_in_joins_runs_on_a_grid(text, types, dims):
    """Each nest on a grid of as many dimensions, the innermost map on dimension 0, and the
    kernel computes what the interpreter does (on the default device)."""
    from workbench import evaluate, run
    from workbench.inputs import random_inputs
    from workbench.rules.lowering import lower
    from workbench.search.grids import grid_mappings

    prog, typed = parse(text), tuple(parse_types(types))
    expr, steps = grid_mappings(prog, typed)[0]
    assert steps[-1].rule == "map-nest→kernel"
    low = lower(expr, *typed)[0]
    [launch] = opencl(low, *typed, complete=True).module.launches
    assert tuple(launch.global_size) == dims
    inputs = random_inputs(list(typed), {}, 0)
    result = run(low, *inputs, repeat=2)
    assert result.correct, result.message
    np.testing.assert_allclose(np.asarray(result.output).ravel(),
                               np.asarray(evaluate(prog, *inputs)).ravel(), rtol=1e-4,
                               atol=1e-5)


def test_a_search_completing_drops_an_expression_without_asking_why_it_cannot_be_lowered():
    """``lower(..., explain=False)`` (what the searches' completions call) refuses the same
    nodes as ``lower``, naming the node but not the failed condition of its default
    lowering, which only a reader of the error needs."""
    from workbench.rules.lowering import LoweringRefused, lower

    nested = parse("map (mapGlobal abs) ∘ split 4")
    with pytest.raises(LoweringRefused, match="nested in another mapGlobal") as told:
        lower(nested, "[float]_16")
    with pytest.raises(LoweringRefused, match="map is still high-level$") as short:
        lower(nested, "[float]_16", explain=False)
    assert short.value.path == told.value.path == (0,)
    assert lower(parse("mapGlobal (map abs) ∘ split 4"), "[float]_16", explain=False) == \
        lower(parse("mapGlobal (map abs) ∘ split 4"), "[float]_16")
