"""The reference interpreter: the oracle for every rule and every generated kernel.

It follows the denotational semantics of ICFP 2015 Fig. 9 (reduce as a fold, split/join
and reorderStride as index maps, iterate with shrinking sizes; every low-level primitive
means its high-level counterpart). To be fast on large arrays it evaluates ``map f`` once
for all elements on batched NumPy values (see ``values``), and folds whose operator is a
known associative one (``(+)``, ``(*)``, ``min``, ``max``, or ``λ(acc, x). acc + g x``) with
NumPy reductions instead of a Python loop.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from . import values as V
from .errors import EvaluationError, WorkbenchError, mapping_argument
from .expr import (
    Apply,
    BinOp,
    Compose,
    Expr,
    Lambda,
    Lit,
    Prim,
    Section,
    TupleExpr,
    UnOp,
    UserFun,
    Var,
    expression_argument,
)
from .primitives.families import FOLDS
from .sizes import Size
from .typecheck import declared_type_of, typecheck
from .types import (
    ArrayType,
    ScalarType,
    TupleType,
    Type,
    VectorType,
    dtype_of,
    function_parts,
    match_sizes,
    replace_leaf,
    type_of_value,
)

_UFUNCS = {"+": np.add, "*": np.multiply, "min": np.minimum, "max": np.maximum}


class Evaluator:
    """Evaluates expressions at a batch ``depth`` (the number of enclosing maps)."""

    def __init__(self, sizes: Mapping[str, int], depth: int = 0, env: dict | None = None):
        self.sizes = sizes
        self.depth = depth
        self.env = env or {}  # name -> (value, depth it was bound at)

    def deeper(self) -> Evaluator:
        return Evaluator(self.sizes, self.depth + 1, self.env)

    def size(self, s: Size) -> int:
        try:
            v = s.evaluate(self.sizes)
        except ValueError as err:
            raise EvaluationError(f"{err}; give its value (sizes={{...}} or --size NAME=VALUE)")\
                from None
        if v != int(v):
            raise EvaluationError(f"the size {s} is {v} here, not a whole number")
        if v < 0:  # a count or a width: NumPy would read a negative one from the end
            raise EvaluationError(f"the size {s} is {v} here, a negative number")
        return int(v)

    # --- functions ------------------------------------------------------------------------
    def call(self, fn: Expr, args: list):
        if isinstance(fn, Prim):
            decl = fn.decl
            if decl.category == "scalar" and decl.arity and decl.arity > 1 and len(args) == 1 \
                    and isinstance(args[0], tuple):
                args = list(args[0])
            return decl.semantics(self, fn, list(args))
        if isinstance(fn, Compose):
            fns = list(fn.fns)
            if len(fns) >= 2 and len(args) == 1 and _dot_product(fns[-2], fns[-1], args[0]):
                # reduce (+) z ∘ map (*) on a zip: a dot product, not the array of products
                value = self.fold(Lambda((("acc_", "x_"),), BinOp("+", Var("acc_"), BinOp(
                    "*", Apply(Prim("get", (0,)), (Var("x_"),)),
                    Apply(Prim("get", (1,)), (Var("x_"),))))), self.value(fns[-2].args[1]),
                    args[0])
                value = V.collect(V.lift(value, self.depth, self.depth + 1), self.depth, 1)
                fns = fns[:-2]
            else:
                value = self.call(fns[-1], args)
                fns = fns[:-1]
            for f in reversed(fns):
                value = self.call(f, [value])
            return value
        if isinstance(fn, Lambda):
            params = fn.params
            if len(args) == 1 and len(params) > 1 and isinstance(args[0], tuple) \
                    and len(args[0]) == len(params):
                args = list(args[0])
            env = dict(self.env)
            for pattern, value in zip(params, args):
                self._bind(pattern, value, env)
            inner = Evaluator(self.sizes, self.depth, env)
            rest = args[len(params):]
            return inner.call(fn.body, rest) if rest else inner.value(fn.body)
        if isinstance(fn, Apply):
            own = [self.value(a) for a in fn.args]
            return self.call(fn.fn, own + list(args))
        if isinstance(fn, Section):
            fixed = [self.value(x) for x in fn.children()]
            if len(args) == 1 and isinstance(args[0], tuple) and not fixed:
                args = list(args[0])
            left, right = (fixed[0], args[0]) if fn.left is not None else \
                (args[0], fixed[0]) if fixed else (args[0], args[1])
            return binop(fn.op, left, right)
        if isinstance(fn, UserFun):
            if fn.body is not None:
                return Evaluator(self.sizes, self.depth).call(fn.body, args)
            if len(args) == 1 and isinstance(args[0], tuple) and len(fn.params) > 1:
                args = list(args[0])
            return fn.numpy_fn(*args)
        raise EvaluationError(f"cannot apply {fn} (not a function)")

    def _bind(self, pattern, value, env: dict) -> None:
        if isinstance(pattern, str):
            env[pattern] = (value, self.depth)
        else:
            for p, v in zip(pattern, value):
                self._bind(p, v, env)

    def map(self, fn: Expr, array):
        n = V.length(array, self.depth)
        result = self.deeper().call(fn, [V.elements(array)])
        return V.collect(result, self.depth, n)

    # --- values ---------------------------------------------------------------------------
    def value(self, expr: Expr):
        if isinstance(expr, Var):
            if expr.name not in self.env:
                raise EvaluationError(f"unbound variable {expr.name}")
            value, depth = self.env[expr.name]
            return V.lift(value, depth, self.depth)
        if isinstance(expr, Lit):
            return expr.value
        if isinstance(expr, TupleExpr):
            return tuple(self.value(i) for i in expr.items)
        if isinstance(expr, Apply):
            return self.call(expr.fn, [self.value(a) for a in expr.args])
        if isinstance(expr, BinOp):
            return binop(expr.op, self.value(expr.left), self.value(expr.right))
        if isinstance(expr, UnOp):
            x = self.value(expr.operand)
            return np.logical_not(x) if expr.op == "!" else -x
        raise EvaluationError(f"expected a value, found the function {expr}")

    # --- folds ----------------------------------------------------------------------------
    def fold(self, fn: Expr, init, array):
        """Left fold ``acc = fn(acc, x_i)`` over the array axis at this depth."""
        fast = _associative_form(fn)
        if fast is not None:
            op, element_fn = fast
            if _is_map_vec(fn) and element_fn is not None:  # lane-wise, on each vector
                element_fn = Prim("mapVec", (element_fn,))
            if op == "+" and element_fn is not None and _is_product(element_fn) \
                    and isinstance(array, V.Zipped) and len(array.parts) == 2 \
                    and array.levels == 1 and all(isinstance(p, np.ndarray)
                                                  for p in array.parts):
                return _combine("+", init, dot(*array.parts, self.depth))
            mapped = array if element_fn is None else self.map(element_fn, array)
            if not isinstance(mapped, V.Zipped) and not isinstance(mapped, tuple):
                total = _UFUNCS[op].reduce(np.asarray(mapped), axis=self.depth)
                if _is_map_vec(fn) and 0 < np.ndim(init) < np.ndim(total):
                    # a literal start batched per element (each work-item's accumulator
                    # of a shared reduction), one number for every lane of its vector
                    init = np.reshape(init, np.shape(init) + (1,) * (np.ndim(total)
                                                                     - np.ndim(init)))
                return _combine(op, init, total)
        acc = init
        for i in range(V.length(array, self.depth)):
            acc = self.call(fn, [(acc, V.element_at(array, self.depth, i))])
        return acc

    def scan(self, fn: Expr, init, array):
        fast = _associative_form(fn)
        d = self.depth
        if fast is not None and fast[1] is None and not isinstance(array, V.Zipped):
            op = fast[0]
            return _combine(op, init, _UFUNCS[op].accumulate(np.asarray(array), axis=d))
        acc, out = init, []
        for i in range(V.length(array, d)):
            acc = self.call(fn, [(acc, V.element_at(array, d, i))])
            out.append(V.lift(acc, d, d + 1))
        return V.concat([V.collect(o, d, 1) for o in out], d)

    def index_function(self, fn: Expr, args: list[np.ndarray], n: int) -> np.ndarray:
        result = Evaluator(self.sizes, 1).call(fn, args)
        return np.broadcast_to(np.asarray(result), (n,)).astype(np.int64)


def _dot_product(reduction: Expr, mapping: Expr, value) -> bool:
    return isinstance(reduction, Prim) and reduction.name in FOLDS \
        and isinstance(reduction.args[0], Section) and reduction.args[0].op == "+" \
        and reduction.args[0].left is None and reduction.args[0].right is None \
        and isinstance(mapping, Prim) and mapping.decl.map_level not in \
        (None, "vector") and _is_product(mapping.args[-1]) and isinstance(value, V.Zipped) \
        and len(value.parts) == 2 and value.levels == 1


def _is_product(f: Expr) -> bool:
    """``(*)``, or ``λp. p.0 * p.1`` / ``λ(a, b). a * b``: the product of a pair."""
    if isinstance(f, Section) and f.op == "*" and f.left is None and f.right is None:
        return True
    if not isinstance(f, Lambda) or len(f.params) != 1:
        return False
    body, param = f.body, f.params[0]
    if not (isinstance(body, BinOp) and body.op == "*"):
        return False
    if isinstance(param, tuple) and len(param) == 2 and all(isinstance(n, str) for n in param):
        return body.left == Var(param[0]) and body.right == Var(param[1])
    if isinstance(param, str):
        def part(e, k):
            return isinstance(e, Apply) and isinstance(e.fn, Prim) and e.fn.name == "get" \
                and e.fn.args[0] == k and e.args == (Var(param),)
        return part(body.left, 0) and part(body.right, 1)
    return False


def dot(x: np.ndarray, y: np.ndarray, depth: int):
    """Σ_k x[…, k] · y[…, k] over the array axis at ``depth`` of two batched values, as one
    BLAS contraction: a matrix product where x varies along one batch axis and y along
    another (a map over rows of a map over columns) is computed without the M×N×K
    products."""
    letters = "abcdefghijlmnopqrstuvwxyz"
    shape = np.broadcast_shapes(x.shape[:depth], y.shape[:depth])
    xs, ys, out = [], [], []
    xi, yi = [], []
    for axis, n in enumerate(shape):
        label = letters[axis]
        out.append(label)
        if x.shape[axis] != 1 or n == 1:
            xs.append(label)
        else:
            xi.append(axis)
        if y.shape[axis] != 1 or n == 1:
            ys.append(label)
        else:
            yi.append(axis)
    xv = x.reshape(tuple(x.shape[a] for a in range(depth) if a not in xi) + x.shape[depth:])
    yv = y.reshape(tuple(y.shape[a] for a in range(depth) if a not in yi) + y.shape[depth:])
    spec = f"{''.join(xs)}k,{''.join(ys)}k->{''.join(out)}"
    result = np.einsum(spec, xv, yv, optimize=True)
    return result.reshape(shape).astype(np.result_type(x, y), copy=False)


def _combine(op: str, init, total):
    return _UFUNCS[op](init, total) if op in ("min", "max") else binop(op, init, total)


def _associative_form(fn: Expr):
    """``(op, g)`` when folding with ``fn`` equals reducing with ``op`` over ``map g``.

    Recognises ``(+)``/``(*)``, ``min``/``max`` and lambdas ``λ(acc, x). acc op g(x)``
    (or ``g(x) op acc``) where ``acc`` does not occur in ``g(x)``; ``g`` is None for the
    identity; and ``mapVec`` of any of them (a vector accumulator, folded lane by lane).
    """
    if isinstance(fn, Section) and fn.left is None and fn.right is None and fn.op in _UFUNCS:
        return fn.op, None
    if isinstance(fn, Prim) and fn.name in ("min", "max"):
        return fn.name, None
    if _is_map_vec(fn):  # a vector accumulator: the same fold in every lane
        return _associative_form(fn.args[-1])
    if not isinstance(fn, Lambda):
        return None
    params = fn.params
    if len(params) == 1 and isinstance(params[0], tuple) and len(params[0]) == 2:
        acc, x = params[0]
    elif len(params) == 2:
        acc, x = params
    else:
        return None
    if not isinstance(acc, str):
        return None
    body = fn.body
    if isinstance(body, BinOp) and body.op in ("+", "*"):
        op, a, b = body.op, body.left, body.right
    elif isinstance(body, Apply) and isinstance(body.fn, Prim) and body.fn.name in ("min", "max") \
            and len(body.args) == 2:
        op, (a, b) = body.fn.name, body.args
    else:
        return None
    other = b if a == Var(acc) else a if b == Var(acc) else None
    if other is None or acc in other.free_vars():
        return None
    if isinstance(x, str) and other == Var(x):
        return op, None
    return op, Lambda((x,), other)


def _is_map_vec(fn: Expr) -> bool:
    return isinstance(fn, Prim) and fn.name == "mapVec"


_BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "%": np.fmod, "<": np.less, "<=": np.less_equal, ">": np.greater,
    ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal,
    "&&": np.logical_and, "||": np.logical_or,
}


def binop(op: str, a, b):
    """A scalar operator on (batched) values, with C's meaning (``/`` on ints truncates)."""
    if op == "/":
        if _is_int(a) and _is_int(b):  # C division truncates towards zero
            q = np.floor_divide(a, b)
            return q + ((np.remainder(a, b) != 0) & ((np.asarray(a) < 0) ^ (np.asarray(b) < 0)))
        return a / b
    if op not in _BINARY:
        raise EvaluationError(f"unknown operator {op}")
    return _BINARY[op](a, b)


