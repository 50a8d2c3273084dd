"""The CASES 2016 exploration as a search strategy (``strategy="cases"``): four phases with
their counts, named heuristics, parameters pruned by the device's limits (counted by
reason), candidates in random order, every one checked against the interpreter, logged,
resumable and replayable."""

import re

import numpy as np
import pytest

from workbench import load, parse_type
from workbench.errors import WorkbenchError
from workbench.search import cases as C
from workbench.search import search
from workbench.search.log import Record

MM = load("workbench/programs/mm.lift")["mm"]
TYPES = tuple(parse_type(t) for t in ("[[float]_64]_32", "[[float]_32]_64"))
CPU = C.Limits(kind="cpu", local_memory_bytes=32768, max_work_group_size=256,
               compute_units=2, min_work_group=1)
SMALL = {"depth": 2}


@pytest.fixture(scope="module")
def explored():
    return C.explore(MM, TYPES, C.Options(**SMALL), CPU)


def test_each_phase_reports_its_count_next_to_the_papers(explored):
    phases = {p["phase"]: p for p in explored["phases"]}
    assert list(phases) == ["algorithmic", "nesting depth", "add/multiply distance",
                            "rule repetitions", "OpenCL", "parameters"]
    counts = [p["count"] for p in explored["phases"]]
    assert counts[0] >= counts[1] >= counts[2] >= counts[3] > 0
    assert counts[4] > counts[3] and counts[5] > 0
    assert phases["algorithmic"]["paper"] == 20000 and phases["parameters"]["paper"] == 46000
    assert sum(explored["pruned"].values()) > 0


def test_the_heuristics_are_named_predicates():
    blocked = C.phase1(MM, TYPES, C.Options(depth=1))
    by_label = {v.label: v for v in blocked}
    assert C.add_multiply_distance(MM) > 0  # reduce (+) 0 ∘ map (*): a map between them
    assert C.add_multiply_distance(by_label["2d-blocking"].expr) == 0  # acc + a * b
    # the row and column maps and the map of the dot product; blocks of blocks of a block
    assert C.nesting_depth(MM) == 3 and C.nesting_depth(by_label["2d-blocking"].expr) == 4
    twice = C.Variant(MM, tuple(C.Step("tiling", (), {}) for _ in range(2)))
    assert not C.repetitions(twice)


def test_device_limits_prune_parameters_before_anything_is_built():
    tight = C.Limits(kind="gpu", local_memory_bytes=256, max_work_group_size=16,
                     compute_units=1, min_work_group=4)
    found = C.explore(MM, TYPES, C.Options(depth=2), tight)
    pruned = found["pruned"]
    assert pruned.get("work-groups larger than the device allows", 0) > 0
    assert pruned.get("work-groups too small", 0) > 0
    for v, env in found["candidates"][:200]:
        r = C.resources(v, TYPES)
        assert C.check(r, env, tight) is None


def test_phase_two_maps_the_two_outer_maps_over_work_groups(explored):
    texts = [str(v.expr) for v in explored["programs"]]
    assert all("mapWorkgroup 1" in t for t in texts)
    assert any("mapLocal 1" in t and "toLocal" in t for t in texts)
    assert any("packed" in t for t in texts)


def test_a_cases_search_measures_candidates_in_random_order_and_logs_them(tmp_path):
    a = np.random.default_rng(1).uniform(-1, 1, (32, 64)).astype(np.float32)
    b = np.random.default_rng(2).uniform(-1, 1, (64, 32)).astype(np.float32)
    log = tmp_path / "cases.jsonl"
    result = search(MM, a, b, strategy="cases", budget=4, workers=0, log=log,
                    options={**SMALL, "limits": CPU.as_json()})
    assert result.evaluated == 4 and result.best is not None
    assert all(r["correct"] for r in result.log), [r.get("message") for r in result.log]
    assert [p["phase"] for p in result.details["phases"]][0] == "algorithmic"
    assert all(r["details"]["parameters"] and r["details"]["label"] for r in result.log)
    np.testing.assert_allclose(np.asarray(__import__("workbench").evaluate(result.best, a, b)),
                               a @ b, rtol=1e-4, atol=1e-4)
    again = search(MM, a, b, strategy="cases", budget=4, workers=0, log=log,
                   options={**SMALL, "limits": CPU.as_json()})
    assert again.from_log == 4
    replayed = search(MM, a, b, strategy="cases", budget=4, replay_log=log,
                      options=SMALL)
    assert replayed.best_kernel_ms == result.best_record["kernel_ms"]


