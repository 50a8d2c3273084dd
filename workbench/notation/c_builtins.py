"""OpenCL C's built-in functions, as user functions written in C call them (``sqrt``,
``fmax``, ``clamp``, ``dot``, ``native_exp``, ``convert_int4`` …), on ``c_evaluation``'s
typed values.

Each computes in the floating type of its arguments (float unless one is a double; integer
arguments are converted), lane by lane on vectors, with NumPy's float32 functions for
float: they are correctly rounded or within an ulp, as OpenCL's full-precision functions
are within a few. ``native_`` and ``half_`` versions compute the full-precision function
(OpenCL lets them be less precise).
"""

from __future__ import annotations

import numpy as np

from . import c_syntax as S
from .c_syntax import CType, type_name
from .c_values import DTYPES, CValue, boolean, cast, promoted, spell, truth_type

_FLOAT1 = {
    "sqrt": np.sqrt, "cbrt": np.cbrt, "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "fabs": np.fabs, "floor": np.floor,
    "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
    "rsqrt": lambda x: x.dtype.type(1) / np.sqrt(x),
    "recip": lambda x: x.dtype.type(1) / x,
    "exp10": lambda x: np.power(x.dtype.type(10), x),
    "round": lambda x: np.where(x < 0, -np.floor(-x + x.dtype.type(0.5)),
                                np.floor(x + x.dtype.type(0.5))),  # halves away from zero
    "sign": lambda x: np.where(np.isnan(x), x.dtype.type(0), np.sign(x)),
    "degrees": lambda x: x * x.dtype.type(180 / np.pi),
    "radians": lambda x: x * x.dtype.type(np.pi / 180),
    # of pi times x: pi x in double (exact enough for a float x), then the function
    "sinpi": lambda x: _of_pi_times(np.sin, x),
    "cospi": lambda x: _of_pi_times(np.cos, x),
    "tanpi": lambda x: _of_pi_times(np.tan, x),
}
_FLOAT2 = {
    "pow": np.power, "powr": np.power, "atan2": np.arctan2, "fmin": np.fmin,
    "fmax": np.fmax, "fmod": np.fmod, "hypot": np.hypot, "copysign": np.copysign,
    "divide": np.divide, "step": lambda edge, x: np.where(x < edge, 0, 1).astype(x.dtype),
    "fdim": lambda x, y: np.where(x > y, x - y, 0).astype(x.dtype),
}
_FLOAT3 = {
    "mad": lambda a, b, c: a * b + c,
    "fma": lambda a, b, c: (a.astype(np.float64) * b + c).astype(a.dtype)
    if a.dtype == np.float32 else a * b + c,
    "mix": lambda x, y, a: x + (y - x) * a,
    "smoothstep": lambda e0, e1, x: _smoothstep(e0, e1, x),
}
_CLASSIFY = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
             "signbit": np.signbit}
_GEOMETRIC = ("dot", "length", "distance", "normalize", "cross", "fast_length",
              "fast_distance", "fast_normalize")
_ANY = ("min", "max", "clamp", "abs", "select", "mul24", "mad24")


def _of_pi_times(fn, x):
    return fn(np.pi * x.astype(np.float64)).astype(x.dtype)


def _smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0, 1).astype(x.dtype)
    return t * t * (x.dtype.type(3) - x.dtype.type(2) * t)


def names() -> list[str]:
    """Every built-in a body may call (besides the ``native_``/``half_`` and ``convert_``
    spellings)."""
    return sorted({*_FLOAT1, *_FLOAT2, *_FLOAT3, *_CLASSIFY, *_GEOMETRIC, *_ANY})


def call(run, node: S.Call, args: list[CValue]) -> CValue:
    name = node.name
    for prefix in ("native_", "half_"):
        if name.startswith(prefix) and name[len(prefix):] in {*_FLOAT1, *_FLOAT2, *_FLOAT3}:
            name = name[len(prefix):]
    if name.startswith("convert_"):
        return _convert(run, node, args, name)
    for a in args:
        if a.type.name == "Tuple":
            raise run.error(node, f"{node.name} applied to a tuple")
    arity = 1 if name in _FLOAT1 or name in _CLASSIFY or name in ("length", "normalize",
                                                                   "fast_length",
                                                                   "fast_normalize",
                                                                   "abs") \
        else 2 if name in _FLOAT2 or name in ("dot", "distance", "cross", "fast_distance",
                                              "min", "max", "mul24") \
        else 3 if name in _FLOAT3 or name in ("clamp", "select", "mad24") else None
    if arity is None:
        raise run.error(node, f"a call of '{node.name}' (not one of OpenCL's built-in "
                        f"functions that user functions may call: {', '.join(names())})")
    if len(args) != arity:
        raise run.error(node, f"{node.name} takes {arity} arguments, given {len(args)}")
    if name in _FLOAT1:
        (x,), t = _floating(run, node, args)
        return CValue(t, np.asarray(_FLOAT1[name](x)).astype(DTYPES[t.name]))
    if name in _FLOAT2:
        (x, y), t = _floating(run, node, args)
        return CValue(t, np.asarray(_FLOAT2[name](x, y)).astype(DTYPES[t.name]))
    if name in _FLOAT3:
        (x, y, z), t = _floating(run, node, args)
        return CValue(t, np.asarray(_FLOAT3[name](x, y, z)).astype(DTYPES[t.name]))
    if name in _CLASSIFY:
        (x,), t = _floating(run, node, args)
        result = truth_type(t)
        return CValue(result, boolean(_CLASSIFY[name](x), result))
    if name in _GEOMETRIC:
        return _geometric(run, node, name, args)
    return _any_type(run, node, name, args)


