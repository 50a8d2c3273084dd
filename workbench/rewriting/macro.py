"""What a macro rule is: a strategy over basic rules (``Rule.expand``), run on a copy of its
site. Applying a macro is one step of a derivation; its basic steps (``expand``) stay
visible, at their places in the whole expression, and replay to the macro's result.

The copy type-checks on its own: ``λv… x. node x`` for a function applied to one array
(the variables of the enclosing scope it uses bound first, with their types there), with
the pair ``node ∘ next`` in place of the node for a pair rule, and inside a ``mapWorkgroup``
of one group when the site stands directly in one (so that the rules see the nesting the
site has). When a basic step does not apply, the macro is refused with that step's number,
rule, place and reason.

A macro's outcome depends on nothing but its copy of the site, the copy's input types and
the parameters, so it is kept (``_OUTCOMES``): listing the rewrites of a program
(``rewrites``, a random walk's every move, the widget's rule list) tries every macro at
every node, mostly on sites it has already been tried on."""

from __future__ import annotations

import threading
from collections import OrderedDict

from ..errors import format_path
from ..expr import (
    Apply,
    Compose,
    Expr,
    Lambda,
    Lit,
    Path,
    Prim,
    UserFun,
    Var,
    fresh_name,
    signature_of,
    subterm,
    walk,
)
from ..sizes import Size
from ..types import ArrayType
from .match import Pattern
from .rule import Rule
from .site import Refused, Site
from .step import Step
from .strategies import NotFound, State, StepRefused, Strategy


def local_copy(site: Site, pair: bool = False) -> tuple[Expr, tuple, Path]:
    """The copy of the site a macro works on, its input types, and where the node (or the
    pair, a composition) stands in it."""
    node = Compose((site.node, site.next)) if pair else site.node
    typing = site.next_typing if pair else site.typing
    env = typing.env if typing is not None else {}
    free = sorted(v for v in node.free_vars() if v in env)
    types = tuple(env[v] for v in free)
    if typing is not None and len(typing.args) == 1:
        x = fresh_name("input", set(free) | set(node.free_vars()))
        levels = [level for level, _ in site.context]
        if levels and levels[-1] == "workgroup":  # as one work-group sees it
            wrapped = Apply(Prim("mapWorkgroup", (0, node)), (Var(x),))
            one_group = ArrayType(typing.args[0], Size.const(1))
            return Lambda(tuple(free) + (x,), wrapped), types + (one_group,), (0, 0, 0)
        return Lambda(tuple(free) + (x,), Apply(node, (Var(x),))), types + (typing.args[0],), \
            (0, 0)
    if free:
        return Lambda(tuple(free), node), types, (0,)
    return node, (), ()


class Expansion:
    """A macro's basic steps on its copy of the site, and what they gave."""

    def __init__(self, state: State, at: Path):
        self.state = state
        self.at = at

    @property
    def expr(self) -> Expr:
        """The site's node (a pair rule's: the composition of the pair) after the macro."""
        return subterm(self.state.expr, self.at)

    def outside(self, path: Path) -> Path:
        """A path of the copy as a path relative to the site's node."""
        return path[len(self.at):] if path[:len(self.at)] == self.at else path

    @property
    def steps(self) -> tuple[Step, ...]:
        """The basic steps, with paths relative to the site's node."""
        return tuple(Step(s.rule, self.outside(s.path), dict(s.params))
                     for s in self.state.steps)

    def steps_at(self, site_path: Path, root: Expr, start: Expr) -> list[Step]:
        """The basic steps with paths in the whole expression (the site at ``site_path`` of
        ``root``; ``start``, the copy before the first step). Where the node is a
        composition inside another composition, its functions are among that
        composition's: the paths say so."""
        parent = subterm(root, site_path[:-1]) if site_path else None
        out, before = [], start
        for s in self.state.steps:
            rel = self.outside(s.path)
            if isinstance(parent, Compose) and isinstance(subterm(before, self.at), Compose) \
                    and rel:
                path = site_path[:-1] + (site_path[-1] + rel[0],) + rel[1:]
            else:
                path = site_path + rel
            out.append(Step(s.rule, path, dict(s.params)))
            before = s.result
        return out


# Outcomes of macro runs by (macro, parameters, exact copy, input types, place), the most
# recently used last; each keeps its copy, so that the objects named in its key live on.
_OUTCOMES: OrderedDict = OrderedDict()
_OUTCOMES_KEPT = 4096
_OUTCOMES_LOCK = threading.Lock()  # a widget's search thread and its rule list share them


