"""The generated parts of the README and of ``docs/``: ``python scripts/write_docs.py`` writes
the README's map of the folders and packages and ``docs/map.md``'s of every module (from
the tree), the catalogue of ``docs/catalogue.md``
(``workbench.catalogue``) and the table of Lift's surface of ``docs/lift_surface.md``
(``workbench.notation.lift_surface``), each between its two marker comments; ``--check``
only says which of them is not what the code gives.

The map walks the tree, so a module added, moved or removed shows in it without a list to
keep. Every package and module of ``workbench/``, ``widgets/`` and ``benchmarks/`` (and of
their subpackages, recursively) is one line: its docstring's summary (``summary``). A folder
inside a package that is no package (data: saved derivations, programs, results) says which
kinds of files it holds. The notebooks give their first Markdown heading, the pages of
``docs/`` theirs (as links), the scripts their docstring or the comment below their ``#!``
line; ``tests/`` is one line (its package's docstring) and ``binder/`` names its files.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "python scripts/write_docs.py"
MAP = ("docs/map.md", f"<!-- the map: `{COMMAND}` writes it from the docstrings; edit those -->",
       "<!-- end of the map -->")
FOLDERS = ("README.md", f"<!-- the folders: `{COMMAND}` writes them from the docstrings; "
           "edit those -->", "<!-- end of the folders -->")
CATALOGUE = ("docs/catalogue.md",
             f"<!-- the catalogue: `{COMMAND}` writes it from the declarations; edit those -->",
             "<!-- end of the catalogue -->")
LIFT_SURFACE = ("docs/lift_surface.md",
                f"<!-- the table: `{COMMAND}` writes it from workbench/notation/lift_surface.py; "
                f"edit that -->", "<!-- end of the table -->")
PACKAGES = ("workbench", "widgets", "benchmarks")
SKIPPED = ("__pycache__",)


LIMIT = 160  # characters of a summary before it is shortened


def summary(doc: str) -> str:
    """A docstring's summary, as Markdown (``x`` written `x`): the first sentence of its first
    paragraph; past ``LIMIT`` characters only up to its first colon or semicolon outside
    brackets and code, and then still too long, without what it says in brackets."""
    text = " ".join(doc.strip().split("\n\n", 1)[0].split())
    text = text[:_first(text, _sentence_ends)].rstrip()
    if len(text) > LIMIT:
        text = text[:_first(text, _clause_ends)].rstrip()
    if len(text) > LIMIT:
        text = _without_brackets(text)
    return text.rstrip(" ,:—-").replace("``", "`")


def _top_level(text: str):
    """(index, character, bracket depth, inside code) for every character."""
    depth, code, i = 0, False, 0
    while i < len(text):
        c = text[i]
        if c == "`":
            width = 2 if text.startswith("``", i) else 1
            for j in range(i, i + width):
                yield j, c, depth, True
            code = not code
            i += width
            continue
        if not code and c in "([{":
            depth += 1
        yield i, c, depth, code
        if not code and c in ")]}":
            depth = max(depth - 1, 0)
        i += 1


def _first(text: str, ends) -> int:
    return next((i for i, _, depth, code in _top_level(text)
                 if depth == 0 and not code and ends(text, i)), len(text))


def _clause_ends(text: str, i: int) -> bool:
    return text[i] in ":;" and text[i + 1:i + 2] in ("", " ")


def _without_brackets(text: str) -> str:
    inside = {i for i, _, depth, _ in _top_level(text) if depth > 0}
    kept = "".join(c for i, c in enumerate(text) if i not in inside)
    return " ".join(kept.replace(" ,", ",").split())


def _sentence_ends(text: str, i: int) -> bool:
    if text[i] != ".":
        return False
    rest = text[i + 1:]
    return rest == "" or (rest.startswith(" ") and rest[1:2].isupper())


def docstring(path: Path) -> str | None:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))


def _script_comment(path: Path) -> str | None:
    """The comment block below a script's ``#!`` line, as one text."""
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    comment = []
    for line in lines:
        if not line.startswith("#"):
            break
        comment.append(line.lstrip("#").strip())
    return " ".join(comment) or None


def _heading(text: str) -> str | None:
    for line in text.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return None


def notebook_heading(path: Path) -> str | None:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] == "markdown":
            heading = _heading("".join(cell["source"]))
            if heading:
                return heading
    return None


def _entries(folder: Path) -> list[Path]:
    return sorted((p for p in folder.iterdir()
                   if not p.name.startswith(".") and p.name not in SKIPPED),
                  key=lambda p: p.name.lower())


def _line(depth: int, name: str, text: str | None, link: str | None = None) -> str:
    entry = f"[`{name}`]({link})" if link else f"`{name}`"
    return "  " * depth + f"- {entry}" + (f" — {text}" if text else "")


def _kinds(folder: Path) -> str:
    """What a data folder holds: its kinds of files and its folders."""
    files = sorted({f"`*{p.suffix}`" if p.suffix else f"`{p.name}`"
                    for p in folder.iterdir() if p.is_file()})
    folders = [f"`{p.name}/`" for p in _entries(folder) if p.is_dir()]
    return "data: " + ", ".join(files + folders)


