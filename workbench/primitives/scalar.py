"""Scalar functions of the user-function language (SPEC 3): maths, min/max, fma, select
and casts. Each has a C spelling for code generation and a NumPy meaning that works on
batched values (so it also vectorises for ``mapVec``)."""

from __future__ import annotations

import numpy as np

from ..primitive import SCALAR, Primitive, define
from ..types import BOOL, DOUBLE, FLOAT, INT, ScalarType, is_numeric, promote


def _numbers(chk, node, args, path):
    for i, t in enumerate(args):
        if not is_numeric(t):
            chk.fail(path, f"{node.name}: argument {i + 1} must be a number, found {t}")
    result = args[0]
    for t in args[1:]:
        result = promote(result, t)
    return result


def _keep(chk, node, args, env, path):
    return _numbers(chk, node, args, path)


def _floating(chk, node, args, env, path):
    t = _numbers(chk, node, args, path)
    return FLOAT if t == INT else t


def _semantics(fn):
    def run(ev, node, args):
        # Python scalars stay Python scalars so that NumPy treats literals as weakly typed
        # (0 + float32 stays float32, as the type checker says).
        return fn(*args)

    return run


_MATH = [
    ("abs", 1, _keep, np.abs, "fabs", "absolute value"),
    ("min", 2, _keep, np.minimum, "min", "smaller of two numbers"),
    ("max", 2, _keep, np.maximum, "max", "larger of two numbers"),
    ("sqrt", 1, _floating, np.sqrt, "sqrt", "square root"),
    ("exp", 1, _floating, np.exp, "exp", "e to the power x"),
    ("log", 1, _floating, np.log, "log", "natural logarithm"),
    ("sin", 1, _floating, np.sin, "sin", "sine"),
    ("cos", 1, _floating, np.cos, "cos", "cosine"),
    ("floor", 1, _floating, np.floor, "floor", "round down"),
    ("ceil", 1, _floating, np.ceil, "ceil", "round up"),
    ("pow", 2, _floating, np.power, "pow", "x to the power y"),
    ("fma", 3, _keep, lambda a, b, c: a * b + c, "fma", "fused multiply-add a*b+c"),
]

for name, arity, infer, fn, c_name, doc in _MATH:
    define(Primitive(name, SCALAR, "number -> ... -> number", "SPEC 3", doc, infer,
                     _semantics(fn), arity=arity, c_name=c_name))


def select_type(chk, node, args, env, path):
    cond, a, b = args
    if cond != BOOL:
        chk.fail(path, f"select: the condition must be a bool, found {cond}")
    if is_numeric(a) and is_numeric(b):
        return promote(a, b)
    if a != b:
        chk.fail(path, f"select: both branches must have one type, found {a} and {b}")
    return a


def select_semantics(ev, node, args):
    return _where(np.asarray(args[0]), args[1], args[2])


def _where(cond, a, b):
    if isinstance(a, tuple):
        return tuple(_where(cond, x, y) for x, y in zip(a, b))
    return np.where(cond, a, b)


define(Primitive("select", SCALAR, "bool -> A -> A -> A", "SPEC 3",
                 "select c a b (also if c then a else b)", select_type, select_semantics,
                 arity=3, c_name="select"))


def _cast(target: ScalarType):
    def infer(chk, node, args, env, path):
        if not isinstance(args[0], ScalarType):
            chk.fail(path, f"{node.name} converts scalars, found {args[0]}")
        return target

    dtypes = {"float": np.float32, "int": np.int32, "double": np.float64, "bool": np.bool_}
    dtype = dtypes[target.name]

    def run(ev, node, args):
        return np.asarray(args[0]).astype(dtype)

    return infer, run


for target in (FLOAT, INT, DOUBLE, BOOL):
    infer, run = _cast(target)
    define(Primitive(target.name, SCALAR, f"number -> {target.name}", "SPEC 3",
                     f"convert to {target.name}", infer, run, c_name=f"({target.name})"))
