"""The workbench widget in a real browser: JupyterLab and Voilà serve the tour notebook,
Debian's chromium (driven by Playwright) runs it, clicks a node of the tree, applies a
rule, undoes it and runs the step, and every check reads text that Python computed, so a
broken JavaScript click handler fails here (the Python-only tests cannot see it).

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
ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
LOAD_S = 90  # server start, page load, kernel start, running the notebook
STEP_S = 45  # one round trip through the kernel (a run compiles a kernel)


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
    """A copy of the tour (the servers save outputs into it) and private Jupyter folders,
    with JupyterLab's news notification off (it can cover the widget)."""
    work = tmp / "notebooks"
    work.mkdir()
    shutil.copy(TOUR, work / TOUR.name)
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
    plot = wb.locator(".wb-run-plot")
    before = plot.get_attribute("src")
    wb.locator(".wb-run-panel button", has_text="run this step").click()
    table = wb.locator(".wb-run-table")
    expect(table).to_contain_text("sizes N=2048", timeout=STEP_S * 1000)
    expect(table).to_contain_text("ok (checked)")
    expect(table).to_contain_text("interpreter (NumPy)")
    expect(wb.locator(".wb-run-status")).to_contain_text("ready", timeout=STEP_S * 1000)
    page.wait_for_function("([img, before]) => img.src !== before && img.complete"
                           " && img.naturalWidth > 0", arg=[plot.element_handle(), before],
                           timeout=STEP_S * 1000)  # the plot was redrawn
    expect(wb.locator(".wb-errors")).to_have_text("")
    wait_idle()
    shot.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(shot), full_page=True)


def test_workbench_in_jupyterlab(browser, tmp_path):
    work, env = _stage(tmp_path)
    port, token = _free_port(), "wbtest" + str(os.getpid())
    log = tmp_path / "lab.log"
    proc = _start([sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
                   f"--port={port}", f"--IdentityProvider.token={token}",
                   f"--ServerApp.root_dir={work}", "--allow-root",
                   "--LabApp.extension_manager=readonly", "--LabApp.news_url=None",
                   "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                   f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
                   f"--LabApp.user_settings_dir={tmp_path / 'settings'}",
                   "--expose-app-in-browser"], work, env, log)
    base = f"http://127.0.0.1:{port}"
    page = None
    try:
        _wait_http(f"{base}/api/status?token={token}", proc, log)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{base}/lab/tree/{TOUR.name}?token={token}")

        def idle():
            page.wait_for_function(
                "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                " const k = w && w.sessionContext && w.sessionContext.session"
                " && w.sessionContext.session.kernel; return k && k.status === 'idle'; }",
                timeout=LOAD_S * 1000)

        idle()
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        drive_workbench(page, ARTIFACTS / "jupyterlab_tour.png", idle)
        assert not [e for e in errors if "wb" in e or "anywidget" in e.lower()], errors
    finally:
        if page is not None:
            page.close()
        try:
            urllib.request.urlopen(urllib.request.Request(
                f"{base}/api/shutdown?token={token}", method="POST"), timeout=5)
            proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        _stop(proc)


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
