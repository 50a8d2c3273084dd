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
fully low-level, or refuses. Where the program's result cannot be written where it is
computed (a program that only rearranges its input; a pad or a slide on the way out), the
completion (``complete``) first applies ``copy-view``, a rule like any other, so that the
copy the code generator needs is a recorded step that replays.
"""

from __future__ import annotations

from ..errors import WorkbenchError, format_path
from ..expr import Apply, Compose, Expr, Lambda, Lit, Path, Prim, Var, subterm, walk
from ..layout import is_layout, mapped_layout, needs_lowering
from ..nesting import Context
from ..primitives import Kernel, ViewForm
from ..rewriting.strategies import State, Step, everywhere, repeat
from ..types import ArrayType, Type
from .rule import IDENTITY, Refused, Rule, Site


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


# (a node that needs no lowering has no default choice: its site is not built)
DEFAULT_LOWERING = repeat(everywhere(default_choice, chosen_at=needs_lowering))


def lower(expr: Expr, *input_types: Type | str, explain: bool = True
          ) -> tuple[Expr, list[Step]]:
    """The expression with its high-level nodes lowered by ``DEFAULT_LOWERING``, and the
    steps that did it; ``LoweringRefused`` names a node it cannot lower, and (``explain``)
    why its default lowering does not apply — a search that drops such a candidate skips
    finding out (a fifth of the time completing gemv's e-graph terms at 4096 × 4096)."""
    from ..typecheck import as_type

    types = tuple(as_type(t) for t in input_types)
    state = DEFAULT_LOWERING(State(expr, types))
    if isinstance(state, Refused):  # repeat never refuses; kept for other strategies
        raise LoweringRefused((), expr, state.reason)
    for path, node in walk(state.expr):
        if needs_lowering(node):
            reason = _why(state.expr, path, node, types) if explain else \
                f"{node.name} is still high-level"
            raise LoweringRefused(path, node, reason)
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


# --- the copy a view on the way out needs (copy-view) ------------------------------------------
# Layouts generate no code (ICFP 2015 Sect. 3.2): the code generator writes a result through
# the layouts after its computation, inverted. A program that computes nothing (Lift's
# ``PadConstant2D(1, 1, 0.0f) $ xs`` alone) has no computation to write, and a layout whose
# result's elements have no place in its input's (a pad's borders, a slide's overlaps) cannot
# be written through (Lift's PPCG stencils: ``Scatter(Shift(1)) o Pad(1, 1, Clamp) o Map(f) o
# Slide(3, 1)``). Both need a copy, ``map id``: it reads the view and writes the output.


def copy_site(root: Expr) -> Path | None:
    """Where a program's result needs a copy (``map id``) for the code generator to write
    it: the result itself when the program computes nothing, else the first layout on the way
    out that cannot be written through; None where the result is written where it is
    computed."""
    body, at = (root.body, (0,)) if isinstance(root, Lambda) else (root, ())
    if computes_nothing(body):
        return at
    return _unwritable_on_the_way_out(body, at)


def _unwritable_on_the_way_out(e: Expr, at: Path) -> Path | None:
    """The first layout on the way out of ``e`` that cannot be written through, looking into
    the function of a map that computes (``map (splitVec 4)``: each element's result goes
    through the splitVec)."""
    for path, fn in _way_out(e, at):
        if is_layout(fn):
            if not written_through(fn):
                return path
            continue
        if isinstance(fn, Prim) and fn.decl.map_level not in (None, "vector") and fn.args:
            f, f_at = fn.args[-1], path + (len(fn.args) - 1,)
            if isinstance(f, Lambda) and len(f.params) == 1:
                f, f_at = f.body, f_at + (0,)
            return _unwritable_on_the_way_out(f, f_at)
        return None  # the computation: what follows it is written through
    return None


def _way_out(e: Expr, at: Path) -> list[tuple[Path, Expr]]:
    """The functions the result of ``e`` goes through last, outermost first, with their
    paths: those of a composition, and of the applications it is applied in."""
    out: list[tuple[Path, Expr]] = []
    while True:
        if isinstance(e, Compose):
            return out + [(at + (i,), f) for i, f in enumerate(e.fns)]
        if not (isinstance(e, Apply) and len(e.args) == 1):
            return out + ([(at, e)] if isinstance(e, Prim) else [])
        fns = e.fn.fns if isinstance(e.fn, Compose) else (e.fn,)
        paths = [at + (0, i) for i in range(len(fns))] if isinstance(e.fn, Compose) \
            else [at + (0,)]
        out += list(zip(paths, fns))
        e, at = e.args[0], at + (1,)


def computes_nothing(e: Expr) -> bool:
    """Whether a program (its body) only rearranges its input: every node a layout, a zip or
    a projection (read through as views), a variable or a function around them."""
    inside_layouts: list[Path] = []  # what the functions of layouts do is a view too
    for path, node in walk(e):
        if any(path[:len(p)] == p for p in inside_layouts):
            continue
        if is_layout(node):
            inside_layouts.append(path)
        elif isinstance(node, Prim) and not _a_view(node):
            return False
        elif not isinstance(node, Prim | Var | Apply | Compose | Lit | Lambda):
            return False
    return True


def _a_view(node: Prim) -> bool:
    """A zip or a projection (``map (λt. zip t.0 t.1) (zip a b)``, Lift's Zip2D alone)."""
    return node.decl.kernel is Kernel.ZIP or (node.name == "get" and node.decl.kernel is None)


def written_through(node: Expr) -> bool:
    """Whether a layout can be written through: its result's elements have places in its
    input's (scatter, join, split); a pad's borders have none."""
    if not isinstance(node, Prim):
        return False
    layout = node.decl.layout
    if layout is not None:
        return layout.write is not None
    if node.decl.view in (ViewForm.JOIN_VEC, ViewForm.SCATTER_OFFSETS):
        return True
    inner = mapped_layout(node)
    if inner is None:
        return False
    return all(written_through(f) for f in (inner.fns if isinstance(inner, Compose)
                                            else (inner,)))


def _copy_view(site: Site, p) -> Expr | Refused:
    at = copy_site(site.root)
    if at is None:
        return Refused("the program's result needs no copy: the layouts after its computation "
                       "can be written through")
    if at != site.path:
        what = "the program's result (it computes nothing)" if computes_nothing(
            site.root.body if isinstance(site.root, Lambda) else site.root) \
            else "the first layout on the way out that cannot be written through"
        return Refused(f"the copy goes at {format_path(at)} `{subterm(site.root, at)}`, "
                       f"{what}")
    if site.typing is None:
        return Refused("it needs the types of the program's inputs")
    copy: Expr = Prim("id")
    t = site.typing.result
    while isinstance(t, ArrayType):
        copy, t = Prim("map", (copy,)), t.elem
    if copy == Prim("id"):
        return Refused(f"only an array is copied element by element, not a "
                       f"{site.typing.result}")
    if isinstance(site.node, Prim | Compose):
        return Compose((copy, site.node))
    return Apply(copy, (site.node,))


COPY_VIEW = Rule(
    "copy-view", "v → map id ∘ v  (v a view on the way out that cannot be written)",
    "memory", "ICFP 2015 Sect. 3.2 (views); Lift's PPCG stencils", _copy_view,
    doc="the copy (a map id deep enough for the array) of a result the code generator "
        "cannot write where it is computed: of a program that computes nothing, or after the "
        "first pad (or slide, splitVec) on the way out",
    tags=frozenset({IDENTITY}))
RULES = [COPY_VIEW]


def complete(expr: Expr, *input_types: Type | str) -> tuple[Expr, list[Step]]:
    """The default completion: the copy the code generator needs, where it needs one
    (``copy-view``), then ``DEFAULT_LOWERING`` (``lower``); the expression and the steps that
    did it, each an ordinary rule applied at a path, so that they replay."""
    from ..rewriting.application import RewriteRefused, apply
    from ..typecheck import as_type

    types = tuple(as_type(t) for t in input_types)
    steps: list[Step] = []
    at = copy_site(expr)
    if at is not None:
        try:
            expr = apply(expr, COPY_VIEW, at, *types)
            steps.append(Step(COPY_VIEW.name, at, {}))
        except RewriteRefused:
            pass  # not an array: the code generator says what it cannot write
    if any(needs_lowering(n) for _, n in walk(expr)):
        expr, lowered = lower(expr, *types)
        steps += lowered
    return expr, steps
