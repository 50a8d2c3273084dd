"""The documentation site (scripts/site.py): the README, every page of the manual and every
notebook, the notebooks with the outputs and figures of their executed copies."""

import base64
import importlib.util
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
pytest.importorskip("mkdocs", reason="the site needs the docs extra")
pytest.importorskip("mkdocs_jupyter", reason="the site needs the docs extra")


def _site_module():
    spec = importlib.util.spec_from_file_location("site_builder", ROOT / "scripts" / "site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# a 1x1 PNG, as a figure's output
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8ffff3f0005fe02fea7d6a4b60000000049454e44ae426082")).decode()


@pytest.mark.slow
def test_the_site_shows_the_manual_and_each_notebook_with_its_outputs(tmp_path):
    site = _site_module()
    executed = tmp_path / "executed"
    executed.mkdir()
    nb = json.loads((ROOT / "notebooks" / "kernel_extraction.ipynb").read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    cell["outputs"] = [{"output_type": "stream", "name": "stdout",
                        "text": ["printed when the tests ran it\n"]},
                       {"output_type": "display_data", "metadata": {},
                        "data": {"image/png": PNG, "text/plain": ["<Figure>"]}}]
    (executed / "kernel_extraction.ipynb").write_text(json.dumps(nb))
    out = site.build(tmp_path / "site", executed, tmp_path / "work")
    home = (out / "index.html").read_text()
    assert "rewrite-workbench" in home and 'href="install/' in home  # links to the manual
    for page in (ROOT / "docs").glob("*.md"):
        assert (out / page.stem / "index.html").exists(), page.name
    for image in (ROOT / "docs" / "images").glob("*.png"):  # the manual's screenshots
        assert (out / "images" / image.name).exists(), image.name
    assert 'src="../images/widget_diff.png"' in (out / "widget" / "index.html").read_text()
    for book in (ROOT / "notebooks").glob("*.ipynb"):
        assert (out / "notebooks" / book.stem / "index.html").exists(), book.name
    shown = (out / "notebooks" / "kernel_extraction" / "index.html").read_text()
    assert "printed when the tests ran it" in shown and "data:image/png;base64" in shown
    shutil.rmtree(tmp_path / "work")