def _is_int(x) -> bool:
    return isinstance(x, int | np.integer) or (isinstance(x, np.ndarray)
                                               and np.issubdtype(x.dtype, np.integer))


# --- the public entry point -------------------------------------------------------------------

def _array_levels(t: Type | None) -> tuple[int, TupleType | None]:
    levels = 0
    while isinstance(t, ArrayType | VectorType):
        levels, t = levels + 1, t.elem
    return levels, (t if isinstance(t, TupleType) and levels else None)


def _coerce_input(value, want: Type | None):
    """Accept NumPy's float64 for a declared float (and lists): cast to the declared dtype.

    An array of tuples is given as a tuple of arrays, one per component.
    """
    if isinstance(value, V.Zipped):
        return value
    levels, item = _array_levels(want)
    if item is not None and isinstance(value, tuple) and len(value) == len(item.items):
        return V.Zipped(tuple(_coerce_input(v, replace_leaf(want, i))
                              for v, i in zip(value, item.items)), levels)
    if isinstance(value, tuple):
        items = want.items if isinstance(want, TupleType) else [None] * len(value)
        return tuple(_coerce_input(v, w) for v, w in zip(value, items))
    if isinstance(value, bool | int | float) and want is None:
        return value
    arr = np.asarray(value)
    if want is not None:
        try:
            target = dtype_of(want)
        except ValueError:
            return arr
        if arr.dtype.kind == target.kind or (arr.dtype.kind in "iu" and target.kind == "f"):
            return arr.astype(target, copy=False)
    return arr


