"""Type inference (ICFP 2015, Fig. 8, extended to every primitive of Figs. 4 and 5).

Programs are pipelines of functions, so inference works by *abstract application*: a
function node is typed by applying it to the types of its arguments, ``apply(map f,
[[float]_N]) = [B]_N`` where ``B = apply(f, [float])``. Primitive type rules live with their
declarations (``primitives``). Sizes are symbolic (``sizes.Size``); a split of a length that
is not provably divisible is accepted under a recorded assumption when the length is
symbolic, and refused, naming both sizes, when it is a concrete number.

``typecheck`` returns the result type; ``annotate`` also returns, for every node, the types
it was applied to and produced (the rules and the widget use them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NoReturn

from .errors import (
    ArgumentError,
    ParseError,
    SizeError,
    TypeCheckError,
    WorkbenchError,
    shown,
    sizes_argument,
)
from .expr import (
    Apply,
    BinOp,
    Compose,
    Expr,
    Lambda,
    Lit,
    Path,
    Prim,
    Section,
    TupleExpr,
    UnOp,
    UserFun,
    Var,
    expression_argument,
    signature_of,
    subterm,
)
from .sizes import Size, natural_refusal
from .types import (
    BOOL,
    FLOAT,
    INT,
    ArrayType,
    FunctionType,
    ScalarType,
    TupleType,
    Type,
    VectorType,
    as_type,
    free_size_vars,
    function_parts,
    is_numeric,
    match_sizes,
    promote,
    substitute_sizes,
)

COMPARISON = {"<", "<=", ">", ">=", "==", "!="}
LOGICAL = {"&&", "||"}


@dataclass(frozen=True)
class Typing:
    """What a node was applied to (``args``, empty for values) and what it produced, and
    the types of the variables in scope there (so a rewrite can be re-checked locally)."""

    args: tuple[Type, ...]
    result: Type
    env: Mapping[str, Type] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Assumption:
    """A divisibility the types rely on but cannot prove for symbolic sizes (``4 | N``)."""

    total: Size
    divisor: Size
    path: Path
    what: str

    def __str__(self) -> str:
        return f"{self.divisor} divides {self.total} ({self.what})"


class Checker:
    """One inference run over ``root``; collects typings and size assumptions."""

    def __init__(self, root: Expr, size_env: Mapping[str, int] | None = None,
                 record: bool = False):
        self.root = root
        self.size_env = dict(size_env or {})
        self.typings: dict[Path, Typing] | None = {} if record else None
        self.assumptions: list[Assumption] = []

    # --- errors and sizes -----------------------------------------------------------------
    def fail(self, path: Path, message: str, error=TypeCheckError) -> NoReturn:
        try:
            node_text = str(subterm(self.root, path))
        except WorkbenchError:
            node_text = ""
        raise error(message, path, node_text)

    def size(self, s: Size) -> Size:
        """A size parameter of the program, with the sizes the caller fixed substituted."""
        return s.substitute(self.size_env) if self.size_env and s.free_vars else s

    def require_divides(self, total: Size, divisor: Size, path: Path, what: str) -> None:
        if divisor.is_constant and divisor.value <= 0:
            self.fail(path, f"{what}: the size {divisor} must be positive", SizeError)
        if divisor.is_constant and not divisor.is_integer_constant:
            self.fail(path, f"{what}: the size {divisor} is not a whole number", SizeError)
        known = total.divisible_by(divisor)
        if known is False:
            self.fail(path, f"{what}: {divisor} does not divide the array length {total}",
                      SizeError)
        if known is None:
            self.assumptions.append(Assumption(total, divisor, path, what))

    def same_size(self, a: Size, b: Size, path: Path, what: str) -> None:
        if a != b:
            self.fail(path, f"{what}: lengths differ ({a} vs {b})", SizeError)

    def forget(self, path: Path) -> None:
        """Drop what was recorded at and below ``path`` (a part typed again, differently)."""
        if self.typings is not None:
            n = len(path)
            for p in [p for p in self.typings if p[:n] == path]:
                del self.typings[p]

    # --- functions ------------------------------------------------------------------------
    def apply(self, fn: Expr, args: list[Type], env: Mapping[str, Type], path: Path) -> Type:
        result = self._apply(fn, args, env, path)
        if self.typings is not None and path not in self.typings:
            self.typings[path] = Typing(tuple(args), result, env)
        return result

    def _apply(self, fn: Expr, args: list[Type], env, path: Path) -> Type:
        if isinstance(fn, Prim):
            return self._apply_prim(fn, args, env, path)
        if isinstance(fn, Compose):
            last = len(fn.fns) - 1
            t = self.apply(fn.fns[last], args, env, path + (last,))
            for i in range(last - 1, -1, -1):
                t = self.apply(fn.fns[i], [t], env, path + (i,))
            return t
        if isinstance(fn, Lambda):
            return self._apply_lambda(fn, args, env, path)
        if isinstance(fn, Apply):  # a partial application, e.g. (λa. map (*a)) 3
            own = [self.value(a, env, path + (i + 1,)) for i, a in enumerate(fn.args)]
            return self.apply(fn.fn, own + list(args), env, path + (0,))
        if isinstance(fn, Section):
            return self._apply_section(fn, args, env, path)
        if isinstance(fn, UserFun):
            return self._apply_userfun(fn, args, path)
        if isinstance(fn, Var):
            t = env.get(fn.name)
            if isinstance(t, FunctionType):
                return self._apply_declared(t, args, path, fn.name)
            if t is not None:
                self.fail(path, f"{fn.name} has type {t}; it is not a function")
        self.fail(path, f"this is a value, not a function (applied to {_show(args)})")

    def _apply_prim(self, fn: Prim, args: list[Type], env, path: Path) -> Type:
        decl = fn.decl
        if decl.category == "scalar" and decl.arity and decl.arity > 1 and len(args) == 1 \
                and isinstance(args[0], TupleType) and len(args[0].items) == decl.arity:
            args = list(args[0].items)  # max applied to a pair, as in reduce max 0
        if decl.arity is None:
            if len(args) < 2:
                self.fail(path, f"{decl.name} expects at least two arrays, got {len(args)}")
        elif len(args) != decl.arity:
            noun = "argument" if decl.arity == 1 else "arguments"
            self.fail(path, f"{decl.name} expects {decl.arity} data {noun}, got {len(args)}")
        self._check_static(fn, path)
        return decl.infer(self, fn, list(args), env, path)

    def _check_static(self, fn: Prim, path: Path) -> None:
        """The static arguments of a primitive are what its parameters take: a component
        index counts from 0 (Python's ``t[-1]`` is no component), and counts, widths and
        offsets are natural numbers (``iterate -1`` and ``pad (-1) 2`` mean nothing)."""
        decl = fn.decl
        if len(fn.args) != len(decl.params):
            wanted = ", ".join(p.name for p in decl.params) or "none"
            self.fail(path, f"{decl.name} takes {len(decl.params)} static argument"
                            f"{'' if len(decl.params) == 1 else 's'} ({wanted}), "
                            f"got {len(fn.args)}")
        for param, arg in zip(decl.params, fn.args):
            what = f"{decl.name}: its argument {param.name}"
            if param.kind in ("index", "dim"):
                if not isinstance(arg, int) or isinstance(arg, bool):
                    self.fail(path, f"{what} is {arg!r}, not a whole number")
                if param.kind == "index" and arg < 0:
                    self.fail(path, f"{decl.name} {arg}: component indices count from 0 "
                                    f"(0, 1, …); a negative one does not count from the end")
                if param.kind == "dim" and not 0 <= arg <= 2:
                    self.fail(path, f"{what} is {arg}: OpenCL dimensions are 0, 1 and 2")
            elif param.kind in ("size", "sizes"):
                sizes = arg if param.kind == "sizes" and isinstance(arg, tuple) else (arg,)
                for s in sizes:
                    if not isinstance(s, Size):
                        self.fail(path, f"{what} is {s!r}, not a size")
                    reason = natural_refusal(self.size(s))
                    if reason is not None:
                        self.fail(path, f"{what} must be a natural number, and {reason}",
                                  SizeError)
            elif param.kind == "distribution":
                from .primitives.redistribution import distribution_refusal

                reason = distribution_refusal(arg)
                if reason is not None:
                    self.fail(path, f"{what}: {reason}")
            elif not isinstance(arg, Expr):
                self.fail(path, f"{what} is {arg!r}, not an expression")

    def _apply_lambda(self, fn: Lambda, args: list[Type], env, path: Path) -> Type:
        params = fn.params
        if len(args) == 1 and len(params) > 1 and isinstance(args[0], TupleType) \
                and len(args[0].items) == len(params):
            args = list(args[0].items)  # λacc x. e applied to a pair, as λ(acc, x). e
        if len(args) < len(params):
            self.fail(path, f"this function takes {len(params)} arguments, got {len(args)}")
        inner = dict(env)
        for pattern, t in zip(params, args):
            self._bind(pattern, t, inner, path)
        rest = args[len(params):]
        if rest:
            return self.apply(fn.body, rest, inner, path + (0,))
        return self.value(fn.body, inner, path + (0,))

    def _bind(self, pattern, t: Type, env: dict, path: Path) -> None:
        if isinstance(pattern, str):
            env[pattern] = t
            return
        if not isinstance(t, TupleType) or len(t.items) != len(pattern):
            self.fail(path, f"the pattern {_pattern_text(pattern)} expects a "
                            f"{len(pattern)}-tuple, got {t}")
        for p, item in zip(pattern, t.items):
            self._bind(p, item, env, path)

    def _apply_section(self, fn: Section, args: list[Type], env, path: Path) -> Type:
        fixed = [self.value(x, env, path + (0,)) for x in fn.children()]
        if len(args) == 1 and isinstance(args[0], TupleType) and not fixed:
            args = list(args[0].items)  # (+) takes a pair (ICFP Fig. 13)
        operands = ([fixed[0], *args] if fn.left is not None else [*args, *fixed])
        if len(operands) != 2:
            self.fail(path, f"the operator ({fn.op}) needs two operands, got {_show(operands)}")
        return self.binop(fn.op, operands[0], operands[1], path)

    def _apply_userfun(self, fn: UserFun, args: list[Type], path: Path) -> Type:
        if fn.type is not None:
            return self._apply_declared(fn.type, args, path, fn.name)
        inner = Checker(fn.body, self.size_env)
        try:
            return inner.apply(fn.body, args, {}, ())
        except TypeCheckError as err:
            self.fail(path, f"in user function {fn.name}: {err}")

    def _apply_declared(self, t: FunctionType, args: list[Type], path: Path, name: str) -> Type:
        params, result = function_parts(t)
        if len(args) == 1 and len(params) > 1 and isinstance(args[0], TupleType) \
                and len(args[0].items) == len(params):
            args = list(args[0].items)
        if len(args) != len(params):
            self.fail(path, f"{name} takes {len(params)} arguments, got {len(args)}")
        bindings: dict[str, Size] = {}
        for i, (want, got) in enumerate(zip(params, args)):
            if not (match_sizes(want, got, bindings) or _numeric_widening(want, got)):
                self.fail(path, f"argument {i + 1} of {name}: expected {want}, found {got}")
        return substitute_sizes(result, bindings)

    # --- values ---------------------------------------------------------------------------
    def value(self, expr: Expr, env: Mapping[str, Type], path: Path,
              expected: Type | None = None) -> Type:
        t = self._value(expr, env, path, expected)
        if self.typings is not None and path not in self.typings:
            self.typings[path] = Typing((), t, env)
        return t

    def _value(self, expr: Expr, env, path: Path, expected: Type | None) -> Type:
        if isinstance(expr, Var):
            if expr.name not in env:
                self.fail(path, f"unbound variable {expr.name}")
            return env[expr.name]
        if isinstance(expr, Lit):
            return self._literal(expr, path, expected)
        if isinstance(expr, UnOp) and expr.op == "-" and isinstance(expr.operand, Lit):
            return self._literal(expr.operand, path + (0,), expected)
        if isinstance(expr, TupleExpr):
            hints = (expected.items if isinstance(expected, TupleType)
                     and len(expected.items) == len(expr.items) else [None] * len(expr.items))
            return TupleType(tuple(self.value(item, env, path + (i,), hint)
                                   for i, (item, hint) in enumerate(zip(expr.items, hints))))
        if isinstance(expr, Apply):
            hints = [_element_hint(expr, expected)] * len(expr.args)
            arg_types = [self.value(a, env, path + (i + 1,), hint)
                         for i, (a, hint) in enumerate(zip(expr.args, hints))]
            return self.apply(expr.fn, arg_types, env, path + (0,))
        if isinstance(expr, BinOp):
            left = self.value(expr.left, env, path + (0,))
            right = self.value(expr.right, env, path + (1,))
            return self.binop(expr.op, left, right, path)
        if isinstance(expr, UnOp):
            t = self.value(expr.operand, env, path + (0,))
            if expr.op == "!":
                if t != BOOL:
                    self.fail(path, f"! expects a bool, found {t}")
                return BOOL
            if not is_numeric(t):
                self.fail(path, f"- expects a number, found {t}")
            return t
        self.fail(path, "expected a value here, found a function (apply it to an argument)")

    def _literal(self, lit: Lit, path: Path, expected: Type | None) -> Type:
        if isinstance(lit.value, bool):
            return BOOL
        own = INT if isinstance(lit.value, int) else FLOAT
        # Literals adopt the numeric type the context expects: the 0 of reduce (+) 0 is a
        # float when the array holds floats (the papers never write 0.0f).
        if isinstance(expected, ScalarType) and is_numeric(expected):
            if own == FLOAT and expected == INT:
                self.fail(path, f"the literal {lit.value} is not an int")
            return expected
        lane = expected.elem if isinstance(expected, VectorType) else None
        if isinstance(lane, VectorType):  # lanes of float4s (<float4>_n): every component
            lane = lane.elem
        if lane is not None and is_numeric(lane):
            # a vector accumulator's initial value: the literal in every lane
            if own == FLOAT and lane == INT:
                self.fail(path, f"the literal {lit.value} is not an int")
            return expected
        return own

    def binop(self, op: str, left: Type, right: Type, path: Path) -> Type:
        if op in LOGICAL:
            if left != BOOL or right != BOOL:
                self.fail(path, f"{op} expects two bools, found {left} and {right}")
            return BOOL
        if not (is_numeric(left) and is_numeric(right)):
            if op in ("==", "!=") and left == right:
                return BOOL
            self.fail(path, f"{op} expects two numbers, found {left} and {right}")
        if op in COMPARISON:
            return BOOL
        if op == "%" and (left != INT or right != INT):
            self.fail(path, f"% expects two ints, found {left} and {right}")
        return promote(left, right)


def _element_hint(expr: Apply, expected: Type | None) -> Type | None:
    """The type a context expects of the value argument of ``replicate n v`` (the element
    type of the array it expects): ``replicate 4 0`` is then an array of floats where one
    is expected, as a literal 0 is a float there."""
    fn = expr.fn
    if isinstance(fn, Prim) and fn.decl.element_hint and len(expr.args) == 1 \
            and isinstance(expected, ArrayType):
        return expected.elem
    return None


def _numeric_widening(want: Type, got: Type) -> bool:
    return want in (FLOAT,) and got == INT


def _show(types: list[Type]) -> str:
    return ", ".join(str(t) for t in types) or "nothing"


def _pattern_text(pattern) -> str:
    if isinstance(pattern, str):
        return pattern
    return "(" + ", ".join(_pattern_text(p) for p in pattern) + ")"


def declared_type_of(expr: Expr) -> Type | None:
    """The type a program file declared for a definition (None for plain expressions)."""
    if isinstance(expr, UserFun):
        return expr.type
    signature = signature_of(expr)
    return signature.type if signature is not None else None


def input_types_of(expr: Expr, input_types: tuple) -> list[Type]:
    """The given input types, or those of the expression's declared type (an input type
    that is no type, or text that writes none, is refused naming the input)."""
    expression_argument(expr)
    if input_types:
        return [input_type_argument(k, t) for k, t in enumerate(input_types, start=1)]
    declared = declared_type_of(expr)
    if declared is None:
        raise TypeCheckError(
            "give the input types (e.g. typecheck(expr, '[float]_N')): this expression "
            "has no declared type")
    return function_parts(declared)[0]


def input_type_argument(k: int, t) -> Type:
    """Input type ``k`` (from 1) as given: a type, or its text (a ``ParseError`` that names
    the input where the text writes none)."""
    if isinstance(t, Type):
        return t
    if not isinstance(t, str):
        raise ArgumentError(f"input type {k} = {shown(t)}: give a Type or its text, e.g. "
                            f"'[float]_N'", "input_types")
    try:
        return as_type(t)
    except ParseError as err:
        raise ParseError(err.reason, err.line, err.column, err.source_line, err.expected,
                         f"input type {k}") from None


def _check(expr: Expr, input_types: tuple, size_env, record: bool) -> tuple[Checker, Type]:
    args = input_types_of(expr, input_types)
    size_env = sizes_argument(size_env)
    if input_types:
        size_env = {**_declared_sizes(expr, args), **(size_env or {})}
    checker = Checker(expr, size_env, record=record)
    try:
        if args:
            result = checker.apply(expr, args, {}, ())
        else:
            result = checker.value(expr, {}, ())
    except RecursionError:
        raise TypeCheckError("the expression is nested too deeply to type-check") from None
    declared = declared_type_of(expr)
    if declared is not None and not input_types:
        want = function_parts(declared)[1]
        fixed = {n: Size.var(n) for t in args for n in free_size_vars(t)}
        if not match_sizes(want, result, fixed):
            checker.fail((), f"declared result type {want}, but the expression produces {result}")
    return checker, result


def _declared_sizes(expr: Expr, args: list[Type]) -> dict[str, int]:
    """The sizes of a definition's signature that concrete input types fix: ``N = 512`` for
    ``fig10_1 : [float]_N -> ...`` checked at ``[float]_512``, so that the ``N`` of its body
    (``reducePart (+) 0 (N/128)``) is 512 too and every size in it is known."""
    declared = declared_type_of(expr)
    if declared is None or isinstance(expr, UserFun):
        return {}
    params = function_parts(declared)[0]
    bindings: dict[str, Size] = {}
    if len(params) != len(args) or not all(match_sizes(want, got, bindings)
                                           for want, got in zip(params, args)):
        return {}
    return {name: int(s.value) for name, s in bindings.items() if s.is_integer_constant}


def typecheck(expr: Expr, *input_types: Type | str,
              sizes: Mapping[str, int] | None = None) -> Type:
    """The type of ``expr`` applied to inputs of ``input_types`` (a value's type if none)."""
    return _check(expr, input_types, sizes, record=False)[1]


@dataclass(frozen=True)
class Annotation:
    result: Type
    typings: dict[Path, Typing]
    assumptions: tuple[Assumption, ...]
    sizes: Mapping[str, int] = field(default_factory=dict)  # the size values it used


def annotate(expr: Expr, *input_types: Type | str,
             sizes: Mapping[str, int] | None = None) -> Annotation:
    """Type-check and keep, for every node path, what it was applied to and produced."""
    checker, result = _check(expr, input_types, sizes, record=True)
    return Annotation(result, checker.typings or {}, tuple(checker.assumptions),
                      dict(checker.size_env))
