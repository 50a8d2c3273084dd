"""Which functions only rearrange data (ICFP 2015 Sect. 3.2: they generate no code).

A layout primitive (``split``, ``transpose``, ``pad``, …) only moves elements; so does a
composition of them, a map of any level of one (Lift's ``Map(Transpose())``, the maps inside its
``Tile``, ``Untile2D``, ``Slide2D`` and ``Pad2D``), and a ``loop`` whose stages do (P2CL's
bit reversal by stages of transposes). Such a function is a view for the code generator, so
a ``map`` of it needs no lowering. ``id`` is the exception inside a ``map``: ``map id`` is how
a program asks for a copy. The function of a map may be written as a lambda that applies
layout primitives to its parameter (``λx. transpose (split 2 x)``).
"""

from __future__ import annotations

from .expr import Apply, Compose, Expr, Lambda, Prim, Var, compose
from .primitives import Kernel, ViewForm


def is_layout_primitive(node: Expr) -> bool:
    """A primitive that only moves elements (declared with a ``Layout`` or as a view)."""
    return isinstance(node, Prim) and (node.decl.layout is not None or node.decl.moves_only)


def is_layout(node: Expr) -> bool:
    """Whether a node only rearranges data (a view, no code): a layout primitive, or a map
    (of any level) or loop of layout primitives (``rearranges_only``)."""
    if not isinstance(node, Prim):
        return False
    if mapped_layout(node) is not None:
        return True
    if node.decl.kernel is Kernel.LOOP:
        return rearranges_only(node)
    return is_layout_primitive(node) or node.decl.view is not None


def rearranges_only(fn: Expr, in_map: bool = False) -> bool:
    """Whether a function only rearranges data: layout primitives, compositions of them,
    maps of them and loops whose stages are (``in_map``: ``id`` does not count, a map of
    it being a copy)."""
    if isinstance(fn, Compose):
        return all(rearranges_only(f, in_map) for f in fn.fns)
    if in_map and rezipped_arity(fn) is not None:
        return True
    if not isinstance(fn, Prim):
        return False
    if fn.name == "id":
        return not in_map
    if _maps(fn):
        return mapped_layout(fn) is not None
    if fn.name == "loop":
        f = fn.args[1]
        body = f.body if isinstance(f, Lambda) and len(f.params) == 1 else None
        return body is not None and rearranges_only(body, True)
    if fn.decl.view is ViewForm.PAD:
        # pad adds values but generates no code (a view that reads its value outside the
        # array): a map of it, as Lift's PadConstant3D pads the inner dimensions, is a view
        return True
    return is_layout_primitive(fn) and fn.name != "reorder"


def rezipped_arity(fn: Expr) -> int | None:
    """The number of components n where ``fn`` is ``λt. zip t.0 … t.(n-1)``, which zips the
    arrays of a tuple, else None. A map of it turns an array of tuples of arrays into an
    array of arrays of tuples, moving no element: how Lift's ``Zip2D`` and ``Zip3D`` (and
    its ``Map(fun(tuple => Zip(tuple._0, tuple._1)))``, Rodinia's hotspot and SRAD) pair a
    stencil's windows with another grid."""
    if not (isinstance(fn, Lambda) and len(fn.params) == 1 and isinstance(fn.params[0], str)):
        return None
    body, t = fn.body, Var(fn.params[0])
    if not (isinstance(body, Apply) and isinstance(body.fn, Prim) and body.fn.name == "zip"
            and len(body.args) >= 2):
        return None
    for k, arg in enumerate(body.args):
        if not (isinstance(arg, Apply) and isinstance(arg.fn, Prim) and arg.fn.name == "get"
                and len(arg.args) == 1 and arg.args[0] == t and len(arg.fn.args) == 1
                and str(arg.fn.args[0]) == str(k)):
            return None
    return len(body.args)


def _maps(node: Prim) -> bool:
    return node.decl.map_level not in (None, "vector") and bool(node.args)


def as_composition(f: Expr) -> Expr:
    """``λx. g (h x)`` as ``g ∘ h`` (functions applied to the parameter one after the
    other); any other function as it is."""
    if isinstance(f, Lambda) and len(f.params) == 1 and isinstance(f.params[0], str):
        fns, e = [], f.body
        while isinstance(e, Apply) and len(e.args) == 1:
            fns.extend(e.fn.fns if isinstance(e.fn, Compose) else (e.fn,))
            e = e.args[0]
        if e == Var(f.params[0]) and fns:
            return compose(*fns)
    return f


def mapped_layout(node: Expr) -> Expr | None:
    """The function of a map (of any level) that only rearranges each element of its
    input, as a composition of layout primitives (``join`` of ``map join``); else None."""
    if not (isinstance(node, Prim) and _maps(node)):
        return None
    f = as_composition(node.args[-1])
    return f if rearranges_only(f, True) else None


def needs_lowering(node: Expr) -> bool:
    """A high-level primitive that rules must lower before code can be generated (a map or
    a loop that only rearranges data needs none)."""
    if not (isinstance(node, Prim) and node.decl.high_level):
        return False
    return mapped_layout(node) is None
