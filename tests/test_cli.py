"""The command line: check and eval on every program file, JSON output, user errors."""

import json
import subprocess
import sys

import pytest

from workbench.cli import main
from workbench.programs import LIBRARY, files

SIZES = {"blas": ["N=256", "M=8"], "mm": ["M=4", "K=8", "N=6"], "blackscholes": ["N=64"],
         "md": ["N=16", "K=4"], "figures": ["N=4096"], "reductions": ["N=4096", "blockSize=1024"],
         "p2cl": ["N=256"], "skelcl": ["N=16", "M=8", "K=4", "D=4"],
         "futhark": ["M=8", "N=4", "K=2"]}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", files(), ids=lambda p: p.stem)
def test_check_every_program_file(capsys, path):
    code, out, err = run(capsys, "check", f"@{path}", "--json")
    assert code == 0, err
    doc = json.loads(out)
    items = doc.get("definitions", [doc])
    assert all(" -> " in item["type"] or item["inputs"] == [] for item in items)


@pytest.mark.parametrize("path", files(), ids=lambda p: p.stem)
def test_eval_every_definition_with_arrays(capsys, path):
    from workbench.programs import library

    program = library(path.stem)
    for name, expr in program.items():
        if getattr(expr, "declared_type", None) is None:
            continue  # scalar user functions are checked, not run on arrays
        sizes = [a for s in SIZES[path.stem] for a in ("--size", s)]
        code, out, err = run(capsys, "eval", f"@{path}:{name}", *sizes, "--json")
        assert code == 0, (name, err)
        assert "output" in json.loads(out)


def test_check_prints_normal_form_and_type(capsys):
    code, out, _ = run(capsys, "check", "reduce (+) 0 o map abs", "--type", "[float]_N")
    assert code == 0
    assert out.splitlines() == ["expression = reduce (+) 0 ∘ map abs",
                                "  : [float]_N -> [float]_1"]


def test_eval_on_pasted_expression(capsys):
    code, out, _ = run(capsys, "eval", "reduce (+) 0 o map abs", "--type", "[float]_N",
                       "--size", "N=1024", "--json", "--full")
    assert code == 0
    doc = json.loads(out)
    assert doc["output"]["shape"] == [1]
    assert doc["output"]["values"][0] == pytest.approx(
        sum(abs(v) for v in doc["inputs"][0]["values"]), rel=1e-4)


