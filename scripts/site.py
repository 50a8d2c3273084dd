"""The documentation site: the README as its home page, the manual (``docs/``) and every
notebook with its outputs and figures, built with MkDocs (and mkdocs-jupyter for the
notebooks) into ``site/``, so a reader sees what each notebook computes without running it.

    python scripts/site.py                       # site/ from the committed notebooks
    python scripts/site.py --executed build/executed --out site

The notebooks are committed without outputs; ``scripts/test`` keeps the copies the tests
execute in ``build/executed/`` (``WORKBENCH_EXECUTED_NOTEBOOKS``), and the site shows those
where they exist (CI builds it after the tests). Links between the README, the manual and
the notebooks are rewritten to the site's pages.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _links(text: str, to_root: str) -> str:
    """Links of a page written for the repository, rewritten for the site: the manual's
    pages beside each other, the README as the home page, notebooks under notebooks/, other
    files of the repository left as text."""
    text = re.sub(r"\]\((?:\.\./)?docs/([\w.-]+\.md)", r"](\1", text)
    text = re.sub(r"\]\((?:\.\./)?README\.md", "](index.md", text)
    text = re.sub(r"\]\((?:\.\./)?notebooks/([\w.-]+\.ipynb)", r"](notebooks/\1", text)
    return text


def stage(source: Path, executed: Path | None) -> tuple[list[str], list[str]]:
    """The site's pages written into ``source`` (the MkDocs docs folder): the manual's
    page names and the notebooks' names."""
    if source.exists():
        shutil.rmtree(source)
    (source / "notebooks").mkdir(parents=True)
    (source / "index.md").write_text(_links((ROOT / "README.md").read_text(), ""))
    if (ROOT / "docs" / "images").is_dir():  # the manual's screenshots, beside its pages
        shutil.copytree(ROOT / "docs" / "images", source / "images")
    pages = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        (source / page.name).write_text(_links(page.read_text(), ".."))
        pages.append(page.name)
    notebooks = []
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        done = executed / nb.name if executed is not None else None
        shutil.copy(done if done is not None and done.exists() else nb,
                    source / "notebooks" / nb.name)
        notebooks.append(nb.name)
    return pages, notebooks


def _title(path: Path) -> str:
    first = next((line for line in path.read_text().splitlines() if line.startswith("# ")), "")
    return first[2:].strip() or path.stem


def config(source: Path, pages: list[str], notebooks: list[str]) -> str:
    """mkdocs.yml for the staged pages: home, the manual, the notebooks."""
    manual = "\n".join(f"      - {json.dumps(_title(source / p))}: {p}" for p in pages)
    books = "\n".join(f"      - {json.dumps(Path(n).stem)}: notebooks/{n}" for n in notebooks)
    return f"""site_name: rewrite-workbench
docs_dir: {source}
theme: readthedocs
nav:
  - Home: index.md
  - Manual:
{manual}
  - Notebooks:
{books}
plugins:
  - search
  - mkdocs-jupyter:
      execute: false
      include_source: true
"""


def build(out: Path, executed: Path | None, work: Path) -> Path:
    """Build the site into ``out``; ``work`` holds the staged pages and the configuration."""
    source = work / "pages"
    pages, notebooks = stage(source, executed)
    yml = work / "mkdocs.yml"
    yml.write_text(config(source, pages, notebooks))
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(yml),
                           "-d", str(out.resolve())], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"mkdocs failed:\n{done.stderr[-4000:]}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "site"), help="the site's folder")
    ap.add_argument("--executed", default=str(ROOT / "build" / "executed"),
                    help="executed copies of the notebooks, where the tests left them")
    args = ap.parse_args(argv)
    executed = Path(args.executed)
    out = build(Path(args.out), executed if executed.is_dir() else None,
                ROOT / "build" / "site-src")
    shown = sum(1 for n in (ROOT / "notebooks").glob("*.ipynb") if (executed / n.name).exists())
    print(f"site: {out}/index.html ({shown} notebooks shown with their outputs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
