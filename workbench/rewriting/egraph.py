"""An e-graph over the project's own rules (equality saturation, as egg and egglog grow one):
e-classes of equal terms under a union-find, e-nodes hash-consed, every rule of a catalogue
applied at every e-node, congruence restored after each round, and any term of the graph
extracted with the derivation — ordinary steps — that rewrites the start into it.

Why not the ``egglog`` package. Its rules are equations over its own terms, matched by its
own engine; ours are Python functions (``rewriting.rule``: a guarded pattern, candidate
parameters read off the place, the result type-checked where it stands, the OpenCL nesting
checked). Holding our language in egglog means writing again, in egglog's language, the
catalogue's 104 rules (41 taken by random walks, 13 macros whose expansions are strategies
over the others) and the type checker they consult: sizes that must divide (a split by 4
holds of an array of 16, not of 6), the types of lambdas' variables (de Bruijn indices with
explicit substitution would add the shifting rules on top), the nesting of OpenCL maps.
Measured with egglog 13.2 (benchmarks/saturation.py --egglog, benchmarks/results/
egglog_encoding.json): asum, dot and mm written with de Bruijn indices and explicit
substitution, sizes as integers and no types, grown by the Fig. 6/7 rules that need no type
(split-join and the partial reduction at 9 split sizes, map fusion, the lowerings, β by
substitution, compose-apply) and by the associativity of a binary composition (ours is
flat): 21,201 (asum), 23,288 (dot) and 23,895 (mm) e-nodes after 3 iterations, and the 4th
iteration does not end within 50 s. Without associativity, dot and mm reach 12.3 million
e-nodes and 870 MiB in 8 iterations (26-34 s on this loaded host), the substitutions and
shifts of β outgrowing the program; with one split size, each reaches 25,000-31,000
e-nodes in 6 iterations and the 7th does not end within 50 s. Untyped, a split fires at
every map whatever its length, and nothing refuses what the type checker would. Our own
graph (below) applies the rules themselves, with their types: on asum at 4096 elements two
rounds grow about 3,900 e-nodes, and 58 of 59 terms sampled from the graph derive by
ordinary steps that replay (60 of 60 of dot's); matrix multiplication at 64 × 64 reaches
each of the CASES phase-1 programs by one or two sketches in about 2.5 s
(``rewriting.sketching``, benchmarks/saturation.py).

How. An e-node is a node's *head* (what it is without its children: ``map``, ``split 4``,
``λx.``), its children's e-classes and its *context*: the types it is applied to and
produces, the types of its free variables and the OpenCL maps around it. The context is in
the e-node because our rewrites hold where they are applied (``split 4`` holds for an array
of 16, not of 6; a ``mapLocal`` only inside a ``mapWorkgroup``): the same term in two
contexts is two e-classes, and no rewrite leaks from one place to another. A round takes
every e-node not yet expanded, builds a whole program with that e-node in its place (the
program where its e-class was first met, the e-node's term put in) and lists the rewrites
of the rules there (``rewrites(..., at=path)``); each result is added (only its new nodes
are new: hash-consing shares the rest) and the smallest subterm that changed is merged
with the term it replaces. Each e-node a rewrite creates keeps where it came from: the
term the rule rewrote and the step, relative to that term (its *origins*, one per rewrite
that gave it, up to ``ORIGINS``). A term is then derived from the start top-down: where the
e-node wanted differs from the one in place, the term an origin rewrote is reached first,
then its step applied (``derive``, ``rewriting.routes``). A term whose derivation cannot be
found (one the graph holds only through an equality read backwards: ``reduceSeqUnroll`` is
never rewritten back into ``reduceSeq``) raises ``NoDerivation``; the egraph strategy
extracts only terms that derive.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..errors import WorkbenchError
from ..expr import Compose, Expr, Path, replace, subterm, walk
from ..nesting import context
from ..typecheck import Annotation
from .application import annotation_of, rewrites
from .enode import ENode, Head, NoDerivation, Origin, head_of
from .routes import Routes
from .rule import Rule
from .step import Step

__all__ = ["Draw", "EGraph", "ENode", "Head", "NoDerivation", "Origin", "Round", "changed_place",
           "head_of", "nodes_of"]

# at most this many rewrites recorded as creating one e-node (``EGraph._record``)
ORIGINS = 4


@dataclass
class Round:
    """One round of saturation: the rules that fired (how many times each), the graph's size
    after it, and the seconds it took."""

    fired: dict[str, int]
    nodes: int
    classes: int
    seconds: float

    def as_json(self) -> dict:
        return {"fired": dict(self.fired), "nodes": self.nodes, "classes": self.classes,
                "seconds": round(self.seconds, 4)}


@dataclass
class EGraph:
    """An e-graph grown from ``start`` (at its ``types``) by ``rules``."""

    start: Expr
    types: tuple
    rules: list[Rule]
    parent: list[int] = field(default_factory=list)
    nodes: dict[ENode, int] = field(default_factory=dict)  # hash-cons: e-node -> e-class
    members: dict[int, list[ENode]] = field(default_factory=dict)
    templates: dict[Head, Expr] = field(default_factory=dict)
    places: dict[int, tuple[Expr, Path]] = field(default_factory=dict)  # where first met
    origins: dict[ENode, list[Origin]] = field(default_factory=dict)  # each rewrite's
    born: dict[ENode, int] = field(default_factory=dict)  # creation order
    expanded: set[ENode] = field(default_factory=set)
    rounds: list[Round] = field(default_factory=list)
    accept: Callable[[Expr], bool] | None = None  # results kept (e.g. vector widths run)
    inside: Callable[[Path], bool] | None = None  # places rewritten (e.g. a subtree)
    chains: bool = True  # a composition's functions apart from other functions (``context_at``)

    def __post_init__(self):
        self.types = tuple(self.types)
        note = annotation_of(self.start, self.types)
        self.root = self.add(self.start, (), self.start, note)
        self.start_nodes = len(self.born)  # e-nodes born before: the start's own

    # -- the union-find and hash-consing ----------------------------------------------------

    def find(self, c: int) -> int:
        while self.parent[c] != c:
            self.parent[c] = self.parent[self.parent[c]]
            c = self.parent[c]
        return c

    def canonical(self, n: ENode) -> ENode:
        return ENode(n.head, tuple(self.find(c) for c in n.children), n.context)

    def node_count(self) -> int:
        return len(self.nodes)

    def class_count(self) -> int:
        return len(self.members)

    def context_at(self, program: Expr, note: Annotation | None, path: Path) -> tuple:
        """What the e-node at ``path`` holds of its place: the types it is applied to and
        gives, its free variables' types (None first where the program does not type), the
        OpenCL maps around it, and (with ``chains``) whether it is one of a composition's
        functions. A composition is flat (``f ∘ (g ∘ h)`` is ``f ∘ g ∘ h``): a function of
        one must never share an e-class with a composition, which another place of the
        same types can put there (``map (iterate 1 f)`` rewritten to ``map f``, with ``f``
        a composition), or a term built from the graph splices it into its neighbours and
        has a shape no e-node has."""
        node = subterm(program, path)
        typing = note.typings.get(path) if note is not None else None
        chained = self.chains and bool(path) and isinstance(subterm(program, path[:-1]), Compose)
        if typing is None:
            return (None, context(program, path), chained)
        env = tuple(sorted((k, v) for k, v in typing.env.items() if k in node.free_vars()))
        return typing.args, typing.result, env, context(program, path), chained

    def add(self, term: Expr, path: Path, program: Expr, note: Annotation | None) -> int:
        """The e-class of ``term`` (standing at ``path`` of ``program``), its nodes added."""
        kids = tuple(self.add(child, path + (i,), program, note)
                     for i, child in enumerate(term.children()))
        head = head_of(term)
        self.templates.setdefault(head, term)
        n = ENode(head, kids, self.context_at(program, note, path))
        if n in self.nodes:
            return self.find(self.nodes[n])
        c = len(self.parent)
        self.parent.append(c)
        self.nodes[n] = c
        self.members[c] = [n]
        self.places[c] = (program, path)
        self.born[n] = len(self.born)
        return c

    def union(self, a: int, b: int) -> int:
        a, b = self.find(a), self.find(b)
        if a == b:
            return a
        if a > b:
            a, b = b, a  # the older e-class stays the representative
        self.parent[b] = a
        self.members[a].extend(self.members.pop(b))
        return a

    def rebuild(self) -> None:
        """Congruence restored: e-nodes equal once their children are merged are one e-node,
        and their e-classes one e-class."""
        changed = True
        while changed:
            changed = False
            table: dict[ENode, int] = {}
            for n, c in list(self.nodes.items()):
                canon, c = self.canonical(n), self.find(c)
                if canon in table and self.find(table[canon]) != c:
                    self.union(table[canon], c)
                    changed = True
                table[canon] = self.find(c)
                if canon != n:
                    self._rename(n, canon)
            self.nodes = {n: self.find(c) for n, c in table.items()}
        for c in self.members:
            self.members[c] = list(dict.fromkeys(self.canonical(n) for n in self.members[c]))

    def _rename(self, old: ENode, new: ENode) -> None:
        if old in self.born and new not in self.born:
            self.born[new] = self.born[old]
        for origin in self.origins.get(old, []):
            self._record(new, origin)
        if old in self.expanded:
            self.expanded.add(new)

    # -- terms ------------------------------------------------------------------------------

    def build(self, n: ENode, kids: list[Expr]) -> Expr:
        return self.templates[n.head].with_children(tuple(kids))

    def representative(self, c: int) -> Expr:
        """The term of the e-class where it was first met."""
        program, path = self.places[self.find(c)]
        return subterm(program, path)

    def witness(self, n: ENode) -> tuple[Expr, Path]:
        """A whole program holding ``n`` (its children the terms first met) in its place."""
        program, path = self.places[self.find(self.nodes[n])]
        kids = [self.representative(k) for k in n.children]
        return replace(program, path, self.build(n, kids)), path

    # -- saturation -------------------------------------------------------------------------

    def grow(self, node_limit: int = 5000, deadline: float | None = None,
             until: Callable[[EGraph], bool] | None = None) -> Round:
        """One round: every e-node not expanded yet rewritten by every rule; the graph
        rebuilt. With ``until``, the round ends as soon as it holds (asked after each
        e-node whose rewrites added to the graph, at most every 0.2 s)."""
        began, fired, asked = time.time(), {}, time.time()
        for n in [n for n in self.nodes if n not in self.expanded]:
            if len(self.nodes) >= node_limit or deadline is not None and time.time() > deadline:
                break
            n = self.canonical(n)  # the graph may have been rebuilt since the round began
            if n not in self.nodes or n in self.expanded:
                continue
            self.expanded.add(n)
            size = len(self.nodes)
            self._expand(n, fired)
            if until is not None and len(self.nodes) > size and time.time() - asked > 0.2:
                self.rebuild()
                if until(self):
                    break
                asked = time.time()
        self.rebuild()
        done = Round(fired, len(self.nodes), len(self.members), time.time() - began)
        self.rounds.append(done)
        return done

    def saturated(self) -> bool:
        return all(n in self.expanded for n in self.nodes)

    def _expand(self, n: ENode, fired: dict[str, int]) -> None:
        try:
            program, path = self.witness(n)
            if self.inside is not None and not self.inside(path):
                return
            found = rewrites(program, *self.types, at=path, rules=self.rules)
            found += self._pair_rewrites(program, path)
        except WorkbenchError:
            return  # a node whose witness no longer checks (a context lost in a merge)
        if self.accept is not None:
            found = [r for r in found if self.accept(r.result)]
        if not found:
            return
        note_before = annotation_of(program, self.types)
        pairs = {rule.name for rule in self.rules if rule.pair}
        for r in found:
            place = changed_place(program, r.result, r.rule in pairs)
            if place is None:
                continue
            before, after = subterm(program, place), subterm(r.result, place)
            old = self.add(before, place, program, note_before)
            note_after = annotation_of(r.result, self.types)  # once: a type check each
            c = self.add(after, place, r.result, note_after)
            top = self.canonical(self.top_node(after, place, r.result, note_after))
            if self.born.get(top, -1) >= self.start_nodes:
                relative = Step(r.rule, tuple(r.path[len(place):]), dict(r.params))
                self._record(top, Origin(before, relative))
            if self.find(old) != self.find(c):
                fired[r.rule] = fired.get(r.rule, 0) + 1
                self.union(old, c)

    def _pair_rewrites(self, program: Expr, path: Path) -> list:
        """At a composition, the pair rules at each of its functions but the last: a pair
        rule reads a function's right neighbour, which the function's own e-node does not
        hold (its witness is the composition where its e-class was first met, its neighbour
        maybe another), so the composition, which holds both, applies them."""
        node = subterm(program, path)
        pairs = [rule for rule in self.rules if rule.pair]
        if not isinstance(node, Compose) or not pairs:
            return []
        return [r for i in range(len(node.children()) - 1)
                for r in rewrites(program, *self.types, at=path + (i,), rules=pairs)]

    def _record(self, n: ENode, origin: Origin) -> None:
        """One more rewrite that creates ``n`` (at most ``ORIGINS``, each of another term):
        two rewrites can give the same e-node with other terms below it (a macro applied
        to ``reduceSeq`` and to ``reduceSeqUnroll``, which are one e-class), and only one
        of them may lead on to the children a term wants."""
        known = self.origins.setdefault(n, [])
        if len(known) < ORIGINS and all(o.source != origin.source or o.step != origin.step
                                        for o in known):
            known.append(origin)

    def top_node(self, term: Expr, path: Path, program: Expr, note) -> ENode:
        kids = tuple(self.class_of(child, path + (i,), program, note)
                     for i, child in enumerate(term.children()))
        return ENode(head_of(term), kids, self.context_at(program, note, path))

    def class_of(self, term: Expr, path: Path, program: Expr, note) -> int:
        """The e-class of a term of the graph standing at ``path`` of ``program``."""
        n = self.canonical(self.top_node(term, path, program, note))
        if n not in self.nodes:
            raise NoDerivation(f"{term} is not in the e-graph")
        return self.find(self.nodes[n])

    def saturate(self, rounds: int = 8, node_limit: int = 5000, seconds: float = 60.0,
                 until: Callable[[EGraph], bool] | None = None) -> EGraph:
        """Rounds until saturation, ``until`` holds, or a limit (rounds, e-nodes, time)."""
        deadline = time.time() + seconds
        for _ in range(rounds):
            if self.saturated() or len(self.nodes) >= node_limit or time.time() > deadline:
                break
            self.grow(node_limit, deadline, until)
            if until is not None and until(self):
                break
        return self

    # -- extraction -------------------------------------------------------------------------

    def smallest(self) -> dict[int, tuple[int, ENode]]:
        """Each e-class's smallest term: (its size, the e-node at its top)."""
        best: dict[int, tuple[int, ENode]] = {}
        changed = True
        while changed:
            changed = False
            for n, c in self.nodes.items():
                c = self.find(c)
                kids = [best.get(self.find(k)) for k in n.children]
                if any(k is None for k in kids):
                    continue
                size = 1 + sum(k[0] for k in kids)
                if c not in best or size < best[c][0]:
                    best[c] = (size, n)
                    changed = True
        return best

    def term(self, c: int, choose: Callable[[list[ENode]], ENode] | None = None,
             depth: int = 40, smallest: dict | None = None) -> Expr:
        """A term of e-class ``c``: ``choose`` picks an e-node among the e-class's (default:
        the smallest term); past ``depth`` or on a cycle, the smallest term is taken
        (``smallest``: the graph's ``smallest()``, where the caller has it)."""
        return self._term(self.find(c), choose, depth, frozenset(),
                          smallest if smallest is not None else self.smallest())

    def _term(self, c, choose, depth, above, smallest) -> Expr:
        options = [n for n in self.members[c]
                   if all(self.find(k) not in above | {c} for k in n.children)]
        if choose is None or depth <= 0 or not options:
            n = smallest[c][1]
        else:
            n = choose(options)
        kids = [self._term(self.find(k), choose, depth - 1, above | {c}, smallest)
                for k in n.children]
        return self.build(n, kids)

    def sample(self, count: int, seed: object = 0) -> Iterator[Expr]:
        """Terms of the root e-class drawn at random (each e-class picks one of its e-nodes,
        the newer ones — further rewritten — more often), each once."""
        rng = random.Random(f"egraph/{seed}")
        seen = set()
        smallest = self.smallest()  # the graph does not change while sampled
        yield from self._fresh(self.term(self.root, smallest=smallest), seen)
        draw = Draw(self, rng, smallest)
        for _ in range(count):
            yield from self._fresh(draw.term(self.root), seen)

    @staticmethod
    def _fresh(term: Expr, seen: set) -> Iterator[Expr]:
        if term not in seen:
            seen.add(term)
            yield term

    # -- derivations ------------------------------------------------------------------------

    def derive(self, target: Expr, routes: bool = True) -> list[Step]:
        """The steps, ordinary rules at paths of the whole program, that rewrite the start
        into ``target`` (a term of the root e-class); ``NoDerivation`` when the recorded
        origins do not reach it (``rewriting.routes``). Without ``routes``, only the first
        route is taken at each place (as version 2 of the egraph strategy derived)."""
        return Routes(self, routes).derive(target)

    def node_in_place(self, program: Expr, path: Path, term: Expr) -> ENode:
        """The e-node of ``term`` put at ``path`` of ``program``."""
        placed = replace(program, path, term)
        note = annotation_of(placed, self.types)
        return self.canonical(self.top_node(term, path, placed, note))

    def summary(self) -> dict:
        return {"nodes": len(self.nodes), "classes": len(self.members),
                "rounds": [r.as_json() for r in self.rounds], "saturated": self.saturated()}


