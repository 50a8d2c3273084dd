"""What a step changes in the OpenCL: the code of two steps compared after renaming their
temporaries canonically and leaving out comments, so the difference shows what the step
changed rather than the counters of the generator's names (``i2`` becoming ``i3``) and the
comments that print each step's expression.

``canonical_lines`` is the renaming, ``side_by_side`` the aligned rows the widget shows in two
columns, ``change_text`` the sentence a notebook says about a step (computed, never written
by hand).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

# A name the generator numbers: a declared local variable, loop index, private or local
# array, parameter or function (``gl1``, ``i2``, ``acc3``, ``tmp4``, ``in0``, ``asum_f6``);
# a struct's fields (``_0``) keep their names. Found from their
# declarations, so OpenCL's own numbered names (``float4``, ``vload4``) are never touched.
_SCALAR = r"(?:bool|char|uchar|short|ushort|int|uint|long|ulong|half|float|double|size_t)"
_DECLARED = re.compile(rf"\b(?:const\s+)?{_SCALAR}(?:2|3|4|8|16)?\s*\*?\s*(?:restrict\s+)?"
                       r"([A-Za-z]\w*)\s*(?=[=;,\[)(])")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"//[^\n]*")


def _without_comments(source: str) -> list[str]:
    text = _LINE_COMMENT.sub("", _BLOCK_COMMENT.sub("", source))
    return [line.rstrip() for line in text.split("\n") if line.strip()]


def canonical_lines(source: str) -> list[str]:
    """``source`` without comments and blank lines, each declared name that the generator
    numbered renamed to its stem (the name without its trailing counter) and the order in
    which that stem is declared:
    ``gl1``, ``i2``, ``i5`` become ``gl0``, ``i0``, ``i1``. Two kernels that differ only in
    those counters and in comments give the same lines."""
    lines = _without_comments(source)
    names: dict[str, str] = {}
    counts: dict[str, int] = {}
    for line in lines:
        for name in _DECLARED.findall(line):
            if name in names:
                continue
            stem = name.rstrip("0123456789_") or name
            if stem == name:  # not numbered (``out``): kept
                continue
            names[name] = f"{stem}{counts.get(stem, 0)}"
            counts[stem] = counts.get(stem, 0) + 1
    return [_IDENT.sub(lambda m: names.get(m.group(0), m.group(0)), line) for line in lines]


@dataclass(frozen=True)
class Row:
    """One row of a side-by-side difference: the line before and after (None where a line
    was only removed or only added), and the kind: "same", "changed", "removed", "added";
    "skip" rows stand for a run of unchanged lines left out (``before`` says how many)."""

    kind: str
    before: str | None
    after: str | None


@dataclass(frozen=True)
class Change:
    """What one step changes in the canonical code: rows for two columns and the counts."""

    rows: list[Row]
    changed: int  # lines on both sides that differ
    removed: int  # lines only before
    added: int  # lines only after

    @property
    def same(self) -> bool:
        return not (self.changed or self.removed or self.added)


def side_by_side(before: str, after: str, context: int = 2) -> Change:
    """The canonical lines of two kernels aligned in rows, with ``context`` unchanged lines
    around each change and the other unchanged runs shown as one "skip" row."""
    a, b = canonical_lines(before), canonical_lines(after)
    rows: list[Row] = []
    changed = removed = added = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            n = i2 - i1
            if n > 2 * context + 1:
                head = [] if not rows else list(range(i1, i1 + context))
                tail = [] if i2 == len(a) and j2 == len(b) else list(range(i2 - context, i2))
                rows += [Row("same", a[i], b[j1 + i - i1]) for i in head]
                rows.append(Row("skip", str(n - len(head) - len(tail)), None))
                rows += [Row("same", a[i], b[j1 + i - i1]) for i in tail]
            else:
                rows += [Row("same", a[i], b[j1 + i - i1]) for i in range(i1, i2)]
            continue
        pairs = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        changed += pairs
        rows += [Row("changed", a[i1 + k], b[j1 + k]) for k in range(pairs)]
        rows += [Row("removed", line, None) for line in a[i1 + pairs:i2]]
        rows += [Row("added", None, line) for line in b[j1 + pairs:j2]]
        removed += i2 - i1 - pairs
        added += j2 - j1 - pairs
    if rows and rows[-1].kind == "skip" and len(rows) == 1:
        rows = []  # nothing changed: no rows at all
    return Change(rows, changed, removed, added)


def change_text(before: str, after: str, step: int, rule: str) -> str:
    """The sentence about what step ``step`` (rule ``rule``) changes in the OpenCL, computed
    from the code of the step before and of the step itself."""
    change = side_by_side(before, after)
    if change.same:
        return (f"Step {step} ({rule}) leaves the OpenCL as it was at step {step - 1}, apart "
                "from names and comments: the code generator already produced this code "
                "from the step before.")
    parts = [f"{n} line{'s' if n != 1 else ''} {what}" for n, what in
             ((change.changed, "changed"), (change.removed, "removed"),
              (change.added, "added")) if n]
    kernels = [s.count("kernel void") for s in (before, after)]
    more = (f"; the program has {kernels[1]} kernel{'s' if kernels[1] != 1 else ''} instead "
            f"of {kernels[0]}" if kernels[0] != kernels[1] else "")
    loops = [[line.strip() for line in canonical_lines(s) if line.strip().startswith("for (")]
             for s in (before, after)]
    if loops[0] and loops[0] == loops[1]:
        more += (f". Its loops are those of step {step - 1} (the code generator had already "
                 "produced them from the step before): what changes is inside them or in the "
                 "functions they call")
    return (f"Step {step} ({rule}) changes the OpenCL of step {step - 1}: "
            f"{', '.join(parts)} (temporaries renamed canonically, comments left out){more}.")
