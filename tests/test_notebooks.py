"""The notebooks run top to bottom on the default device, are committed without outputs,
open with a title, and every cell that draws a figure shows it as an image. Without Jupyter
(nbformat, or what a notebook needs to run) these tests skip."""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.jupyter import require_notebook

nbformat = pytest.importorskip("nbformat", reason="the notebooks' tests need Jupyter "
                               "(pip install -e '.[lab,dev]')")

ROOT = Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]

# Each notebook should run in about two minutes on two shared cores; the limit leaves room.
BUDGET_S = 300

# A cell draws a figure when it calls a plot of workbench.plots, pyplot, or makes subplots
# (or is tagged "figure"); it must then show an image, not the figure's text.
FIGURE_CALL = re.compile(r"\bplots\.(efficiency_curve|best_so_far_band|strategies_curve|"
                         r"versus_peers|figure)\(|\bplt\.|\.subplots\(")
IMAGES = ("image/png", "image/svg+xml")


def _text_of(output) -> str:
    if output.get("output_type") == "stream":
        return output.get("text", "")
    return str(output.get("data", {}).get("text/plain", ""))


def figure_problems(nb) -> list[str]:
    """What is wrong with the figures of an executed notebook: a figure cell without an image
    output, or a figure shown as its text (``<Figure size 640x360 with 1 Axes>``)."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        images = [o for o in outputs if any(m in o.get("data", {}) for m in IMAGES)]
        for o in outputs:
            if "<Figure size" in _text_of(o) and o not in images:
                problems.append(f"cell {i} shows a figure as text: {_text_of(o).strip()[:60]}")
        wants = FIGURE_CALL.search(cell.source) or "figure" in cell.get("metadata", {}).get(
            "tags", [])
        if wants and not images:
            problems.append(f"cell {i} draws a figure but shows no image")
    return problems


def _cell(source, outputs):
    return nbformat.v4.new_code_cell(source, outputs=[nbformat.from_dict(o) for o in outputs])


def test_a_figure_cell_without_an_image_is_a_problem():
    figure_text = {"output_type": "execute_result", "execution_count": 1, "metadata": {},
                   "data": {"text/plain": "<Figure size 640x360 with 1 Axes>"}}
    image = {"output_type": "display_data", "metadata": {},
             "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure size 640x360>"}}
    printed = {"output_type": "stream", "name": "stdout",
               "text": "<Figure size 640x360 with 1 Axes>\n"}
    nb = nbformat.v4.new_notebook(cells=[
        _cell("plots.efficiency_curve(log)", [figure_text]),   # the figure as text
        _cell("fig, ax = plt.subplots()", []),                # no output at all
        _cell("plots.versus_peers(best, peers)", [image]),    # fine
        _cell("print(fig)", [printed]),                       # text, in a stream
        _cell("x = 1", [])])
    problems = figure_problems(nb)
    assert problems == ["cell 0 shows a figure as text: <Figure size 640x360 with 1 Axes>",
                        "cell 0 draws a figure but shows no image",
                        "cell 1 draws a figure but shows no image",
                        "cell 3 shows a figure as text: <Figure size 640x360 with 1 Axes>"]


def test_the_folder_has_notebooks():
    assert {"tour", "asum", "reductions", "own_rule", "several_devices"} <= set(IDS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_is_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
             and (c.get("outputs") or c.get("execution_count") is not None)]
    assert not dirty, f"{path.name}: cells {dirty} have outputs (clear them before committing)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_carries_the_metadata_jupyterlab_writes(path):
    # JupyterLab rewrites a notebook without these when it opens it, leaving the checkout
    # modified; the language version is the one of the kernel that saved it
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata.get("kernelspec") == {"display_name": "Python 3 (ipykernel)",
                                             "language": "python", "name": "python3"}
    info = nb.metadata.get("language_info", {})
    assert {k: v for k, v in info.items() if k != "version"} == {
        "codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
        "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3"}
    assert re.fullmatch(r"3\.\d+\.\d+", info.get("version", "")), info
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5) and all("id" in c for c in nb.cells)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_opens_with_a_title(path):
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0] if nb.cells else None
    assert first is not None and first.cell_type == "markdown" \
        and first.source.lstrip().startswith("# "), f"{path.name}: no title cell"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_runs(path):
    """Each notebook runs top to bottom: in the kernel WORKBENCH_NOTEBOOK_KERNEL names where
    it is set (scripts/test: Binder's environment, made from binder/requirements.txt alone),
    else in this Python; the executed copy is kept in WORKBENCH_EXECUTED_NOTEBOOKS where set
    (for the documentation site)."""
    kernel = os.environ.get("WORKBENCH_NOTEBOOK_KERNEL", "python3")
    if kernel == "python3":
        require_notebook(path)
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    started = time.monotonic()
    NotebookClient(nb, timeout=BUDGET_S, kernel_name=kernel,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    elapsed = time.monotonic() - started
    keep = os.environ.get("WORKBENCH_EXECUTED_NOTEBOOKS")
    if keep:  # the documentation site shows these (scripts/site.py)
        Path(keep).mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, Path(keep) / path.name)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    assert not figure_problems(nb), figure_problems(nb)
    assert not prose_problems(nb), prose_problems(nb)
    assert elapsed < BUDGET_S, f"{path.name} took {elapsed:.0f} s"


def test_jupyterlab_starts_without_the_news_pop_up(tmp_path):
    # scripts/start and binder/postBuild write the environment's overrides.json
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    overrides = venv / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    overrides.parent.mkdir(parents=True)
    overrides.write_text('{"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}')
    env = dict(os.environ, PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    subprocess.run(["bash", "scripts/lab-settings"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    doc = json.loads(overrides.read_text())
    assert doc["@jupyterlab/apputils-extension:notification"] == {"fetchNews": "false",
                                                                  "checkForUpdates": False}
    assert doc["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}
    for script in ("scripts/start", "binder/postBuild"):
        assert "bash scripts/lab-settings" in (ROOT / script).read_text(), script


@pytest.mark.slow
def test_the_url_scripts_start_prints_opens_the_tour(tmp_path):
    """scripts/start runs JupyterLab in notebooks/ with the tour as its default page: the URL
    it prints (with its token) is the tour's page, which the server answers."""
    pytest.importorskip("jupyterlab", reason="JupyterLab is the lab extra's")
    import socket
    import urllib.request

    start = (ROOT / "scripts" / "start").read_text()
    options = re.findall(r'args\+=\("(--(?:ServerApp\.root_dir|LabApp\.default_url)=[^"]*)"\)',
                         start)
    assert len(options) == 2, options
    options = [o.replace("$PWD", str(ROOT)) for o in options]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path))
    lab = subprocess.Popen([sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
                            "--ip=127.0.0.1", f"--port={port}", *options], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url, deadline = None, time.time() + 90
        while url is None and time.time() < deadline:
            line = lab.stdout.readline()
            found = re.search(rf"http://127\.0\.0\.1:{port}/\S+", line)
            url = found.group(0) if found else None
        assert url is not None, "JupyterLab printed no URL"
        assert url.split("?")[0].endswith("/lab/tree/tour.ipynb"), url
        page = None
        while page is None and time.time() < deadline:
            try:  # the URL is printed as the server starts listening
                page = urllib.request.urlopen(url, timeout=30)
            except OSError:
                time.sleep(0.5)
        assert page is not None and page.status == 200
        assert "JupyterLab" in page.read().decode()
        page.close()
    finally:
        lab.terminate()
        lab.wait(timeout=30)


# --- the README's entry points ---------------------------------------------------------------

def _readme_block(heading: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index(heading):]
    return section.split("```python", 1)[1].split("```", 1)[0]


def test_the_readme_widget_example_works_from_the_notebooks_folder():
    """JupyterLab opens in notebooks/: the README's widget example must work from there."""
    pytest.importorskip("ipywidgets", reason="the widget needs ipywidgets")
    code = _readme_block("## The widget")
    code = code.replace("Workbench(", "w = Workbench(", 1) + "\nprint(type(w).__name__)\n"
    from tests.children import child_env

    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "notebooks",
                         capture_output=True, text=True, env=child_env(), timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("Workbench")


def test_scripts_start_installs_voila_which_the_readme_advertises():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    start = (ROOT / "scripts" / "start").read_text()
    assert "voila" in (ROOT / "README.md").read_text().lower()
    assert "voila" in extras["lab"] and "'.[lab" in start


# --- prose that reads its numbers from computed results ---------------------------------------

# plots.comparison_text: "<a> measured M ms (lo–hi), <b> M ms (lo–hi); the first is <verdict>"
CLAIM = re.compile(r"measured (?P<a>[\d.]+) ms \((?P<alo>[\d.]+)–(?P<ahi>[\d.]+)\), .*?"
                   r"(?P<b>[\d.]+) ms \((?P<blo>[\d.]+)–(?P<bhi>[\d.]+)\); the first is "
                   r"(?P<verdict>faster|slower|not measurably different)")
# a sentence of prose written by hand that ranks two measured things
HAND_WRITTEN_RANKING = re.compile(r"measured \*?(slower|faster)\*?|\bis the (faster|slower)\b",
                                  re.IGNORECASE)


def _outputs_text(cell) -> str:
    parts = []
    for o in cell.get("outputs", []):
        parts.append(_text_of(o))
        parts.append("".join(o.get("data", {}).get("text/markdown", "")))
    return "\n".join(parts)


def prose_problems(nb) -> list[str]:
    """Claims that the notebook's own numbers contradict: a computed comparison whose verdict
    does not follow from the ranges it prints, a ranking of measurements written by hand in
    a Markdown cell, or a rule of the catalogue said not to be in it."""
    from workbench.rules import rules

    names = {r.name for r in rules}
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            if HAND_WRITTEN_RANKING.search(cell.source):
                problems.append(f"cell {i} ranks measurements by hand: "
                                f"{HAND_WRITTEN_RANKING.search(cell.source).group(0)!r}")
            if "not in the catalogue" in cell.source:  # of the rule the paragraph names
                words = cell.source.lower().replace("*", "").replace(" ", "-")
                named = sorted(n for n in names if n in words)
                if named:
                    problems.append(f"cell {i} says {named[0]} is not in the catalogue")
            continue
        for m in CLAIM.finditer(_outputs_text(cell)):
            a_lo, a_hi, b_lo, b_hi = (float(m[k]) for k in ("alo", "ahi", "blo", "bhi"))
            wanted = ("faster" if a_hi < b_lo else "slower" if a_lo > b_hi
                      else "not measurably different")
            if m["verdict"] != wanted:
                problems.append(f"cell {i} says {m['verdict']} where its numbers say {wanted}")
    return problems


def test_prose_that_contradicts_its_numbers_is_a_problem():
    computed = {"output_type": "display_data", "metadata": {}, "data": {"text/markdown": (
        "The fused loop measured 0.3000 ms (0.2900–0.3100), the line before 0.4000 ms "
        "(0.3900–0.4100); the first is slower: the ranges do not overlap")}}
    fine = {"output_type": "stream", "name": "stdout", "text": (
        "A measured 0.3000 ms (0.2900–0.4500), B 0.4000 ms (0.3900–0.4100); the first is not "
        "measurably different: the ranges overlap\n")}
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("The fused loop measured *slower*, not faster."),
        nbformat.v4.new_markdown_cell("Map fission splits a map. It is not in the catalogue."),
        _cell("claim", [computed]), _cell("other", [fine])])
    assert prose_problems(nb) == [
        "cell 0 ranks measurements by hand: 'measured *slower*'",
        "cell 1 says map-fission is not in the catalogue",
        "cell 2 says slower where its numbers say faster"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_prose_ranks_nothing_by_hand(path):
    nb = nbformat.read(path, as_version=4)
    assert not prose_problems(nb), prose_problems(nb)


def test_the_notebooks_compute_their_claims():
    """The claims the notebooks make about their measurements come from code: asum's fused
    loop (its time, and what the step changes in the code), portability's winners against
    NumPy, the search's best as logged and timed again."""
    def sources(stem):
        nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
        return "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "plots.comparison_text(" in sources("asum") and "errorbar(" in sources("asum")
    assert "change_text(" in sources("asum")  # what the fusion step changes in the OpenCL
    assert "against_peer(" in sources("portability") and "slower than" in sources("portability")
    assert "result.timing_text" in sources("search") and "shared_legend(" in sources("search")
    assert 'lookup_rule("map-fission")' in sources("own_rule")
    assert "plots.comparison_text(" in sources("lift_programs")
