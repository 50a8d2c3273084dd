"""The four macro rules of CASES 2016 for matrix multiplication: 1-D blocking, 2-D blocking,
tiling and tiling of the innermost loop (Lift's apply1DRegisterBlocking,
apply2DRegisterBlocking, tileMapMap and finishTiling). Each is one step of a derivation
and a fixed series of basic rules (``interchange``, ``algorithmic``) that ``expand`` lists:
the slides' "register blocking as a series of rewrites".

A macro first rewrites its site into the form its optimisation needs (moving a ``join``
out of a map, η-expanding, turning compositions into applications), then applies the
rewrites that block or tile. It works on a copy of the site — the node with the variables
it uses bound by a lambda — so its steps can be replayed anywhere; when a basic step does
not apply, the macro is refused with that step's number, rule, place and reason.

- **1-D blocking (k)** at ``map (λa. map (λb. R a b) ys) xs`` (R a reduction): k rows at a
  time; the column loop runs over the k rows together, reducing into an array of k.
- **2-D blocking (k, l)**: k rows and l columns at a time; the accumulator is a k×l block.
- **tiling (m, n)** at ``map (λa. map (λb. e) ys) xs``: the output in m×n tiles
  (``untile``), each tile's rows and columns as two inner maps.
- **tiling of the innermost loop (s)** at two nested maps whose body reduces (the maps of a
  tile): the reduction in chunks of s, the loop over chunks outside both maps, its
  accumulator the whole tile.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import format_path
from ..expr import Apply, Compose, Expr, Lambda, Path, Prim, Var, fresh_name, subterm, walk
from ..sizes import Size
from ..types import ArrayType
from .algorithmic import is_prim
from .interchange import REDUCTIONS, applied, is_map, plain_lambda
from .rule import Refused, Rule, RuleParam, Site, powers_of_two_dividing
from .step import Step
from .strategies import State, rule_at

NODE: Path = (0, 0)  # where a function site's node stands in the copy a macro works on


class _Stop(Exception):
    def __init__(self, refused: Refused):
        self.refused = refused


class Chain:
    """The basic steps of one macro on its copy of the site (the site's node at ``at``); a
    refused step stops it. Each step remembers whether the site's node was a composition
    before it (``Expansion.steps_at``)."""

    def __init__(self, expr: Expr, types: tuple, macro: str, at: Path = NODE):
        self.state = State(expr, types)
        self.macro = macro
        self.at = at
        self.composed: list[bool] = []

    @property
    def expr(self) -> Expr:
        return self.state.expr

    def node(self, path: Path) -> Expr:
        return subterm(self.expr, path)

    def apply(self, rule: str, path: Path, **params) -> None:
        composed = isinstance(self.node(self.at), Compose)
        result = rule_at(rule, path, **params)(self.state)
        if isinstance(result, Refused):
            number = len(self.state.steps) + 1
            where = format_path(self.outside(path))
            raise _Stop(Refused(f"{self.macro}: basic step {number}, {rule} at {where} (of the "
                                f"site), does not apply: {result.reason}"))
        self.state = result
        self.composed.append(composed)

    def find(self, pred: Callable[[Expr], bool], under: Path, what: str) -> Path:
        found = self.search(pred, under)
        if found is None:
            raise _Stop(Refused(f"{self.macro}: {what} not found at "
                                f"{format_path(self.outside(under))} of the site"))
        return found

    def search(self, pred: Callable[[Expr], bool], under: Path) -> Path | None:
        for path, node in walk(self.node(under), tuple(under)):
            if pred(node):
                return path
        return None

    def refuse(self, reason: str) -> None:
        raise _Stop(Refused(f"{self.macro}: {reason}"))

    def functions(self, at: Path) -> list[tuple[Path, Expr]]:
        """The functions of ``(f ∘ g ∘ …) xs`` (or ``f xs``) at ``at`` with their paths,
        outermost first."""
        fn = self.node(at).fn
        if isinstance(fn, Compose):
            return [(at + (0, i), f) for i, f in enumerate(fn.fns)]
        return [(at + (0,), fn)]


    def outside(self, path: Path) -> Path:
        """A path of the copy as a path relative to the site's node."""
        return path[len(self.at):] if path[:len(self.at)] == self.at else path


def local_copy(site: Site) -> tuple[Expr, tuple, Path]:
    """A copy of the site's node that type-checks on its own, and where the node stands in
    it: ``λv… x. node x`` for a function applied to one array, ``λv…. node`` for a value
    (the variables of the enclosing scope it uses bound first, with their types there)."""
    env = site.typing.env if site.typing is not None else {}
    free = sorted(v for v in site.node.free_vars() if v in env)
    types = tuple(env[v] for v in free)
    if site.typing is not None and len(site.typing.args) == 1:
        x = fresh_name("input", set(free) | set(site.node.free_vars()))
        root = Lambda(tuple(free) + (x,), Apply(site.node, (Var(x),)))
        return root, types + (site.typing.args[0],), NODE
    if free:
        return Lambda(tuple(free), site.node), types, (0,)
    return site.node, (), ()


class Expansion:
    """A macro's basic steps (on its copy of the site) and what they gave."""

    def __init__(self, chain: Chain):
        self.state = chain.state
        self.at = chain.at
        self.composed = tuple(chain.composed)
        self._outside = chain.outside

    @property
    def expr(self) -> Expr:
        """The site's node after the macro."""
        return subterm(self.state.expr, self.at)

    @property
    def steps(self) -> tuple[Step, ...]:
        """The basic steps, with paths relative to the site's node."""
        return tuple(Step(s.rule, self._outside(s.path), dict(s.params))
                     for s in self.state.steps)

    def steps_at(self, site_path: Path, root: Expr) -> list[Step]:
        """The basic steps with paths in the whole expression (the site at ``site_path``
        of ``root``). Where the node has become a composition inside another composition,
        its functions are among that composition's: the paths say so."""
        parent = subterm(root, site_path[:-1]) if site_path else None
        out = []
        for s, composed in zip(self.state.steps, self.composed):
            rel = self._outside(s.path)
            if isinstance(parent, Compose) and composed and rel:
                path = site_path[:-1] + (site_path[-1] + rel[0],) + rel[1:]
            else:
                path = site_path + rel
            out.append(Step(s.rule, path, dict(s.params)))
        return out


def run_macro(site: Site, name: str, body: Callable[[Chain], None]) -> Expansion | Refused:
    """The macro's steps on a copy of the site."""
    root, types, at = local_copy(site)
    chain = Chain(root, types, name, at)
    try:
        body(chain)
    except _Stop as stop:
        return stop.refused
    return Expansion(chain)


# --- recognising the parts of a program -------------------------------------------------------

def map_over(node: Expr) -> bool:
    """``map f xs``: a high-level map applied to an array."""
    return isinstance(node, Apply) and is_map(node.fn) and len(node.args) == 1


def lambda_map(node: Expr) -> bool:
    """``map (λx. e)``."""
    return is_map(node) and plain_lambda(node.args[0])


def _independent_inner_map(f: Lambda) -> bool:
    body = f.body
    return map_over(body) and plain_lambda(body.fn.args[0]) \
        and f.params[0] not in body.args[0].free_vars()


def _reduces(e: Expr) -> bool:
    return any(is_prim(n, *REDUCTIONS) for _, n in walk(e))


# --- the shared parts of the chains ------------------------------------------------------------

def enable(chain: Chain, at: Path) -> Path:
    """Move the layout primitives applied last out of the map (``map (λa. join (map …))`` →
    ``map join ∘ map (λa. map …)``), writing a composition applied to one array as
    applications first; the path of the map left to block."""
    for _ in range(16):
        node = chain.node(at)
        if not lambda_map(node):
            chain.refuse(f"it rewrites a map of a lambda, not {_short(node)}")
        body = node.args[0].body
        parts = applied(body)
        if parts is None or len(parts[1]) != 1 or map_over(body):
            return at
        if isinstance(parts[0], Compose) and _reaches_map(body):
            chain.apply("compose-apply", at + (0, 0))
            continue
        if not (_layout(parts[0]) and _reaches_map(parts[1][0])):
            return at
        inside = isinstance(chain.node(at[:-1]), Compose) if at else False
        chain.apply("map-fission", at, at=1)
        at = at[:-1] + (at[-1] + 1,) if inside else at + (1,)
    return at


def _layout(f: Expr) -> bool:
    return isinstance(f, Prim) and f.decl.layout is not None


def _reaches_map(e: Expr) -> bool:
    """``e`` is a map applied to an array, seen through layout primitives."""
    while True:
        if map_over(e):
            return True
        parts = applied(e)
        if parts is None or len(parts[1]) != 1:
            return False
        if isinstance(parts[0], Compose):  # layouts, then a map: (join ∘ map f ∘ split n) ys
            for f in parts[0].fns:
                if is_map(f) and not _layout(f):
                    return True
                if not _layout(f):
                    return False
            return False
        if not _layout(parts[0]):
            return False
        e = parts[1][0]


def split_rows(chain: Chain, at: Path, k: Size) -> tuple[Path, Lambda]:
    """split-join and η on the map at ``at``: returns the path of ``map F xs`` (the map over
    one chunk, inside the lambda over chunks) and F."""
    f = chain.node(at).args[0]
    before = chain.node(at[:-1]) if at else None
    chain.apply("split-join", at, n=k)
    mm = chain.find(lambda n: is_map(n) and is_map(n.args[0]) and n.args[0].args[0] is f,
                    at[:-1] if isinstance(before, Compose) else at, "the map of chunks")
    chain.apply("eta", mm)
    return mm + (0, 0), f


def pull_reduction(chain: Chain, at: Path) -> None:
    """At ``map (λx. … reduce f z (… zip …)) xs``: the reduction moved out of the map, its
    accumulator an array of the map's length, the map's other work fused into it."""
    target = at
    # fission until the map of the lambda keeps only the zip it reads
    for _ in range(8):
        fns = chain.functions(target)
        last = fns[-1]
        if not lambda_map(last[1]) or _is_zip(last[1].args[0].body):
            break
        chain.apply("map-fission", last[0], at=1)
        for path, fn in chain.functions(target):
            if is_map(fn) and isinstance(fn.args[0], Compose):
                chain.apply("map-fission", path, at=1)
    fns = chain.functions(target)
    reduction = next((p for p, fn in fns if is_map(fn) and is_prim(fn.args[0], *REDUCTIONS)),
                     None)
    if reduction is None:
        chain.refuse("no reduction to move out of the map (map (reduce f z) after fission)")
    chain.apply("map-reduce-interchange", reduction)
    # maps of maps after the reduction: transposed through, then the transpositions cancel
    while True:
        fns = chain.functions(target)
        names = [_name(fn) for _, fn in fns]
        i = _reduction_index(names)
        mapmap = next((j for j in range(i + 2, len(fns)) if names[j] == "map-map"), None)
        if mapmap is None or names[mapmap - 1] != "transpose":
            break
        chain.apply("transpose-map-map", fns[mapmap][0])
        fns = chain.functions(target)
        chain.apply("transpose-transpose", fns[mapmap - 1][0])
    if isinstance(chain.node(target).fn, Compose):
        chain.apply("compose-apply", target)
    # transpose (map (λx. zip …) xs): the zip of the transposed rows
    zt = chain.find(_transposed_zip_map, target, "the zip the reduction reads")
    chain.apply("zip-transpose", zt)
    while True:
        fused = chain.search(_map_of_map, target)
        if fused is None:
            break
        chain.apply("map-fusion-apply", fused)
    red = chain.search(lambda n: isinstance(n, Apply) and is_prim(n.fn, *REDUCTIONS)
                         and map_over(n.args[0]), target)
    if red is not None:
        chain.apply("apply-compose", red)
        chain.apply("reduce-map-fusion", red + (0, 0))
    mz = chain.search(_map_zip_of_map, target)
    if mz is not None:
        chain.apply("map-zip-fusion", mz)


def _name(fn: Expr) -> str:
    if is_prim(fn, "transpose"):
        return "transpose"
    if is_prim(fn, *REDUCTIONS):
        return "reduce"
    if is_map(fn) and is_map(fn.args[0]):
        return "map-map"
    return "other"


def _reduction_index(names: list[str]) -> int:
    return names.index("reduce") if "reduce" in names else len(names)


def _is_zip(e: Expr) -> bool:
    parts = applied(e)
    return parts is not None and is_prim(parts[0], "zip")


def _transposed_zip_map(n: Expr) -> bool:
    parts = applied(n)
    return parts is not None and is_prim(parts[0], "transpose") and len(parts[1]) == 1 \
        and map_over(parts[1][0]) and plain_lambda(parts[1][0].fn.args[0]) \
        and _is_zip(parts[1][0].fn.args[0].body)


def _map_of_map(n: Expr) -> bool:
    """``map f (map g xs)`` where both maps compute (maps of layouts are views)."""
    from ..layout import mapped_layout

    return map_over(n) and map_over(n.args[0]) and mapped_layout(n.fn) is None \
        and mapped_layout(n.args[0].fn) is None


def _map_zip_of_map(n: Expr) -> bool:
    return map_over(n) and _is_zip(n.args[0]) and any(map_over(a) for a in n.args[0].args)


def _short(e: Expr) -> str:
    text = str(e)
    return f"`{text}`" if len(text) <= 60 else f"`{text[:57]}...`"


# --- the four macros ------------------------------------------------------------------------------

def block_rows(chain: Chain, at: Path, k: Size) -> None:
    """1-D blocking of the map at ``at``."""
    at = enable(chain, at)
    if not _reduces(chain.node(at).args[0]):
        chain.refuse("the map computes no reduction whose accumulator could hold a block")
    inner, f = split_rows(chain, at, k)
    if _independent_inner_map(f):
        chain.apply("map-interchange", inner)
        inner = inner + (1, 0, 0, 0)  # map (λa. R) xs, inside the interchanged map
    pull_reduction(chain, inner)


def innermost_map(node: Expr) -> bool:
    """A map whose body reduces, with no other such map inside it (the column loop left
    after blocking the rows)."""
    if not (lambda_map(node) and _reduces(node.args[0].body)):
        return False
    return not any(lambda_map(m) and _reduces(m.args[0].body)
                   for _, m in walk(node.args[0].body))


def one_d_blocking(k: Size):
    def body(chain: Chain) -> None:
        block_rows(chain, chain.at, k)
    return body


def two_d_blocking(k: Size, l: Size):
    """The columns blocked by l, then the rows by k: the accumulator is k rows of l
    columns, its rows outermost (each row of the block is l neighbouring elements)."""
    def body(chain: Chain) -> None:
        node = chain.node(chain.at)
        if not lambda_map(node):
            chain.refuse(f"it rewrites a map of a lambda, not {_short(node)}")
        columns = chain.search(innermost_map, chain.at + (0, 0))
        if columns is None:
            chain.refuse("no map over columns inside the map over rows")
        block_rows(chain, columns, l)
        block_rows(chain, chain.at, k)
    return body


def tiling(m: Size, n: Size):
    def body(chain: Chain) -> None:
        at = enable(chain, chain.at)
        if not _independent_inner_map(chain.node(at).args[0]):
            chain.refuse("it tiles two nested maps over independent arrays: "
                         "map (λa. map (λb. e) ys) xs")
        inner, _ = split_rows(chain, at, m)
        body_path = inner + (0, 0, 0)  # map (λb. e) ys, the body of F
        chain.apply("split-join", body_path + (0,), n=n)
        chain.apply("compose-apply", body_path)
        chain.apply("map-fission", inner + (0,), at=1)
        chain.apply("eta", inner + (0, 1, 0, 0, 0))
        chain.apply("compose-apply", inner)
        chain.apply("map-interchange", inner + (1,))
        # join ∘ map (λas. map join (transpose …)) ∘ split m  →  untile ∘ map (λas. …) ∘ split m
        chunks = inner[:-2]
        parent, i = chunks[:-1], chunks[-1]
        chain.apply("map-fission", chunks, at=1)
        chain.apply("map-fission", parent + (i + 1,), at=1)
        chain.apply("map-fusion", parent + (i,))
        chain.apply("untile", parent + (i - 1,))
    return body


def innermost_tiling(s: Size):
    def body(chain: Chain) -> None:
        at = chain.at
        node = chain.node(at)
        if not (map_over(node) and plain_lambda(node.fn.args[0])
                and _independent_inner_map(node.fn.args[0])):
            chain.refuse("it tiles the reduction inside two nested maps over independent "
                         "arrays: map (λa. map (λb. … reduce …) ys) xs")
        if not _reduces(node.fn.args[0].body):
            chain.refuse("the maps compute no reduction")
        inner = at + (0, 0, 0)  # map (λb. R) ys
        red = _fold_over_zip(chain, inner + (0, 0, 0))
        chain.apply("reduce-split", red, s=s)
        chain.apply("compose-apply", red[:-1])
        chain.apply("split-zip", red[:-1] + (1,))
        chain.apply("apply-compose", red[:-1])
        chain.apply("reduce-map-fusion", red + (0,))
        pull_reduction(chain, inner)
        pull_reduction(chain, at)
    return body


def _fold_over_zip(chain: Chain, at: Path) -> Path:
    """Inside the body at ``at``: the path of ``reduceSeq f z`` applied to ``zip x y`` (a
    reduction fused with the map before it first)."""
    pair = chain.search(lambda n: isinstance(n, Compose) and len(n.fns) == 2
                        and is_prim(n.fns[0], *REDUCTIONS) and is_map(n.fns[1]), at)
    if pair is not None:
        chain.apply("reduce-map-fusion", pair + (0,))
    found = chain.search(lambda n: isinstance(n, Apply) and is_prim(n.fn, *REDUCTIONS)
                         and len(n.args) == 1 and _is_zip(n.args[0]), at)
    if found is None:
        chain.refuse("no reduction of a zip (reduce f z (zip x y)) inside the maps")
    return found + (0,)


def _macro_rule(name: str, equation: str, figure: str, build, params, doc: str) -> Rule:
    def rewrite(site: Site, p) -> Expr | Refused:
        expansion = run_macro(site, name, build(*(p[q.name] for q in params)))
        return expansion if isinstance(expansion, Refused) else expansion.expr

    return Rule(name, equation, "macro", figure, rewrite, params=params, doc=doc)


def _sizes(which: str):
    """Block and tile sizes worth trying: powers of two dividing the lengths they cut."""
    def candidates(site: Site) -> list[Size]:
        t = site.typing.args[0] if site.typing is not None and site.typing.args else None
        if which == "rows" and isinstance(t, ArrayType):
            return powers_of_two_dividing(t.size, 2, 64)
        return [Size.const(2 ** i) for i in range(1, 7)]
    return candidates


BLOCKING_1D = _macro_rule(
    "1d-blocking", "map (λa. map (λb. R a b) ys) xs → join (map (λas. transpose (map (λb. "
    "transpose (reduceSeq (λ(acc, p). map … (zip acc p.0)) (replicate k z) (zip (transpose "
    "as) b))) ys)) (split k xs))", "CASES 2016 Sect. 5.1; slides (register blocking)",
    one_d_blocking, (RuleParam("k", "rows per block", _sizes("rows")),),
    "split-join, η, map interchange, map fission, reduce–map interchange, transpositions, "
    "zip-transpose, map fusion, reduce–map fusion, map–zip fusion.")

BLOCKING_2D = _macro_rule(
    "2d-blocking", "map (λa. map (λb. R a b) ys) xs → … reduceSeq over a k×l block …",
    "CASES 2016 Sect. 5.1; Lift apply2DRegisterBlocking", two_d_blocking,
    (RuleParam("k", "rows per block", _sizes("rows")),
     RuleParam("l", "columns per block", _sizes("columns"))),
    "1-D blocking of the columns, then of the rows: the accumulator is a block of k rows of l "
    "columns.")

TILING = _macro_rule(
    "tiling", "map (λa. map (λb. e) ys) xs → untile (map (λas. map (λbs. map (λa. map (λb. "
    "e) bs) as) (split n ys)) (split m xs))", "CASES 2016 Sect. 5.1; slides (Tile, Untile)",
    tiling, (RuleParam("m", "rows per tile", _sizes("rows")),
             RuleParam("n", "columns per tile", _sizes("columns"))),
    "split-join on both maps, map interchange, map fission and fusion, untile.")

INNERMOST_TILING = _macro_rule(
    "innermost-tiling", "map (λa. map (λb. reduce … (zip a b)) bs) as → reduceSeq (λ(acc, "
    "x). map (λ(r, a). map (λ(c, b). reduceSeq … c (zip a b)) (zip r x.1)) (zip acc x.0)) … "
    "(zip (transpose (map (split s) as)) (transpose (map (split s) bs)))",
    "CASES 2016 Sect. 5.1; Lift finishTiling", innermost_tiling,
    (RuleParam("s", "elements of the reduction per chunk", _sizes("chunk")),),
    "The reduction in chunks of s (reduce-split, split-zip), its loop over chunks moved out "
    "of both maps (reduce–map interchange twice): the slides' TiledMultiply.")

RULES = [BLOCKING_1D, BLOCKING_2D, TILING, INNERMOST_TILING]
BUILDERS = {BLOCKING_1D.name: one_d_blocking, BLOCKING_2D.name: two_d_blocking,
            TILING.name: tiling, INNERMOST_TILING.name: innermost_tiling}


def expand(site: Site, rule: Rule, params: dict) -> Expansion | Refused:
    """The basic steps of a macro of this module at a site."""
    return run_macro(site, rule.name, BUILDERS[rule.name](*(params[q.name]
                                                            for q in rule.params)))


__all__ = ["RULES", "BUILDERS", "expand", "Expansion", "Chain", "run_macro", "local_copy"]
