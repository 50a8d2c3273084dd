"""The cases exploration's typed choices: a program's label derived from what its phases
chose, the options ``keep`` and ``drop`` as conditions over the choices, the defaults read
from data with the measurement behind each, phase 2's steps replaying, and its options
checked by name."""

import json

import pytest

from workbench import load, parse_type
from workbench.codegen.private import PRIVATE_BYTES, REGISTER_BUDGET_BYTES
from workbench.errors import WorkbenchError
from workbench.rules import apply
from workbench.rules.lowering import on_work_group
from workbench.search import cases as C
from workbench.search.cases import options as O
from workbench.search.cases.variants import holds

MM = load("workbench/programs/mm.lift")["mm"]
TYPES = tuple(parse_type(t) for t in ("[[float]_64]_32", "[[float]_32]_64"))


def test_a_programs_label_follows_from_its_choices():
    choices = C.Choices(macros=("2d-blocking", "tiling"), mapping=C.GROUPS_AND_ITEMS,
                        unrolled=True, accumulator="private", tiles=((0, 0), (1, 3)),
                        vectors=("A", "B"), prefetched=True, packed=(1, 1))
    assert choices.label == (
        "2d-blocking → tiling; work-groups and work-items; register blocks unrolled; "
        "private accumulator, A tile in local memory, B tile in local memory (interleaved); "
        "A and B read as vectors of 4" + C.PREFETCHED
        + "; input array 1 packed in global memory (each element transposed)")
    assert C.Choices().label == "start"
    rows = C.Choices(macros=("tiling",), mapping=C.ONE_PER_GROUP, unrolled=True, rows=8)
    assert rows.label == ("tiling; one work-item per group; register blocks unrolled; "
                          "rows computed as vectors of 8")


def test_keep_and_drop_are_words_or_conditions_over_the_choices():
    choices = C.Choices(mapping=C.GROUPS_AND_ITEMS, accumulator="private", tiles=((1, 1),))
    assert holds("B tile in local memory (transposed)", choices)
    assert holds({"B tile layout": "transposed", "accumulator": "private"}, choices)
    assert holds({"B tile layout": ["as it is", "transposed"]}, choices)
    assert not holds({"A tile in local memory": True}, choices)
    with pytest.raises(WorkbenchError, match="no choice 'colour'.*'A tile layout'"):
        holds({"colour": "red"}, choices)


def test_the_defaults_are_data_with_the_measurement_behind_each():
    doc = json.loads(O.DEFAULTS_FILE.read_text(encoding="utf-8"))
    assert set(C.DEFAULTS) == {"gpu", "cpu"}
    for kind in ("gpu", "cpu"):
        entries = doc[kind]["options"] + doc[kind]["keep"] + doc[kind]["drop"]
        assert all(e["why"] and e["device"] for e in entries)
        options = O.read_options({}, kind)
        assert options.refine == 0.4 and options.model == 0.3 and options.depth == 3
        assert all(isinstance(c, dict) for c in options.keep + options.drop)
        json.dumps(C.DEFAULTS[kind])  # a benchmark writes them into its results
    assert O.read_options({}, "gpu").mappings == (C.GROUPS_AND_ITEMS,)
    assert O.read_options({"depth": 2}, "cpu").depth == 2


def test_the_defaults_keep_the_programs_the_label_words_kept():
    """The GPU's defaults as conditions keep the programs their words kept before."""
    words = ("register blocks unrolled", "private accumulator", "A tile in local memory",
             "B tile in local memory", "A and B read as vectors")
    dropped = ("packed", "A tile in local memory (transposed)",
               "A tile in local memory (each row transposed)",
               "A tile in local memory (interleaved", "copied as vectors")
    options = C.Options(depth=1, mappings=(C.GROUPS_AND_ITEMS,))
    programs = C.phase2(C.phase1(MM, TYPES, options), TYPES, options)
    gpu = C.DEFAULTS["gpu"]
    by_words = [v for v in programs if all(w in v.label for w in words)
                and not any(w in v.label for w in dropped)]
    by_choices = [v for v in programs if all(holds(c, v.choices) for c in gpu["keep"])
                  and not any(holds(c, v.choices) for c in gpu["drop"])]
    assert by_choices == by_words


def test_phase_twos_steps_replay_from_phase_ones_program():
    options = C.Options(depth=1)
    start = [v for v in C.phase1(MM, TYPES, options) if v.label == "2d-blocking"]
    for v in C.phase2(start, TYPES, options)[::7]:
        expr = MM
        for step in v.steps:
            expr = apply(expr, step.rule, step.path, *TYPES, **step.params)
        assert str(expr) == str(v.expr), v.label


def test_the_cases_strategy_refuses_an_option_it_does_not_take():
    with pytest.raises(WorkbenchError, match="takes no option 'colour'.*depth, repeat"):
        O.read_options({"colour": "red"})
    import numpy as np

    from workbench.search import search

    a = np.ones((32, 64), np.float32)
    b = np.ones((64, 32), np.float32)
    with pytest.raises(WorkbenchError, match="takes no option 'colour'"):
        search(MM, a, b, strategy="cases", budget=1, workers=0, options={"colour": "red"})


def test_one_model_of_private_memory_names_both_bounds():
    assert C.Limits().private_bytes == REGISTER_BUDGET_BYTES < PRIVATE_BYTES


def test_a_node_runs_on_a_work_group_directly_inside_a_work_group_map():
    assert on_work_group((("workgroup", 1), ("workgroup", 0)))
    assert not on_work_group((("workgroup", 1), ("local", 0)))
    assert not on_work_group(())
