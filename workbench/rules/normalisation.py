"""One form for the usual spellings of a program, so that an exploration sees the same
program however it was written.

A matrix product can be written with a named dot product (``dot = λxs ys. …`` used as
``dot rowA colB``), with nested applications (``reduce (+) 0 (map (*) (zip x y))``), with
a fused reduction (``reduce (λacc p. acc + p.0 * p.1) 0``), with compositions applied to
the matrix (``(join ∘ map g ∘ transpose) b``), with SkelCL's ``allPairs``, or as Lift's
tests write it. ``normalise`` rewrites each into the library's form by basic rules only —
allpairs as two maps, β- and η-reduction, the reduce–map fission below, and the moves
between a composition applied to an argument and nested applications — and returns the
steps, so that a derivation from the program as written replays them first. The library's
own form is its own normal form: no step is taken.

The normal form keeps computations as compositions only where a reduction follows a map
(``(reduce f z ∘ map g) xs``, the dot product's shape); everywhere else a composition
applied to an argument becomes nested applications.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import WorkbenchError
from ..expr import Apply, BinOp, Compose, Expr, Lambda, Lit, Path, Prim, Section, Var, compose, walk
from ..primitives.families import FOLDS
from ..rewriting.match import app, kind, lam, map_of, matches, prim
from ..rewriting.step import Step
from ..types import ArrayType, Type
from .rule import Refused, Site, basic_rule

OPERATORS = ("+", "*", "max", "min")


def _accumulating(f: Expr) -> tuple[str, str] | None:
    """The accumulator's and the element's names of ``λ(acc, x). …`` or ``λacc x. …``."""
    if not isinstance(f, Lambda):
        return None
    names = f.params[0] if len(f.params) == 1 else f.params
    if isinstance(names, tuple) and len(names) == 2 and all(isinstance(q, str) for q in names):
        return names
    return None


FOLD = prim(FOLDS, kind(Lambda, name="f", why="the reduction's operator is not a lambda "
                             "(it is already an operator)"), "z",
            why="it rewrites reduce (λ(acc, x). acc ⊕ e) z") \
    .where(lambda m: _accumulating(m.f) is not None,
           "the operator does not take an accumulator and an element") \
    .where(lambda m: isinstance(m.f.body, BinOp) and m.f.body.op in OPERATORS,
           "the operator's body is not acc ⊕ e with ⊕ one of " + ", ".join(OPERATORS)) \
    .where(lambda m: Var(_accumulating(m.f)[0]) in (m.f.body.left, m.f.body.right),
           "the accumulator is not an operand of the operator's body")


@basic_rule(
    "reduce-map-fission", "reduce (λ(acc, x). acc ⊕ e) z → reduce (⊕) z ∘ map (λx. e)   "
    "(acc not in e)", "algorithmic", "map-reduce fusion, read backwards (ICFP Fig. 6)",
    doc="A reduction whose operator adds (multiplies, …) a function of each element to the "
        "accumulator is a map of that function followed by a reduction with the operator "
        "itself: both fold from z in the same order.")
@matches(FOLD)
def REDUCE_MAP_FISSION(m, site: Site, p) -> Expr | Refused:
    acc, x = _accumulating(m.f)
    body = m.f.body
    element = body.right if body.left == Var(acc) else body.left  # ⊕ commutes
    if acc in element.free_vars():
        return Refused(f"the element's part `{element}` uses the accumulator {acc}")
    return compose(Prim("reduce", (Section(body.op), m.z)),
                   Prim("map", (Lambda((x,), element),)))


def _pair_operator(f: Lambda) -> str | None:
    """The operator of ``λp. p.0 ⊕ p.1`` or ``λp. (⊕) p.0 p.1``."""
    p = f.params[0]

    def get(e: Expr, i: int) -> bool:
        return isinstance(e, Apply) and isinstance(e.fn, Prim) and e.fn.name == "get" and \
            e.fn.args == (i,) and e.args == (Var(p),)

    body = f.body
    if isinstance(body, BinOp) and get(body.left, 0) and get(body.right, 1):
        return body.op
    if isinstance(body, Apply) and isinstance(body.fn, Section) and body.fn.left is None and \
            body.fn.right is None and len(body.args) == 2 and get(body.args[0], 0) and \
            get(body.args[1], 1):
        return body.fn.op
    return None


@basic_rule(
    "operator-η", "λp. p.0 ⊕ p.1 → (⊕),  λp. (⊕) p.0 p.1 → (⊕)", "simplification",
    "η-reduction of an operator on pairs",
    doc="An operator applied to a pair is the operator itself: (⊕) (a, b) = a ⊕ b.")
@matches(lam("p", why="it rewrites λp. p.0 ⊕ p.1", name="f")
         .where(lambda m: _pair_operator(m.f) is not None,
                "the body is not p.0 ⊕ p.1 (an operator on the pair's two parts)"))
def OPERATOR_ETA(m, site: Site, p) -> Expr:
    return Section(_pair_operator(m.f))


TAKE_FIRST = map_of(lam("y", app(prim("at"), kind(Lit, name="index"), "e"),
                        why="the function is not λy. at 0 e"),
                    why="it rewrites map (λy. at 0 e)") \
    .where(lambda m: m.index.value == 0, "the function takes element {index}, not the first")


@basic_rule(
    "map-at-join", "map (λy. at 0 e) → join ∘ map (λy. e)   (e of one element)",
    "algorithmic", "Lift's reduce returns one element",
    doc="Taking the only element of each result, or joining the results of one element "
        "each, gives the same array.")
@matches(TAKE_FIRST)
def MAP_AT_JOIN(m, site: Site, p) -> Expr:
    # the types are checked where the rewrite happens: e must be an array of one element
    return compose(Prim("join"), Prim("map", (Lambda((m.y,), m.e),)))


@basic_rule(
    "transpose-transpose-introduction", "xs → transpose (transpose xs)", "algorithmic",
    "transpose-transpose, read backwards",
    doc="A matrix is the transpose of its transpose: an operand given by its columns reads "
        "as the transpose of a matrix given by its rows.")
@matches(kind(Var, name="xs", why="it rewrites an array variable xs"))
def TRANSPOSES(m, site: Site, p) -> Expr | Refused:
    t = site.typing.result if site.typing is not None else None
    if not (isinstance(t, ArrayType) and isinstance(t.elem, ArrayType)):
        return Refused(f"{m.xs} is not known here to be an array of arrays"
                       + (f" (it is {t})" if t is not None else ""))
    return Apply(Prim("transpose"), (Apply(Prim("transpose"), (m.xs,)),))


RULES = [REDUCE_MAP_FISSION, MAP_AT_JOIN, TRANSPOSES, OPERATOR_ETA]


@dataclass(frozen=True)
class Normalised:
    """The program in normal form and the steps from the program as written."""

    expr: Expr
    steps: tuple[Step, ...]


def _is_dot_chain(node: Expr) -> bool:
    """``reduce f z ∘ map g …``: the shape the normal form keeps as a composition."""
    return isinstance(node, Compose) and isinstance(node.fns[0], Prim) and \
        node.fns[0].name == "reduce" and isinstance(node.fns[1], Prim) and \
        node.fns[1].name == "map"


def _inner_operands(node: Expr) -> list[Path]:
    """In ``map (λa. … map (λb. …) ys …) xs``, the places (below ``node``) of each ``ys`` that
    is a variable from outside: the operand whose rows the inner map takes (a matrix given by
    its columns, as in ``A × Bᵀ``)."""
    if not (isinstance(node, Apply) and isinstance(node.fn, Prim) and node.fn.name == "map"
            and isinstance(node.fn.args[0], Lambda)):
        return []
    outside = node.free_vars()
    return [(0, 0, 0) + p + (1,) for p, inner in walk(node.fn.args[0].body)
            if isinstance(inner, Apply) and isinstance(inner.fn, Prim)
            and inner.fn.name == "map" and len(inner.args) == 1
            and isinstance(inner.args[0], Var) and inner.args[0].name in outside]


def _candidates(expr: Expr) -> list[tuple[str, Path]]:
    """The normalising rewrites to try, in order: the first that applies is taken."""
    out: list[tuple[str, Path]] = []
    for path, node in walk(expr):
        out.extend(("transpose-transpose-introduction", path + p)
                   for p in _inner_operands(node))
        if isinstance(node, Prim) and node.name == "allPairs":
            out.append(("allPairs→maps", path))
        elif isinstance(node, Prim) and node.name in FOLDS and node.args and \
                isinstance(node.args[0], Lambda):
            out.append(("reduce-map-fission", path))
        elif isinstance(node, Prim) and node.name == "map" and node.args and \
                isinstance(node.args[0], Lambda) and isinstance(node.args[0].body, Apply) and \
                isinstance(node.args[0].body.fn, Prim) and node.args[0].body.fn.name == "at":
            out.append(("map-at-join", path))
        elif isinstance(node, Apply) and isinstance(node.fn, Lambda):
            out.append(("β-reduction", path))
        elif isinstance(node, Apply) and isinstance(node.fn, Compose) and \
                not _is_dot_chain(node.fn):
            out.append(("compose-apply", path))
        elif isinstance(node, Apply) and isinstance(node.fn, Prim) and \
                node.fn.name == "reduce" and len(node.args) == 1 and \
                isinstance(node.args[0], Apply) and isinstance(node.args[0].fn, Prim) and \
                node.args[0].fn.name == "map":
            out.append(("apply-compose", path))
        elif isinstance(node, Lambda) and path and len(node.params) == 1 and \
                _pair_operator(node) is not None:
            out.append(("operator-η", path))
        elif isinstance(node, Lambda) and path and not isinstance(node.body, Lambda):
            out.append(("η-reduction", path))
    return out


def normalise(expr: Expr, *input_types: Type | str, limit: int = 200) -> Normalised:
    """The program in normal form, by basic rules; each rewrite is type-checked where it
    happens, and a rewrite the rules refuse is left out (the program keeps that part as
    written)."""
    from ..rewriting.application import RewriteRefused, apply

    steps: list[Step] = []
    for _ in range(limit):
        for rule, path in _candidates(expr):
            try:
                result = apply(expr, rule, path, *input_types)
            except (RewriteRefused, WorkbenchError):
                continue
            steps.append(Step(rule, path, {}, result))
            expr = result
            break
        else:
            return Normalised(expr, tuple(steps))
    raise WorkbenchError(f"normalisation did not end within {limit} rewrites "
                         f"(last: {steps[-1].describe() if steps else 'none'})")