def forget_outcomes() -> None:
    """Forget the kept outcomes (a benchmark that times two searches of one program starts
    the second as cold as the first)."""
    with _OUTCOMES_LOCK:
        _OUTCOMES.clear()


def exact_key(expr: Expr) -> tuple:
    """A key equal for two expressions only where they are the same term, names included:
    the structural key (equal up to renaming bound variables) with the names of the
    binders in pre-order, each literal's exact value (``-0.0`` is not ``0.0``), the
    identity of each user function (two of one name may differ in type or NumPy callable)
    and of each signature."""
    extra = []
    for _, node in walk(expr):
        if isinstance(node, Lambda):
            extra.append(node.names())
        elif isinstance(node, Lit):
            extra.append(repr(node.value))
        elif isinstance(node, UserFun):
            extra.append(id(node))
        signature = signature_of(node)
        if signature is not None:
            extra.append(("signature", id(signature)))
    return expr.key(), tuple(extra)


def _outcome_key(rule: Rule, params: dict, copy: Expr, types: tuple, at: Path) -> tuple | None:
    try:
        key = (rule.name, rule.expand, tuple(sorted(
            (name, type(value).__name__, value) for name, value in params.items())),
            exact_key(copy), types, at)
        hash(key)
    except TypeError:  # a parameter or type that cannot be hashed: not kept
        return None
    return key


def run(site: Site, rule: Rule, params: dict) -> tuple[Expansion, Expr] | Refused:
    """The macro's strategy on a copy of the site: its expansion and the copy it started
    from, or why it does not apply (kept: the same copy gives the same outcome)."""
    pair = rule.pair and site.next is not None  # without a neighbour, its strategy says why
    copy, types, at = local_copy(site, pair)
    key = _outcome_key(rule, params, copy, types, at)
    if key is not None:
        with _OUTCOMES_LOCK:
            kept = _OUTCOMES.get(key)
            if kept is not None:
                _OUTCOMES.move_to_end(key)
                return kept[0]
    outcome = _run(rule, params, copy, types, at, pair)
    if key is not None:
        with _OUTCOMES_LOCK:
            _OUTCOMES[key] = (outcome, copy)
            if len(_OUTCOMES) > _OUTCOMES_KEPT:
                _OUTCOMES.popitem(last=False)
    return outcome


def _run(rule: Rule, params: dict, copy: Expr, types: tuple, at: Path,
         pair: bool) -> tuple[Expansion, Expr] | Refused:
    strategy: Strategy = rule.expand(params)
    start = State(copy, types, (), at + (0,) if pair else at)
    result = strategy(start)
    outside = Expansion(start, at).outside
    if isinstance(result, StepRefused):
        return Refused(f"{rule.name}: basic step {result.number}, {result.rule} at "
                       f"{format_path(outside(result.path))} (of the site), does not apply: "
                       f"{result.reason}")
    if isinstance(result, NotFound):
        return Refused(f"{rule.name}: {result.what} not found at "
                       f"{format_path(outside(result.path))} of the site")
    if isinstance(result, Refused):
        return result
    return Expansion(result, at), copy


def _result(rule: Rule, site: Site, params: dict):
    """A macro's result: its strategy's (a pair rule's: the functions that replace the
    pair). Where the site does not have the macro's left-hand side, its refusal, without
    a copy of the site made and typed for the strategy."""
    refused = rule.lhs.refusal(site) if rule.lhs is not None else None
    if refused is not None:
        return refused
    found = run(site, rule, params)
    if isinstance(found, Refused):
        return found
    result = found[0].expr
    if rule.pair:
        return list(result.fns) if isinstance(result, Compose) else [result]
    return result


def macro_rule(name: str, equation: str, figure: str, expand, params=(), pair=False,
               doc: str = "", rewrite=None, lhs: Pattern | None = None, **fields) -> Rule:
    """A macro whose strategy is ``expand(params)``: its result is the strategy's, unless
    ``rewrite`` builds the same result faster (the tests check that both agree). ``lhs``,
    the pattern of the site it rewrites (``Rule.lhs``), gives the refusal its strategy gives
    at a site of another shape; it is checked first, as a basic rule's pattern is (the
    tests check that both refuse alike)."""
    made: list[Rule] = []
    rule = Rule(name, equation, "macro", figure,
                rewrite or (lambda site, p: _result(made[0], site, p)), params=params,
                pair=pair, doc=doc, lhs=lhs, expand=expand, **fields)
    made.append(rule)
    return rule