def test_refining_measures_the_neighbours_of_the_fastest_candidate():
    a = np.random.default_rng(3).uniform(-1, 1, (32, 64)).astype(np.float32)
    b = np.random.default_rng(4).uniform(-1, 1, (64, 32)).astype(np.float32)
    options = {**SMALL, "limits": CPU.as_json(), "refine": 0.5,
               "keep": ["one work-item per group", "register blocks unrolled"]}
    result = search(MM, a, b, strategy="cases", budget=6, workers=0, options=options)
    phases = [p["phase"] for p in result.details["phases"]]
    assert "sampled" in phases
    assert all("one work-item per group" in r["details"]["label"] for r in result.log)
    first = min(result.log[:3], key=lambda r: r["kernel_ms"])
    later = [r for r in result.log[3:] if r["details"]["program"] == first["details"]["program"]]
    assert later, "the fastest program's neighbours are measured"
    for r in later:
        changed = {k for k, v in r["details"]["parameters"].items()
                   if v != first["details"]["parameters"][k]}
        assert len(changed) >= 1


def test_random_order_draws_a_program_then_its_parameters(explored):
    order = C.random_order(explored["candidates"], seed=5)
    assert len(order) == len(explored["candidates"])
    programs = {id(v) for v, _ in explored["candidates"]}
    first = [id(v) for v, _ in order[:len(programs)]]
    assert len(set(first)) == len(programs)  # every program once before any twice
    assert C.random_order(explored["candidates"], seed=5) == order


def test_an_interleaved_tile_is_read_by_neighbouring_work_items_at_neighbouring_words():
    """The layout ``(interleaved)`` of a tile in local memory (the rule local-copy, t=3):
    the work-items of dimension 0 read one word apart (no bank conflicts), where the tile
    as it is puts them a k-chunk of register blocks apart (8 × 4 words); both kernels
    compute the product."""
    import re

    from workbench.codegen.program import opencl
    from workbench.run import run

    types = tuple(parse_type("[[float]_64]_64") for _ in range(2))
    options = C.Options(depth=3, mappings=("work-groups and work-items",))
    family = [v for v in C.phase1(MM, types, options)
              if v.label == "2d-blocking → tiling → innermost-tiling"]
    programs = {v.label.split("; ")[-1]: v for v in C.phase2(family, types, options)
                if "register blocks unrolled" in v.label and "packed" not in v.label}
    a, b = (np.random.default_rng(3).uniform(-1, 1, (64, 64)).astype(np.float32)
            for _ in range(2))
    strides = {}
    for layout in ("", " (interleaved)"):
        v = programs[f"private accumulator, A tile in local memory, B tile in local memory"
                     f"{layout}"]
        sizes = C.size_names(v.expr)
        env = {name: {"block": 4, "tile": 4, "chunk": 8}[C.roles(v)[name]] for name in sizes}
        expr, _ = C.concrete(v, env)
        source = opencl(expr, *types).source
        # the local tiles' reads in the register block's update, by the work-items of
        # dimension 0: lclN[… + s*lM …], lM one of their indices
        dim0 = set(re.findall(r"int (l\d+) = get_local_id\(0\);", source))
        updates = [line for line in source.splitlines() if "prv" in line and "kernel_f" in line]
        steps = {int(m.group(1) or 1) for line in updates
                 for read in re.findall(r"lcl\d+\[([^\]]*)\]", line)
                 for m in re.finditer(r"(?:(\d+)\*)?(l\d+)\b", read) if m.group(2) in dim0}
        assert steps, source
        strides[layout] = steps
        result = run(expr, a, b, repeat=1)
        assert result.status == "ok" and result.correct, result.message
    assert strides[""] == {32} and strides[" (interleaved)"] == {1}


