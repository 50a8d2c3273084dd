"""Which functions only rearrange data (ICFP 2015 Sect. 3.2: they generate no code).

A layout primitive (``split``, ``transpose``, ``pad``, …) only moves elements; so does a
composition of them, a ``map`` of one (Lift's ``Map(Transpose())``, the maps inside its
``Tile``, ``Untile2D``, ``Slide2D`` and ``Pad2D``), and a ``loop`` whose stages do (P2CL's
bit reversal by stages of transposes). Such a function is a view for the code generator, so
a ``map`` of it needs no lowering. ``id`` is the exception inside a ``map``: ``map id`` is how
a program asks for a copy.
"""

from __future__ import annotations

from .expr import Compose, Expr, Lambda, Prim


def is_layout_primitive(node: Expr) -> bool:
    """A primitive that only moves elements (declared with a ``Layout`` or as a view)."""
    return isinstance(node, Prim) and (node.decl.layout is not None or
                                       bool(node.decl.extra.get("view")))


def rearranges_only(fn: Expr, in_map: bool = False) -> bool:
    """Whether a function only rearranges data: layout primitives, compositions of them,
    maps of them and loops whose stages are (``in_map``: ``id`` does not count, a map of
    it being a copy)."""
    if isinstance(fn, Compose):
        return all(rearranges_only(f, in_map) for f in fn.fns)
    if not isinstance(fn, Prim):
        return False
    if fn.name == "id":
        return not in_map
    if fn.name == "map":
        return rearranges_only(fn.args[0], True)
    if fn.name == "loop":
        f = fn.args[1]
        body = f.body if isinstance(f, Lambda) and len(f.params) == 1 else None
        return body is not None and rearranges_only(body, True)
    return is_layout_primitive(fn) and fn.name != "reorder"


def needs_lowering(node: Expr) -> bool:
    """A high-level primitive that rules must lower before code can be generated (a map or
    a loop that only rearranges data needs none)."""
    if not (isinstance(node, Prim) and node.decl.high_level):
        return False
    return not (node.name == "map" and rearranges_only(node.args[0], True))
