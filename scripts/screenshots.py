"""Screenshots of the widget for the manual (``docs/widget.md``, ``docs/images/``): JupyterLab
on the tour, started as the browser tests start it (``tests/test_browser.py``'s ``Lab``),
driven in Debian's chromium at 1440 x 900 through the tour's derivation, one shot per view
``SHOTS`` names, each written as a small PNG (a palette of 256 colours; under ``MAX_BYTES``).

    python scripts/screenshots.py                 # docs/images/widget_*.png
    python scripts/screenshots.py --out /tmp/shots

Needs what the browser tests need: ``/usr/bin/chromium``, graphviz's ``dot`` and the ``lab``
and ``ui-test`` extras.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
WIDTH, HEIGHT = 1440, 900
MAX_BYTES = 150_000

# file name -> what it shows (the caption docs/widget.md gives it)
SHOTS = {
    "widget_side_by_side.png": "The tree and the OpenCL side by side: the pointer on "
                               "`split 1024` lights the lines holding the index expressions "
                               "it produces.",
    "widget_rules.png": "The rules that apply at a node, each with its equation (a long one "
                        "clipped inside the column, whole on hover), its parameters and a "
                        "preview.",
    "widget_diff.png": "The kernel's difference from the step before, side by side, the "
                       "temporaries renamed canonically.",
    "widget_runs.png": "Every step's time beside the interpreter's, on a log axis (N = "
                       "1048576; drag or wheel to zoom).",
    "widget_rates.png": "Each step checked and timed, with its effective GB/s and GFLOP/s "
                        "beside the device's measured copy and peak ceilings.",
    "widget_roofline.png": "The measured steps on the device's roofline "
                           "(`wb.runs.roofline()`).",
}

# the tour's derivation, as the notebook applies it: (node, rule, parameters)
STEPS = [("root", "split-join", {"n": "1024"}), ("1", "map→mapWorkgroup", {"dim": "0"}),
         ("1.0", "vectorize", {"n": "4"}), ("1.0.1", "map→mapLocal", {"dim": "0"})]
RUN_SIZE = 1048576  # N of the runs shown
ROOFLINE_CELL = "wb.runs.roofline()  # the steps measured above, on the device's roofline"


def small_png(png: bytes) -> bytes:
    """The screenshot as a PNG of 256 colours, scaled down where it is still too large."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    while True:
        out = io.BytesIO()
        image.quantize(256, method=Image.Quantize.MEDIANCUT).save(out, "PNG", optimize=True)
        if out.tell() < MAX_BYTES or image.width < 600:
            return out.getvalue()
        image = image.resize((image.width * 4 // 5, image.height * 4 // 5), Image.LANCZOS)


class Tour:
    """The tour's widget in a page, and the actions a reader takes on it."""

    def __init__(self, page, idle, out: Path):
        from tests.test_browser import STEP_S

        self.page, self.idle, self.out = page, idle, out
        self.wb = page.locator(".wb-workbench").first
        self.timeout = STEP_S * 1000

    def shoot(self, name: str, locator=None) -> None:
        assert name in SHOTS, name
        self.idle()
        time.sleep(0.5)  # the last redraw after the kernel went idle
        png = locator.screenshot() if locator is not None else self.page.screenshot()
        (self.out / name).write_bytes(small_png(png))
        print(f"{name}: {(self.out / name).stat().st_size // 1000} kB")

    def select(self, path: str) -> None:
        from playwright.sync_api import expect

        from tests.test_browser import _node

        _node(self.page, path).click()
        expect(self.wb.locator(".wb-selected-text")).to_contain_text(
            f"selected {path}", timeout=self.timeout)

    def choose(self, rule: str, params: dict) -> None:
        """The rule chosen in the rules column (its option starts with its name)."""
        from playwright.sync_api import expect

        select = self.wb.locator(".wb-rule-select select")
        labels = select.evaluate("el => Array.from(el.options).map(o => o.text)")
        select.select_option(index=next(i for i, t in enumerate(labels)
                                        if t.split()[0] == rule))
        for name, value in params.items():
            self.wb.locator(f".wb-param-{name} select").select_option(label=value)
        expect(self.wb.locator(".wb-preview-result")).not_to_be_empty(timeout=self.timeout)

    def apply(self, step: int) -> None:
        from playwright.sync_api import expect

        path, rule, params = STEPS[step - 1]
        self.select(path)
        self.choose(rule, params)
        self.wb.locator("button.wb-apply").click()
        expect(self.wb.locator(".wb-code")).to_contain_text(f"OpenCL of step {step}",
                                                            timeout=self.timeout)
        self.idle()

    def side_by_side(self) -> None:
        from playwright.sync_api import expect

        from tests.test_browser import _node

        self.wb.locator(".wb-tree").evaluate("el => el.scrollIntoView({block: 'start'})")
        _node(self.page, "2").hover()  # split 1024
        expect(self.wb.locator(".wb-opencl .wb-line-hover").first).to_contain_text(
            "1024*", timeout=self.timeout)
        self.shoot("widget_side_by_side.png")

    def rules(self) -> None:
        """The rules at the vectorised map's element, the one of the longest equation
        chosen."""
        self.select("1.0.1")
        select = self.wb.locator(".wb-rule-select select")
        labels = select.evaluate("el => Array.from(el.options).map(o => o.text)")
        select.select_option(index=max(range(len(labels)), key=lambda i: len(labels[i])))
        self.shoot("widget_rules.png", self.wb.locator(".wb-section-tree"))

    def diff(self) -> None:
        from playwright.sync_api import expect

        self.idle()
        diff = self.wb.locator("details.wb-diff").first
        expect(diff).to_be_attached(timeout=self.timeout)
        diff.locator("summary").click()
        expect(diff.locator(".wb-diff-lines")).to_be_visible(timeout=self.timeout)
        self.shoot("widget_diff.png", diff)

    def runs(self) -> None:
        """Every step run at a size where the kernels' times stand above the launch's."""
        from playwright.sync_api import expect

        panel = self.wb.locator(".wb-run-panel")
        size = panel.locator(".wb-size input").first
        size.fill(str(RUN_SIZE))
        size.press("Enter")
        # the last step's work-items take a float4 each
        expect(self.wb.locator(".wb-code")).to_contain_text(f"global ({RUN_SIZE // 4},)",
                                                            timeout=self.timeout)
        self.idle()
        panel.locator("button", has_text="run all steps").click()
        last = STEPS[-1][1]
        expect(self.wb.locator(".wb-run-table")).to_contain_text(
            f"({len(STEPS)}) {last}", timeout=10 * self.timeout)
        expect(self.wb.locator(".wb-run-status")).to_contain_text("ready",
                                                                  timeout=10 * self.timeout)
        chart = self.wb.locator(".wb-run-chart")
        chart.scroll_into_view_if_needed()
        self.shoot("widget_runs.png", chart)
        table = self.wb.locator(".wb-run-table")
        table.scroll_into_view_if_needed()
        self.shoot("widget_rates.png", table)

    def roofline(self) -> None:
        """The notebook's last cell (the roofline) run again now that the steps are
        measured."""
        from playwright.sync_api import expect

        self.page.evaluate("() => { const nb = window.jupyterapp.shell.currentWidget.content;"
                           " nb.activeCellIndex = nb.widgets.length - 1; }")
        self.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
        self.idle()
        output = self.page.locator(".jp-Notebook .jp-CodeCell").last.locator(
            ".jp-OutputArea-output img")
        expect(output.first).to_be_visible(timeout=self.timeout)
        self.shoot("widget_roofline.png", output.first)


def stage_roofline_cell(notebook: Path) -> None:
    """The staged tour with a last cell that draws the roofline of the widget's runs."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(ROOFLINE_CELL))
    nbformat.write(nb, notebook)


def take(out: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    from tests.test_browser import CHROMIUM, CHROMIUM_ARGS, LOAD_S, TOUR, Lab, _missing

    missing = _missing()
    if missing:
        sys.exit(f"screenshots need a browser: {missing}")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        lab = Lab(Path(tmp))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            stage_roofline_cell(lab.work / TOUR.name)
            page, idle = lab.open(browser, TOUR.name, width=WIDTH, height=HEIGHT)
            # the file browser closed: the notebook takes the page's width
            page.evaluate("() => window.jupyterapp.commands.execute("
                          "'application:toggle-left-area')")
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            tour = Tour(page, idle, out)
            expect(tour.wb.locator(".wb-code")).to_contain_text("kernel void",
                                                                timeout=LOAD_S * 1000)
            tour.apply(1)
            tour.side_by_side()
            tour.apply(2)
            tour.diff()
            tour.apply(3)
            tour.apply(4)
            tour.rules()
            tour.runs()
            tour.roofline()
        finally:
            browser.close()
            lab.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=IMAGES, help="folder of the PNGs")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))  # tests.test_browser starts JupyterLab as the tests do
    take(args.out)


if __name__ == "__main__":
    main()