def _family(types, label="2d-blocking → tiling → innermost-tiling"):
    options = C.Options(depth=3, mappings=("work-groups and work-items",))
    family = [v for v in C.phase1(MM, types, options) if v.label == label]
    return {v.label.split("; ", 3)[-1]: v for v in C.phase2(family, types, options)
            if "register blocks unrolled" in v.label and "packed" not in v.label}


def _small(v):
    env = {name: {"block": 4, "tile": 4, "chunk": 8}[C.roles(v)[name]]
           for name in C.size_names(v.expr)}
    return env, C.concrete(v, env)[0]


def test_operands_read_as_vectors_are_one_aligned_wide_load_each():
    """``private-vectors`` (phase 2, with a tile interleaved by vectors, local-copy t=4): each
    step of a work-item's reduction reads its column of A and its row of B as float4s from
    local memory declared aligned to 16 bytes — one wide load each, neighbouring work-items
    a vector apart — and the kernel computes the product."""
    import re

    from workbench.codegen.program import opencl
    from workbench.run import run

    types = tuple(parse_type("[[float]_64]_64") for _ in range(2))
    programs = _family(types)
    v = programs["private accumulator, A tile in local memory, B tile in local memory "
                 "(interleaved by vectors); A and B read as vectors of 4"]
    assert [s.rule for s in v.steps].count("private-vectors") == 2
    env, expr = _small(v)
    source = opencl(expr, *types).source
    declared = re.findall(r"local float (lcl\d+)\[\d+\] __attribute__\(\(aligned\(16\)\)\);",
                          source)
    assert len(declared) == 2, source
    wide = re.findall(r"\(\*\(local float4 \*\)\((lcl\d+) \+ ([^)]*)\)\)", source)
    assert {name for name, _ in wide} == set(declared)
    assert "vload4" not in source
    dim0 = re.search(r"int (l\d+) = get_local_id\(0\);", source.split("barrier")[1]).group(1)
    assert any(re.search(rf"\b4\*{dim0}\b", offset) for _, offset in wide), wide
    a, b = (np.random.default_rng(4).uniform(-1, 1, (64, 64)).astype(np.float32)
            for _ in range(2))
    result = run(expr, a, b, repeat=1)
    assert result.status == "ok" and result.correct, result.message


def test_prefetched_tiles_are_loaded_for_the_next_step_while_this_one_computes():
    """``prefetch`` (phase 2, after the vectors): each work-item loads its elements of the
    first step's tiles into registers before the reduction, and those of the next step in
    each step, after copying the current ones into local memory and before computing on
    them; one barrier before and one after the computation, and the product is right."""
    import re

    from workbench.codegen.program import opencl
    from workbench.run import run

    types = tuple(parse_type("[[float]_64]_64") for _ in range(2))
    v = _family(types)["private accumulator, A tile in local memory, B tile in local memory "
                       "(interleaved by vectors); A and B read as vectors of 4" + C.PREFETCHED]
    assert [s.rule for s in v.steps][-2:] == ["prefetch", "reduceSeq→reduceSeqUnroll"]
    env, expr = _small(v)
    source = opencl(expr, *types).source
    loop = re.search(r"for \(int (i\d+) = 0; \1 < (\d+); \1\+\+\) \{\n\s*/\* mapSeqUnroll "
                     r"\(mapLocal 1", source)
    assert loop, source
    before, body = source[:loop.start()], source[loop.end():]
    index, steps = loop.group(1), int(loop.group(2))
    fetched = set(re.findall(r"(prv\d+)\[\d+\] = in[01]\[", before))
    assert len(fetched) == 2  # A's and B's elements of the first step, before the loop
    ahead = re.findall(rf"(prv\d+)\[\d+\] = in[01]\[[^;]*\(\({index} \+ 1\) % {steps}\)",
                       body)
    assert set(ahead) == fetched
    stored = body.index("] = " + sorted(fetched)[0] + "[")
    first_barrier = body.index("barrier(")
    assert stored < body.index(f"(({index} + 1) % {steps})") < first_barrier
    assert source.count("barrier(") == 2
    a, b = (np.random.default_rng(5).uniform(-1, 1, (64, 64)).astype(np.float32)
            for _ in range(2))
    result = run(expr, a, b, repeat=1)
    assert result.status == "ok" and result.correct, result.message


