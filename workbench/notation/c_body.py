"""The C bodies of Lift's scalar user functions (``"{ return x+y; }"``), read into the
workbench's scalar language, so that the interpreter can evaluate them and the code
generator emit them.

Supported: ``return e;``, local variables (``float t = e;``, ``Tuple t = {x, y};``),
assignments to them and to tuple fields (``x._0 = -x._0;``), and the expressions of C on
scalars: arithmetic, comparisons, ``&&``/``||``/``!``, ``?:``, casts such as ``(float)x``,
tuple fields ``x._0``, brace-initialised tuples and the math built-ins (``fabs``, ``sqrt``,
``exp``, ``log``, ``sin``, ``cos``, ``floor``, ``ceil``, ``pow``, ``fmin``/``min``,
``fmax``/``max``, ``fma``).

Every other body (``if`` statements, loops, macros, vectors and their swizzles, the rest of
OpenCL's built-ins) is real OpenCL C: ``user_function`` keeps it as written, for the code
generator to emit, and evaluates it with ``c_evaluation``. What neither reads is refused
with a ``CBodyError`` naming the construct and where in the body it is.
"""

from __future__ import annotations

import re

from ..expr import Apply, BinOp, Expr, Lambda, Lit, Prim, TupleExpr, UnOp, UserFun, Var
from ..types import FunctionType, TupleType, Type
from .c_evaluation import CFunctionValue, c_type_of
from .c_syntax import CBodyError, read_c
from .scala import tokenize

SUPPORTED = ("return, local variables, assignments to them and to tuple fields (x._0 = ...), "
             "arithmetic, comparisons, && || !, ?:, casts, tuple fields x._0, {a, b} tuples "
             "and the math built-ins fabs sqrt exp log sin cos floor ceil pow fmin fmax min "
             "max fma")
BUILTINS = {"fabs": "abs", "abs": "abs", "sqrt": "sqrt", "exp": "exp", "log": "log",
            "sin": "sin", "cos": "cos", "floor": "floor", "ceil": "ceil", "pow": "pow",
            "fmin": "min", "min": "min", "fmax": "max", "max": "max", "fma": "fma",
            "native_sqrt": "sqrt", "native_exp": "exp", "native_log": "log",
            "native_sin": "sin", "native_cos": "cos"}
CASTS = {"float": "float", "int": "int", "double": "double", "bool": "bool"}
_BINARY = [["||"], ["&&"], ["==", "!="], ["<", "<=", ">", ">="], ["+", "-"], ["*", "/", "%"]]
_TYPE_NAMES = {"float", "int", "double", "bool", "Tuple", "char", "long", "unsigned", "const",
               "struct", "uint"}


def _is_type_name(word: str) -> bool:
    """A word of a C type: ``float``, ``struct``, ``Tuple`` and Lift's numbered tuple types
    ``Tuple1``, ``Tuple2``, … (the names its generator gives each tuple type)."""
    return word in _TYPE_NAMES or re.fullmatch(r"Tuple\d+", word) is not None


class _Refused(ValueError):
    """A C body that the scalar language cannot express."""


def user_function(name: str, params: list[str], types: list[Type], result: Type,
                  text: str) -> UserFun:
    """A Lift ``UserFun``: its body in the scalar language where that can express it (so
    that it prints, vectorises and rewrites as the workbench's own functions do), else as
    OpenCL C, emitted as written and evaluated by ``c_evaluation``."""
    t: Type = result
    for arg in reversed(types):
        t = FunctionType(arg, t)
    try:
        return UserFun(name, body=Lambda(tuple(params), c_body(name, params, types, text)),
                       type=t)
    except _Refused:
        pass
    for p, ptype in zip(params, types):
        if not (p.isidentifier() and p.isascii()):
            raise CBodyError(name, f"the parameter name {p!r}, which is not a C identifier")
        try:
            c_type_of(ptype)
        except ValueError:
            raise CBodyError(name, f"the parameter {p} of type {ptype}: a C body takes "
                             f"scalars, vectors and tuples of them") from None
    try:
        c_type_of(result)
    except ValueError:
        raise CBodyError(name, f"the result type {result}: a C body returns a scalar, a "
                         f"vector or a tuple of them") from None
    function = CFunctionValue(read_c(name, text), params, t)
    function.check()
    return UserFun(name, type=t, c_body=text, params=tuple(params), numpy_fn=function)


