"""OpenCL build options the user may allow (``device.build_options``): ``run`` builds with
them and names them, a search chooses among them for its best kernels (``search.
build_choice``), its log and result name them, and a replay answers those candidates from
the records that name them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from workbench import parse, run
from workbench.device.build_options import MATH_OPTIONS, build_options, option_sets
from workbench.errors import ArgumentError
from workbench.search import read_log, search
from workbench.search.build_choice import kept_back, options_key
from workbench.search.evaluation import _replay_key

ASUM = parse("reduce (+) 0 ∘ map abs")
SCALE = parse("map (λx. x * 2.5 + 1.0)")


def test_build_options_are_the_math_options_each_once_in_one_order():
    assert build_options(None) == ()
    assert build_options("fast-relaxed-math -cl-mad-enable") == \
        ("-cl-mad-enable", "-cl-fast-relaxed-math")
    assert build_options(["mad-enable", "-cl-mad-enable"]) == ("-cl-mad-enable",)
    assert set(build_options(list(MATH_OPTIONS))) == set(MATH_OPTIONS)


@pytest.mark.parametrize("value, said", [
    (["-DN=4"], "'-DN=4' is not an option"), ("-cl-std=CL2.0", "not an option"),
    (3, "give OpenCL build options"), (["-cl-mad-enable", 1], "give OpenCL build options")])
def test_other_build_options_are_refused_naming_the_argument(value, said):
    with pytest.raises(ArgumentError, match=said) as caught:
        build_options(value)
    assert caught.value.argument == "build_options"


def test_a_search_tries_each_option_alone_then_all_together():
    assert option_sets(("-cl-mad-enable",)) == [("-cl-mad-enable",)]
    both = ("-cl-mad-enable", "-cl-fast-relaxed-math")
    assert option_sets(both) == [("-cl-mad-enable",), ("-cl-fast-relaxed-math",), both]
    assert kept_back(40, both) == 6 and kept_back(8, both) == 2 and kept_back(40, ()) == 0


def test_a_key_and_a_replay_key_name_the_options_only_where_there_are_some():
    assert options_key("k", ()) == "k" and options_key("k", ["-cl-mad-enable"]) == \
        "k | -cl-mad-enable"
    plain = {"expression": "map abs", "sizes": {"N": 4}}
    assert _replay_key(plain) == "map abs | N=4"
    assert _replay_key({**plain, "build_options": ["-cl-mad-enable"]}) == \
        "map abs | N=4 | -cl-mad-enable"


def test_run_builds_with_the_options_names_them_and_checks_the_result():
    from workbench.runtime import cache_key, context_for

    xs = np.random.default_rng(0).uniform(-1, 1, 256).astype(np.float32)
    options = ["-cl-fast-relaxed-math", "mad-enable"]
    result = run(SCALE, xs, repeat=1, warmup=0, build_options=options)
    assert result.status == "ok" and result.correct, result.message
    assert result.build_options == ["-cl-mad-enable", "-cl-fast-relaxed-math"]
    assert result.as_json()["build_options"] == result.build_options
    ctx = context_for(None)
    assert cache_key(result.source, ctx.info, tuple(result.build_options)) in ctx.programs
    plain = run(SCALE, xs, repeat=1, warmup=0)
    assert plain.build_options == [] and plain.source == result.source


def test_run_refuses_other_build_options_as_invalid_input():
    result = run(SCALE, np.zeros(16, np.float32), build_options=["-I/tmp"])
    assert result.status == "invalid input" and "build_options" in result.message


def test_a_search_chooses_build_options_for_its_best_kernels_and_replays(tmp_path):
    log = tmp_path / "log.jsonl"
    allowed = ["-cl-fast-relaxed-math", "-cl-mad-enable"]
    found = search(ASUM, "[float]_4096", budget=8, workers=0, repeat=2, log=log,
                   build_options=allowed, options={"lanes_first": False})
    header = read_log(log).headers[-1]
    assert header["build_options"] == ["-cl-mad-enable", "-cl-fast-relaxed-math"]
    with_options = [r for r in found.log if r.build_options]
    assert len(with_options) == 2  # a quarter of the budget: the best kernel, two choices
    best_plain = min((r for r in found.log if r.measured and not r.build_options),
                     key=lambda r: r.kernel_ms)
    for r in with_options:
        assert r.expression == best_plain.expression and r.steps == best_plain.steps
        assert r.key == options_key(best_plain.key, r.build_options)
        assert isinstance(r.correct, bool) and r.status in ("ok", "wrong result")
    assert found.build_options == list(found.best_record.build_options or [])
    assert found.as_json()["best"]["build_options"] == found.build_options
    # a replay takes the allowed options from its log and meets only candidates it holds
    again = search(ASUM, "[float]_4096", budget=8, replay_log=log,
                   options={"lanes_first": False})
    assert not [r for r in again.log if r.status == "not in log"]
    assert sorted(r.key for r in again.log) == sorted(r.key for r in found.log)
    assert again.build_options == found.build_options


def test_a_search_without_build_options_names_none():
    found = search(ASUM, "[float]_4096", budget=2, workers=0, repeat=1,
                   options={"lanes_first": False})
    assert not any(r.build_options for r in found.log) and found.build_options == []
    assert all("build_options" not in r.as_json() for r in found.log)


def test_the_command_line_takes_build_options_and_refuses_others(capsys):
    from workbench.cli import main

    assert main(["run", "map (λx. x * 2.0)", "--type", "[float]_N", "--size", "N=64",
                 "--repeat", "1", "--build-option", "mad-enable", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["correct"] and doc["build_options"] == ["-cl-mad-enable"]
    assert main(["run", "map (λx. x * 2.0)", "--type", "[float]_N", "--size", "N=64",
                 "--build-option", "fast"]) == 1
    assert "'fast' is not an option" in capsys.readouterr().err


def test_the_strategy_searches_with_its_share_of_the_budget_and_time_limit():
    from types import SimpleNamespace

    from workbench.search.build_choice import strategy_share

    ctx = SimpleNamespace(budget=40, deadline=1000.0, time_limit=50.0, start=ASUM)
    allowed = ("-cl-mad-enable", "-cl-fast-relaxed-math")
    with strategy_share(ctx, allowed):
        assert (ctx.budget, ctx.deadline) == (34, 990.0)  # 2 kernels x 3 option sets; 1/5
    assert (ctx.budget, ctx.deadline) == (40, 1000.0)
    with strategy_share(ctx, ()):
        assert (ctx.budget, ctx.deadline) == (40, 1000.0)
    with pytest.raises(RuntimeError), strategy_share(ctx, allowed):
        raise RuntimeError("a strategy that fails gives its share back too")
    assert (ctx.budget, ctx.deadline) == (40, 1000.0)


# a C body (kept as OpenCL C: it has an if) that multiplies by a constant written as a double:
# in C the product is computed in double and rounded to float once; with
# -cl-single-precision-constant the constant is the float nearest it and the product a float
# product
TENTH = '''
val tenth = UserFun("tenth", Array("x"),
  "{ float y = x * 0.1; if (y < 0.0f) { return 0.0f; } return y; }", Seq(Float), Float)
val f = fun(ArrayType(Float, SizeVar("N")), xs => Map(tenth) $ xs)
'''


def test_single_precision_constants_make_a_c_bodys_double_constants_floats():
    from workbench import parse_program
    from workbench.runtime import context_for

    if not context_for(None).info.doubles:
        pytest.skip("the default device has no double: its constants are floats already")
    f = parse_program(TENTH)["f"]
    xs = np.random.default_rng(1).uniform(1, 2, 4096).astype(np.float32)
    in_double = (xs.astype(np.float64) * 0.1).astype(np.float32)
    in_float = xs * np.float32(0.1)
    differ = in_double != in_float
    assert differ.any()  # the inputs tell the two apart
    plain = run(f, xs, repeat=1, warmup=0)
    single = run(f, xs, repeat=1, warmup=0, build_options=["single-precision-constant"])
    for result in (plain, single):  # both within the interpreter's tolerance
        assert result.status == "ok" and result.correct, result.message
    assert np.array_equal(plain.output, in_double)
    assert np.array_equal(single.output, in_float)
    assert single.build_options == ["-cl-single-precision-constant"] and \
        single.source == plain.source  # the option, not the source, makes them floats


def test_single_precision_constants_are_tried_only_where_a_c_body_has_a_double_constant():
    from workbench import parse_program
    from workbench.notation.c_body import user_function
    from workbench.search.build_choice import double_constants, tried_sets
    from workbench.types import FLOAT

    single, mad = ("-cl-single-precision-constant",), ("-cl-mad-enable",)
    tenth = parse_program(TENTH)["f"]
    macro = user_function("tenth", ["x"], [FLOAT], FLOAT,
                          "#define C 0.1\n{ float y = x * C; if (y < 0.0f) { return 0.0f; } "
                          "return y; }")
    floats = parse_program(TENTH.replace("x * 0.1;", "x * 0.1f;"))["f"]
    assert macro.c_body and double_constants(tenth) and double_constants(macro)
    assert not double_constants(floats) and not double_constants(SCALE)
    assert tried_sets(tenth, single + mad) == [single, mad, single + mad]
    assert tried_sets(floats, single + mad) == [mad, single + mad]
    assert tried_sets(floats, single) == []
    assert kept_back(40, single, floats) == 0 and kept_back(40, single, tenth) == 2


def test_a_search_builds_with_single_precision_constants_only_a_body_with_doubles():
    from workbench import parse_program

    allowed = ["single-precision-constant"]
    for text, measured in ((TENTH, True), (TENTH.replace("x * 0.1;", "x * 0.1f;"), False)):
        found = search(parse_program(text)["f"], "[float]_1024", budget=4, workers=0,
                       repeat=1, build_options=allowed, options={"lanes_first": False})
        assert any(r.build_options for r in found.log) == measured
        assert found.evaluated == 4  # none of the budget kept back for a choice not made