def _type_of_input(value) -> Type:
    if isinstance(value, V.Zipped):
        parts = [_type_of_input(p) for p in value.parts]
        outer = []
        t = parts[0]
        for _ in range(value.levels):
            outer.append(t.size)
            t = t.elem
        items = []
        for p in parts:
            for _ in range(value.levels):
                p = p.elem
            items.append(p)
        result: Type = TupleType(tuple(items))
        for size in reversed(outer):
            result = ArrayType(result, size)
        return result
    return type_of_value(value)


def _to_output(value, t: Type):
    if isinstance(t, TupleType):
        return tuple(_to_output(v, i) for v, i in zip(value, t.items))
    if isinstance(t, ArrayType | VectorType):
        inner = t
        while isinstance(inner, ArrayType | VectorType):
            inner = inner.elem
        if isinstance(inner, TupleType):
            return tuple(_to_output(part, replace_leaf(t, item))
                         for part, item in zip(value.parts, inner.items))
    if isinstance(t, ScalarType | ArrayType | VectorType):
        return np.ascontiguousarray(np.asarray(value).astype(dtype_of(t), copy=False))
    return value


def prepare_inputs(expr: Expr, inputs) -> tuple[list, list[Type]]:
    """The inputs as the interpreter and the runtime take them (cast to the declared
    dtypes; arrays of tuples as ``Zipped``), with their types; checks their number, and
    refuses values that are not arrays of numbers (complex, text, objects, None) and
    empty arrays, naming the input."""
    declared = declared_type_of(expr)
    wanted = function_parts(declared)[0] if declared is not None else [None] * len(inputs)
    if declared is not None and len(wanted) != len(inputs):
        raise EvaluationError(f"{getattr(expr, 'definition_name', 'this program')} takes "
                              f"{len(wanted)} inputs ({', '.join(map(str, wanted))}), "
                              f"got {len(inputs)}")
    values = []
    for i, (v, w) in enumerate(zip(inputs, wanted), start=1):
        try:
            value = _coerce_input(v, w)
        except (ValueError, TypeError, OverflowError) as err:  # ragged lists, bad casts
            raise EvaluationError(f"input {i}: not an array of numbers ({err})",
                                  input=i) from None
        _check_input(value, i)
        values.append(value)
    types = []
    for i, (v, w) in enumerate(zip(values, wanted), start=1):
        try:
            types.append(_vectors_as_declared(_type_of_input(v), w))
        except (ValueError, TypeError, WorkbenchError) as err:
            raise EvaluationError(f"input {i}: {err}", input=i) from None
    return values, types


