"""The workbench in a real browser: JupyterLab and Voilà serve the notebooks, Debian's chromium
(driven by Playwright) runs them, and every check reads what the page shows.

- the tour's widget: click a node of the tree, apply a rule, undo it, run the step (every
  expected text is computed by Python, so a broken JavaScript click handler fails here; the
  Python-only tests cannot see it); the OpenCL panel's longest line is readable without
  horizontal scrolling; collapsing panels brings the run and search panels into view;
- a widget whose kernel does not compile: the run's whole message opens on a click;
- the search notebook, run top to bottom: every figure cell shows an image;
- the e-graph panel: grown by a click, its chart and the extracted program shown.

Needs ``/usr/bin/chromium`` (``apt-get install chromium``) and the ``ui-test`` extra
(``pip install -e .[lab,ui-test]``); skipped with the reason when either is missing, except
where ``WORKBENCH_REQUIRE_BROWSER=1`` (CI) makes that a failure. Screenshots are written to
``tests/artifacts/``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]

ROOT = Path(__file__).parent.parent
TOUR = ROOT / "notebooks" / "tour.ipynb"
SEARCH = ROOT / "notebooks" / "search.ipynb"
ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
LOAD_S = 90  # server start, page load, kernel start, running the notebook
STEP_S = 45  # one round trip through the kernel (a run compiles a kernel)
NOTEBOOK_S = 420  # the search notebook, top to bottom, on two shared cores

# The e-graph notebook's widget: every panel but the e-graph's closed; its limits
EGRAPH_COLLAPSED = ("tree", "derivation", "code", "runs", "search")
EGRAPH_LIMITS = (2, 1200)

# A widget whose kernel cannot compile: a scalar cast applied to a float4.
HALF = """
f : [float]_N -> [float]_N
f = joinVec ∘ mapGlobal (mapVec (λx. float (int x))) ∘ splitVec 4
"""


def _missing() -> str:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    for module in ("playwright", "voila", "jupyterlab", "anywidget"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (pip install -e '.[lab,ui-test]')"
    if shutil.which("dot") is None:
        return "graphviz's dot is missing (apt-get install graphviz)"
    return ""


@pytest.fixture(scope="module")
def browser():
    missing = _missing()
    if missing:
        if os.environ.get("WORKBENCH_REQUIRE_BROWSER") == "1":
            pytest.fail("browser tests are required here (WORKBENCH_REQUIRE_BROWSER=1), "
                        f"but {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stage(tmp: Path) -> tuple[Path, dict]:
    """Copies of the notebooks (the servers save outputs into them) beside a link to the
    benchmark results they read, a notebook whose kernel cannot compile, and private Jupyter
    folders, with JupyterLab's news notification off (it can cover the widget)."""
    import nbformat

    work = tmp / "notebooks"
    work.mkdir()
    for notebook in (TOUR, SEARCH):
        shutil.copy(notebook, work / notebook.name)
    (tmp / "benchmarks").symlink_to(ROOT / "benchmarks")  # read as ../benchmarks/results
    failing = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A kernel that does not compile"),
        nbformat.v4.new_code_cell("from widgets import Workbench\n\n"
                                  f"Workbench(\'\'\'{HALF}\'\'\', sizes={{'N': 256}}, repeat=1)")])
    failing.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                      "language": "python"}
    nbformat.write(failing, work / "failing.ipynb")
    programs = ROOT / "workbench" / "programs"
    classroom = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Real programs in front of a class"),
        nbformat.v4.new_code_cell(
            "from widgets import Workbench\nfrom workbench import load\n\n"
            f"mm = Workbench(load({str(programs / 'mm.lift')!r})['mm'], auto_run=False,\n"
            "               sizes={'M': 32, 'K': 32, 'N': 32},\n"
            "               collapsed=('derivation', 'search'))\nmm"),
        nbformat.v4.new_code_cell(
            f"asum = Workbench(load({str(programs / 'blas.lift')!r})['asum'], auto_run=False,\n"
            "                 collapsed=('tree', 'derivation', 'code', 'runs'))\n"
            "asum.search.budget.value = 3\nasum")])
    classroom.metadata["kernelspec"] = failing.metadata["kernelspec"]
    nbformat.write(classroom, work / "classroom.ipynb")
    saturation = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# The e-graph of asum"),
        nbformat.v4.new_code_cell(
            "from widgets import Workbench\nfrom workbench import load\n\n"
            f"wb = Workbench(load({str(programs / 'blas.lift')!r})['asum'], auto_run=False,\n"
            f"               sizes={{'N': 1024}}, collapsed={EGRAPH_COLLAPSED!r})\n"
            f"wb.egraph.rounds.value, wb.egraph.nodes.value = {EGRAPH_LIMITS}\nwb")])
    saturation.metadata["kernelspec"] = failing.metadata["kernelspec"]
    nbformat.write(saturation, work / "egraph.ipynb")
    settings = tmp / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = dict(os.environ)
    for name in ("CONFIG", "RUNTIME", "DATA"):
        (tmp / name.lower()).mkdir()
        env[f"JUPYTER_{name}_DIR"] = str(tmp / name.lower())
    env.pop("MPLBACKEND", None)
    return work, env