def c_body(name: str, params: list[str], types: list[Type], text: str) -> Expr:
    """The body of a user function as an expression of the scalar language in ``params``."""
    return _Reader(name, text, dict(zip(params, types))).function(params)


class _Reader:
    def __init__(self, name: str, text: str, types: dict[str, Type]):
        self.name = name
        self.text = text
        try:
            self.tokens = [t for t in tokenize(text) if t.kind != "eof"]
        except Exception as err:  # a character C allows but the notation does not
            raise _Refused(f"user function {name}: cannot read its C body: {err}") from None
        self.pos = 0
        self.types = types

    def refuse(self, what: str) -> _Refused:
        return _Refused(f"user function {self.name}: {what} in its C body is not supported "
                          f"(supported: {SUPPORTED})")

    @property
    def tok(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def at(self, *texts: str) -> bool:
        return self.tok is not None and self.tok.text in texts

    def take(self, text: str | None = None):
        t = self.tok
        if t is None or (text is not None and t.text != text):
            raise self.refuse(f"'{t.text if t else 'the end'}' where '{text}' was expected")
        self.pos += 1
        return t

    # --- statements ------------------------------------------------------------------------
    def function(self, params: list[str]) -> Expr:
        env: dict[str, Expr] = {p: Var(p) for p in params}
        braced = self.at("{")
        if braced:
            self.take("{")
        while self.tok is not None:
            if self.at("}") and braced:
                break
            result = self.statement(env)
            if result is not None:
                return result
        raise self.refuse("a body without a return statement")

    def statement(self, env: dict[str, Expr]) -> Expr | None:
        t = self.tok
        if t.text == "return":
            self.take()
            value = self.expression(env)
            self.optional(";")
            return value
        if t.text in ("if", "for", "while", "do", "switch", "goto", "break", "continue"):
            raise self.refuse(f"the statement '{t.text}'")
        if _is_type_name(t.text) and t.kind == "ident":
            while self.tok is not None and (_is_type_name(self.tok.text) or
                                            self.tok.text == "*"):
                if self.tok.text == "*":
                    raise self.refuse("a pointer")
                self.take()
                if self.tok is not None and self.tok.kind == "ident" and \
                        not _is_type_name(self.tok.text) and self.peek_text() != "=":
                    self.take()  # struct Tuple_float_float t
            target = self.take().text
            self.take("=")
            env[target] = self.expression(env)
            self.take(";")
            return None
        if t.kind == "ident":
            target = self.take().text
            if target not in env:
                raise self.refuse(f"an assignment to '{target}', which is not a parameter or "
                                  f"local variable")
            field_index = None
            if self.at("."):
                self.take(".")
                field_index = self.field()
            op = self.take().text
            if op not in ("=", "+", "-", "*", "/"):
                raise self.refuse(f"the assignment operator '{op}'")
            if op != "=":
                self.take("=")
            value = self.expression(env)
            self.take(";")
            old = env[target] if field_index is None else self.component(env[target],
                                                                         target, field_index)
            if op != "=":
                value = BinOp(op, old, value)
            if field_index is None:
                env[target] = value
            else:
                env[target] = self.with_component(env[target], target, field_index, value)
            return None
        raise self.refuse(f"the statement starting with '{t.text}'")

    def peek_text(self) -> str | None:
        k = self.pos + 1
        return self.tokens[k].text if k < len(self.tokens) else None

    def optional(self, text: str) -> None:
        if self.at(text):
            self.take()

    def field(self) -> int:
        t = self.take()
        if t.kind == "ident" and t.text.startswith("_") and t.text[1:].isascii() \
                and t.text[1:].isdigit():
            return int(t.text[1:])
        raise self.refuse(f"the field '{t.text}' (tuple fields are _0, _1, …)")

    def arity(self, value: Expr, name: str) -> int:
        if isinstance(value, TupleExpr):
            return len(value.items)
        t = self.types.get(name)
        if isinstance(t, TupleType):
            return len(t.items)
        raise self.refuse(f"a field of '{name}', which is not a tuple")

    def component(self, value: Expr, name: str, k: int) -> Expr:
        self.check_field(k, self.arity(value, name), name)
        if isinstance(value, TupleExpr):
            return value.items[k]
        return Apply(Prim("get", (k,)), (value,))

    def with_component(self, value: Expr, name: str, k: int, new: Expr) -> Expr:
        n = self.arity(value, name)
        self.check_field(k, n, name)
        items = [self.component(value, name, i) for i in range(n)]
        items[k] = new
        return TupleExpr(tuple(items))

    def check_field(self, k: int, n: int, name: str) -> None:
        if k >= n:
            raise _Refused(f"user function {self.name}: its C body reads the field _{k} of "
                             f"{name}, a tuple of {n} components (_0 to _{n - 1})")

    # --- expressions -----------------------------------------------------------------------
    def expression(self, env) -> Expr:
        condition = self.binary(0, env)
        if self.at("?"):
            self.take("?")
            then = self.expression(env)
            self.take(":")
            other = self.expression(env)
            return Apply(Prim("select"), (condition, then, other))
        return condition

    def binary(self, level: int, env) -> Expr:
        if level == len(_BINARY):
            return self.unary(env)
        left = self.binary(level + 1, env)
        while self.tok is not None and self.tok.text in _BINARY[level]:
            op = self.take().text
            left = BinOp(op, left, self.binary(level + 1, env))
        return left

    def unary(self, env) -> Expr:
        if self.at("-", "!"):
            op = self.take().text
            operand = self.unary(env)
            if op == "-" and isinstance(operand, Lit) and not isinstance(operand.value, bool):
                return Lit(-operand.value)
            return UnOp(op, operand)
        if self.at("(") and self.pos + 2 < len(self.tokens) and \
                self.tokens[self.pos + 1].text in CASTS and self.tokens[self.pos + 2].text == ")":
            self.take("(")
            cast = CASTS[self.take().text]
            self.take(")")
            return Apply(Prim(cast), (self.unary(env),))
        return self.postfix(env)

    def postfix(self, env) -> Expr:
        value = self.primary(env)
        while self.at("."):
            self.take(".")
            k = self.field()
            if isinstance(value, TupleExpr):
                self.check_field(k, len(value.items), "a tuple")
                value = value.items[k]
                continue
            known = self.types.get(value.name) if isinstance(value, Var) else None
            if isinstance(known, TupleType):
                self.check_field(k, len(known.items), value.name)
            value = Apply(Prim("get", (k,)), (value,))
        if self.at("["):
            raise self.refuse("array indexing")
        return value

    def primary(self, env) -> Expr:
        t = self.tok
        if t is None:
            raise self.refuse("an expression that ends too early")
        if t.kind == "num":
            self.take()
            return Lit(t.value)
        if t.text in ("true", "false"):
            self.take()
            return Lit(t.text == "true")
        if t.text == "(":
            self.take("(")
            value = self.expression(env)
            self.take(")")
            return value
        if t.text == "{":
            self.take("{")
            items = [self.expression(env)]
            while self.at(","):
                self.take(",")
                items.append(self.expression(env))
            self.take("}")
            return TupleExpr(tuple(items))
        if t.kind == "ident":
            self.take()
            if self.at("("):
                if t.text not in BUILTINS:
                    raise self.refuse(f"a call of '{t.text}'")
                self.take("(")
                args = [self.expression(env)]
                while self.at(","):
                    self.take(",")
                    args.append(self.expression(env))
                self.take(")")
                return Apply(Prim(BUILTINS[t.text]), tuple(args))
            if t.text not in env:
                raise self.refuse(f"the name '{t.text}' (not a parameter or local variable)")
            return env[t.text]
        raise self.refuse(f"'{t.text}'")
