"""Lift programs as Lift's users write them (Steuwer et al.; the ``lift-project/lift`` test
suite): ``val`` definitions of sizes (``SizeVar("N")``), user functions with C bodies
(``UserFun("add", Array("x", "y"), "{ return x+y; }", Seq(Float, Float), Float)``) and
programs (``fun(ArrayTypeWSWC(Float, N), Float, (in, alpha) => ... $ in)``), Lift's patterns
by their Lift names (``MapGlb(0)(f)``, ``ReduceSeq(add, 0.0f)``, ``Iterate(5)(f)``,
``Gather(reverse)``, ``Pad(1, 1, Pad.Boundary.Clamp)``, ``Slide2D(3, 1)``, ``Tile(4)``, …),
``o``, ``$``, tuples and ``Get``.

``scala`` reads the text; here every name gets its meaning: a Lift pattern becomes the
workbench primitive it is (or, for Lift's macros such as ``Tile`` and ``Pad2D``, the
composition Lift defines it as), a user function a ``UserFun`` whose C body is read into
the scalar language (``c_body``), a ``fun`` with types a program whose declared type is
those types and the type of its body. A ``fun`` of one parameter applied to it at the end
(``in => f $ in``) is the function ``f`` itself, so that rules see a composition.

Beyond Lift, scalar operators may be written infix on values (``fun(x => x * 3)``) and
``select(c, a, b)`` chooses, so that every expression of the workbench prints in Lift's
spelling (``lift_printer``) and reads back.
"""

from __future__ import annotations

import difflib
import re

from ..errors import ParseError, TypeCheckError
from ..expr import (
    Apply,
    BinOp,
    Expr,
    Lambda,
    Lit,
    Prim,
    TupleExpr,
    UnOp,
    UserFun,
    Var,
    compose,
)
from ..sizes import Size, arithmetic, arithmetic_refusal, magnitude_refusal, natural_refusal
from ..types import FunctionType, Type
from .lift_library import Generic, declared_pattern, library
from .lift_patterns import refusal_of, unzip_applied, unzip_composed
from .lift_values import Callable_, Namespace, fresh_names, numbers, show_node
from .scala import Node, read_expression, read_program

_TUPLE_FIELD = re.compile(r"_[0-9]")
_MEMORY_PLACED = ("toGlobal", "toLocal", "toPrivate")
_HELPER_DEPTH = 50


class LiftError(ParseError):
    """Lift program text that cannot be read: where, and why."""


# --- the reader ----------------------------------------------------------------------------

