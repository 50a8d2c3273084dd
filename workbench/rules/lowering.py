"""The default lowering (SPEC 6): a simple, documented strategy that lowers whatever is still
high-level, so that every step of a derivation can be compiled and run. It is ordinary
rules applied by the strategy combinators, outermost node first:

- ``map`` → ``mapGlobal`` outside any OpenCL map, ``mapLocal`` directly inside a
  ``mapWorkgroup``, ``mapSeq`` anywhere else;
- ``reduce`` → ``reduceSeq``;
- ``reducePart f z n`` → ``join ∘ map (reducePart f z 1) ∘ split (I)`` → … ``reduceSeq``;
- ``reorder`` → ``id``;
- ``scan`` → ``scanSeq``;
- ``opMap n f`` → ``join ∘ map f ∘ split (N/n)``; ``allPairs f`` → two maps.

The code generator never chooses: it compiles what this strategy (or a derivation) made
fully low-level, or refuses.
"""

from __future__ import annotations

from ..errors import WorkbenchError, format_path
from ..expr import Expr, Path, Prim, walk
from ..layout import needs_lowering
from ..nesting import Context
from ..rewriting.strategies import State, Step, everywhere, repeat
from ..types import Type
from .rule import Refused, Site


class LoweringRefused(WorkbenchError):
    """A high-level node that the default lowering cannot lower: where, and why."""

    def __init__(self, path: Path, node: Expr, reason: str):
        self.path = path
        self.node_text = str(node)
        self.reason = reason
        shown = self.node_text if len(self.node_text) <= 80 else self.node_text[:77] + "..."
        super().__init__(f"at node {format_path(path)} `{shown}`: {reason}")


def on_work_group(context: Context) -> bool:
    """Whether a node with these OpenCL maps around it (outermost first) runs once per
    work-group, by the group's work-items together: the innermost map around it is a
    ``mapWorkgroup``. A map there is lowered onto the group's work-items (``mapLocal``, by
    the default lowering); a reduction there is the work-group's, whose operator's local
    maps share the tiles it copies into local memory (``search.cases``' phase 2)."""
    return bool(context) and context[-1][0] == "workgroup"


def default_choice(site: Site) -> tuple[str, dict] | None:
    """The rule (and parameters) the default lowering applies at a node, if any."""
    node = site.node
    if not needs_lowering(node):
        return None
    if node.name == "map":
        if not site.context:
            return "map→mapGlobal", {"dim": 0}
        if on_work_group(site.context):
            return "map→mapLocal", {"dim": 0}
        return "map→mapSeq", {}
    if node.name == "reduce":
        return "reduce→reduceSeq", {}
    if node.name == "reducePart":
        return ("partial-reduce", {}) if node.args[2] == 1 else ("partial-split", {"j": 1})
    if node.name == "reorder":
        return "reorder→id", {}
    if node.name == "scan":
        return "scan→scanSeq", {}
    if node.name == "opMap":
        return "opMap→split-join", {}
    if node.name == "allPairs":
        return "allPairs→maps", {}
    return None


DEFAULT_LOWERING = repeat(everywhere(default_choice))


def lower(expr: Expr, *input_types: Type | str) -> tuple[Expr, list[Step]]:
    """The expression with its high-level nodes lowered by ``DEFAULT_LOWERING``, and the
    steps that did it; ``LoweringRefused`` names a node it cannot lower."""
    from ..typecheck import as_type

    types = tuple(as_type(t) for t in input_types)
    state = DEFAULT_LOWERING(State(expr, types))
    if isinstance(state, Refused):  # repeat never refuses; kept for other strategies
        raise LoweringRefused((), expr, state.reason)
    for path, node in walk(state.expr):
        if needs_lowering(node):
            raise LoweringRefused(path, node, _why(state.expr, path, node, types))
    return state.expr, list(state.steps)


def _why(expr: Expr, path: Path, node: Prim, types: tuple) -> str:
    choice = default_choice(_site_of(expr, path, types))
    if choice is None:
        return f"{node.name} has no default lowering yet"
    from ..rewriting.application import RewriteRefused, apply

    rule, params = choice
    try:
        apply(expr, rule, path, *types, **params)
    except RewriteRefused as err:
        return f"{node.name} is high-level and the default lowering ({rule}) does not " \
               f"apply: {err.reason}"
    return f"{node.name} is still high-level"


def _site_of(expr: Expr, path: Path, types: tuple) -> Site:
    from ..rewriting.application import annotation_of, site_at

    return site_at(expr, path, annotation_of(expr, types))
