"""Printer of the notation: ``Expr`` -> text that reads like the papers and parses back.

``to_text(e)`` uses the paper's symbols (``∘``, ``λ``); ``to_text(e, ascii=True)`` uses
``o`` and ``\\``. Parentheses are added only where precedence requires them.

With a ``width``, an expression longer than that is laid out on several lines (a
notebook's cell shows about 100 columns): a composition one function a line, each after
its ``∘``; a lambda's body, an application's arguments and a pattern's function argument on
lines of their own, indented by two. Whatever fits the width stays on one line, and the
text reads back the same (newlines are blanks to the parser).

A user function may bear a primitive's name (a Lift program's own ``id``): the program's
definitions then shadow the primitive when the text is read back, so in an expression that
calls such a function the primitive is printed by another of its spellings (``Id``).
"""

from __future__ import annotations

from ..errors import ArgumentError, shown
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
)
from ..primitives import lookup
from ..sizes import Size

# Precedence levels, loosest first.
LAMBDA, COMPOSE, OR, AND, COMPARE, ADD, MUL, UNARY, POWER, APP, POSTFIX, ATOM = range(12)
_BINARY = {"||": OR, "&&": AND, "==": COMPARE, "!=": COMPARE, "<": COMPARE, "<=": COMPARE,
           ">": COMPARE, ">=": COMPARE, "+": ADD, "-": ADD, "*": MUL, "/": MUL, "%": MUL}


def to_text(expr: Expr, ascii: bool = False, width: int | None = None) -> str:
    """The expression in the papers' notation (``ascii``: with ``o`` and ``\\``), on one
    line, or laid out on lines of at most ``width`` columns where it is longer (a piece
    that cannot be broken, such as a long lambda-free chain of arguments, may still pass
    it); ``reading.to_text`` also prints Lift's spelling."""
    printer = _Printer(ascii, _shadowed(expr))
    if width is None:
        return printer.show(expr, LAMBDA)
    if isinstance(width, bool) or not isinstance(width, int) or width < 20:
        raise ArgumentError(f"width = {shown(width)}: give a whole number of columns, at "
                            f"least 20", "width")
    return _Layout(printer, width).block(expr, LAMBDA, 0, 0)


def _shadowed(expr: Expr) -> frozenset[str]:
    """The spellings of primitives that a user function called by ``expr`` (or by such a
    function's body) also bears: read back with the definitions of those functions, they
    name the function."""
    return frozenset(n for n in user_functions_called(expr) if lookup(n) is not None)


def user_functions_called(node: Expr) -> frozenset[str]:
    """The names of the user functions ``node`` calls, or their bodies call; kept on each
    node (a rewritten expression shares its untouched subtrees, whose names are not looked
    for again)."""
    cached = node.__dict__.get("_cached_user_functions")
    if cached is None:
        inner = [user_functions_called(child) for child in node.children()]
        if isinstance(node, UserFun):
            inner.append(frozenset({node.name}))
            if node.body is not None:
                inner.append(user_functions_called(node.body))
        cached = frozenset().union(*inner) if inner else frozenset()
        object.__setattr__(node, "_cached_user_functions", cached)
    return cached


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
        words = self.primitive_words(e)
        return " ".join(w for w, _ in words), (APP if len(words) > 1 else ATOM)

    def primitive_words(self, e: Prim) -> list[tuple[str, Expr | None]]:
        """The words a primitive prints as: its name and arguments, each with the
        expression it shows (None for the name, sizes and dimensions)."""
        decl = e.decl
        words: list[tuple[str, Expr | None]] = [(self.spelling(decl), None)]
        for i, (param, arg) in enumerate(zip(decl.params, e.args)):
            if param.kind == "dim":
                following = e.args[i + 1] if i + 1 < len(e.args) else None
                # The dimension may be left out, unless the function is itself a literal 0-2.
                if arg or (isinstance(following, Lit) and following.value in (0, 1, 2)):
                    words.append((str(arg), None))
            elif param.kind == "size":
                words.append((size_argument(arg), None))
            elif param.kind == "sizes":
                words.append(("(" + ", ".join(str(a) for a in arg) + ")", None))
            elif param.kind == "index":
                words.append((str(arg), None))
            elif param.kind == "distribution":  # block, copy, (overlap 1)
                words.append((arg if " " not in arg else f"({arg})", None))
            else:
                words.append((self.show(arg, POSTFIX), arg))
        return words

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


class _Layout:
    """Lays an expression out on lines of at most ``width`` columns. ``block(e, context,
    column, indent)`` is its text when it starts at ``column`` and its further lines are
    indented by at least ``indent`` spaces."""

    def __init__(self, printer: _Printer, width: int):
        self.p = printer
        self.width = width

    def block(self, e: Expr, context: int, column: int, indent: int) -> str:
        flat = self.p.show(e, context)
        if column + len(flat) <= self.width or "\n" in flat:
            return flat
        _, level = self.p.render(e)
        if level < context:  # parenthesised: the inner text one column further in
            return "(" + self.broken(e, column + 1, indent + 1) + ")"
        return self.broken(e, column, indent)

    def line(self, indent: int) -> str:
        return "\n" + " " * indent

    def broken(self, e: Expr, column: int, indent: int) -> str:
        """``e`` broken over lines (as ``render`` would print it, without its brackets)."""
        p = self.p
        if isinstance(e, Compose):
            symbol = p.compose_sym.strip() + " "
            parts = [self.block(f, OR, column if i == 0 else indent + len(symbol),
                                indent + len(symbol)) for i, f in enumerate(e.fns)]
            return parts[0] + "".join(self.line(indent) + symbol + part for part in parts[1:])
        if isinstance(e, Lambda):
            params = " ".join(pattern_text(q) for q in e.params)
            return (f"{p.lambda_sym}{params}." + self.line(indent + 2)
                    + self.block(e.body, LAMBDA, indent + 2, indent + 2))
        if isinstance(e, Apply) and not _postfix_form(e):
            head = self.block(e.fn, APP, column, indent)
            args = [self.block(a, POSTFIX, indent + 2, indent + 2) for a in e.args]
            return head + "".join(self.line(indent + 2) + a for a in args)
        if isinstance(e, Prim) and any(isinstance(a, Expr) for a in e.args):
            return self.primitive(e, column, indent)
        return p.render(e)[0]

    def primitive(self, e: Prim, column: int, indent: int) -> str:
        """``map f``, ``reduceSeq f z``: the name and its static arguments, then each
        argument that is an expression on a line of its own (a single last one stays on
        the first line, broken in turn)."""
        words = self.p.primitive_words(e)
        exprs = [a for _, a in words if a is not None]
        if len(exprs) == 1 and words[-1][1] is exprs[0]:
            head = " ".join(w for w, _ in words[:-1])
            return head + " " + self.block(exprs[0], POSTFIX, column + len(head) + 1,
                                           indent + 2)
        text = words[0][0]
        for word, arg in words[1:]:
            shown = word if arg is None else self.block(arg, POSTFIX, indent + 2, indent + 2)
            text += self.line(indent + 2) + shown
        return text


def _postfix_form(e: Apply) -> bool:
    """``p.0`` and ``if c then t else f``: applications printed in forms of their own."""
    fn = e.fn
    return isinstance(fn, Prim) and ((fn.name == "get" and len(e.args) == 1)
                                     or (fn.name == "select" and len(e.args) == 3))


use_printer(to_text)
