"""Hypothesis strategies for random expressions (closed, not necessarily well-typed)."""

from hypothesis import strategies as st

from workbench.expr import Apply, BinOp, Compose, Lambda, Lit, Prim, Section, TupleExpr, UnOp, Var
from workbench.primitives import PRIMITIVES
from workbench.sizes import Size

NAMES = ["x", "y", "acc", "xs", "ys", "a1", "row", "p", "α"]
OPS = ["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||"]

sizes = st.one_of(
    st.integers(1, 64).map(Size.const),
    st.sampled_from(["N", "M", "K"]).map(Size.var),
    st.tuples(st.sampled_from(["N", "M"]), st.sampled_from([2, 4, 128])).map(
        lambda t: Size.var(t[0]) / t[1]),
    st.tuples(st.integers(2, 8), st.sampled_from(["N", "M"])).map(lambda t: t[0] * Size.var(t[1])),
)

literals = st.one_of(
    st.integers(-1000, 1000).map(Lit),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(Lit),
    st.booleans().map(Lit),
)

patterns = st.recursive(st.sampled_from(NAMES),
                        lambda inner: st.lists(inner, min_size=2, max_size=3).map(tuple),
                        max_leaves=3)


def _names(pattern):
    return [pattern] if isinstance(pattern, str) else [n for p in pattern for n in _names(p)]


@st.composite
def primitives(draw, expr):
    decl = draw(st.sampled_from(sorted(PRIMITIVES.values(), key=lambda d: d.name)))
    args = []
    for param in decl.params:
        if param.kind == "dim":
            args.append(draw(st.integers(0, 2)))
        elif param.kind == "size":
            args.append(draw(sizes))
        elif param.kind == "index":
            args.append(draw(st.integers(0, 3)))
        elif param.kind == "sizes":
            args.append(tuple(draw(st.lists(sizes, min_size=1, max_size=3))))
        elif param.kind == "distribution":
            args.append(draw(st.sampled_from(["block", "copy", "overlap 0", "overlap 2"])))
        else:
            args.append(draw(expr))
    return Prim(decl.name, tuple(args))


@st.composite
def expressions(draw, scope=(), depth=0):
    """A random closed expression whose variables come from ``scope``."""
    leaves = [literals, st.sampled_from([Section(op) for op in OPS])]
    if scope:
        leaves.append(st.sampled_from(sorted(set(scope))).map(Var))
    if depth >= 4:
        return draw(st.one_of(*leaves))
    sub = expressions(scope=scope, depth=depth + 1)
    kind = draw(st.sampled_from(["leaf", "leaf", "prim", "prim", "apply", "compose", "lambda",
                                 "binop", "unop", "section", "tuple", "select", "project"]))
    if kind == "leaf":
        return draw(st.one_of(*leaves))
    if kind == "prim":
        return draw(primitives(sub))
    if kind == "apply":
        fn = draw(sub)
        return Apply(fn, tuple(draw(st.lists(sub, min_size=1, max_size=3))))
    if kind == "compose":
        return Compose(tuple(draw(st.lists(sub, min_size=2, max_size=4))))
    if kind == "lambda":
        params = draw(st.lists(patterns, min_size=1, max_size=3))
        names = tuple(n for p in params for n in _names(p))
        body = draw(expressions(scope=tuple(scope) + names, depth=depth + 1))
        return Lambda(tuple(params), body)
    if kind == "binop":
        return BinOp(draw(st.sampled_from(OPS)), draw(sub), draw(sub))
    if kind == "unop":
        operand = draw(sub)
        op = draw(st.sampled_from(["-", "!"]))
        if op == "-" and isinstance(operand, Lit):
            op = "!"  # -3 is the literal -3, not a negation
        return UnOp(op, operand)
    if kind == "section":
        op = draw(st.sampled_from(OPS))
        if op != "-" and draw(st.booleans()):
            return Section(op, None, draw(sub))
        return Section(op, draw(sub), None)
    if kind == "tuple":
        return TupleExpr(tuple(draw(st.lists(sub, min_size=2, max_size=3))))
    if kind == "select":
        return Apply(Prim("select"), (draw(sub), draw(sub), draw(sub)))
    return Apply(Prim("get", (draw(st.integers(0, 2)),)), (draw(sub),))
