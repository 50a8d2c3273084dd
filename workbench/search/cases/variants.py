"""A program of the exploration (``Variant``) and what its phases chose for it (``Choices``,
typed): its description, the label its records and logs store, is derived from the choices;
``facts`` names them for the options ``keep`` and ``drop`` (``holds``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import WorkbenchError
from ...expr import Expr
from ...rewriting.step import Step

MACROS = ("1d-blocking", "2d-blocking", "tiling", "innermost-tiling")
PARAMS = {"1d-blocking": ("k",), "2d-blocking": ("k", "l"), "tiling": ("m", "n"),
          "innermost-tiling": ("s",)}
# The mappings of phase 2: the paper's fixed mapping; one work-item per group (the maps below
# the groups sequential); and that one with the two group dimensions exchanged (the outer map
# on dimension 0: consecutive groups walk down it, sharing the inner map's operand).
GROUPS_AND_ITEMS = "work-groups and work-items"
ONE_PER_GROUP = "one work-item per group"
ONE_PER_GROUP_DOWN = "one work-item per group, consecutive groups down the outer map"
MAPPINGS = (GROUPS_AND_ITEMS, ONE_PER_GROUP, ONE_PER_GROUP_DOWN)

# The layouts of a tile copied into local memory (the rule local-copy's t): as it is,
# transposed, each row transposed, and both (its work-items' parts interleaved, so that
# neighbouring work-items read neighbouring words of local memory).
LAYOUTS = (0, 1, 2, 3)
LAYOUT_NAMES = ("as it is", "transposed", "each row transposed", "interleaved",
                "interleaved by vectors", "as it is, copied along the rows of memory",
                "interleaved by vectors, copied as vectors")
# with operands read as vectors: also interleaved by vectors (each work-item's part cut into
# vectors, neighbouring work-items' vectors side by side), which only vectors make useful,
# and as it is but walked with each row transposed (the copy reads neighbouring words of
# global memory and writes them where the vectors want them), and interleaved by vectors
# copied a vector at a time (one float4 load from global memory and one store into local
# memory each, where the others copy word by word)
VECTOR_LAYOUTS = (*LAYOUTS, 4, 5, 6)
OPERANDS = "AB"  # the names of a reduction's element's two tiles (local-copy's k)

VECTOR_WIDTH = 4  # float4: the widest load of a GPU's work-item that costs one instruction
# a CPU's work-item (one per group) updates each row of its register block as vectors of these
# widths (AVX2 and AVX-512 registers of floats): on PoCL (Zen 4) 1024³ took 10.2 ms so, 12.0
# ms with scalar rows that the compiler vectorises itself
ROW_WIDTHS = (8, 16)

# the words a program prefetched adds to its description
PREFETCHED = "; next tiles prefetched into registers, steps unrolled"


@dataclass(frozen=True)
class Choices:
    """What phases 1 and 2 chose for a program."""

    macros: tuple[str, ...] = ()  # phase 1's macro rules, in the order applied
    mapping: str | None = None  # one of ``MAPPINGS``
    unrolled: bool = False  # register blocks (maps in a reduction's operator) unrolled
    accumulator: str | None = None  # a work-group's reduction's: "private" or "local"
    tiles: tuple[tuple[int, int], ...] = ()  # (operand, layout) copied into local memory
    rows: int = 0  # a register block's rows computed as vectors of this width
    vectors: tuple[str, ...] = ()  # operands read into private memory as vectors
    prefetched: bool = False  # the next tiles copied a step ahead, the steps unrolled
    packed: tuple[int, int] | None = None  # (input array, each element transposed)

    @property
    def label(self) -> str:
        """The description records and logs store (``"2d-blocking → tiling; work-groups and
        work-items; register blocks unrolled; private accumulator, A tile in local memory"``)."""
        parts = [" → ".join(self.macros) or "start"]
        if self.mapping is not None:
            parts.append(self.mapping)
            if self.unrolled:
                parts.append("register blocks unrolled")
        if self.accumulator is not None:
            parts.append(f"{self.accumulator} accumulator" + "".join(
                f", {OPERANDS[k]} tile in local memory" + _layout_words(t) for k, t in self.tiles))
        if self.rows:
            parts.append(f"rows computed as vectors of {self.rows}")
        if self.vectors:
            parts.append(f"{' and '.join(self.vectors)} read as vectors of {VECTOR_WIDTH}")
        label = "; ".join(parts) + (PREFETCHED if self.prefetched else "")
        if self.packed is not None:
            k, transposed = self.packed
            label += f"; input array {k} packed in global memory" + \
                (" (each element transposed)" if transposed else "")
        return label

    def facts(self) -> dict[str, object]:
        """The choices by the names the options ``keep`` and ``drop`` use."""
        layout = {OPERANDS[k]: LAYOUT_NAMES[t] for k, t in self.tiles}
        return {"macros": " → ".join(self.macros), "mapping": self.mapping,
                "register blocks unrolled": self.unrolled, "accumulator": self.accumulator,
                **{f"{x} tile in local memory": x in layout for x in OPERANDS},
                **{f"{x} tile layout": layout.get(x) for x in OPERANDS},
                "rows as vectors of": self.rows or None,
                "read as vectors": " and ".join(self.vectors) or None,
                "prefetched": self.prefetched, "packed": self.packed is not None,
                "packed each element transposed": bool(self.packed and self.packed[1])}


def _layout_words(t: int) -> str:
    return "" if t == 0 else f" ({LAYOUT_NAMES[t]})"


FACTS = tuple(Choices().facts())


def holds(condition: str | dict, choices: Choices) -> bool:
    """Whether a program with these choices is described by ``condition``: words of its
    label (a string), or the values of named choices (a dict of a fact's name to its value,
    or to a list of values it may take: ``{"A tile layout": ["transposed"]}``)."""
    if isinstance(condition, str):
        return condition in choices.label
    facts = choices.facts()
    unknown = [name for name in condition if name not in facts]
    if unknown:
        raise WorkbenchError(f"cases: no choice {unknown[0]!r} to keep or drop programs by; "
                             "the choices are " + ", ".join(repr(f) for f in FACTS))
    return all(facts[name] in (value if isinstance(value, list | tuple) else [value])
               for name, value in condition.items())


def description_of(condition: str | dict) -> str:
    """A condition as the counts of the phases name it."""
    if isinstance(condition, str):
        return repr(condition)
    return "'" + ", ".join(f"{k}: {v}" for k, v in condition.items()) + "'"


@dataclass
class Variant:
    """A program of a phase: the expression, the steps from the start, and its choices."""

    expr: Expr
    steps: tuple[Step, ...]
    choices: Choices = field(default_factory=Choices)

    @property
    def label(self) -> str:
        return self.choices.label