def _vectors_as_declared(got: Type, want: Type | None) -> Type:
    """An input's type with its innermost axes read as vectors where the declared type
    has vectors of that width there (``[float4]_N`` is given as an N×4 array)."""
    if isinstance(want, VectorType) and isinstance(got, ArrayType) and \
            got.size == want.size and isinstance(got.elem, ScalarType):
        return VectorType(got.elem, got.size)
    if isinstance(want, ArrayType) and isinstance(got, ArrayType):
        return ArrayType(_vectors_as_declared(got.elem, want.elem), got.size)
    if isinstance(want, TupleType) and isinstance(got, TupleType) and \
            len(want.items) == len(got.items):
        return TupleType(tuple(_vectors_as_declared(g, w)
                               for g, w in zip(got.items, want.items)))
    return got


# The scalar types of the notation: bool, int (C int and long), float and double.
_NUMBER_KINDS = {"b": "bool", "i": "int", "u": "int", "f": "float"}


def _check_input(value, i: int) -> None:
    parts = value.parts if isinstance(value, V.Zipped) else value if isinstance(value, tuple) \
        else (value,)
    for part in parts:
        if isinstance(part, V.Zipped | tuple):
            _check_input(part, i)
            continue
        if isinstance(part, bool | int | float):
            continue
        arr = part if isinstance(part, np.ndarray | np.generic) else np.asarray(part)
        if arr.dtype.kind not in _NUMBER_KINDS:
            raise EvaluationError(f"input {i}: values of NumPy type {arr.dtype} are not "
                                  f"numbers the workbench computes with (bool, int, float, "
                                  f"double)", input=i)
        if arr.size == 0:
            raise EvaluationError(f"input {i}: an empty array (shape {arr.shape}); arrays "
                                  f"need at least one element (sizes are positive)", input=i)