def _wait_http(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + LOAD_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited ({proc.returncode}):\n"
                                 + log.read_text()[-3000:])
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"no answer from {url}:\n" + log.read_text()[-3000:])


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def _start(cmd: list[str], cwd: Path, env: dict, log: Path) -> subprocess.Popen:
    with open(log, "w") as out:
        return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def _expected_rules() -> list[str]:
    """What the widget lists at the root of the tour's program, computed here in Python."""
    from workbench import parse_program, rewrites

    nb = json.loads(TOUR.read_text())
    source = next("".join(c["source"]) for c in nb["cells"]
                  if c["cell_type"] == "code" and "parse_program" in "".join(c["source"]))
    text = re.search(r"'''(.*?)'''", source, re.S).group(1)
    scal = parse_program(text)["vectorScal"]
    return list(dict.fromkeys(r.rule for r in rewrites(scal, at=())))


def _node(page, path: str):
    return page.locator(".wb-tree g.node").filter(
        has=page.locator("title", has_text=re.compile(rf"^{re.escape(path)}$")))


def drive_workbench(page, shot: Path, wait_idle) -> None:
    """Click through the widget; every expected text is computed by the kernel."""
    from playwright.sync_api import expect

    wb = page.locator(".wb-workbench").first
    expect(wb.locator(".wb-tree svg g.node").first).to_be_visible(timeout=LOAD_S * 1000)
    header = wb.locator(".wb-selected-text")
    expect(header).to_contain_text("selected root", timeout=STEP_S * 1000)
    menu = wb.locator(".wb-device-menu select")
    assert menu.evaluate("el => el.options[el.selectedIndex].text").startswith("default:")

    # a click on a node reaches Python: the rules listed are computed there
    _node(page, "0").click()
    expect(header).to_contain_text("selected 0", timeout=STEP_S * 1000)
    expect(header).to_contain_text("0 rules apply")
    _node(page, "root").click()
    rules = _expected_rules()
    expect(header).to_contain_text(f"{len(rules)} rules apply: {', '.join(rules)}",
                                   timeout=STEP_S * 1000)
    expect(wb.locator(".wb-code")).to_contain_text("kernel void", timeout=STEP_S * 1000)
    expect(wb.locator(".wb-code")).to_contain_text("default completion")
    check_opencl_fits(wb)

    # choose split-join with n = 1024: preview, highlighted nodes, apply, undo
    wb.locator(".wb-rule-select select").select_option(index=rules.index("split-join"))
    wb.locator(".wb-param-n select").select_option(label="1024")
    expect(wb.locator(".wb-preview-result")).to_have_text(
        "join ∘ map (map mul3) ∘ split 1024", timeout=STEP_S * 1000)
    expect(wb.locator('.wb-tree g.node [fill="#fde047"]')).to_have_count(
        2, timeout=STEP_S * 1000)  # the map and its function change
    wb.locator("button.wb-apply").click()
    expect(wb.locator(".wb-derivation")).to_contain_text("join ∘ map (map mul3) ∘ split 1024",
                                                       timeout=STEP_S * 1000)
    expect(_node(page, "2")).to_contain_text("split 1024")
    expect(wb.locator(".wb-code")).to_contain_text("OpenCL of step 1", timeout=STEP_S * 1000)
    wb.locator("button.wb-undo").click()
    expect(wb.locator(".wb-derivation")).not_to_contain_text("split 1024",
                                                           timeout=STEP_S * 1000)
    expect(_node(page, "2")).to_have_count(0)

    # run this step at a size set in the page
    size = wb.locator(".wb-run-panel input[type=number]").first
    size.fill("2048")
    size.press("Enter")
    wb.locator(".wb-run-panel button", has_text="run this step").click()
    table = wb.locator(".wb-run-table")
    expect(table).to_contain_text("sizes N=2048", timeout=STEP_S * 1000)
    expect(table).to_contain_text("ok (checked)", timeout=STEP_S * 1000)
    expect(table).to_contain_text("interpreter (NumPy)")
    expect(wb.locator(".wb-run-status")).to_contain_text("ready", timeout=STEP_S * 1000)
    # the interactive plot: the step's point, and what it is under the pointer
    point = wb.locator(".wb-run-chart .wb-chart-point").first
    expect(point).to_be_visible(timeout=STEP_S * 1000)
    point.hover()
    expect(wb.locator(".wb-run-chart .wb-chart-tip")).to_contain_text("start: ")
    expect(wb.locator(".wb-run-chart .wb-chart-tip")).to_contain_text("ms [")
    assert not any(t.strip() for t in wb.locator(".wb-errors").all_inner_texts()), \
        wb.locator(".wb-errors").all_inner_texts()  # no error anywhere in the widget
    wait_idle()
    shot.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(shot), full_page=True)
    check_panels_collapse(page, wb, shot.with_name(shot.stem + "_collapsed.png"))


