"""Skeletons of the other seeds: Futhark's ``loop`` and P2CL's stage-generate (one primitive:
an ``iterate`` whose function also receives the stage number), P2CL's operation map, SkelCL's
``allPairs``, and the low-level scans (``scanSeq`` in one work-item, ``scanLocal`` by the
work-items of a work-group, after Blelloch).

``loop n (λi x. e)`` applies its function n times; in stage k the stage variable ``i`` is k,
both as an int value and as a size (``split (2^(10-i))``), so each stage may have its own
sizes and parameters (KTH thesis Sect. 4.2.2: "an iterator that can be used to vary
operations in different stages").
"""

from __future__ import annotations

from .. import values as V
from ..expr import Apply, Expr, Lambda, Lit, Prim, Var, bind_sizes, fresh_name, substitute, walk
from ..primitive import ALGORITHMIC, FUN, OPENCL, SIZE, VALUE, Kernel, Primitive, define
from ..sizes import Size
from ..types import INT, ArrayType
from .algorithmic import array_arg, scan_type

# --- loop / stage-generate ---------------------------------------------------------------

def stage_name(f: Expr) -> str | None:
    """The stage variable of a loop's function ``λi x. e`` (or ``λi. g``)."""
    if isinstance(f, Lambda) and isinstance(f.params[0], str):
        return f.params[0]
    return None


def stage_function(f: Lambda, k: int) -> Expr:
    """The function of stage k: the stage variable replaced by k, as a value and as a size."""
    name = f.params[0]
    body = bind_sizes(substitute(f.body, name, Lit(k)), {name: Size.const(k)})
    return Lambda(f.params[1:], body) if len(f.params) > 1 else body


def stage_variables(expr: Expr) -> frozenset[str]:
    """The names bound as stage variables by the loops of an expression."""
    return frozenset(stage_name(node.args[1]) for _, node in walk(expr)
                     if isinstance(node, Prim) and node.name == "loop"
                     and stage_name(node.args[1]) is not None)


def loop_type(chk, node, args, env, path):
    n = chk.size(node.args[0])
    f = node.args[1]
    name = stage_name(f)
    if name is None:
        chk.fail(path, "loop expects a function of the stage number, λi x. e (or λi. f)")
    t = args[0]
    if n.is_integer_constant:
        if n.value > 64:
            chk.fail(path, f"loop {n}: at most 64 stages are supported")
        saved = chk.size_env.get(name)
        try:
            for k in range(int(n.value)):
                chk.size_env[name] = k  # the stage variable as a size (split (2^i))
                t = chk.apply(f, [INT, t], env, path + (0,))
        finally:
            chk.size_env.pop(name, None)
            if saved is not None:
                chk.size_env[name] = saved
        return t
    out = chk.apply(f, [INT, t], env, path + (0,))
    if out != t:
        chk.fail(path, f"loop {n} with a symbolic number of stages: its function must keep "
                       f"the type {t}, it returns {out}")
    return t


def loop_semantics(ev, node, args):
    f = node.args[1]
    name = stage_name(f)
    x = args[0]
    for k in range(ev.size(node.args[0])):
        stage = type(ev)({**ev.sizes, name: k}, ev.depth, ev.env)
        x = stage.call(f, [k, x])
    return x


define(Primitive(
    "loop", ALGORITHMIC, "(n : size) -> (int -> A -> A) -> A -> A",
    "Futhark G7 (loop), P2CL stage-generate (Sect. 4.2.2)",
    "Apply a function of the stage number n times: stage k computes f k x.",
    loop_type, loop_semantics, params=(SIZE(), FUN()),
    aliases=("Loop", "stageGenerate", "stage-generate", "StageGenerate"), kernel=Kernel.LOOP))


# --- P2CL's operation map ------------------------------------------------------------------

def op_map_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "opMap")
    n = chk.size(node.args[0])
    chk.require_divides(a.size, n, path, f"opMap {n}")
    out = chk.apply(node.args[1], [ArrayType(a.elem, a.size / n)], env, path + (0,))
    if not isinstance(out, ArrayType):
        chk.fail(path, f"opMap: the operation must return an array, it returns {out}")
    return ArrayType(out.elem, out.size * n)


def op_map_semantics(ev, node, args):
    n = ev.size(node.args[0])
    chunks = V.split(args[0], ev.depth, V.length(args[0], ev.depth) // n)
    return V.join(ev.map(node.args[1], chunks), ev.depth)


define(Primitive(
    "opMap", ALGORITHMIC, "(n : size) -> ([A]_L -> [B]_M) -> [A]_{n·L} -> [B]_{n·M}",
    "P2CL operation map (Sect. 4.2.1)",
    "Repeat an operation on n consecutive segments: join ∘ map f ∘ split (N/n).",
    op_map_type, op_map_semantics, params=(SIZE(), FUN()),
    aliases=("OpMap", "operationMap", "operation-map"), codegen=False))


# --- SkelCL's allpairs ---------------------------------------------------------------------

def all_pairs_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "allPairs")
    b = array_arg(chk, args[1], path, "allPairs (second argument)")
    c = chk.apply(node.args[0], [a.elem, b.elem], env, path + (0,))
    return ArrayType(ArrayType(c, b.size), a.size)


def all_pairs_expansion(f: Expr) -> Lambda:
    """``λxs ys. map (λx. map (λy. f x y) ys) xs`` (SkelCL Def. 3.9)."""
    avoid = f.free_vars()
    xs, ys, x, y = (fresh_name(n, avoid) for n in ("xs", "ys", "x", "y"))
    inner = Prim("map", (Lambda((y,), Apply(f, (Var(x), Var(y)))),))
    outer = Prim("map", (Lambda((x,), Apply(inner, (Var(ys),))),))
    return Lambda((xs, ys), Apply(outer, (Var(xs),)))


define(Primitive(
    "allPairs", ALGORITHMIC, "(A -> B -> C) -> [A]_N -> [B]_M -> [[C]_M]_N",
    "SkelCL allpairs (Def. 3.9)", "f applied to every pair of an element of xs and one of ys.",
    all_pairs_type, lambda ev, node, args: ev.call(all_pairs_expansion(node.args[0]), args),
    params=(FUN(),), arity=2, aliases=("AllPairs", "allpairs"), codegen=False))


# --- low-level scans -----------------------------------------------------------------------

define(Primitive(
    "scanSeq", OPENCL, "((A × A) -> A) -> A -> [A]_I -> [A]_I", "Lift (ScanSeq)",
    "An inclusive scan in one work-item.", scan_type,
    lambda ev, node, args: ev.scan(node.args[0], ev.value(node.args[1]), args[0]),
    params=(FUN(), VALUE()), aliases=("ScanSeq", "scan-seq"), kernel=Kernel.SCAN_SEQ))

define(Primitive(
    "scanLocal", OPENCL, "((A × A) -> A) -> A -> [A]_I -> [A]_I",
    "work-efficient scan (Blelloch), SkelCL scan",
    "An inclusive scan of a work-group's array by its work-items: an up-sweep and a "
    "down-sweep over a tree in local memory (z must be neutral).", scan_type,
    lambda ev, node, args: ev.scan(node.args[0], ev.value(node.args[1]), args[0]),
    params=(FUN(), VALUE()), aliases=("ScanLocal", "scan-local"),
    kernel=Kernel.SCAN_LOCAL))