class LiftReader:
    def __init__(self, text: str):
        self.text = text
        self.lines = text.split("\n")
        self.env: dict[str, object] = dict(library())
        self.sizes: dict[str, Size] = {}
        self.size_owners: dict[str, str] = {}  # a size's name -> the val that created it
        self.helper_depth = 0  # calls of def helpers being inlined, one inside the other

    def error(self, node: Node, message: str, expected: str = "") -> LiftError:
        tok = node.tok
        line = self.lines[tok.line - 1] if 0 < tok.line <= len(self.lines) else ""
        return LiftError(message, tok.line, tok.col, line, expected)

    # --- definitions -------------------------------------------------------------------
    def define(self, node: Node, env: dict) -> list[tuple[str, object]]:
        """``val name = e``, ``val (a, b) = e`` or ``def name(x, y) = e``: the names it
        defines, with their values, added to env."""
        if node.kind == "def":
            name, params = node.value
            value = Callable_(name, self.helper(name, params, node.parts[0], env,
                                                node.parts[1:]))
            env[name] = value
            return [(name, value)]
        if isinstance(node.value, tuple):
            return self.destructure(node, env)
        name = node.value
        value = self.value(node.parts[0], env)
        if isinstance(value, Expr) and not isinstance(value, UserFun):
            value = self.declared(value, name, node)
        if isinstance(value, Size) and _creates_size(node.parts[0]):
            value = self.own_size(name, value)
        env[name] = value
        return [(name, value)]

    def own_size(self, val: str, size: Size) -> Size:
        """The size a ``val`` creates (``val M = Var("N")``): in Lift every ``SizeVar`` or
        ``Var`` is a variable of its own, whatever its name, so a second val creating a size
        of a name another val created gets a name of its own: the val's (Lift's Hotspot3D
        benchmark names both of its sizes "N"). A val defined again keeps its size."""
        (label,) = size.free_vars
        owner = self.size_owners.setdefault(label, val)
        if owner == val:
            return size
        fresh, k = val, 1
        while not Size.is_name(fresh) or fresh in self.size_owners:
            fresh, k = f"{val}_{k}", k + 1
        self.size_owners[fresh] = val
        return Size.var(fresh)

    def helper(self, name: str, params: tuple, body: Node, env: dict, defaults=()):
        """A Scala ``def`` with parameters: each call evaluates its body with the arguments
        bound (the helper is inlined where it is called, as Scala builds the expression);
        arguments left out take their default (``def f(x: Param, k: Float = 2.0f)``),
        evaluated where the helper is defined."""
        defaults = list(defaults) or [None] * len(params)
        least = sum(1 for d in defaults if d is None)

        def call(reader, args, node):
            if not least <= len(args) <= len(params):
                counts = str(len(params)) if least == len(params) else \
                    f"{least} to {len(params)}"
                raise self.error(node, f"{name} takes {counts} argument"
                                       f"{'s' if len(params) != 1 else ''} "
                                       f"({', '.join(params)}), got {len(args)}")
            args = list(args) + [self.value(d, env) for d in defaults[len(args):]]
            if self.helper_depth >= _HELPER_DEPTH:
                raise self.error(node, f"the helper {name} is called {_HELPER_DEPTH} deep: a "
                                       f"helper that calls itself never ends here, as the "
                                       f"reader inlines every call")
            inner = dict(env)  # the definitions where the helper is defined, and its own
            inner.update(zip(params, args))
            self.helper_depth += 1
            try:
                return self.value(body, inner)
            finally:
                self.helper_depth -= 1
        return call

    def destructure(self, node: Node, env: dict) -> list[tuple[str, object]]:
        """``val (a, b) = e``: a Scala tuple's items, or the components of a tuple-valued
        expression (``Get(e, i)``)."""
        names = node.value
        value = self.value(node.parts[0], env)
        if isinstance(value, TupleExpr):
            value = value.items
        if isinstance(value, tuple):
            if len(value) != len(names):
                raise self.error(node, f"val ({', '.join(names)}) takes a tuple of "
                                       f"{len(names)} items, the value has {len(value)}")
            items = list(value)
        elif isinstance(value, Expr):
            items = [Apply(Prim("get", (i,)), (value,)) for i in range(len(names))]
        else:
            raise self.error(node, f"val ({', '.join(names)}) takes a tuple, not "
                                   f"{show_node(value)}")
        out = []
        for n, v in zip(names, items):
            if n != "_":
                env[n] = v
                out.append((n, v))
        return out

    def declared(self, value: Expr, name: str, node: Node) -> Expr:
        """A ``fun`` with parameter types: the definition's declared type is those types and
        the type of its body."""
        from ..typecheck import typecheck
        from .program import named

        types = getattr(value, "lift_types", None)
        if not types:
            return value
        try:
            result = typecheck(value, *types)
        except TypeCheckError as err:
            raise self.error(node, f"{name} does not type-check: {err}") from None
        t: Type = result
        for arg in reversed(types):
            t = FunctionType(arg, t)
        return named(value, name, t)

    # --- values ------------------------------------------------------------------------
    def value(self, node: Node, env: dict):
        kind = node.kind
        if kind == "num":
            return node.value
        if kind == "str":
            return node.value
        if kind == "name":
            return self.name(node, env)
        if kind == "tuple":
            return tuple(self.value(p, env) for p in node.parts)
        if kind == "call":
            if node.parts[0].kind == "member" and node.parts[0].value == "setScalaFun":
                # Lift's scala function of a user function, for its interpreter: not read
                return self.value(node.parts[0].parts[0], env)
            callee = self.value(node.parts[0], env)
            args = [self.value(a, env) for a in node.parts[1]]
            return self.call(callee, args, node)
        if kind == "member":
            return self.member(node, env)
        if kind == "infix":
            return self.infix(node, env)
        if kind == "prefix":
            operand = self.as_expr(self.value(node.parts[0], env), node.parts[0])
            return UnOp(node.value, operand)
        if kind == "lambda":
            return self.lambda_(node, env)
        if kind == "block":
            inner = dict(env)
            for part in node.parts[:-1]:
                if part.kind not in ("define", "def"):
                    raise self.error(part, "only definitions may come before the result of a "
                                           "block")
                if part.kind == "define" and isinstance(part.value, str):
                    inner[part.value] = self.value(part.parts[0], inner)
                else:
                    self.define(part, inner)
            return self.value(node.parts[-1], inner)
        if kind in ("define", "def"):
            raise self.error(node, "a definition is not a value here")
        if kind == "placeholder":
            raise self.error(node, "Scala's _ placeholder is not supported: name the "
                                   "parameter (x => ... x ...)")
        raise self.error(node, f"unexpected {kind}")  # pragma: no cover

    def name(self, node: Node, env: dict):
        word = node.value
        if word in env:
            return env[word]
        generic = declared_pattern(word)
        if generic is not None:
            return generic
        close = difflib.get_close_matches(word, list(env), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise self.error(node, f"unknown name {word!r}: not a Lift pattern, user function, "
                               f"type or definition of this program{hint}", "a known name")

    def member(self, node: Node, env: dict):
        name = node.value
        if name == "stripMargin":
            text = self.value(node.parts[0], env)
            return "\n".join(line.split("|", 1)[1] if "|" in line else line
                             for line in str(text).split("\n"))
        if name == "setScalaFun":
            return Callable_("setScalaFun", lambda r, args, n: self.value(node.parts[0], env))
        owner = node.parts[0]
        qualifier = _qualifier(owner)
        if qualifier is not None and qualifier.split(".")[0] not in env and \
                declared_pattern(qualifier.split(".")[0]) is None:
            return self.qualified(qualifier, name, node, env)
        target = self.value(owner, env)
        if isinstance(target, Namespace):
            if name not in target.members:
                raise self.error(node, f"{target.name} has no member {name} (it has "
                                       f"{', '.join(target.members)})")
            return target.members[name]
        if name == "apply":
            return Callable_("apply", lambda r, args, n: self.call(target, args, n))
        if name == "vectorize":
            return Callable_("vectorize", lambda r, args, n: self.vectorize(target, args, n))
        if name == "at":
            return Callable_("at", lambda r, args, n: self.at(target, args, n, node))
        if name in ("toFloat", "toInt"):
            return _scala_conversion(target, name)
        if _TUPLE_FIELD.fullmatch(name):
            return self.field(target, int(name[1:]), node)
        raise self.error(node, f"the member .{name} is not supported here (members read: "
                               f"._0, ._1, … of tuples, .at(i), .vectorize(n), .apply(...), "
                               f".stripMargin)")

    def qualified(self, qualifier: str, name: str, node: Node, env: dict):
        """``nn.Linear``, ``NBody.update``, ``opencl.ir.pattern.MapGlb``: a name qualified
        by the Scala package or object that holds it is the name itself (the program's
        definitions are that object's, and Lift's library is one namespace here)."""
        if name in env:
            return env[name]
        generic = declared_pattern(name)
        if generic is not None:
            return generic
        root = node
        while root.kind == "member":
            root = root.parts[0]
        raise self.error(root, f"unknown qualified name {qualifier}.{name}: {qualifier} is "
                               f"no definition of this program, so {qualifier}.{name} is read "
                               f"as {name}, and {name} is not a Lift pattern, user function, "
                               f"type or definition of this program", "a known name")

    def field(self, target, k: int, node: Node):
        """``x._0``: Lift's accessor of a tuple's component (``Get(x, 0)``); on a Scala tuple
        ``(a, b)._1`` is Scala's own, counted from 1."""
        if isinstance(target, tuple):
            if not 1 <= k <= len(target):
                raise self.error(node, f"a Scala tuple of {len(target)} items has the fields "
                                       f"_1 to _{len(target)}, not _{k}")
            return target[k - 1]
        if isinstance(target, TupleExpr):
            if k >= len(target.items):
                raise self.error(node, f"the tuple {show_node(target)} has the components "
                                       f"_0 to _{len(target.items) - 1}, not _{k}")
            return target.items[k]
        return Apply(Prim("get", (k,)), (self.as_expr(target, node.parts[0]),))

    def at(self, target, args: list, node: Node, member: Node) -> Expr:
        """``xs.at(i)``: element i of an array (Lift's ArrayAccess)."""
        if len(args) != 1:
            raise self.error(node, f".at takes one index, got {len(args)} arguments")
        (i,) = args
        if isinstance(i, Size):
            if not i.is_integer_constant:
                raise self.error(self.argument_node(node, args, 0),
                                 f".at({i}): the index must be a number; the size {i} has "
                                 f"no value inside an expression", "a number")
            i = int(i.value)
        if isinstance(i, int) and not isinstance(i, bool) and i < 0:
            raise self.error(self.argument_node(node, args, 0),
                             f".at({i}): an index counts from 0", "a natural number")
        return Apply(Prim("at"), (self.as_expr(i, node), self.as_expr(target, member.parts[0])))

    def vectorize(self, target, args: list, node: Node):
        if len(args) != 1:
            raise self.error(node, f".vectorize takes the vector width, got {len(args)} "
                                   f"arguments")
        self.natural(args, 0, node, "the width of .vectorize")
        if isinstance(target, Generic):  # add.vectorize(4)
            target = target.fn
        if isinstance(target, Lit) and not isinstance(target.value, bool):
            # a vector value of one number in every lane: the literal, which takes the vector
            # type its context expects (a vector accumulator's initial value)
            return target
        if isinstance(target, Var):
            # a parameter in every lane (VectorScaling's mult.vectorize(4).apply(
            # alpha.vectorize(4), x)): the scalar, which a lane-wise function widens to
            # every lane as OpenCL C does
            return target
        if isinstance(target, Expr):
            return Prim("mapVec", (target,))
        raise self.error(node, f"{show_node(target)}.vectorize(n): only user functions and "
                               f"numbers (Value(0.0f).vectorize(4)) are vectorised")

    def lambda_(self, node: Node, env: dict) -> Lambda:
        names = tuple(node.value)
        inner = dict(env)
        for n in names:
            inner[n] = Var(n)
        body = self.as_expr(self.value(node.parts[0], inner), node.parts[0])
        return Lambda(names, body)

    def infix(self, node: Node, env: dict):
        op = node.value
        left, right = (self.value(p, env) for p in node.parts)
        if op in ("o", "∘", "<<<"):
            first = self.as_expr(right, node.parts[1])
            return compose(unzip_composed(self.as_expr(left, node.parts[0]), first), first)
        if op == ">>>":  # f >>> g is g o f (Lift's FunDecl.>>>)
            first = self.as_expr(left, node.parts[0])
            return compose(unzip_composed(self.as_expr(right, node.parts[1]), first), first)
        if op == "$" or op == "<<:":
            return self.apply(self.as_expr(left, node.parts[0]),
                              [self.as_expr(right, node.parts[1])])
        if op == ":>>":  # x :>> f is f(x)
            return self.apply(self.as_expr(right, node.parts[1]),
                              [self.as_expr(left, node.parts[0])])
        if op == "+" and (isinstance(left, str) or isinstance(right, str)):
            return self.concatenation(left, right, node)
        if isinstance(left, Size) or isinstance(right, Size) or op == "/^":
            return self.size_arithmetic(op, left, right, node)
        if isinstance(left, int | float) and isinstance(right, int | float) and \
                not isinstance(left, bool) and not isinstance(right, bool):
            if op in ("/", "%") and right == 0:
                raise self.error(node, f"{left} {op} {right} divides by zero", "a divisor that "
                                                                                "is not zero")
            return numbers(op, left, right)
        return BinOp(op, self.as_expr(left, node.parts[0]), self.as_expr(right, node.parts[1]))

    def concatenation(self, left, right, node: Node) -> str:
        """``"{ ..." + "... }"``: Scala's string concatenation (a C body written over several
        lines); numbers and constant sizes are written as Scala writes them."""
        def text(value, at: Node) -> str:
            if isinstance(value, str):
                return value
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, int):
                return str(value)
            if isinstance(value, float):
                return repr(value)
            if isinstance(value, Size) and value.is_integer_constant:
                return str(int(value.value))
            if isinstance(value, Size):
                raise self.error(at, f"the size {value} is joined to a string: a symbolic size "
                                     f"has no value in a user function's C body", "a number")
            raise self.error(at, f"{show_node(value)} is joined to a string: only strings, "
                                 f"numbers and constant sizes are", "a string")
        return text(left, node.parts[0]) + text(right, node.parts[1])

    def size_arithmetic(self, op: str, left, right, node: Node) -> Size:
        a, b = self.as_size(left, node), self.as_size(right, node)
        if op not in ("+", "-", "*", "/", "/^"):
            raise self.error(node, f"the operator {op} is not defined on sizes")
        op = "/" if op == "/^" else op
        reason = arithmetic_refusal(op, a, b)
        size = arithmetic(op, a, b) if reason is None else None
        if size is not None:
            reason = magnitude_refusal(size)
        if reason is not None:
            raise self.error(node, f"the size {a} {op} {b} cannot be computed: {reason}",
                             "a smaller size")
        return size

    # --- calls -------------------------------------------------------------------------
    def call(self, callee, args: list, node: Node):
        if isinstance(callee, Callable_) or isinstance(callee, Namespace) and callee.call:
            return callee.call(self, args, node)
        if isinstance(callee, Expr):
            if not args:
                raise self.error(node, f"{show_node(callee)} is called with no arguments")
            return self.apply(callee, [self.as_expr(a, node) for a in args])
        if isinstance(callee, list | tuple) and len(args) == 1:
            return self.element(callee, args, node)
        raise self.error(node, f"{show_node(callee)} is not a function")

    def element(self, items, args: list, node: Node):
        """``weights(2)``: an element of a Scala Array or List, by its index."""
        i = args[0]
        if isinstance(i, Size) and i.is_integer_constant:
            i = int(i.value)
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(items):
            raise self.error(self.argument_node(node, args, 0),
                             f"element {show_node(i)} of a Scala array of {len(items)} items: "
                             f"the index is a number from 0 to {len(items) - 1}", "an index")
        return items[i]

    def apply(self, fn: Expr, args: list[Expr]) -> Expr:
        if isinstance(fn, Prim) and fn.name in _MEMORY_PLACED and len(args) > 1:
            return self.placed_call(fn, args)
        if len(args) == 1 and unzip_applied(fn, args[0]) is not None:
            return unzip_applied(fn, args[0])
        if isinstance(fn, Prim) and fn.name == "id" and len(args) == 1 and \
                isinstance(args[0], Var | Lit):
            return args[0]  # Lift's id(x) on a value (ReduceSeq(add, id(init)))
        if isinstance(fn, Prim) and fn.name == "mapVec" and len(args) > 1:
            # a vectorised user function of several arguments (mult.vectorize(4).apply(a, x)):
            # mapVec takes them as one tuple, lane by lane
            return Apply(fn, (TupleExpr(tuple(args)),))
        return Apply(fn, tuple(args))

    def placed_call(self, fn: Prim, args: list[Expr]) -> Expr:
        """``toPrivate(mult)(x._0, alpha)``: a memory-placed function of several arguments,
        written here as the placed function of the first, the others captured
        (``toPrivate(λy. mult y alpha) x._0``): the result is written in that memory."""
        (f,) = fn.args
        (y,) = fresh_names(("y",), f, *args)
        body = Apply(f, (Var(y), *args[1:]))
        return Apply(Prim(fn.name, (Lambda((y,), body),)), (args[0],))

    # --- conversions -------------------------------------------------------------------
    def as_expr(self, value, node: Node) -> Expr:
        if isinstance(value, Expr):
            return value
        if isinstance(value, Generic):
            return value.fn
        if isinstance(value, bool | int | float):
            return Lit(value)
        if isinstance(value, tuple):
            return TupleExpr(tuple(self.as_expr(v, node) for v in value))
        if isinstance(value, Size):
            if value.is_integer_constant:
                return Lit(int(value.value))  # a program's constant size used as a number
            raise self.error(node, f"the size {value} is used as a value: a symbolic size "
                                   f"has no value inside an expression (sizes are types' "
                                   f"lengths and patterns' arguments)", "a number")
        raise self.error(node, f"{show_node(value)} is not an expression here")

    def as_size(self, value, node: Node) -> Size:
        if isinstance(value, Size):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return Size.const(value)
        if isinstance(value, Lit) and isinstance(value.value, int):
            return Size.const(value.value)
        raise self.error(node, f"{show_node(value)} is not a size", "a number or a size")

    def argument_node(self, node: Node, args: list, i: int) -> Node:
        """Where argument i of a call is written (the call when the values do not match
        the written arguments one to one, as in ``FunCall(f, x)``)."""
        if node.kind == "call" and len(node.parts[1]) == len(args):
            return node.parts[1][i]
        return node

    def natural(self, args: list, i: int, node: Node, what: str) -> Size:
        """Argument i of a call as a static size (a length, count, width or step): a
        natural number, refused where it is written when it cannot be one."""
        at = self.argument_node(node, args, i)
        size = self.as_size(args[i], at)
        reason = natural_refusal(size)
        if reason is not None:
            raise self.error(at, f"{what} is a natural number, and {reason}",
                             "a natural number")
        return size

    def index(self, args: list, i: int, node: Node, what: str) -> int:
        """Argument i of a call as a component index: a literal 0, 1, …"""
        at = self.argument_node(node, args, i)
        value = args[i]
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(at, f"{what} takes a literal component index (0, 1, ...), not "
                                 f"{show_node(value)}", "an index")
        if value < 0:
            raise self.error(at, f"{what}: the component index {value} is negative; components "
                                 f"count from 0 (0, 1, ...), a negative index does not count "
                                 f"from the end", "an index")
        return value

    def as_type(self, value, node: Node) -> Type:
        if isinstance(value, Type):
            return value
        if refusal_of(value) is not None:
            raise self.error(node, refusal_of(value))
        raise self.error(node, f"{show_node(value)} is not a type", "a Lift type such as Float or "
                                                                "ArrayTypeWSWC(Float, N)")