def check_opencl_fits(wb) -> None:
    """The OpenCL panel stands beside the tree, inside the widget, and its longest line needs
    no horizontal scroll."""
    from playwright.sync_api import expect

    code = wb.locator(".wb-opencl")
    expect(code).to_be_visible(timeout=STEP_S * 1000)
    scroll, client = code.evaluate("el => [el.scrollWidth, el.clientWidth]")
    assert 0 < scroll <= client, f"the code scrolls sideways: {scroll} > {client} px"
    box, tree = _box(code), _box(wb.locator(".wb-section-tree"))
    widget = _box(wb)
    assert box["left"] >= tree["right"] - 1, f"the code is not beside the tree: {box} {tree}"
    assert box["right"] <= widget["right"] + 1, f"the code leaves the widget: {box} {widget}"
    assert client > 0.3 * widget["width"], f"the code panel is {client} of {widget} px"


def _box(locator) -> dict:
    return locator.evaluate("el => { const r = el.getBoundingClientRect(); return {left: "
                            "r.left, right: r.right, top: r.top, bottom: r.bottom, "
                            "width: r.width}; }")


def _on_screen(page, locator) -> bool:
    """The element lies wholly inside the viewport (not only inside its scroll box)."""
    box, view = _box(locator), page.viewport_size
    return (box["top"] >= 0 and box["left"] >= 0 and box["bottom"] <= view["height"]
            and box["right"] <= view["width"])


