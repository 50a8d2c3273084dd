"""The λ-calculus steps as rules, one pair: β-reduction and η (both directions).

- β (``β-reduction``, also named ``beta``): a lambda applied to arguments is its body with
  them substituted, under one condition: each argument is a view of variables (a variable,
  or zip, get, split, … of them), so that inlining it computes nothing twice (Futhark's
  let-floating of data plumbing); an operator applied to a pair is written infix.
- η (``λx. f x = f`` where x is not free in f): ``η-reduction`` drops the lambda,
  ``eta`` writes a map's function as one (``map f → map (λx. f x)``, the form the
  interchange rules take apart); a fresh x is never free in f, so the expansion always
  holds.
"""

from __future__ import annotations

from dataclasses import replace

from ..expr import (
    Apply,
    BinOp,
    Expr,
    Lambda,
    Prim,
    Section,
    TupleExpr,
    Var,
    fresh_name,
    substitute,
)
from ..rewriting.match import app, kind, lam, map_of, matches
from ..types import ArrayType
from .rule import Refused, Site, basic_rule


def plumbing(e: Expr) -> bool:
    """A variable, or layout primitives (zip, get, split, …) applied to variables: a view,
    which costs nothing to repeat."""
    from ..layout import is_layout_primitive

    if isinstance(e, Var):
        return True
    if isinstance(e, Apply) and isinstance(e.fn, Prim) and \
            (e.fn.name == "zip" or is_layout_primitive(e.fn)):
        return all(plumbing(a) for a in e.args)
    return False


# --- β ---------------------------------------------------------------------------------------

def _operator(f: Section, args: tuple[Expr, ...]) -> Expr | Refused:
    """``(⊕) (a, b) → a ⊕ b``, ``(⊕ b) a → a ⊕ b``, ``(a ⊕) b → a ⊕ b``."""
    arg = args[0] if len(args) == 1 else TupleExpr(args)
    if f.left is None and f.right is None:
        if isinstance(arg, TupleExpr) and len(arg.items) == 2:
            return BinOp(f.op, *arg.items)
        return Refused("an operator takes two operands")
    return BinOp(f.op, arg, f.right) if f.right is not None else BinOp(f.op, f.left, arg)


@basic_rule("β-reduction", "(λx. e) a → e[x := a]   (a a variable or a view of variables), "
            "(⊕) (a, b) → a ⊕ b", "simplification", "λ-calculus (Futhark's let-floating)")
@matches(app(kind(Lambda, Section, name="f"), rest="args",
             why="it rewrites (λx. e) a, a lambda applied to an argument, or (⊕) (a, b), an "
                 "operator applied to a pair"))
def BETA(m, site: Site, p) -> Expr | Refused:
    f, args = m.f, m.args
    if isinstance(f, Section):
        if len(args) == 1 and isinstance(args[0], TupleExpr) or \
                (f.left is None) != (f.right is None):
            return _operator(f, args)
        return Refused("an operator section applies to a pair (a, b)")
    if len(args) != len(f.params) or not all(isinstance(q, str) for q in f.params):
        return Refused("the lambda's parameters are not one plain name per argument")
    if not all(plumbing(a) for a in args):
        return Refused("an argument computes something (inlining it could compute it again); "
                       "only variables and views of them (zip, get, split, …) are inlined")
    body = f.body
    for name, arg in zip(f.params, args):
        body = substitute(body, name, arg)
    return body


BETA_NAMED_BETA = replace(BETA, name="beta")  # the name the interchange rules listed it by


# --- η ---------------------------------------------------------------------------------------

@basic_rule("η-reduction", "λx. f x → f   (x not free in f)", "simplification", "λ-calculus")
@matches(lam("x", app("f", "y"), why="it rewrites λx. f x (x not used by f)")
         .where(lambda m: m.y == Var(m.x) and m.x not in m.f.free_vars(),
                "it rewrites λx. f x (x not used by f)"))
def ETA_REDUCTION(m, site: Site, p) -> Expr:
    return m.f


def _takes_arrays(site: Site) -> bool:
    t = site.typing.args[0] if site.typing is not None and site.typing.args else None
    return isinstance(t, ArrayType) and isinstance(t.elem, ArrayType)


@basic_rule("eta", "map f → map (λx. f x)", "simplification", "η-expansion")
@matches(map_of(why="it rewrites a high-level map f")
         .where(lambda m: not isinstance(m.f, Lambda), "the function is already a lambda"))
def ETA_EXPANSION(m, site: Site, p) -> Expr:
    x = fresh_name("xs" if _takes_arrays(site) else "x", set(m.f.free_vars()))
    return Prim("map", (Lambda((x,), Apply(m.f, (Var(x),))),))