def _floating(run, node, args: list[CValue]):
    """The arguments as arrays of one floating type (vectors' lanes last, scalars widened
    to them) and that type."""
    names = {a.type.name for a in args}
    elem = "double" if "double" in names else "float"
    widths = {a.type.width for a in args if a.type.width}
    if len(widths) > 1:
        raise run.error(node, f"{node.name} applied to vectors of different widths")
    width = widths.pop() if widths else 0
    data = []
    for a in args:
        d = cast(a.data, a.type.name, elem)
        if width and not a.type.width:
            d = d[..., None]
        data.append(d)
    return data, CType(elem, width)


def _geometric(run, node, name, args):
    if name == "cross" and any(a.type.width not in (3, 4) for a in args):
        raise run.error(node, "cross of vectors that are not float3 or float4")
    data, t = _floating(run, node, args)
    x = data[0]
    if not t.width:
        x = x[..., None]
        data = [d[..., None] for d in data]
    scalar = CType(t.name)
    if name == "dot":
        return CValue(scalar, np.sum(data[0] * data[1], axis=-1, dtype=x.dtype))
    if name in ("length", "fast_length"):
        return CValue(scalar, np.sqrt(np.sum(x * x, axis=-1, dtype=x.dtype)))
    if name in ("distance", "fast_distance"):
        d = data[0] - data[1]
        return CValue(scalar, np.sqrt(np.sum(d * d, axis=-1, dtype=x.dtype)))
    if name in ("normalize", "fast_normalize"):
        out = x / np.sqrt(np.sum(x * x, axis=-1, dtype=x.dtype))[..., None]
        return CValue(t, out if t.width else out[..., 0])
    a, b = np.broadcast_arrays(data[0], data[1])
    out = np.zeros(a.shape, a.dtype)
    out[..., 0] = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
    out[..., 1] = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    out[..., 2] = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return CValue(t, out)


def _any_type(run, node, name, args):
    """min, max, clamp, abs, select, mul24, mad24: integers stay integers."""
    if name == "select":
        a, b, c = args
        test = np.asarray(c.data)
        if c.type.width:
            test = test < 0  # a vector selects where the lane's top bit is set
        else:
            test = test != 0
        t = run.common(a.type, b.type, node)
        x, y = run.convert(a, t, node).data, run.convert(b, t, node).data
        if t.width and not c.type.width:
            test = test[..., None]
        return CValue(t, np.where(test, y, x).astype(DTYPES[t.name]))
    t = promoted(args[0].type)
    for a in args[1:]:
        t = run.common(t, a.type, node)
    data = [run.convert(a, t, node).data for a in args]
    if name == "abs":
        return CValue(t, np.abs(data[0]).astype(DTYPES[t.name]))
    if name in ("min", "max"):
        fn = (np.fmin if name == "min" else np.fmax) if t.name in ("float", "double") \
            else (np.minimum if name == "min" else np.maximum)
        return CValue(t, fn(data[0], data[1]).astype(DTYPES[t.name]))
    if name == "clamp":
        fn_min, fn_max = (np.fmin, np.fmax) if t.name in ("float", "double") else \
            (np.minimum, np.maximum)
        return CValue(t, fn_min(fn_max(data[0], data[1]), data[2]).astype(DTYPES[t.name]))
    if t.name in ("float", "double"):
        raise run.error(node, f"{name} of floating-point values (it multiplies integers)")
    product = data[0] * data[1]
    return CValue(t, (product if name == "mul24" else product + data[2]).astype(
        DTYPES[t.name]))


def _convert(run, node, args, name):
    spelled = name[len("convert_"):]
    for suffix in ("_rte", "_rtz", "_rtp", "_rtn", "_sat"):
        if suffix in spelled:
            raise run.error(node, f"{node.name} (only convert_<type> with the default "
                            f"rounding is read)")
    t = type_name(spelled)
    if t is None or t.name == "Tuple":
        raise run.error(node, f"{node.name}: '{spelled}' is not a scalar or vector type")
    if len(args) != 1:
        raise run.error(node, f"{node.name} takes 1 argument, given {len(args)}")
    (a,) = args
    if a.type.name == "Tuple" or a.type.width != t.width:
        raise run.error(node, f"{node.name} of a {spell(a.type)}")
    return CValue(t, cast(a.data, a.type.name, t.name))