def check_panels_collapse(page, wb, shot: Path) -> None:
    """Closing the tree, the derivation and the code (the bar at the top) brings the run and
    search panels into view; opening them again restores the widget."""
    from playwright.sync_api import expect

    wb.locator(".wb-section-bar").scroll_into_view_if_needed()
    keys = ("tree", "derivation", "code")
    for key in keys:
        wb.locator(f"button.wb-show-{key}").click()
        expect(wb.locator(f".wb-section-{key} .wb-section-body")).to_be_hidden(
            timeout=STEP_S * 1000)
    expect(wb.locator(".wb-run-panel button", has_text="run this step")).to_be_in_viewport(
        timeout=STEP_S * 1000)
    page.screenshot(path=str(shot))
    wb.locator(".wb-section-runs .wb-section-toggle").click()  # a panel's own header
    expect(wb.locator(".wb-search-panel button", has_text="search from this step")
           ).to_be_in_viewport(timeout=STEP_S * 1000)
    for key in (*keys, "runs"):
        wb.locator(f"button.wb-show-{key}").click()
    expect(wb.locator(".wb-code")).to_be_visible(timeout=STEP_S * 1000)
    expect(wb.locator(".wb-run-table")).to_be_visible()


class Lab:
    """A JupyterLab server on the staged notebooks, for the tests of this module."""

    def __init__(self, tmp: Path):
        self.work, env = _stage(tmp)
        self.port, self.token = _free_port(), "wbtest" + str(os.getpid())
        self.log = tmp / "lab.log"
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = _start([
            sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
            f"--port={self.port}", f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.work}", "--allow-root",
            "--LabApp.extension_manager=readonly", "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
            f"--LabApp.user_settings_dir={tmp / 'settings'}",
            "--expose-app-in-browser"], self.work, env, self.log)
        _wait_http(f"{self.base}/api/status?token={self.token}", self.proc, self.log)

    def open(self, browser, notebook: str, width: int = 1400, height: int = 1000):
        """A page on ``notebook`` with its kernel idle, and a function that waits for idle."""
        page = browser.new_page(viewport={"width": width, "height": height})
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        # a workspace of its own: JupyterLab would otherwise reopen the notebooks of earlier
        # pages, and the one in front might not be this one
        workspace = Path(notebook).stem
        page.goto(f"{self.base}/lab/workspaces/{workspace}/tree/{notebook}?token={self.token}")

        def idle():
            page.wait_for_function(
                "(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                " const k = w && w.context && w.context.path === name && w.sessionContext"
                " && w.sessionContext.session && w.sessionContext.session.kernel;"
                " return k && k.status === 'idle'; }", arg=notebook, timeout=LOAD_S * 1000)

        idle()
        return page, idle

    def stop(self) -> None:
        try:
            urllib.request.urlopen(urllib.request.Request(
                f"{self.base}/api/shutdown?token={self.token}", method="POST"), timeout=5)
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        _stop(self.proc)


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory):
    server = Lab(tmp_path_factory.mktemp("lab"))
    yield server
    server.stop()


def _run_all(page) -> None:
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")


def test_workbench_in_jupyterlab(browser, lab):
    page, idle = lab.open(browser, TOUR.name)
    try:
        _run_all(page)
        drive_workbench(page, ARTIFACTS / "jupyterlab_tour.png", idle)
        assert not [e for e in page.errors if "wb" in e or "anywidget" in e.lower()], page.errors
    finally:
        page.close()


