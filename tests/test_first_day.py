"""What a new user meets on the first day (issue 45): a search from a script without the
main guard, the installed package's program files named on the command line, ``--plot``
without matplotlib."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.children import child_env

UNGUARDED = textwrap.dedent("""
    from workbench import search
    from workbench.programs import library

    result = search(library("blas")["asum"], "[float]_64", strategy="random", budget=2,
                    seed=1, repeat=1, workers=2, timeout=120)
    print("best", result.best_kernel_ms)
    result.require_best()
""")


def test_a_search_from_a_script_without_the_main_guard_finds_a_kernel(tmp_path):
    # the spawned workers must not run the script (and so the search) again
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=child_env(), cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "bootstrapping phase" not in proc.stderr
    best = [line for line in proc.stdout.splitlines() if line.startswith("best")]
    assert best and best[0] != "best None", proc.stdout


def test_a_guarded_script_keeps_its_main_module_in_its_workers(tmp_path):
    # a job defined in the script itself still reaches a worker, which imports the script
    script = tmp_path / "guarded.py"
    script.write_text(textwrap.dedent("""
        from workbench.device.isolation import WorkerPool, main_runs_unguarded

        def twice(x):
            return 2 * x

        print("unguarded at top level", main_runs_unguarded())
        if __name__ == "__main__":
            print("unguarded in the guard", main_runs_unguarded())
            pool = WorkerPool(twice, workers=1, timeout=60)
            print("results", sorted(f.payload for _, f in pool.run([1, 2])))
            pool.close()
    """))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=child_env(), cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "unguarded at top level True" in proc.stdout
    assert "unguarded in the guard False" in proc.stdout
    assert "results [2, 4]" in proc.stdout


def workbench_command(*args: str, cwd, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True,
                          text=True, env=env or child_env(), cwd=cwd, timeout=300)


def test_the_packages_program_files_are_found_outside_a_checkout(tmp_path):
    # the README's and --help's @workbench/programs/… paths, from a folder without them
    proc = workbench_command("check", "@workbench/programs/blas.lift:asum", "--json",
                             cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["name"] == "asum"
    proc = workbench_command("derive", "workbench/derivations/icfp_fig10_asum.json", "--json",
                             cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["final"]


def test_a_file_of_the_current_folder_comes_before_the_packages(tmp_path):
    own = tmp_path / "workbench" / "programs"
    own.mkdir(parents=True)
    (own / "blas.lift").write_text("asum : [float]_N -> [float]_N\nasum = map abs\n")
    proc = workbench_command("check", "@workbench/programs/blas.lift:asum", "--json",
                             cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["expression"] == "map abs"
    proc = workbench_command("check", "@workbench/programs/nothere.lift", cwd=tmp_path)
    assert proc.returncode == 1 and "nothere.lift" in proc.stderr


SEARCH = ["search", "reduce (+) 0 o map abs", "--type", "[float]_64", "--budget", "1",
          "--workers", "0", "--log", "asum.jsonl"]


def test_plot_without_matplotlib_stops_before_searching(tmp_path):
    blocker = tmp_path / "blocker" / "matplotlib"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('matplotlib is blocked here')\n")
    env = child_env()
    env["PYTHONPATH"] = os.pathsep.join([str(blocker.parent), env["PYTHONPATH"]])
    proc = workbench_command(*SEARCH, "--plot", "asum.png", cwd=tmp_path, env=env)
    assert proc.returncode == 1, proc.stderr
    assert "matplotlib" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "asum.jsonl").exists()  # nothing was run
    assert "candidate:" not in proc.stderr


def test_a_misspelt_program_name_says_which_it_meant():
    """``library("blas")["asummm"]``: a located error naming the closest definitions, still
    a KeyError for code that looks names up (``in``, ``get``)."""
    from workbench.errors import WorkbenchError
    from workbench.programs import library

    blas = library("blas")
    with pytest.raises(WorkbenchError, match=r"no definition 'asummm'.*did you mean 'asum'"):
        blas["asummm"]
    with pytest.raises(KeyError):
        blas["nothing like it"]
    assert "asum" in blas and blas.get("asummm") is None
