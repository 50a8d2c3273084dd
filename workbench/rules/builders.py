"""Building blocks of right-hand sides, shared by the rule modules: an application written
out where that is plain (``call``, ``apply_to``, ``combine``: a lambda substituted, an operator
section written infix), a projection (``project``, ``simplify``), a reduction's fused operator
(``fused_operator``, ICFP Fig. 6f), a fresh name (``fresh``), a literal typed for where a
rule moves it (``typed_literal``), and a reduction's operator in one form (``pair_form``,
``pair_operator``): ``λ(acc, x). e``, also where it is written curried, ``λacc x. e``, as
Lift writes ``ReduceSeq``'s operator."""

from __future__ import annotations

from ..expr import (
    Apply,
    BinOp,
    Expr,
    Lambda,
    Lit,
    Prim,
    Section,
    TupleExpr,
    Var,
    fresh_name,
    substitute,
)
from ..rewriting.site import Site
from ..types import ArrayType, ScalarType, TupleType

__all__ = ["apply_to", "call", "combine", "fresh", "fused_operator", "pair_form",
           "pair_operator", "project", "simplify", "typed_literal"]


def project(e: Expr, k: int) -> Expr:
    """``e.k``, simplified when e is a tuple."""
    if isinstance(e, TupleExpr):
        return e.items[k]
    return Apply(Prim("get", (k,)), (e,))


def simplify(e: Expr) -> Expr:
    """Projections of tuples written out, ``(a, b).0`` → ``a`` (after a substitution)."""
    kids = e.children()
    if kids:
        new = tuple(simplify(c) for c in kids)
        if any(a is not b for a, b in zip(new, kids)):
            e = e.with_children(new)
    match e:
        case Apply(Prim("get", (k,)), (TupleExpr(items),)):
            return items[k]
    return e


def _bind(pattern, value: Expr, body: Expr) -> Expr | None:
    """``body`` with the names of ``pattern`` bound to ``value`` (None if value is not a
    tuple of the pattern's shape and the pattern is one)."""
    if isinstance(pattern, str):
        return substitute(body, pattern, value)
    if isinstance(value, TupleExpr) and len(value.items) == len(pattern):
        for p, v in zip(pattern, value.items):
            body = _bind(p, v, body)
            if body is None:
                return None
        return body
    return None


def call(f: Expr, arg: Expr) -> Expr:
    """``f arg`` reduced where that is plain: a lambda substituted (also a tuple pattern on
    a tuple, or ``λa b. e`` on a pair), an operator section written infix."""
    if isinstance(f, Lambda):
        if len(f.params) == 1:
            out = _bind(f.params[0], arg, f.body)
            if out is not None:
                return simplify(out)
        elif isinstance(arg, TupleExpr) and len(arg.items) == len(f.params):
            out = f.body
            for p, v in zip(f.params, arg.items):
                out = _bind(p, v, out)
                if out is None:
                    break
            if out is not None:
                return simplify(out)
    if isinstance(f, Section):
        if f.left is None and f.right is None and isinstance(arg, TupleExpr) \
                and len(arg.items) == 2:
            return BinOp(f.op, *arg.items)
        if f.right is not None:
            return BinOp(f.op, arg, f.right)
        if f.left is not None:
            return BinOp(f.op, f.left, arg)
    return Apply(f, (arg,))


def fresh(base: str, *exprs: Expr) -> str:
    """A name free in none of ``exprs`` (a binder around them may shadow their own binders:
    substitution renames those where they would capture)."""
    avoid: set[str] = set()
    for e in exprs:
        avoid |= set(e.free_vars())
    return fresh_name(base, avoid)


def typed_literal(z: Expr, site: Site) -> Expr:
    """A reduction's literal initial value (``0``, ``replicate 4 0``) written with floats
    where the reduction computes floats (``0.0``): where a rule moves it, no context may tell
    its type any more."""
    leaf = site.typing.result if site.typing is not None else None
    while isinstance(leaf, ArrayType):
        leaf = leaf.elem
    if not (isinstance(leaf, ScalarType) and leaf.name in ("float", "double")):
        return z
    if isinstance(z, Lit) and isinstance(z.value, int) and not isinstance(z.value, bool):
        return Lit(float(z.value))
    match z:
        case Apply(Prim("replicate") as replicate, (value,)):
            return Apply(replicate, (typed_literal(value, site),))
    return z


def apply_to(f: Expr, arg: Expr) -> Expr:
    """``f arg``, reduced when ``f`` is a lambda of one plain parameter or an operator."""
    if isinstance(f, Lambda) and len(f.params) == 1 and isinstance(f.params[0], str):
        return substitute(f.body, f.params[0], arg)
    return Apply(f, (arg,))


def pair_form(f: Expr) -> Expr:
    """A reduction's (or scan's) operator taking its accumulator and element as one pair:
    ``λacc x. e`` (curried) written ``λ(acc, x). e``, which the fold applies to the pair
    alike; any other function as it is."""
    if isinstance(f, Lambda) and len(f.params) == 2:
        return Lambda((tuple(f.params),), f.body)
    return f


def pair_operator(node: Expr, site: Site) -> Lambda | None:
    """The lambda at ``site`` as the operator ``λ(acc, x). e`` of a reduction: itself, or
    written so when it is curried (``λacc x. e``) and applied to one pair there (a fold's
    operator, not a function of two arguments such as a whole program ``λa b. e``); None
    for any other."""
    if not isinstance(node, Lambda):
        return None
    match node.params:
        case ((str(), str()),):
            return node
        case (str(), str()):
            args = site.typing.args if site.typing is not None else ()
            if len(args) == 1 and isinstance(args[0], TupleType) and len(args[0].items) == 2:
                return Lambda((node.params,), node.body)
    return None


def combine(f: Expr, acc: Expr, x: Expr) -> Expr:
    """``f (acc, x)``, written infix when ``f`` is an operator section such as (+); a
    curried operator applied to the pair as ``λ(acc, x). e`` (``pair_form``)."""
    if isinstance(f, Section) and f.left is None and f.right is None:
        return BinOp(f.op, acc, x)
    return Apply(pair_form(f), (TupleExpr((acc, x)),))


def fused_operator(f: Expr, g: Expr) -> Expr:
    """``λ(acc, x). f (acc, g x)``; for vectorised functions (``mapVec f``, ``mapVec g``)
    the lane-wise ``mapVec (λ(acc, x). f (acc, g x))``, one function of vectors."""
    match f, g:
        case Prim("mapVec", (*_, f_lane)), Prim("mapVec", (*_, g_lane)):
            return Prim("mapVec", (fused_operator(f_lane, g_lane),))
    avoid = f.free_vars() | g.free_vars()
    acc, x = fresh_name("acc", avoid), fresh_name("x", avoid)
    return Lambda(((acc, x),), combine(f, Var(acc), apply_to(g, Var(x))))