def test_tree_and_opencl_side_by_side_at_1440x900(browser, lab):
    """At 1440 x 900 both ends of a link between a node and its OpenCL lines are on screen
    at once, both ways, and layout primitives (split, join) light the lines holding the
    index expressions they produce; the rules column stays inside its panel; the size box
    shows 1048576 in full."""
    from playwright.sync_api import expect

    page, idle = lab.open(browser, TOUR.name, width=1440, height=900)
    try:
        _run_all(page)
        wb = page.locator(".wb-workbench").first
        expect(wb.locator(".wb-code")).to_contain_text("kernel void", timeout=LOAD_S * 1000)
        _node(page, "root").click()
        rules = _expected_rules()
        expect(wb.locator(".wb-selected-text")).to_contain_text(
            f"{len(rules)} rules apply", timeout=STEP_S * 1000)
        wb.locator(".wb-rule-select select").select_option(index=rules.index("split-join"))
        wb.locator(".wb-param-n select").select_option(label="1024")
        wb.locator("button.wb-apply").click()
        expect(wb.locator(".wb-code")).to_contain_text("OpenCL of step 1", timeout=STEP_S * 1000)
        idle()
        wb.locator(".wb-tree").evaluate("el => el.scrollIntoView({block: 'start'})")
        check_opencl_fits(wb)
        for path in ("1", "2", "0"):  # the map, split 1024, join
            node = _node(page, path)
            node.hover()
            lit = wb.locator(".wb-opencl .wb-line-hover")
            expect(lit.first).to_be_attached(timeout=STEP_S * 1000)
            assert _on_screen(page, node), f"node {path} is off screen: {_box(node)}"
            assert _on_screen(page, lit.first), f"the lines of {path} are off screen"
            if path != "1":  # a view's lines hold the index expressions it produces
                expect(lit.first).to_contain_text("1024*")
        line = wb.locator(".wb-opencl [data-path]").last  # and from a line to its node
        line.hover()
        outlined = wb.locator(".wb-tree .wb-node-hover").first
        expect(outlined).to_be_attached(timeout=STEP_S * 1000)
        assert _on_screen(page, line) and _on_screen(page, outlined)
        # the rules column: a long equation is clipped inside the panel, whole on hover
        _node(page, "1").click()
        expect(wb.locator(".wb-selected-text")).to_contain_text("selected 1",
                                                                timeout=STEP_S * 1000)
        panel = _box(wb.locator(".wb-section-tree"))
        for part in (".wb-controls", ".wb-rule-select select", ".wb-rule-list"):
            right = _box(wb.locator(part).first)["right"]
            assert right <= panel["right"] + 1, f"{part} overflows: {right} > {panel}"
        # the size box shows a seven-digit size in full
        size = wb.locator(".wb-run-panel .wb-size input").first
        size.fill("1048576")
        size.press("Enter")
        # the launch follows the size: 1048576 / 1024 work-items (4 at the 4096 before)
        expect(wb.locator(".wb-code")).to_contain_text("global (1024,)", timeout=STEP_S * 1000)
        assert size.input_value() == "1048576"
        scroll, client = size.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert scroll <= client, f"the size box hides part of 1048576: {scroll} > {client}"
        idle()
        page.screenshot(path=str(ARTIFACTS / "jupyterlab_side_by_side.png"))
        assert not [e for e in page.errors if "wb" in e or "anywidget" in e.lower()], page.errors
    finally:
        page.close()


def _failed_run_message() -> str:
    """The message of the failing run, computed here: its last line ends the whole text."""
    import numpy as np

    from workbench import parse_program, run

    result = run(parse_program(HALF)["f"], np.zeros(256, np.float32), repeat=1)
    assert result.status == "compile error", result
    return result.message.strip().splitlines()[-1]


def test_a_failed_runs_whole_message_opens_in_jupyterlab(browser, lab):
    from playwright.sync_api import expect

    from workbench.device.opencl import DeviceError, find_device

    try:
        find_device()
    except DeviceError as err:
        pytest.skip(f"no working OpenCL device: {err}")
    last_line = _failed_run_message()
    page, idle = lab.open(browser, "failing.ipynb", width=900)  # a narrow window
    try:
        _run_all(page)
        wb = page.locator(".wb-workbench").first
        expect(wb.locator(".wb-code")).to_contain_text("kernel void", timeout=LOAD_S * 1000)
        check_opencl_fits(wb)  # the kernel's signature is wider than the panel: it wraps
        message = wb.locator(".wb-run-table details.wb-message")
        expect(message).to_be_visible(timeout=LOAD_S * 1000)
        expect(message.locator("summary")).to_contain_text("compile error")
        expect(message.locator("summary")).to_contain_text("open in full")
        full = message.locator(".wb-message-full")
        expect(full).to_be_hidden()
        message.locator("summary").click()
        expect(full).to_be_visible()
        expect(full).to_contain_text(last_line)  # the end of the message, past any cut
        scroll, client = full.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert scroll <= client, f"the message scrolls sideways: {scroll} > {client} px"
        expect(wb.locator(".wb-section-runs .wb-section-summary")).to_contain_text(
            "compile error")
        idle()
        full.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "jupyterlab_failed_run.png"))
    finally:
        page.close()


