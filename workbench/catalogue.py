"""The catalogue of primitives and rules as Markdown tables (``docs/catalogue.md``):
``python -m workbench.catalogue`` prints them."""

from __future__ import annotations

from .primitives import PRIMITIVES
from .rules import rules

_KINDS = [("algorithmic", "High-level (algorithmic) primitives: rewritten away before code "
                          "is generated, or views"),
          ("opencl", "Low-level (OpenCL) primitives"), ("scalar", "Scalar functions")]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def primitives_table() -> str:
    out = []
    for kind, title in _KINDS:
        out += [f"**{title}**", "", "| primitive | type | from | spellings |", "|---|---|---|---|"]
        for p in sorted((p for p in PRIMITIVES.values() if p.category == kind),
                        key=lambda p: p.name.lower()):
            spellings = ", ".join(f"`{a}`" for a in p.aliases)
            out.append(f"| `{p.name}` | `{_cell(p.scheme)}` | {p.figure} | {spellings} |")
        out.append("")
    return "\n".join(out)


def rules_table() -> str:
    out = ["| rule | equation | kind | from |", "|---|---|---|---|"]
    for r in rules:
        out.append(f"| `{_cell(r.name)}` | `{_cell(r.equation)}` | {r.category} | {r.figure} |")
    return "\n".join(out) + "\n"


def markdown() -> str:
    return "### Primitives\n\n" + primitives_table() + "\n### Rules\n\n" + rules_table()


if __name__ == "__main__":
    print(markdown())
