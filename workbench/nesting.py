"""Well-formedness of the OpenCL map nesting (ICFP 2015 Sect. 4.2; PACT Fig. "map" rules).

Types say what an expression computes; this check says whether its parallel maps fit the
OpenCL thread hierarchy: a ``mapLocal`` runs inside a ``mapWorkgroup`` and not inside
another ``mapLocal`` of the same dimension, ``mapLane`` only inside ``mapWarp``, and so on.
Rules use ``context`` to refuse a lowering that would break these constraints.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import TypeCheckError, format_path
from .expr import Expr, Path, Prim, subterm
from .primitives.families import PRIVATE_STORES

# (level, dimension) of each enclosing OpenCL map, outermost first.
Context = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class NestingProblem:
    path: Path
    message: str

    def __str__(self) -> str:
        return f"at node {format_path(self.path)}: {self.message}"


class NestingError(TypeCheckError):
    """An expression whose OpenCL maps do not fit the thread hierarchy."""


def map_level(node: Expr) -> tuple[str, int] | None:
    """``(level, dim)`` when ``node`` is an OpenCL map (``mapLocal 1 f`` -> ("local", 1))."""
    if not isinstance(node, Prim):
        return None
    level = node.decl.map_level
    if level in (None, "any", "vector"):
        return None
    dim = node.args[0] if node.decl.params[0].kind == "dim" else 0
    return level, dim


def problem_with(level: str, dim: int, context: Context) -> str | None:
    """Why a map of ``level`` (and ``dim``) may not run inside ``context``; None if it may."""
    levels = {lvl for lvl, _ in context}
    same_dim = {lvl for lvl, d in context if d == dim}
    if level == "global":
        inside = levels & {"workgroup", "local", "warp", "lane", "seq"}
        if inside:
            return f"mapGlobal cannot run inside a map{_name(inside)} (it already owns work-items)"
        if "global" in same_dim:
            return f"mapGlobal {dim} is nested in another mapGlobal of dimension {dim}"
    elif level == "workgroup":
        inside = levels & {"global", "local", "warp", "lane", "seq"}
        if inside:
            return f"mapWorkgroup cannot run inside a map{_name(inside)}"
        if "workgroup" in same_dim:
            return f"mapWorkgroup {dim} is nested in another mapWorkgroup of dimension {dim}"
    elif level == "local":
        if "workgroup" not in levels:
            return "mapLocal must be inside a mapWorkgroup (local threads belong to a work-group)"
        inside = levels & {"warp", "lane", "global"}
        if inside:
            return f"mapLocal cannot run inside a map{_name(inside)}"
        if "local" in same_dim:
            return f"mapLocal {dim} is nested in another mapLocal of dimension {dim}"
    elif level == "warp":
        if "workgroup" not in levels:
            return "mapWarp must be inside a mapWorkgroup"
        inside = levels & {"local", "warp", "lane", "global"}
        if inside:
            return f"mapWarp cannot run inside a map{_name(inside)}"
    elif level == "lane":
        if "warp" not in levels:
            return "mapLane must be inside a mapWarp (lanes belong to a warp)"
        if "lane" in levels:
            return "mapLane cannot run inside another mapLane"
    return None


def _name(levels: set[str]) -> str:
    return sorted(levels)[0].capitalize()  # mapGlobal, mapSeq, ...


def check_nesting(expr: Expr, outer: Context = (), at: Path = ()) -> list[NestingProblem]:
    """Every place where an OpenCL map or ``toLocal`` breaks the thread hierarchy; ``outer``
    is the context of the enclosing maps when ``expr`` is a subtree found at path ``at``."""
    problems: list[NestingProblem] = []
    _walk(expr, at, outer, problems)
    return problems


def _walk(node: Expr, path: Path, context: Context, problems: list[NestingProblem]) -> None:
    inner = context
    here = map_level(node)
    if here is not None:
        message = problem_with(here[0], here[1], context)
        if message:
            problems.append(NestingProblem(path, message))
        inner = context + (here,)
    elif isinstance(node, Prim) and node.name == "toLocal" \
            and "workgroup" not in {lvl for lvl, _ in context}:
        problems.append(NestingProblem(
            path, "toLocal must be inside a mapWorkgroup (local memory belongs to a work-group)"))
    elif isinstance(node, Prim) and node.name in PRIVATE_STORES \
            and not {lvl for lvl, _ in context} & {"global", "local", "lane"} \
            and not ("workgroup" in {lvl for lvl, _ in context} and _by_work_items(node)):
        problems.append(NestingProblem(
            path, f"{node.name} must be inside a map over work-items (mapGlobal, mapLocal or "
                  "mapLane), or inside a mapWorkgroup around the mapLocal that writes it: "
                  "private memory belongs to one work-item"))
    for i, child in enumerate(node.children()):
        _walk(child, path + (i,), inner, problems)


def _by_work_items(node: Prim) -> bool:
    """``toPrivate (mapLocal …)``: each work-item of the group keeps the part it writes."""
    f = node.args[0]
    return isinstance(f, Prim) and map_level(f) is not None and map_level(f)[0] == "local"


def context(expr: Expr, path: Path) -> Context:
    """The OpenCL maps enclosing the node at ``path``, outermost first."""
    found: list[tuple[str, int]] = []
    node = expr
    for step in path:
        here = map_level(node)
        if here is not None:
            found.append(here)
        node = subterm(node, (step,))
    return tuple(found)


def well_formed(expr: Expr) -> None:
    """Raise ``NestingError`` naming the first misplaced map, if any."""
    problems = check_nesting(expr)
    if problems:
        first = problems[0]
        raise NestingError(first.message, first.path, str(subterm(expr, first.path)))