@pytest.mark.parametrize("argv,words", [
    (["check", "map ("], "line 1, column 6"),
    (["check", "map (*) o split 4", "--type", "[float]_64"], "(*)"),
    (["check", "split 3", "--type", "[float]_64"], "3 does not divide the array length 64"),
    (["check", "@/nonexistent.lift"], "cannot read program file"),
    (["check", f"@{LIBRARY / 'blas.lift'}:nothere"], "has no definition 'nothere'"),
    (["eval", f"@{LIBRARY / 'blas.lift'}:asum"], "needs a value for N"),
    (["eval", f"@{LIBRARY / 'blas.lift'}:asum", "--size", "N=100x"], "not a whole number"),
    (["eval", f"@{LIBRARY / 'reductions.lift'}:listing5_13", "--size", "N=4096"], "blockSize"),
    (["eval", "map abs"], "give the input types"),
])
def test_user_errors_exit_1_without_traceback(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 1
    assert words in err
    assert "Traceback" not in err and out == ""


def test_python_dash_m_and_console_script():
    result = subprocess.run([sys.executable, "-m", "workbench", "check", "map (", "--json"],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr


DERIVATIONS = LIBRARY.parent / "derivations"


def test_rules_lists_rewrites_as_json(capsys):
    code, out, _ = run(capsys, "rules", "reduce (+) 0 o map abs", "--type", "[float]_4096",
                       "--at", "0", "--json")
    assert code == 0
    doc = json.loads(out)
    assert {"path", "rule", "params", "result"} <= set(doc[0])
    assert any(r["rule"] == "map-reduce-fusion" and r["params"] == {"chunk": "128"} for r in doc)


def test_apply_prints_the_result(capsys):
    code, out, _ = run(capsys, "apply", "map abs", "split-join", "--at", "root",
                       "--param", "n=128", "--type", "[float]_N")
    assert code == 0 and out.strip() == "join ∘ map (map abs) ∘ split 128"


@pytest.mark.parametrize("name", ["icfp_fig10_asum", "icfp_fig3_vector_scaling",
                                  "reduction_listing5_8", "reduction_listing5_13"])
def test_derive_replays_saved_derivations(capsys, name):
    code, out, err = run(capsys, "derive", str(DERIVATIONS / f"{name}.json"), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["final"] == doc["steps"][-1]["result"]
    code, out, _ = run(capsys, "derive", str(DERIVATIONS / f"{name}.json"), "--latex")
    assert out.startswith("\\begin{align*}")


@pytest.mark.parametrize("argv,words", [
    (["apply", "map abs", "map→mapLocal", "--at", "root", "--param", "dim=0", "--type",
      "[float]_64"], "mapLocal must be inside a mapWorkgroup"),
    (["apply", "map abs", "split-join", "--at", "root", "--param", "n=3", "--type",
      "[float]_64"], "3 does not divide the array length 64"),
    (["apply", "map abs", "split-join", "--at", "9.9", "--param", "n=2", "--type",
      "[float]_64"], "path 9.9 does not exist"),
    (["rules", "map abs", "--at", "x.y", "--type", "[float]_64"], "bad path"),
    (["derive", "/nonexistent.json"], "cannot read"),
])
def test_rule_command_errors(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 1 and words in err and "Traceback" not in err


def test_devices_lists_the_default_device(capsys):
    from workbench.device.opencl import default_device

    code, out, _ = run(capsys, "devices", "--json")
    assert code == 0
    doc = json.loads(out)
    default = [d for d in doc["devices"] if d["id"] == doc["default"]]
    assert default and default[0]["health"] == "ok"
    assert doc["default"] == default_device().id  # whichever device that is here


def test_version_is_the_installed_packages():
    from importlib.metadata import version

    done = subprocess.run([sys.executable, "-m", "workbench", "--version"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"workbench {version('rewrite-workbench')}"


def _fake_device(id: str, kind: str, health: str = "ok"):
    from workbench.device.opencl import DeviceInfo

    return DeviceInfo(id=id, platform="Fake", name=f"fake {kind}", kind=kind, driver="1",
                      compute_units=2, max_work_group_size=256, local_memory_bytes=32768,
                      doubles=True, health=health, vector_widths=(2, 4))


@pytest.mark.parametrize("gpu_health, environment, says", [
    ("ok", {}, True),                                 # the CPU is the default, a GPU works
    ("broken: builds nothing", {}, False),            # the GPU does not work
    ("ok", {"WORKBENCH_DEVICE": "0:0"}, False),       # the CPU was chosen
    ("ok", {"PYOPENCL_CTX": "0"}, False),
])
def test_devices_says_when_a_working_gpu_waits_beside_the_cpu_default(
        capsys, monkeypatch, gpu_health, environment, says):
    from workbench.device import opencl as opencl_devices

    cpu, gpu = _fake_device("0:0", "cpu"), _fake_device("1:0", "gpu", gpu_health)
    monkeypatch.setattr(opencl_devices, "devices", lambda check=False, progress=None: [cpu, gpu])
    monkeypatch.setattr(opencl_devices, "find_device", lambda spec=None: (cpu, None))
    monkeypatch.setattr(opencl_devices, "notes", lambda: [])
    for name in ("WORKBENCH_DEVICE", "PYOPENCL_CTX"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    hint = ("a working GPU is present (1:0 fake gpu): choose it with --device gpu or "
            "WORKBENCH_DEVICE=gpu")
    code, out, _ = run(capsys, "devices")
    assert code == 0 and out.startswith("* 0:0  fake cpu (Fake, cpu, ")
    assert (hint in out) == says, out
    if environment:
        assert f"* the default device, as {'='.join(*environment.items())} chooses" in out
    code, out, _ = run(capsys, "devices", "--json")
    assert json.loads(out).get("hint") == (hint if says else None)


def test_rules_why_explains_refusals(capsys):
    code, out, _ = run(capsys, "rules", "map abs", "--type", "[float]_64", "--at", "root",
                       "--why", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["refused"]["map→mapLocal"].startswith("mapLocal must be inside a mapWorkgroup")
    assert doc["refused"]["reduce→reduceSeq"] == "it rewrites reduce f z"
    assert any(r["rule"] == "split-join" for r in doc["rewrites"])


def test_eval_json_summarises_the_inputs_and_keeps_a_small_output(capsys):
    import hashlib

    import numpy as np

    from workbench.inputs import random_inputs
    from workbench.notation import parse_type

    code, out, _ = run(capsys, "eval", f"@{LIBRARY / 'blas.lift'}:dot", "--size", "N=100000",
                       "--json")
    assert code == 0
    assert len(out.splitlines()) < 100  # not every input value
    doc = json.loads(out)
    xs, ys = random_inputs([parse_type("[float]_100000")] * 2, {"N": 100000}, seed=0)
    for summary, array in zip(doc["inputs"], (xs, ys)):
        assert "values" not in summary
        assert summary["shape"] == [100000] and summary["dtype"] == "float32"
        assert summary["size"] == 100000 and len(summary["first"]) == 8
        assert summary["first"][0] == pytest.approx(float(array[0]))
        assert summary["sum"] == pytest.approx(float(array.astype(np.float64).sum()))
        assert summary["sha256"] == hashlib.sha256(array.tobytes()).hexdigest()
    assert doc["output"]["values"] == [pytest.approx(float(np.dot(xs, ys)), rel=1e-3)]
    # a large output is summarised too; --full prints every value
    code, out, _ = run(capsys, "eval", "map abs", "--type", "[float]_N", "--size", "N=5000",
                       "--json")
    assert "values" not in json.loads(out)["output"]
    code, out, _ = run(capsys, "eval", "map abs", "--type", "[float]_N", "--size", "N=5000",
                       "--json", "--full")
    doc = json.loads(out)
    assert len(doc["output"]["values"]) == 5000 and len(doc["inputs"][0]["values"]) == 5000


def test_rules_shows_a_rule_once_with_all_its_parameter_values(capsys):
    argv = ["rules", "reduce (+) 0 o map abs", "--type", "[float]_4096", "--at", "0"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    lines = out.splitlines()
    partial = [line for line in lines if "reduce-partial" in line]
    assert partial == ["0  reduce-partial  n = 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048"]
    following = lines[lines.index(partial[0]) + 1]
    assert following.strip() == "→ reduce (+) 0 ∘ reducePart (+) 0 {n} ∘ map abs"
    assert lines[-1].startswith("125 rewrites of 15 rules and places")
    code, out, _ = run(capsys, *argv, "--json")  # one object per rewrite (SPEC 14)
    doc = json.loads(out)
    assert len(doc) == 125 and all(set(r) == {"path", "rule", "params", "result"} for r in doc)
    assert sum(r["rule"] == "reduce-partial" for r in doc) == 11


def test_rules_all_lists_the_catalogue_without_an_expression(capsys):
    from workbench.rules import rules

    code, out, _ = run(capsys, "rules", "--all")
    assert code == 0
    for rule in rules:
        assert f"  {rule.name} " in out and rule.equation in out
    assert out.splitlines()[-1].startswith(f"{len(rules)} rules")
    code, out, _ = run(capsys, "rules", "--all", "--json")
    doc = json.loads(out)["catalogue"]
    assert [r["name"] for r in doc] == [r.name for r in rules]
    split_join = next(r for r in doc if r["name"] == "split-join")
    assert split_join["params"][0]["name"] == "n" and split_join["figure"] == "ICFP Fig. 6c"
    code, out, err = run(capsys, "rules")
    assert code == 1 and "give an expression (EXPR)" in err and "--all" in err


def test_every_command_has_an_example_and_every_option_a_help_text():
    from workbench.cli import build_parser

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    assert set(commands) == {"check", "rules", "apply", "derive", "eval", "codegen", "run",
                             "search", "devices", "demo", "calibrate"}
    for name, command in commands.items():
        assert command.epilog and "workbench " + name in command.epilog, name
        for action in command._actions:
            assert action.help, (name, action.option_strings or action.dest)
    search = commands["search"].format_help()
    assert "--repeat" in search and "--seed" in search and "Ctrl-C" in search
    assert "--json keys" in commands["eval"].format_help()


# --- the search's report ---------------------------------------------------------------------

def test_a_found_kernel_is_tidied_of_walk_leftovers_by_steps_of_its_own():
    import numpy as np

    from workbench import Derivation, evaluate, parse
    from workbench.cli import tidied

    d = Derivation(parse("reduce (+) 0"), "[float]_64", name="sum")
    d.apply("reduce-partial", "root", n=2)
    d.apply("partial-iterate", "1", k=1)  # what a walk leaves: iterate 1 (...)
    assert "iterate 1" in str(d.current)
    tidy, done = tidied(d)
    assert "iterate" not in str(tidy.current) and done == ["iterate-once at 1"]
    assert len(d) == 2 and len(tidy) == 3  # the found derivation itself is left as it is
    xs = np.random.default_rng(0).uniform(-1, 1, 64).astype(np.float32)
    assert np.allclose(evaluate(tidy.current, xs), evaluate(d.current, xs), atol=1e-5)


def test_the_search_summary_is_short_and_lays_the_kernel_out():
    """The text report names each step's rule and prints the kernel laid out on lines of at
    most 100 columns, not every intermediate expression (those are in --json)."""
    from workbench import Derivation, load, to_text
    from workbench.cli import show_search, tidied
    from workbench.programs import LIBRARY

    start = load(LIBRARY / "reductions.lift")["listing5_13"]
    d = Derivation(start, "[float]_65536", name="listing5_13")
    d.apply("reduce→reduceSeq", "0")
    tidy, _ = tidied(d)
    doc = {"name": "listing5_13", "evaluated": 40, "strategy": "guided", "seconds": 12.0,
           "failures_by_kind": {}, "stopped": None, "from_log": 0, "budget": 40,
           "best": {"kernel_ms": 0.05, "timing_text": "measured again", "expression":
                    str(tidy.current), "text": str(tidy),
                    "rules": [line for line in str(tidy).splitlines()
                              if line.lstrip().startswith("(")],
                    "layout": to_text(tidy.current, width=100)}}
    text = show_search(doc)
    assert len(str(tidy.current)) > 300  # one line of it would not fit
    assert "best kernel:" in text and "(1) → reduce→reduceSeq at 0" in text
    assert all(len(line) <= 100 for line in text.splitlines()[1:])
    assert text.count(str(tidy.start)) == 0  # no expression but the kernel's


def test_the_search_summary_notes_a_best_time_below_the_devices_launch_floor():
    from workbench.cli import show_search

    def doc(ms, floor):
        return {"name": "asum", "evaluated": 4, "strategy": "guided", "seconds": 1.0,
                "failures_by_kind": {}, "stopped": None, "from_log": 0, "budget": 4,
                "best": {"kernel_ms": ms, "timing_text": "measured again", "expression": "x",
                         "text": "x", "rules": [], "layout": "x", "launch_floor_ms": floor}}

    noted = show_search(doc(0.04, 0.005))  # under 10x the floor, above the fixed least
    assert "an empty kernel's 0.0050 ms on this device" in noted
    assert "Note:" not in show_search(doc(0.04, None))
    assert "Note:" not in show_search(doc(1.0, 0.005))