def test_a_tile_copied_along_the_rows_of_memory_is_read_by_neighbouring_work_items():
    """``local-copy`` with t=5: the A tile is stored as it is (each work-item's rows side by
    side, read as vectors), but the work-items walk it along the rows of A, so that
    neighbouring work-items of dimension 0 read neighbouring words of global memory, and
    write each word where the computation reads it; prefetched too; the product is right."""
    import re

    from workbench.codegen.program import opencl
    from workbench.run import run

    types = tuple(parse_type("[[float]_64]_64") for _ in range(2))
    name = ("private accumulator, A tile in local memory (as it is, copied along the rows of "
            "memory), B tile in local memory (interleaved by vectors); A and B read as vectors "
            "of 4")
    family = _family(types)
    for v in (family[name], family[name + C.PREFETCHED]):
        assert {"k": 0, "t": 5} in [{k: s.params[k] for k in ("k", "t")} for s in v.steps
                                    if s.rule == "local-copy"]
        env, expr = _small(v)
        source = opencl(expr, *types).source
        dim0 = set(re.findall(r"int (l\d+) = get_local_id\(0\);", source))
        reads = re.findall(r"= in0\[([^;]*)\];", source)

        def address(offset: str, l0: int, dim0: set[str] = dim0) -> int:
            # the C offset, other indices 0
            names = {n: (l0 if n in dim0 else 0) for n in re.findall(r"[a-z]+\d+", offset)}
            return eval(offset.replace("/", "//"), {}, names)

        assert reads
        for offset in reads:  # work-items 0, 1, 2, 3 of dimension 0 read words w … w + 3
            first = address(offset, 0)
            assert [address(offset, l0) - first for l0 in range(4)] == [0, 1, 2, 3], offset
        a, b = (np.random.default_rng(6).uniform(-1, 1, (64, 64)).astype(np.float32)
                for _ in range(2))
        result = run(expr, a, b, repeat=1)
        assert result.status == "ok" and result.correct, result.message


def test_rows_of_a_cpu_register_block_are_updated_as_aligned_vectors():
    """Phase 2 on a CPU (one work-item per group): each row of a work-item's register block
    updated as float16s (``vectorize`` of the innermost map), the accumulator declared
    aligned and read and written through vector pointers, which PoCL keeps in registers
    (vload16/vstore16 kept it in memory: 8 times slower); the product is right."""
    from workbench.codegen.program import opencl
    from workbench.run import run

    types = tuple(parse_type("[[float]_64]_64") for _ in range(2))
    options = C.Options(depth=3, mappings=("one work-item per group",))
    family = [v for v in C.phase1(MM, types, options) if v.label == "2d-blocking"]
    programs = {v.label: v for v in C.phase2(family, types, options)}
    v = programs["2d-blocking; one work-item per group; register blocks unrolled; rows computed "
                 "as vectors of 16"]
    assert "vectorize" in [s.rule for s in v.steps]
    env = {name: 16 if C.roles(v)[name] == "block" else 4 for name in C.size_names(v.expr)}
    expr = C.concrete(v, env)[0]
    source = opencl(expr, *types).source
    assert re.search(r"float prv\d+\[\d+\] __attribute__\(\(aligned\(64\)\)\);", source)
    assert re.search(r"\*\(float16 \*\)\(prv\d+ \+ \d+\) = ", source), source
    assert "vstore16" not in source and not re.search(r"vload16\(0, prv", source)
    a, b = (np.random.default_rng(7).uniform(-1, 1, (64, 64)).astype(np.float32)
            for _ in range(2))
    result = run(expr, a, b, repeat=1)
    assert result.status == "ok" and result.correct, result.message


def test_vectors_the_device_does_not_run_are_left_out_counted():
    """A device whose probe refused vectors of 16 (PoCL 3.0 on some CPUs) gets no candidate
    with them; the others stay, and the count of those left out is reported."""
    found = C.explore(MM, TYPES, C.Options(depth=1, mappings=("one work-item per group",)),
                      CPU)
    sixteen = [v for v, _ in found["candidates"] if "vectors of 16" in v.label]
    assert sixteen and any("vectors of 8" in v.label for v, _ in found["candidates"])
    total = len(found["candidates"])
    C.within_device(found, (2, 4, 8))
    assert not any("vectors of 16" in v.label for v, _ in found["candidates"])
    assert found["pruned"][C.UNRUN_WIDTHS] == total - len(found["candidates"]) > 0
    C.within_device(found, None)  # widths unknown (a replayed search): nothing left out
    assert found["pruned"][C.UNRUN_WIDTHS] == total - len(found["candidates"])