class Draw:
    """Terms of an e-graph that does not change drawn at random, as ``EGraph.term`` draws
    them with a ``choose`` that picks an e-node by weight (``1 +`` its creation order): the
    same e-nodes for the same ``rng``, each e-class's e-nodes, their children's e-classes
    and weights found once (hashing an e-node's context each time a draw met it took 20 of
    the 30 s that gemv's extraction had at 4096 × 4096)."""

    def __init__(self, graph: EGraph, rng: random.Random, smallest: dict):
        self.graph, self.rng, self.smallest = graph, rng, smallest
        # e-class -> its e-nodes with their children's e-classes, their weights, and every
        # child's e-class
        self.table: dict[int, tuple[list, list[int], frozenset]] = {}

    def options(self, c: int) -> tuple[list, list[int], frozenset]:
        if c not in self.table:
            g = self.graph
            nodes = [(n, tuple(g.find(k) for k in n.children)) for n in g.members[c]]
            self.table[c] = (nodes, [1 + g.born.get(n, 0) for n, _ in nodes],
                             frozenset(k for _, kids in nodes for k in kids))
        return self.table[c]

    def term(self, c: int, depth: int = 40, above: frozenset = frozenset()) -> Expr:
        nodes, weights, below = self.options(c)
        if c not in below and below.isdisjoint(above):  # no e-node leads back up
            kept, kept_weights = range(len(nodes)), weights
        else:
            kept = [i for i, (_, kids) in enumerate(nodes)
                    if all(k not in above and k != c for k in kids)]
            kept_weights = [weights[i] for i in kept]
        if depth <= 0 or not kept:
            n = self.smallest[c][1]
            kids = tuple(self.graph.find(k) for k in n.children)
        else:
            n, kids = nodes[self.rng.choices(kept, weights=kept_weights)[0]]
        inner = above | {c}
        return self.graph.build(n, [self.term(k, depth - 1, inner) for k in kids])


def changed_place(before: Expr, after: Expr, pair: bool = False) -> Path | None:
    """The path of the smallest subterm that differs (None for equal terms): down through
    nodes of the same head whose children differ in one place only (never into the
    functions of a composition for a ``pair`` rule, which holds of two of them at once)."""
    if before == after:
        return None
    path: Path = ()
    while True:
        kids_b, kids_a = before.children(), after.children()
        if head_of(before) != head_of(after) or len(kids_b) != len(kids_a) or \
                pair and isinstance(before, Compose):
            return path
        differ = [i for i, (b, a) in enumerate(zip(kids_b, kids_a)) if b != a]
        if len(differ) != 1:
            return path
        path, before, after = path + (differ[0],), kids_b[differ[0]], kids_a[differ[0]]


def nodes_of(term: Expr) -> int:
    return sum(1 for _ in walk(term))
