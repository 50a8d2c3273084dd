"""The manual's screenshots of the widget (``scripts/screenshots.py``, ``docs/images/``):
the images in the repository are the script's list, each small and shown by the manual's
widget page with its caption, and the documentation site carries them. The script itself
drives chromium (as ``tests/test_browser.py`` does) and is run by hand after a change of the
widget."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).parent.parent
IMAGES = ROOT / "docs" / "images"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_script",
                                                  ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SHOTS = _module("screenshots")


def test_the_images_in_the_manual_are_the_scripts_shots():
    assert {p.name for p in IMAGES.glob("widget_*.png")} == set(SHOTS.SHOTS)


def test_each_shot_is_a_small_png_of_the_page_at_most_1440_wide():
    from PIL import Image

    for name in SHOTS.SHOTS:
        path = IMAGES / name
        assert path.stat().st_size < SHOTS.MAX_BYTES, name
        with Image.open(path) as image:
            assert image.format == "PNG" and 100 <= image.width <= SHOTS.WIDTH, name


def test_the_widget_page_shows_each_shot_with_its_caption():
    page = (ROOT / "docs" / "widget.md").read_text()
    for name, caption in SHOTS.SHOTS.items():
        assert f"(images/{name})" in page and f"*{caption}*" in page, name


def test_the_site_carries_the_images_beside_the_pages(tmp_path):
    site = _module("site")
    site.stage(tmp_path / "source", None)
    for name in SHOTS.SHOTS:
        assert (tmp_path / "source" / "images" / name).exists(), name
    assert "(images/widget_diff.png)" in (tmp_path / "source" / "widget.md").read_text()


def test_small_png_keeps_a_shot_under_the_limit():
    """A noisy 1440 x 900 page (no palette of 256 colours holds it compactly) is scaled
    down until it fits."""
    import io

    import numpy as np
    from PIL import Image

    pixels = np.random.default_rng(0).integers(0, 256, (900, 1440, 3), dtype=np.uint8)
    raw = io.BytesIO()
    Image.fromarray(pixels).save(raw, "PNG")
    small = SHOTS.small_png(raw.getvalue())
    assert len(small) < SHOTS.MAX_BYTES or Image.open(io.BytesIO(small)).width < 600
    assert Image.open(io.BytesIO(small)).mode == "P"