def _scala_conversion(value, name: str):
    """Scala's ``x.toInt`` and ``x.toFloat``: on a number the reader computed while building
    the program (``Math.pow(2, 5).toInt``) the conversion itself (``toInt`` truncates
    toward zero, as Scala's does); on anything else, a size or an expression, the value as
    it is (Lift writes them where its Scala needs a number's type)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return int(value) if name == "toInt" else float(value)


def _qualifier(node: Node) -> str | None:
    """``a.b.c`` as the text "a.b.c" where every part is a plain name (no call, no ``_0``
    accessor), else None."""
    if node.kind == "name":
        return node.value
    if node.kind == "member" and not _TUPLE_FIELD.fullmatch(node.value):
        inner = _qualifier(node.parts[0])
        return None if inner is None else f"{inner}.{node.value}"
    return None


def _creates_size(node: Node) -> bool:
    """Whether a val's expression is a call of SizeVar or Var (a new size variable)."""
    return node.kind == "call" and node.parts[0].kind == "name" and \
        node.parts[0].value in ("SizeVar", "Var")


# --- entry points --------------------------------------------------------------------------

_LIFT_MARKS = re.compile(r'(^|\n)\s*(val|def)\s|\$|"|\bSizeVar\b|\bArrayType|\bUserFun\b'
                         r'|\bfun\s*\(\s*(Float|Int|Double|ArrayType|TupleType)')