def test_real_programs_fit_and_messages_sit_by_their_buttons_in_jupyterlab(browser, lab):
    """The matrix multiplication's tree scrolls inside its column (scroll bars shown, nothing
    clipped); selecting a deep node keeps the rule list and apply in view; hovering a node
    shades its OpenCL lines and clicking a line selects its node; a size that cannot run is
    refused beside the size box (never "fully low-level") and the message is dismissed; no
    broken image before a search; "adopt best" after a search on asum at symbolic N adopts
    every step."""
    from playwright.sync_api import expect

    page, idle = lab.open(browser, "classroom.ipynb", width=1100, height=900)
    try:
        _run_all(page)
        mm, asum = page.locator(".wb-workbench").nth(0), page.locator(".wb-workbench").nth(1)
        tree = mm.locator(".wb-tree")
        expect(tree.locator("svg g.node").first).to_be_visible(timeout=LOAD_S * 1000)
        box = tree.evaluate("""el => { const c = el.parentElement.closest('.widget-vbox');
            const r = el.getBoundingClientRect(), p = c.getBoundingClientRect();
            return {sw: el.scrollWidth, sh: el.scrollHeight, cw: el.clientWidth,
                    ch: el.clientHeight, ow: el.offsetWidth, oh: el.offsetHeight,
                    right: r.right, column: p.right, svgh: el.querySelector('svg')
                    .getBoundingClientRect().height}; }""")
        assert box["right"] <= box["column"] + 1, f"the tree is clipped by its column: {box}"
        assert box["sh"] > box["ch"], f"the tree does not scroll: {box}"
        assert box["ow"] - box["cw"] > 0, f"no scroll bar is shown: {box}"
        # a deep node: the last one drawn; selecting it keeps the controls in view
        deepest = tree.locator("g.node").last
        path = deepest.locator("title").text_content()
        deepest.scroll_into_view_if_needed()
        deepest.click()
        expect(mm.locator(".wb-selected-text")).to_contain_text(f"selected {path}",
                                                                timeout=STEP_S * 1000)
        expect(mm.locator(".wb-rule-select select")).to_be_in_viewport()
        expect(mm.locator("button.wb-apply")).to_be_in_viewport()
        expect(mm.locator("button.wb-apply")).to_be_disabled()  # no rule chosen
        # a node and its OpenCL lines: hovering shades them, a line selects its node
        expect(mm.locator(".wb-opencl [data-path]").first).to_be_attached(
            timeout=STEP_S * 1000)
        line_path = mm.locator(".wb-opencl [data-path]").last.get_attribute("data-path")
        _node(page, line_path).first.hover()
        expect(mm.locator(".wb-opencl .wb-line-hover").first).to_be_attached(
            timeout=STEP_S * 1000)
        mm.locator(f'.wb-opencl [data-path="{line_path}"]').last.click()
        expect(mm.locator(".wb-selected-text")).to_contain_text(f"selected {line_path}",
                                                                timeout=STEP_S * 1000)
        # a size that cannot run: refused beside the size box, dismissed with its ×
        size = mm.locator(".wb-run-panel .wb-size input").first
        size.fill("0")
        size.press("Enter")
        message = mm.locator(".wb-size-errors .wb-error-text")
        expect(message).to_contain_text("a size is at least 1", timeout=STEP_S * 1000)
        gap = page.evaluate("([a, b]) => b.getBoundingClientRect().top - "
                            "a.getBoundingClientRect().bottom",
                            [size.element_handle(), message.element_handle()])
        assert 0 <= gap < 60, f"the message is {gap} px below the size box"
        expect(mm.locator(".wb-code")).to_contain_text("no code", timeout=STEP_S * 1000)
        expect(mm.locator(".wb-code")).not_to_contain_text("fully low-level")
        expect(mm.locator(":scope > .wb-errors .wb-error-text")).to_have_text("")  # not on top
        mm.locator(".wb-size-errors button.wb-dismiss").click()
        expect(message).to_have_text("", timeout=STEP_S * 1000)
        expect(mm.locator(".wb-size-errors button.wb-dismiss")).to_be_hidden()
        # a search at N = 4096, then adopt: every step, at the widget's types or the search's
        expect(asum.locator(".wb-search-plot")).to_be_hidden()  # no broken image
        expect(asum.locator(".wb-search-chart svg")).to_have_count(0)  # nor an empty plot
        asum.locator(".wb-search-panel button", has_text="search from this step").click()
        expect(asum.locator(".wb-search-panel .wb-search-status")).to_contain_text(
            "ready (search", timeout=NOTEBOOK_S * 1000)
        adopt = asum.locator("button.wb-adopt")
        expect(adopt).to_be_enabled(timeout=STEP_S * 1000)
        # the interactive search plot: a candidate's expression under the pointer, zoom
        chart = asum.locator(".wb-search-chart")
        point = chart.locator(".wb-chart-point").first
        expect(point).to_be_visible(timeout=STEP_S * 1000)
        point.hover()
        expect(chart.locator(".wb-chart-tip")).to_contain_text("candidate")
        expect(chart.locator(".wb-chart-tip")).to_contain_text("abs")  # its expression
        box = chart.locator("svg").bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2, steps=4)
        page.mouse.up()
        expect(chart).to_contain_text("zoomed")
        chart.locator("svg").dblclick()
        expect(chart).not_to_contain_text("zoomed")
        adopt.click()
        expect(asum.locator(".wb-adopted")).to_contain_text("adopted", timeout=STEP_S * 1000)
        expect(asum.locator(".wb-search-panel .wb-error-text")).to_have_text("")
        idle()
        page.screenshot(path=str(ARTIFACTS / "jupyterlab_classroom.png"), full_page=True)
        assert not [e for e in page.errors if "wb" in e or "anywidget" in e.lower()], page.errors
    finally:
        page.close()


