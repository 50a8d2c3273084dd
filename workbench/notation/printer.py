"""Printer of the notation: ``Expr`` -> text that reads like the papers and parses back.

``to_text(e)`` uses the paper's symbols (``∘``, ``λ``); ``to_text(e, ascii=True)`` uses
``o`` and ``\\``. Parentheses are added only where precedence requires them.

A user function may bear a primitive's name (a Lift program's own ``id``): the program's
definitions then shadow the primitive when the text is read back, so in an expression that
calls such a function the primitive is printed by another of its spellings (``Id``).
"""

from __future__ import annotations

from ..expr import (
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
    use_printer,
    walk,
)
from ..primitives import lookup
from ..sizes import Size

# Precedence levels, loosest first.
LAMBDA, COMPOSE, OR, AND, COMPARE, ADD, MUL, UNARY, POWER, APP, POSTFIX, ATOM = range(12)
_BINARY = {"||": OR, "&&": AND, "==": COMPARE, "!=": COMPARE, "<": COMPARE, "<=": COMPARE,
           ">": COMPARE, ">=": COMPARE, "+": ADD, "-": ADD, "*": MUL, "/": MUL, "%": MUL}


def to_text(expr: Expr, ascii: bool = False) -> str:
    """The expression in the papers' notation (``ascii``: with ``o`` and ``\\``);
    ``reading.to_text`` also prints Lift's spelling."""
    return _Printer(ascii, _shadowed(expr)).show(expr, LAMBDA)


def _shadowed(expr: Expr) -> frozenset[str]:
    """The spellings of primitives that a user function called by ``expr`` (or by such a
    function's body) also bears: read back with the definitions of those functions, they
    name the function."""
    names: set[str] = set()
    pending = [expr]
    while pending:
        for _, node in walk(pending.pop()):
            if isinstance(node, UserFun) and node.name not in names:
                names.add(node.name)
                if node.body is not None:
                    pending.append(node.body)
    return frozenset(n for n in names if lookup(n) is not None)


def size_argument(s: Size) -> str:
    text = str(s)
    return text if text.isidentifier() or text.isdigit() else f"({text})"


def literal_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = repr(value)
        return text if any(c in text for c in ".eE") else text + ".0"
    return str(value)


def pattern_text(pattern) -> str:
    if isinstance(pattern, str):
        return pattern
    return "(" + ", ".join(pattern_text(p) for p in pattern) + ")"


class _Printer:
    def __init__(self, ascii: bool, shadowed: frozenset[str] = frozenset()):
        self.compose_sym = " o " if ascii else " ∘ "
        self.lambda_sym = "\\" if ascii else "λ"
        self.shadowed = shadowed

    def spelling(self, decl) -> str:
        """A primitive's name, or the first other spelling of it that no user function of
        the expression bears (its name when there is none)."""
        if decl.name not in self.shadowed:
            return decl.name
        return next((a for a in decl.aliases if a.isidentifier() and a not in self.shadowed),
                    decl.name)

    def show(self, e: Expr, context: int) -> str:
        text, level = self.render(e)
        return f"({text})" if level < context else text

    def render(self, e: Expr) -> tuple[str, int]:
        if isinstance(e, Var):
            return e.name, ATOM
        if isinstance(e, UserFun):
            return e.name, ATOM
        if isinstance(e, Lit):
            text = literal_text(e.value)
            return text, (UNARY if text.startswith("-") else ATOM)
        if isinstance(e, Lambda):
            params = " ".join(pattern_text(p) for p in e.params)
            return f"{self.lambda_sym}{params}. {self.show(e.body, LAMBDA)}", LAMBDA
        if isinstance(e, Compose):
            return self.compose_sym.join(self.show(f, OR) for f in e.fns), COMPOSE
        if isinstance(e, TupleExpr):
            return "(" + ", ".join(self.show(i, LAMBDA) for i in e.items) + ")", ATOM
        if isinstance(e, BinOp):
            level = _BINARY[e.op]
            right_level = level + 1
            left_level = level + 1 if level == COMPARE else level
            return (f"{self.show(e.left, left_level)} {e.op} {self.show(e.right, right_level)}",
                    level)
        if isinstance(e, UnOp):
            inner = self.show(e.operand, UNARY)
            if inner.startswith("-"):
                inner = f"({inner})"
            return f"{e.op}{inner}", UNARY
        if isinstance(e, Section):
            if e.left is not None:
                return f"({self.show(e.left, UNARY)} {e.op})", ATOM
            if e.right is not None:
                return f"({e.op}{self.show(e.right, _BINARY[e.op] + 1)})", ATOM
            return f"({e.op})", ATOM
        if isinstance(e, Prim):
            return self.primitive(e)
        if isinstance(e, Apply):
            return self.application(e)
        raise TypeError(f"cannot print {type(e).__name__}")  # pragma: no cover

    def primitive(self, e: Prim) -> tuple[str, int]:
        decl = e.decl
        words = [self.spelling(decl)]
        for i, (param, arg) in enumerate(zip(decl.params, e.args)):
            if param.kind == "dim":
                following = e.args[i + 1] if i + 1 < len(e.args) else None
                # The dimension may be left out, unless the function is itself a literal 0-2.
                if arg or (isinstance(following, Lit) and following.value in (0, 1, 2)):
                    words.append(str(arg))
            elif param.kind == "size":
                words.append(size_argument(arg))
            elif param.kind == "sizes":
                words.append("(" + ", ".join(str(a) for a in arg) + ")")
            elif param.kind == "index":
                words.append(str(arg))
            else:
                words.append(self.show(arg, POSTFIX))
        return " ".join(words), (APP if len(words) > 1 else ATOM)

    def application(self, e: Apply) -> tuple[str, int]:
        fn = e.fn
        if isinstance(fn, Prim) and fn.name == "get" and len(e.args) == 1:
            target = e.args[0]
            inner = f"({self.show(target, LAMBDA)})" if isinstance(target, Lit) else \
                self.show(target, POSTFIX)
            return f"{inner}.{fn.args[0]}", POSTFIX
        if isinstance(fn, Prim) and fn.name == "select" and len(e.args) == 3:
            c, t, f = (self.show(a, LAMBDA) for a in e.args)
            return f"if {c} then {t} else {f}", LAMBDA
        head = self.show(fn, APP)
        args = " ".join(self.show(a, POSTFIX) for a in e.args)
        return f"{head} {args}", APP


use_printer(to_text)