def package_lines(folder: Path, depth: int = 0, modules: bool = True) -> list[str]:
    """A package's line, then one per module (``modules``) and subpackage inside it,
    recursively."""
    init = folder / "__init__.py"
    if not init.exists() and not any(folder.glob("*.py")):
        return [_line(depth, folder.name + "/", _kinds(folder))]
    lines = [_line(depth, folder.name + "/", summary(docstring(init) or "") if init.exists()
                   else "modules without a package")]
    for path in _entries(folder):
        if path.is_dir():
            lines += package_lines(path, depth + 1, modules)
        elif modules and path.suffix == ".py" and path.name != "__init__.py":
            lines.append(_line(depth + 1, path.name, summary(docstring(path) or "")))
    return lines


def _folder_of(folder: Path, describe, pattern: str) -> list[str]:
    return [_line(1, p.name, describe(p)) for p in _entries(folder)
            if p.is_file() and p.match(pattern)]


def _script(path: Path) -> str | None:
    if path.suffix == ".py":
        return summary(docstring(path) or "")
    comment = _script_comment(path)
    return summary(comment) if comment else None


def generate(root: Path = ROOT, modules: bool = True, links: str = "docs/") -> str:
    """The map: one Markdown list item per folder, package, module (``modules``), notebook
    and script; the manual's pages linked from where the map stands (``links``)."""
    lines = []
    for name in PACKAGES:
        lines += package_lines(root / name, modules=modules)
    lines.append(_line(0, "notebooks/", "the tutorials, each run by the tests"))
    lines += _folder_of(root / "notebooks", notebook_heading, "*.ipynb")
    lines.append(_line(0, "docs/", "the manual, one page per topic"))
    lines += [_line(1, p.name, _heading(p.read_text(encoding="utf-8")), f"{links}{p.name}")
              for p in _entries(root / "docs") if p.suffix == ".md"]
    lines.append(_line(0, "scripts/", "the two commands, and the tools they use"))
    lines += _folder_of(root / "scripts", _script, "*")
    lines.append(_line(0, "tests/", summary(docstring(root / "tests" / "__init__.py") or "")))
    binder = ", ".join(f"`{p.name}`" for p in _entries(root / "binder"))
    lines.append(_line(0, "binder/", f"what Binder (repo2docker) runs notebooks with: {binder}"))
    return "\n".join(lines) + "\n"


def undocumented(root: Path = ROOT) -> list[str]:
    """What the map cannot describe: modules without a docstring, notebooks without a
    heading, scripts without a header comment."""
    missing = [p.relative_to(root).as_posix()
               for name in PACKAGES for p in sorted((root / name).rglob("*.py"))
               if "__pycache__" not in p.parts and not docstring(p)]
    missing += [p.relative_to(root).as_posix() for p in sorted((root / "notebooks").glob("*.ipynb"))
                if not notebook_heading(p)]
    missing += [p.relative_to(root).as_posix() for p in _entries(root / "scripts")
                if p.is_file() and not _script(p)]
    if not docstring(root / "tests" / "__init__.py"):
        missing.append("tests/__init__.py")
    return missing


def catalogue(root: Path = ROOT) -> str:
    """The catalogue's tables, as ``python -m workbench.catalogue`` prints them."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from workbench.catalogue import markdown

    return markdown()


def lift_surface(root: Path = ROOT) -> str:
    """The table of Lift's surface, as ``python -m workbench.notation.lift_surface`` prints
    it."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from workbench.notation.lift_surface import markdown

    return markdown()


def parts(root: Path = ROOT) -> list[tuple[tuple[str, str, str], str]]:
    """Each generated part ((file, begin marker, end marker), text) as the code gives it."""
    return [(FOLDERS, generate(root, modules=False)), (MAP, generate(root, links="")),
            (CATALOGUE, catalogue(root)),
            (LIFT_SURFACE, lift_surface(root))]


def current(text: str, begin: str, end: str) -> str:
    """What a file holds now between two markers."""
    return text[text.index(begin) + len(begin) + 1:text.index(end)]


def written(text: str, begin: str, end: str, part: str) -> str:
    """The text with what stands between two markers replaced by ``part``."""
    return text[:text.index(begin) + len(begin) + 1] + part + text[text.index(end):]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="say which generated part is out of date; write nothing")
    args = parser.parse_args(argv)
    stale = []
    for (name, begin, end), part in parts():
        path = ROOT / name
        text = path.read_text(encoding="utf-8")
        if current(text, begin, end) == part:
            continue
        stale.append(name)
        if not args.check:
            path.write_text(written(text, begin, end, part), encoding="utf-8")
    if args.check and stale:
        print(f"not what the code gives: {', '.join(stale)}; run {COMMAND}", file=sys.stderr)
        return 1
    for name in stale if not args.check else []:
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