def test_refining_tries_the_best_parameters_with_the_tiles_prefetched_or_not():
    """The hill climbing's neighbours of a candidate include its program one ``prefetch``
    apart with the same parameters (a search that found a fast program without prefetching
    tries it with, and the other way round), and it moves there when that is faster."""
    types = tuple(parse_type("[[float]_64]_64") for _ in range(2))
    family = _family(types)
    name = ("private accumulator, A tile in local memory, B tile in local memory "
            "(interleaved by vectors); A and B read as vectors of 4")
    programs = [family[name], family[name + C.PREFETCHED]]
    assert C.siblings_of(programs) == {0: [1], 1: [0]}
    env, _ = _small(programs[0])

    class Measured:
        records = [Record(key="start", correct=True, kernel_ms=2.0,
                          details={"program": 0, "parameters": dict(env)})]

        def left(self):
            return 12 - len(self.records)

        def measure(self, batch):
            out = [Record(key=str(details), correct=True, details=details,
                          kernel_ms=(1.0 if details["program"] == 1 else 2.0)
                          + 0.01 * sum(details["parameters"].values()))
                   for _, _, details in batch]
            self.records.extend(out)
            return out

    ctx = Measured()
    C.refine(ctx, programs, types, C.Options(), C.Limits(kind="gpu", compute_units=1,
                                                        min_work_group=1),
             lambda v, e: (None, None, {"program": programs.index(v), "parameters": dict(e)}))
    moved = [r.details for r in ctx.records[1:]]
    assert {"program": 1, "parameters": env} in moved
    assert any(d["program"] == 1 and d["parameters"] != env for d in moved)


def test_vectors_of_parts_not_contiguous_in_memory_are_pruned_before_any_run():
    """A tile each row of which is transposed puts a work-item's column of A a k-chunk of
    words apart: its program with vectors is pruned in phase 3 (counted), the programs whose
    parts lie contiguous are kept."""
    types = tuple(parse_type("[[float]_64]_64") for _ in range(2))
    programs = _family(types)
    apart = programs["private accumulator, A tile in local memory (each row transposed), B tile "
                     "in local memory (transposed); A and B read as vectors of 4"]
    together = programs["private accumulator, A tile in local memory, B tile in local memory "
                        "(transposed); A and B read as vectors of 4"]
    limits = C.Limits(kind="gpu", compute_units=1)
    kept, pruned = C.phase3([apart, together], types, C.Options(), limits)
    assert pruned[C.NOT_CONTIGUOUS] > 0
    assert kept and {id(v) for v, _ in kept} == {id(together)}


def test_the_register_file_of_a_work_group_prunes_large_blocks_of_large_groups():
    types = tuple(parse_type("[[float]_256]_256") for _ in range(2))
    v = _family(types)["private accumulator, A tile in local memory, B tile in local memory "
                       "(transposed); A and B read as vectors of 4"]
    r = C.resources(v, types)
    roles = C.roles(v)
    big = {n: {"block": 8, "tile": 16, "chunk": 8}[roles[n]] for n in C.size_names(v.expr)}
    small = {n: {"block": 4, "tile": 8, "chunk": 8}[roles[n]] for n in C.size_names(v.expr)}
    limits = C.Limits(kind="gpu", compute_units=1)
    # 256 work-items, each with 8×8 accumulators and its vectors: over 64 KiB of registers
    assert C.check(r, big, C.Limits(kind="gpu", compute_units=1, register_bytes=64 * 1024)) \
        == "registers of a work-group"
    assert C.check(r, big, limits) is None and C.check(r, small, limits) is None
    assert C.check(r, big, C.Limits(kind="cpu", compute_units=1, register_bytes=0)) is None


def test_the_options_drop_programs_by_the_words_of_their_description():
    dropped = C.explore(MM, TYPES, C.Options(**SMALL, drop=("packed",)), CPU)
    assert dropped["programs"] and not any("packed" in v.label for v in dropped["programs"])
    sampled = next(p for p in dropped["phases"] if p["phase"] == "sampled")
    assert sampled["what"].endswith("not 'packed'")


