"""The README and the pages of docs/ say what the code does: their Python examples run as
written, the README's command lines run, every link to a file of the checkout leads to one,
and their generated parts (the README's map of the folders, the catalogue) are what
``python scripts/write_docs.py`` writes from the code today."""

from __future__ import annotations

import doctest
import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _write_docs():
    spec = importlib.util.spec_from_file_location("write_docs", ROOT / "scripts" / "write_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_python_examples_run_as_written(page):
    """The README's 30-second example, and every example of docs/ written as a doctest."""
    blocks = _blocks(_text(page), "python")
    runner = doctest.DocTestRunner()
    for i, block in enumerate(blocks):
        test = doctest.DocTestParser().get_doctest(block, {}, f"{page.name} block {i}",
                                                   page.name, 0)
        runner.run(test)
    assert runner.failures == 0
    if page.name == "README.md":
        assert runner.tries > 0


def _command_lines(page: Path) -> list[list[str]]:
    """The ``workbench`` commands of a page's bash blocks, as arguments."""
    out = []
    for block in _blocks(_text(page), "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            args = shlex.split(line, comments=True)
            if args[:1] == ["workbench"]:
                out.append(args[1:])
    return out


def _run_command(args: list[str]) -> None:
    from tests.children import child_env

    done = subprocess.run([sys.executable, "-m", "workbench", *args], cwd=ROOT,
                          capture_output=True, text=True, env=child_env(), timeout=600)
    assert done.returncode == 0, (args, done.stderr[-2000:])


def test_the_readme_command_lines_run():
    commands = _command_lines(ROOT / "README.md")
    assert commands
    for args in commands:
        _run_command(args)


@pytest.mark.slow
def test_the_command_lines_of_the_command_line_page_run():
    """docs/cli.md's examples (runs and the demo among them: a minute on PoCL)."""
    commands = _command_lines(ROOT / "docs" / "cli.md")
    assert len(commands) > 5
    for args in commands:
        _run_command(args)


@pytest.mark.slow
def test_the_options_of_the_pages_python_m_commands_exist():
    """Every ``--option`` the pages give a ``python -m`` module of the packages is one its
    ``--help`` lists (the benchmarks themselves run for minutes to hours)."""
    options: dict[str, set[str]] = {}
    for page in PAGES:
        text = _text(page).replace("\\\n", " ")
        for module, rest in re.findall(r"python -m ((?:benchmarks|workbench)\.[\w.]+)([^`\n#]*)",
                                       text):
            options.setdefault(module, set()).update(re.findall(r"--[a-z][\w-]*", rest))
    assert "benchmarks.search" in options
    from tests.children import child_env

    for module, flags in sorted(options.items()):
        done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, env=child_env(),
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (module, done.stderr[-2000:])
        unknown = [flag for flag in flags if flag not in done.stdout]
        assert not unknown, f"python -m {module} has no {unknown}"


def test_links_lead_to_files_and_every_page_is_linked():
    linked = set()
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", _text(page)):
            if re.match(r"[a-z]+:", target):
                continue
            path = (page.parent / target).resolve()
            assert path.exists(), f"{page.name} links to {target}, which is not there"
            linked.add(path)
    unlinked = [p.name for p in PAGES[1:] if p.resolve() not in linked]
    assert not unlinked, f"pages of docs/ that nothing links to: {unlinked}"


_FILE = re.compile(r"(?<![\w/.<])((?:[\w.-]+/)+[\w.-]+\.(?:py|json|lift|ipynb|md))\b")
_DOTTED = re.compile(r"(?<![\w.])([a-z_]\w*(?:\.[A-Za-z_]\w*)+)(?![\w.])")
_SUFFIXES = (".py", ".md", ".json", ".lift", ".ipynb", ".png", ".jsonl", ".txt")
# the top-level modules and subpackages of workbench/, which the pages also name without
# the package's name (``search.cases``, ``runtime.ProgramCache``); ``expr`` is also what the
# pages call an expression (``expr.structure()``)
_WORKBENCH = {p.stem for p in (ROOT / "workbench").iterdir()
              if p.suffix == ".py" or (p / "__init__.py").exists()} - {"expr"}


def _qualified(name: str) -> str | None:
    """A dotted name of the packages, qualified; None for any other dotted text."""
    if name.endswith(_SUFFIXES):
        return None
    top = name.split(".", 1)[0]
    if top in ("workbench", "widgets", "benchmarks"):
        return name
    return f"workbench.{name}" if top in _WORKBENCH else None


def _resolves(dotted: str) -> bool:
    """Whether a dotted name is a module, or an attribute of one (taken as there when its
    module needs a package this environment lacks, as the widgets do without the lab extra)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError as err:
            if (err.name or "").split(".")[0] not in ("workbench", "widgets", "benchmarks"):
                return True
            continue
        for name in parts[i:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def test_the_files_and_modules_the_pages_name_exist():
    """A path with a folder in it (from the checkout's root or from workbench/) and a dotted
    name of the packages, in the pages' code, name what is there: a module moved elsewhere
    shows here."""
    missing = []
    for page in PAGES:
        for span in re.findall(r"`([^`\n]+)`", _text(page)):
            missing += [f"{page.name}: {path}" for path in _FILE.findall(span)
                        if not any((base / path).exists() for base in (ROOT, ROOT / "workbench"))]
            names = filter(None, map(_qualified, _DOTTED.findall(span)))
            missing += [f"{page.name}: {name}" for name in names if not _resolves(name)]
    assert not missing, f"named in the docs, not in the checkout: {missing}"


def test_the_generated_parts_are_what_the_code_gives():
    """The README's map of the folders, docs/map.md's of every module and
    docs/catalogue.md's tables."""
    write_docs = _write_docs()
    for (name, begin, end), part in write_docs.parts():
        text = _text(ROOT / name)
        assert begin in text and end in text, f"{name} lost a marker of its generated part"
        assert write_docs.current(text, begin, end) == part, (
            f"{name} is not what the code gives: run {write_docs.COMMAND}")


def test_every_module_has_a_docstring_for_the_map():
    missing = _write_docs().undocumented()
    assert not missing, f"without a docstring (or heading, or header comment): {missing}"


def test_the_map_has_every_module_and_notebook():
    """docs/map.md names every module; the README every package and notebook."""
    text = _text(ROOT / "docs" / "map.md")
    readme = _text(ROOT / "README.md")
    for package in ("workbench", "widgets", "benchmarks"):
        for init in (ROOT / package).rglob("__init__.py"):
            assert f"`{init.parent.name}/`" in readme, init
    for package in ("workbench", "widgets", "benchmarks"):
        for path in (ROOT / package).rglob("*.py"):
            if "__pycache__" not in path.parts:
                name = path.parent.name + "/" if path.name == "__init__.py" else path.name
                assert f"`{name}`" in text, path
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        assert f"`{notebook.name}`" in text, notebook


def test_the_map_walks_the_tree(tmp_path):
    """A module moved into a new package shows in the map at its new place, without a list
    to update; one without a docstring is named."""
    files = {"workbench/__init__.py": '"""The core."""',
             "workbench/devices/__init__.py": '"""Devices: found and probed."""',
             "workbench/devices/probe.py": '"""Probes."""',
             "workbench/search/__init__.py": '"""Search."""',
             "workbench/search/cases/__init__.py": '"""CASES 2016."""',
             "workbench/search/cases/phases.py": "PHASES = 4",
             "workbench/derivations/a.json": "{}",
             "widgets/__init__.py": '"""Widgets."""', "benchmarks/__init__.py": '"""Bench."""',
             "tests/__init__.py": '"""Tests."""', "docs/page.md": "# A page\n",
             "scripts/go": "#!/bin/sh\n# Goes. Then stops.\n", "binder/apt.txt": "graphviz"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "notebooks").mkdir()
    write_docs = _write_docs()
    assert write_docs.generate(tmp_path).splitlines() == [
        "- `workbench/` — The core",
        "  - `derivations/` — data: `*.json`",
        "  - `devices/` — Devices: found and probed",
        "    - `probe.py` — Probes",
        "  - `search/` — Search",
        "    - `cases/` — CASES 2016",
        "      - `phases.py`",
        "- `widgets/` — Widgets",
        "- `benchmarks/` — Bench",
        "- `notebooks/` — the tutorials, each run by the tests",
        "- `docs/` — the manual, one page per topic",
        "  - [`page.md`](docs/page.md) — A page",
        "- `scripts/` — the two commands, and the tools they use",
        "  - `go` — Goes",
        "- `tests/` — Tests",
        "- `binder/` — what Binder (repo2docker) runs notebooks with: `apt.txt`"]
    assert write_docs.undocumented(tmp_path) == ["workbench/search/cases/phases.py"]


def test_the_summary_is_the_first_sentence_up_to_a_clause():
    summary = _write_docs().summary
    assert summary("Derivations.\n\nMore.") == "Derivations"
    assert summary("Types (ICFP Sect. 3, Fig. 8). Then.") == "Types (ICFP Sect. 3, Fig. 8)"
    assert summary("Parser (SPEC 3): text -> ``Expr``.") == "Parser (SPEC 3): text -> `Expr`"
    long = "A reader for Scala (" + "x, " * 60 + "y): and more"
    assert summary(long) == "A reader for Scala"
    assert summary("The ``a: b`` form. Next.") == "The `a: b` form"


def test_the_catalogue_lists_every_primitive_and_rule():
    from workbench.primitives import PRIMITIVES
    from workbench.rules import rules

    catalogue = _text(ROOT / "docs" / "catalogue.md")
    missing = [name for name in [*PRIMITIVES, *(r.name for r in rules)]
               if f"`{name}`" not in catalogue]
    assert not missing, f"not in docs/catalogue.md (python scripts/write_docs.py): {missing}"


def test_the_readme_stays_a_map():
    # the folders and packages only: every module is one line of docs/map.md
    assert len(_text(ROOT / "README.md").splitlines()) <= 200
