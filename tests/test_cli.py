"""The command line: check and eval on every program file, JSON output, user errors."""

import json
import subprocess
import sys

import pytest

from workbench.cli import main
from workbench.programs import LIBRARY, files

SIZES = {"blas": ["N=256", "M=8"], "mm": ["M=4", "K=8", "N=6"], "blackscholes": ["N=64"],
         "md": ["N=16", "K=4"], "figures": ["N=4096"], "reductions": ["N=4096", "blockSize=1024"]}


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
                       "--size", "N=1024", "--json")
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
    code, out, _ = run(capsys, "devices", "--json")
    assert code == 0
    doc = json.loads(out)
    default = [d for d in doc["devices"] if d["id"] == doc["default"]]
    assert default and "Portable Computing Language" in default[0]["platform"]


def test_rules_why_explains_refusals(capsys):
    code, out, _ = run(capsys, "rules", "map abs", "--type", "[float]_64", "--at", "root",
                       "--why", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["refused"]["map→mapLocal"].startswith("mapLocal must be inside a mapWorkgroup")
    assert doc["refused"]["reduce→reduceSeq"] == "it rewrites reduce f z"
    assert any(r["rule"] == "split-join" for r in doc["rewrites"])