def test_the_model_share_measures_the_candidates_a_fitted_model_ranks_fastest(explored):
    """After the random share, ``modelled`` fits ``search.surrogate`` to the measured
    candidates and measures those it ranks fastest: on times that follow the candidates'
    features (a best work-group size in the middle, a program choice that pays), its picks
    are faster than the random ones, spread over several programs."""
    candidates = C.random_order(explored["candidates"], seed=1)
    programs = explored["programs"]
    used = {id(v): C.resources(v, TYPES) for v in programs}

    def ms(v, env) -> float:
        f = C.candidate_features(v, env, used[id(v)], CPU)
        return float(np.exp(0.3 * (f["work-items per group"] - 3) ** 2
                            + 0.8 * f.get("program: register blocks unrolled", 0)))

    class Measured:
        batch, records = 4, []

        def left(self):
            return 24 - len(self.records)

        def measure(self, batch):
            out = [Record(key=str(key), correct=True, details=d, kernel_ms=ms(*key))
                   for key, d in batch]
            self.records.extend(out)
            return out

    ctx = Measured()
    ctx.types, ctx.details = TYPES, {}

    def job(v, env, chosen="random"):
        return (v, env), {"program": programs.index(v), "parameters": dict(env),
                          "chosen": chosen}

    first = [job(v, env) for v, env in candidates[:8]]
    ctx.measure(first)
    C.modelled(ctx, candidates[8:], programs, CPU, until=24, job=job)
    picked = [r for r in ctx.records if r.details["chosen"] == "model"]
    assert len(picked) == 16 and ctx.details["model"]["fitted_on"] >= 8
    assert np.mean([r.kernel_ms for r in picked]) < \
        np.mean([r.kernel_ms for r in ctx.records[:8]])
    # half its picks are faster than the fastest of the random share
    assert np.median([r.kernel_ms for r in picked]) < \
        min(r.kernel_ms for r in ctx.records[:8])
    # and they spread over programs
    assert len({r.details["program"] for r in picked}) >= 4


def test_a_search_with_a_model_share_logs_which_candidates_the_model_chose(tmp_path):
    a = np.random.default_rng(7).uniform(-1, 1, (32, 64)).astype(np.float32)
    b = np.random.default_rng(8).uniform(-1, 1, (64, 32)).astype(np.float32)
    options = {**SMALL, "limits": CPU.as_json(), "model": 0.4, "refine": 0,
               "keep": ["one work-item per group"]}
    result = search(MM, a, b, strategy="cases", budget=10, workers=0, options=options)
    chosen = [r["details"]["chosen"] for r in result.log]
    assert chosen == ["random"] * 6 + ["model"] * 4, chosen
    assert all(r["correct"] for r in result.log)
    model = result.details["model"]
    assert model["chosen"] == 4 and model["fitted_on"] >= 6 and model["strongest"]


@pytest.mark.parametrize("limits", [CPU, C.Limits(kind="gpu", compute_units=4)],
                         ids=["cpu", "gpu"])
def test_phase_three_at_once_keeps_and_counts_what_one_by_one_does(explored, limits):
    """Phase 3 checks every parameter choice of a program at once (NumPy); the choices kept,
    their order and the counts of what pruned the others are those of the depth-first
    check of one choice at a time, and values that are not powers of two are checked that
    way."""
    options = C.Options(**SMALL)
    for v in explored["programs"][::3]:
        r = C.resources(v, TYPES)
        one, at_once = {}, {}
        expected = list(C.assignments(v, r, options, limits, one))
        assert C.assignments_at_once(v, r, options, limits, at_once) == expected, v.label
        assert {k: n for k, n in at_once.items() if n} == one, v.label
    odd = C.Options(**SMALL, values={"block": (3, 4), "tile": (2, 6), "chunk": (4,)})
    assert C.assignments_at_once(explored["programs"][0], C.resources(
        explored["programs"][0], TYPES), odd, limits, {}) is None