NOTEBOOK_STATE = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const cells = w.content.model.cells;
  let pending = 0; const errors = [];
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type !== 'code') continue;
    if (!c.executionCount) pending++;
    for (let j = 0; j < c.outputs.length; j++) {
      const o = c.outputs.get(j).toJSON();
      if (o.output_type === 'error') errors.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
    }
  }
  const k = w.sessionContext.session.kernel;
  return {pending, errors, idle: k.status === 'idle'};
}"""


def test_the_egraph_panel_shows_its_chart_and_extracted_program_in_jupyterlab(browser, lab):
    """A click on "grow e-graph" grows asum's e-graph in the kernel; the chart shows a point
    per iteration for e-nodes and e-classes, the header the last iteration's counts, and
    the extracted program is the one Python extracts here with the same limits (it
    evaluates as asum); a click on the first point shows the start."""
    from playwright.sync_api import expect

    from workbench import load
    from workbench.search.extraction import watch_saturation

    asum = load(ROOT / "workbench" / "programs" / "blas.lift")["asum"]
    rounds, nodes = EGRAPH_LIMITS
    report = watch_saturation(asum, "[float]_N", sizes={"N": 1024}, rounds=rounds,
                              nodes=nodes)
    page, idle = lab.open(browser, "egraph.ipynb", width=1200, height=900)
    try:
        _run_all(page)
        wb = page.locator(".wb-workbench").first
        start = wb.locator("button.wb-egraph-start")
        expect(start).to_be_visible(timeout=LOAD_S * 1000)
        start.scroll_into_view_if_needed()
        start.click()
        chart = wb.locator(".wb-egraph-view svg.wb-egraph-chart")
        its = report.iterations
        expect(chart.locator("circle.wb-egraph-nodes")).to_have_count(len(its),
                                                                      timeout=LOAD_S * 1000)
        expect(chart.locator("circle.wb-egraph-classes")).to_have_count(len(its))
        expect(wb.locator(".wb-egraph-stopped")).to_contain_text(report.stopped,
                                                                 timeout=STEP_S * 1000)
        last = its[-1]
        expect(wb.locator(".wb-egraph-head")).to_contain_text(
            f"iteration {last.number}: {last.classes} e-classes, {last.nodes} e-nodes")
        program = wb.locator(".wb-egraph-program")
        expect(program).to_have_text(str(last.program))
        assert last.program != asum  # a program the graph found, not the start
        expect(wb.locator(".wb-egraph-rule").first).to_be_visible()
        idle()
        chart.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "jupyterlab_egraph.png"))
        chart.locator("circle.wb-egraph-classes").first.click()  # drawn over e-nodes
        expect(wb.locator(".wb-egraph-head")).to_contain_text("iteration 0:",
                                                              timeout=STEP_S * 1000)
        expect(program).to_have_text(str(asum))
        assert not [e for e in page.errors if "wb" in e or "anywidget" in e.lower()], page.errors
    finally:
        page.close()


def _run_notebook(page) -> None:
    """Run every cell and wait until all ran (failing at once on an error output)."""
    _run_all(page)
    deadline = time.monotonic() + NOTEBOOK_S
    state = {}
    while time.monotonic() < deadline:
        state = page.evaluate(NOTEBOOK_STATE)
        assert not state["errors"], state["errors"]
        if state["pending"] == 0 and state["idle"]:
            return
        time.sleep(1)
    raise AssertionError(f"the notebook did not finish in {NOTEBOOK_S} s: {state}")


def test_search_notebook_shows_every_figure_in_jupyterlab(browser, lab):
    import nbformat
    from playwright.sync_api import expect

    from tests.test_notebooks import FIGURE_CALL

    nb = nbformat.read(SEARCH, as_version=4)
    figures = [i for i, c in enumerate(nb.cells)
               if c.cell_type == "code" and FIGURE_CALL.search(c.source)]
    assert len(figures) >= 4
    page, _ = lab.open(browser, SEARCH.name)
    try:
        _run_notebook(page)
        cells = page.locator(".jp-Notebook .jp-Cell")
        expect(cells).to_have_count(len(nb.cells))
        for i in figures:
            cell = cells.nth(i)
            cell.scroll_into_view_if_needed()
            image = cell.locator(".jp-OutputArea-output img").first
            expect(image).to_be_visible(timeout=STEP_S * 1000)
            page.wait_for_function("img => img.complete && img.naturalWidth > 200",
                                   arg=image.element_handle(), timeout=STEP_S * 1000)
            expect(cell.locator(".jp-OutputArea")).not_to_contain_text("<Figure size")
        cells.nth(figures[0]).scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "jupyterlab_search.png"))
    finally:
        page.close()


def test_workbench_in_voila(browser, tmp_path):
    work, env = _stage(tmp_path)
    port = _free_port()
    log = tmp_path / "voila.log"
    proc = _start([sys.executable, "-m", "voila", TOUR.name, "--no-browser",
                   "--Voila.ip=127.0.0.1", f"--port={port}"], work, env, log)
    base = f"http://127.0.0.1:{port}"
    page = None
    try:
        _wait_http(f"{base}/voila/static/voila.js", proc, log)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(base + "/", timeout=LOAD_S * 1000)
        drive_workbench(page, ARTIFACTS / "voila_tour.png",
                        lambda: page.wait_for_load_state("networkidle"))
    finally:
        if page is not None:
            page.close()
        _stop(proc)