def typed_input(value, want: Type):
    """One input as the interpreter and the runtime take it for the input type ``want``
    (e.g. a tuple of arrays given for an array of tuples becomes that array of tuples)."""
    return _coerce_input(value, want)


def input_type(value) -> Type:
    """The type of one input value (a NumPy array, a scalar, a tuple of arrays)."""
    return _type_of_input(_coerce_input(value, None))


def evaluate(expr: Expr, *inputs, sizes: Mapping[str, int] | None = None):
    """Run ``expr`` on NumPy inputs; sizes are taken from the arrays (and ``sizes``).

    Returns a NumPy array, or a tuple (for tuples; an array of tuples is returned as one
    array per component). Inputs a kernel would not see as given are refused as ``run``
    refuses them (``inputs.check_exact_inputs``: masked arrays, integers past ``int``).
    """
    from .inputs import check_exact_inputs

    expression_argument(expr)
    sizes = mapping_argument(sizes, "sizes", "size names to whole numbers")
    check_exact_inputs(inputs)
    declared = declared_type_of(expr)
    wanted = function_parts(declared)[0] if declared is not None else [None] * len(inputs)
    values, types = prepare_inputs(expr, inputs)
    env = size_values(sizes)
    if declared is not None:
        bindings: dict[str, Size] = {}
        for i, (want, got) in enumerate(zip(wanted, types)):
            if not match_sizes(want, got, bindings):
                raise EvaluationError(f"input {i + 1}: expected {want}, got {got}"
                                      + _binding_note(bindings), input=i + 1)
        for name, s in bindings.items():
            if not s.is_integer_constant:
                continue
            if name in env and env[name] != int(s.value):
                raise EvaluationError(f"the size {name} is given as {env[name]}, but the "
                                      f"input arrays have {name} = {int(s.value)}", size=name)
            env[name] = int(s.value)
    result_type = typecheck(expr, *types, sizes=env)
    ev = Evaluator(env)
    try:
        with np.errstate(all="ignore"):  # NaN and inf are results, as they are in OpenCL
            out = ev.call(expr, values) if values else ev.value(expr)
    except WorkbenchError:
        raise
    except (ValueError, IndexError) as err:  # a shape the type checker could not foresee
        raise EvaluationError(f"evaluation failed: {err}") from None
    except RecursionError:
        raise EvaluationError("the expression is nested too deeply to evaluate") from None
    except MemoryError:
        shown = ", ".join(f"{k}={v}" for k, v in env.items()) or "these inputs"
        raise EvaluationError(f"the interpreter ran out of memory at {shown}: choose smaller "
                              f"sizes") from None
    return _to_output(out, result_type)


def size_values(sizes: Mapping[str, int] | None) -> dict[str, int]:
    """Size values given by name, checked: whole numbers, positive (naming the size)."""
    env = {}
    for name, value in (sizes or {}).items():
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise EvaluationError(f"the size {name} = {value!r} is not a whole number",
                                  size=str(name))
        if value <= 0:
            raise EvaluationError(f"the size {name} = {value} is not positive (sizes are "
                                  f"lengths of arrays)", size=str(name))
        env[str(name)] = int(value)
    return env


def _binding_note(bindings: dict[str, Size]) -> str:
    if not bindings:
        return ""
    return " (with " + ", ".join(f"{k} = {v}" for k, v in bindings.items()) + ")"


def associative_form(fn: Expr):
    """What the interpreter folds with NumPy instead of a loop (``_associative_form``):
    ``(op, g)``, or None. ``memory`` reads it to know which values a fold materialises."""
    return _associative_form(fn)


def is_product(f: Expr) -> bool:
    """``(*)`` or a lambda multiplying a pair's two items: with ``reduce (+)``, a dot
    product the interpreter contracts without the array of products."""
    return _is_product(f)