def test_the_groups_in_the_other_order_walk_down_the_outer_map():
    """The third mapping puts the outer map's work-groups on dimension 0 (consecutive groups
    walk down the rows of A and share a panel of B): the same program otherwise, its
    siblings for the hill climbing, and the same product."""
    from workbench.run import run

    types = tuple(parse_type("[[float]_64]_64") for _ in range(2))
    options = C.Options(depth=3, mappings=(C.ONE_PER_GROUP, C.ONE_PER_GROUP_DOWN))
    family = [v for v in C.phase1(MM, types, options) if v.label == "2d-blocking"]
    programs = C.phase2(family, types, options)
    labels = [v.label for v in programs]
    across = "2d-blocking; one work-item per group; register blocks unrolled"
    down = f"2d-blocking; {C.ONE_PER_GROUP_DOWN}; register blocks unrolled"
    i, j = labels.index(across), labels.index(down)
    dims = [[s.params["dim"] for s in programs[k].steps if s.rule == "map→mapWorkgroup"]
            for k in (i, j)]
    assert dims == [[1, 0], [0, 1]]
    assert j in C.siblings_of(programs)[i] and i in C.siblings_of(programs)[j]
    env = {name: 8 for name in C.size_names(programs[j].expr)}
    a, b = (np.random.default_rng(3).uniform(-1, 1, (64, 64)).astype(np.float32)
            for _ in range(2))
    result = run(C.concrete(programs[j], env)[0], a, b, repeat=1)
    assert result.status == "ok" and result.correct, result.message


def test_an_unknown_mapping_is_refused_with_the_known_ones():
    with pytest.raises(WorkbenchError, match="no mapping 'threads'.*one work-item per group"):
        C.phase2([], TYPES, C.Options(mappings=("threads",)))


@pytest.mark.parametrize("prefetched", [False, True])
def test_a_tile_copied_as_vectors_is_one_wide_load_and_one_wide_store_each(prefetched):
    """``local-copy`` t=6 (B's tile interleaved by vectors, each vector copied whole): the
    copy from global memory reads float4s (through pointers), into registers first when
    prefetched, and writes each as one float4 into local memory declared aligned; the
    product is right."""
    import re

    from workbench.codegen.program import opencl
    from workbench.run import run

    types = tuple(parse_type("[[float]_64]_64") for _ in range(2))
    v = _family(types)["private accumulator, A tile in local memory, B tile in local memory "
                       "(interleaved by vectors, copied as vectors); A and B read as vectors "
                       "of 4" + (C.PREFETCHED if prefetched else "")]
    assert ("local-copy", 6) in [(s.rule, s.params.get("t")) for s in v.steps]
    env, expr = _small(v)
    source = opencl(expr, *types).source
    assert "(*(global const float4 *)(in1 + " in source, source
    stores = re.findall(r"\*\(local float4 \*\)\(lcl\d+ \+ [^)]*\) = ([^;]*);", source)
    assert stores and all(("vload4(0, prv" if prefetched else "(*(global const float4 *)(in1")
                          in s for s in stores), stores
    a, b = (np.random.default_rng(9).uniform(-1, 1, (64, 64)).astype(np.float32)
            for _ in range(2))
    result = run(expr, a, b, repeat=1)
    assert result.status == "ok" and result.correct, result.message


@pytest.mark.slow
def test_every_candidate_admitted_fits_the_devices_local_memory_as_compiled():
    """The local memory a candidate's kernels declare, as the code generator emits them
    (bytes, not elements), is within the device's limit for every candidate phase 3 keeps."""
    from workbench.codegen.program import opencl

    tight = C.Limits(kind="gpu", local_memory_bytes=2048, max_work_group_size=256,
                     compute_units=1, min_work_group=1)
    found = C.explore(MM, TYPES, C.Options(depth=2), tight)
    assert found["pruned"].get("local memory", 0) > 0
    tiled = [(v, env) for v, env in found["candidates"] if "toLocal" in str(v.expr)]
    assert tiled
    for v, env in tiled[::max(1, len(tiled) // 25)]:
        expr, _ = C.concrete(v, env)
        program = opencl(expr, *TYPES, complete=True)
        for kernel in program.module.kernels:
            used = sum(b.length * b.scalar_dtype().itemsize for b in kernel.locals)
            assert used <= tight.local_memory_bytes, (v.label, env, used)
