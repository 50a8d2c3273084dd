"""A term of an e-graph derived from the graph's start: the ordinary steps — rules at paths
of the whole program, as a derivation replays them — that rewrite the start into it.

An e-graph holds equalities; our rules are directed (``reduceSeq`` becomes
``reduceSeqUnroll``, never back). Each e-node a rewrite created keeps the rewrites that
created it (``rewriting.egraph.Origin``: the term rewritten and the step there). A term is
derived top-down: at each place its top e-node is reached, then each child's term. The
e-node is reached by one of several *routes*, tried in turn until one from which every
child's term derives:

1. the e-node already in place; or an origin's step applied to the term in place where
   that gives the e-node (an e-node can hold by congruence alone: ``toLocal`` applied to
   ``mapLocal (reduceSeqUnroll f)``, then ``mapLocal (reduceSeq f)`` merged with it; the
   step applies to either); or the first origin's: the e-node it rewrote reached first,
   then its step;
2. each origin in turn applied to the very term it rewrote, derived first (a macro applied
   to ``reduceSeq`` puts ``reduceSeq`` below, one applied to ``reduceSeqUnroll`` puts
   ``reduceSeqUnroll``: both give one e-node, and only one leads on to the children wanted).

A route that comes back to where it began is not taken, and one that failed is not tried
again from the same program. A term still not derived is one the graph holds only through
an equality read backwards: extractions keep only terms whose derivation is found
(``EGraph.sample(derivable=True)``).
"""

from __future__ import annotations

from ..errors import WorkbenchError
from ..expr import Expr, Path, subterm
from .enode import ENode, NoDerivation, Origin, head_of
from .step import Step

# rewrites tried in deriving one term (the routes backed out of count): a term past it is
# reported as not derived
DERIVATION_STEPS = 4000


class Routes:
    """One derivation's search through ``graph``'s recorded origins (``routes``: every
    route, else only the first at each place, as version 2 of the egraph strategy)."""

    def __init__(self, graph, routes: bool = True):  # an ``EGraph``
        self.graph = graph
        self.routes = routes
        self.trying: set = set()  # (program, path, target) being derived, up the stack
        self.failed: set = set()  # ... that no route derives
        self.tried = 0

    def derive(self, target: Expr) -> list[Step]:
        steps: list[Step] = []
        try:
            program = self._derive(self.graph.start, (), target, steps)
        except RecursionError:
            raise NoDerivation(f"the routes to {target} nest too deep") from None
        if program != target:
            raise NoDerivation(f"the steps found reach {program}, not {target}")
        return steps

    def _derive(self, program: Expr, path: Path, target: Expr, steps: list[Step]) -> Expr:
        """``program`` with ``target`` at ``path``: its top e-node reached by each route in
        turn until one from which every child's term derives."""
        if subterm(program, path) == target:
            return program
        key = (program, path, target)
        if key in self.failed or key in self.trying:
            raise NoDerivation(f"no route leads to {target} at {path} here")
        want = self._node(program, path, target)
        exact = [None, *self.graph.origins.get(want, [])]
        mark, why = len(steps), None
        self.trying.add(key)
        try:
            for origin in exact if self.routes else exact[:1]:
                del steps[mark:]
                try:
                    return self._children(self._reach(program, path, want, steps, origin),
                                          path, target, steps)
                except NoDerivation as e:
                    why = e
        finally:
            self.trying.discard(key)
        self.failed.add(key)
        raise why

    def _children(self, program: Expr, path: Path, target: Expr, steps: list[Step]) -> Expr:
        """``program``, its term at ``path`` of ``target``'s top e-node, with each child's
        term derived."""
        if len(subterm(program, path).children()) != len(target.children()):
            raise NoDerivation(f"{subterm(program, path)} has not the shape of {target}")
        for i, child in enumerate(target.children()):
            program = self._derive(program, path + (i,), child, steps)
        return program

    def _reach(self, program: Expr, path: Path, want: ENode, steps: list[Step],
               exact: Origin | None = None) -> Expr:
        """``program`` with the e-node ``want`` at the top of ``path``: by ``exact``, one of
        its origins applied to the very term it rewrote; else by the first route (the
        module's docstring)."""
        self.tried += 1
        if self.tried > DERIVATION_STEPS:
            raise NoDerivation(f"no derivation within {DERIVATION_STEPS} rewrites tried")
        if exact is not None:
            return self._step(self._derive(program, path, exact.source, steps), path, exact,
                              steps)
        here = subterm(program, path)
        if head_of(here) == want.head and self._node(program, path, here) == want:
            return program
        origins = self.graph.origins.get(want, [])
        if not origins:
            raise NoDerivation(f"no recorded step leads from {here} to e-node {want.head}")
        for origin in origins if self.routes else []:
            moved = self._moved(program, path, origin, want, steps)
            if moved is not None:
                return moved
        source = self._node(program, path, origins[0].source)
        program = self._reach(program, path, source, steps)
        moved = self._moved(program, path, origins[0], want, steps)
        if moved is None:
            program = self._derive(program, path, origins[0].source, steps)
            return self._step(program, path, origins[0], steps)
        return moved

    def _moved(self, program: Expr, path: Path, origin: Origin, want: ENode,
               steps: list[Step]) -> Expr | None:
        """``program`` with ``origin``'s step applied at ``path`` where that gives the e-node
        ``want`` there (the step recorded), else None."""
        step = _placed(origin, path)
        moved = self._applied(program, step)
        if moved is None or \
                self._node(moved, path, subterm(moved, path)) != want:
            return None
        steps.append(step)
        return moved

    def _step(self, program: Expr, path: Path, origin: Origin, steps: list[Step]) -> Expr:
        """``program`` with ``origin``'s step applied at ``path`` (where the term it
        rewrote stands)."""
        step = _placed(origin, path)
        moved = self._applied(program, step)
        if moved is None:
            raise NoDerivation(f"{step.describe()} does not apply to {origin.source}")
        steps.append(step)
        return moved

    def _node(self, program: Expr, path: Path, term: Expr) -> ENode:
        """The e-node of ``term`` put at ``path`` of ``program``; ``NoDerivation`` where the
        program does not type with it there (the rest of it not yet what the term's
        e-class was met in)."""
        try:
            return self.graph.node_in_place(program, path, term)
        except NoDerivation:
            raise
        except WorkbenchError as err:
            raise NoDerivation(f"{term} does not fit at {path} here: {err}") from None

    def _applied(self, program: Expr, step: Step) -> Expr | None:
        from .application import apply

        try:
            return apply(program, step.rule, step.path, *self.graph.types, **step.params)
        except WorkbenchError:
            return None


def _placed(origin: Origin, path: Path) -> Step:
    """``origin``'s step, its path relative to the term it rewrote, at ``path``."""
    return Step(origin.step.rule, path + tuple(origin.step.path), dict(origin.step.params))