_LIFT_CALL = re.compile(r"\b[A-Z][A-Za-z0-9]*\s*\(|\b(toGlobal|toLocal|toPrivate|asVector|"
                        r"asScalar|reverse|fun)\b")


def looks_like_lift(text: str) -> bool:
    """Whether text is written in Lift's Scala DSL (definitions, ``$``, strings, Lift types)
    rather than the paper notation."""
    return bool(_LIFT_MARKS.search(text))


def may_be_lift(text: str) -> bool:
    """Whether text calls Lift patterns (``Split(4)``, ``Gather(reverse)``): worth reading
    as Lift when the paper notation cannot read it."""
    return bool(_LIFT_CALL.search(text))


def parse_lift(text: str) -> Expr:
    """One Lift expression (``fun(ArrayTypeWSWC(Float, SizeVar("N")), in => ... $ in)``)."""
    reader = LiftReader(text)
    node = read_expression(text)
    value = reader.value(node, reader.env)
    if not isinstance(value, Expr):
        raise reader.error(node, f"{show_node(value)} is not an expression")
    if isinstance(value, UserFun):
        return value
    return reader.declared(value, "the expression", node)


def parse_lift_program(text: str):
    """A Lift program: its ``val`` definitions by name (those that are expressions: user
    functions and programs; sizes and types are used, not returned)."""
    from .program import Program

    reader = LiftReader(text)
    env = reader.env
    definitions: dict[str, Expr] = {}
    order: list[str] = []
    nodes = read_program(text)
    for k, node in enumerate(nodes):
        if node.kind not in ("define", "def"):
            if k == len(nodes) - 1:  # a highLevel file's program: fun(...) after its vals
                anonymous = _anonymous_program(reader, node, definitions)
                order.append(ANONYMOUS)
                definitions[ANONYMOUS] = anonymous
                break
            raise reader.error(node, "a Lift program is a sequence of definitions "
                                     "(val name = ...), and only its last item may be the "
                                     "program itself (an unnamed fun(...))", "val")
        for name, value in reader.define(node, env):
            if isinstance(value, Expr):
                if name not in definitions:
                    order.append(name)
                definitions[name] = value
    return Program(definitions, order)


# The name of a program written without one: the unnamed fun(...) that ends Lift's
# highLevel files (the value of the Scala script Lift's exploration evaluates).
ANONYMOUS = "main"


def _anonymous_program(reader: LiftReader, node: Node, definitions: dict) -> Expr:
    if ANONYMOUS in definitions:
        raise reader.error(node, f"the program's unnamed last expression is named "
                                 f"{ANONYMOUS!r}, and a definition already has that name")
    value = reader.value(node, reader.env)
    if not isinstance(value, Expr) or isinstance(value, UserFun):
        raise reader.error(node, f"the last item of a Lift program, {show_node(value)}, is "
                                 f"neither a definition nor a program (fun(types..., "
                                 f"params => body))", "fun(...)")
    if not getattr(value, "lift_types", None):
        raise reader.error(node, "the program's unnamed last expression is a function without "
                                 "parameter types: write them as Lift does (fun(ArrayType("
                                 "Float, N), in => ...))", "fun(types..., params => body)")
    return reader.declared(value, ANONYMOUS, node)


__all__ = ["parse_lift", "parse_lift_program", "looks_like_lift", "LiftReader", "ANONYMOUS"]
