"""A reader for the subset of Scala that Lift programs are written in (``val``/``def``
definitions, ``def`` helpers with parameters (``def f(x: Param) = e``), tuple definitions
``val (a, b) = e``, calls ``f(a, b)`` and curried calls ``MapGlb(0)(f)``, method calls
``f.apply(x)``, lambdas ``(a, b) => e``, blocks ``{ val x = e; e }``, strings, and infix
operators with Scala's precedence: ``o`` and ``$`` lowest, as every operator named by a
letter or ``$``; an operator ending in ``:`` (``f <<: x``) associates to the right; Lift's
``f >>> g`` (``g o f``) and ``f <<< g``).

It builds a small syntax tree; ``lift`` gives the tree its meaning (Lift's patterns, types,
user functions). Errors name the line and column and say what was expected.

As in Scala, a line break ends a definition unless the line ends with an operator, and is
ignored inside parentheses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import ParseError
from .lexer import MAX_INTEGER, Token, TokenCursor

# Longest first.
_OPERATORS = [">>>", "<<<", ":>>", "<<:", "=>", "/^", "==", "!=", "<=", ">=", "&&", "||", "(",
              ")", "{", "}", "[", "]", ",", ".", ";", ":", "=", "+", "-", "*", "/", "%", "<",
              ">", "!", "?", "$", "\\", "_", "λ", "∘"]
_NUMBER = re.compile(r"(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?([fFdDlL])?", re.ASCII)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DIGITS = frozenset("0123456789")
KEYWORDS = {"val", "def", "var", "private", "lazy", "override", "new"}

# Scala's precedence of infix operators, by their first character (loosest first); an
# operator named by letters (``o``) or ``$`` binds loosest of all.
_LEVELS = [("letter",), ("|",), ("^",), ("&",), ("=", "!"), ("<", ">"), (":",), ("+", "-"),
           ("*", "/", "%")]


def _level(op: str) -> int:
    if op in ("o", "$", "∘"):
        return 0
    for i, starts in enumerate(_LEVELS):
        if op[0] in starts:
            return i
    return len(_LEVELS)


INFIX = {"o", "$", "∘", "||", "&&", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%",
         "/^", ":>>", "<<:", ">>>", "<<<"}


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    lines = text.split("\n")
    i, line, col = 0, 1, 1
    n = len(text)

    def error(message: str, expected: str = "") -> ParseError:
        return ParseError(message, line, col, lines[line - 1] if line <= len(lines) else "",
                          expected)

    def advance(k: int) -> None:
        nonlocal i, line, col
        for ch in text[i:i + k]:
            if ch == "\n":
                line, col = line + 1, 1
            else:
                col += 1
        i += k

    while i < n:
        ch = text[i]
        if ch in " \t\r\n":
            advance(1)
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            advance((n if end < 0 else end) - i)
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise error("a comment /* ... is not closed", "*/")
            advance(end + 2 - i)
            continue
        start_line, start_col = line, col
        if text.startswith('"""', i):
            end = text.find('"""', i + 3)
            if end < 0:
                raise error('a string """... is not closed', '"""')
            value = text[i + 3:end]
            advance(end + 3 - i)
            tokens.append(Token("str", value, start_line, start_col, value))
            continue
        if ch == '"':
            j, out = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\n":
                    break
                if text[j] == "\\" and j + 1 < n:
                    out.append({"n": "\n", "t": "\t"}.get(text[j + 1], text[j + 1]))
                    j += 2
                    continue
                out.append(text[j])
                j += 1
            if j >= n or text[j] != '"':
                raise error("a string is not closed on its line", '"')
            advance(j + 1 - i)
            value = "".join(out)
            tokens.append(Token("str", value, start_line, start_col, value))
            continue
        if ch in _DIGITS or (ch == "." and i + 1 < n and text[i + 1] in _DIGITS):
            m = _NUMBER.match(text, i)
            literal = m.group(0)
            suffix = (m.group(3) or "").lower()
            is_float = suffix in ("f", "d") or any(c in literal for c in ".eE")
            digits = literal.rstrip("fFdDlL")
            if is_float:
                value: object = float(digits)
            else:
                if len(digits) > 19 or int(digits) > MAX_INTEGER:
                    raise error(f"the whole number {literal} does not fit in 64 bits",
                                "a smaller number")
                value = int(digits)
            advance(len(literal))
            tokens.append(Token("num", literal, start_line, start_col, value))
            continue
        if ch == "`":  # a Scala identifier in backquotes: `tile[1][1][1]`
            end = text.find("`", i + 1)
            if end < 0 or "\n" in text[i:end]:
                raise error("a name `... is not closed on its line", "`")
            word = text[i + 1:end]
            if not word:
                raise error("a name `` is empty", "a name")
            advance(end + 1 - i)
            tokens.append(Token("ident", word, start_line, start_col, word))
            continue
        m = _IDENT.match(text, i)
        if m and not (ch == "_" and not text[i + 1:i + 2].isalnum()):
            word = m.group(0)
            advance(len(word))
            tokens.append(Token("ident", word, start_line, start_col, word))
            continue
        for op in _OPERATORS:
            if text.startswith(op, i):
                advance(len(op))
                tokens.append(Token("op", op, start_line, start_col, op))
                break
        else:
            raise error(f"unexpected character {ch!r}", "Lift program text")
    tokens.append(Token("eof", "", line, col, None))
    return tokens


@dataclass
class Node:
    """``kind``: num, str, name, call (parts: callee, args), member (parts: object; value:
    name), infix (value: operator; parts: left, right), prefix, lambda (value: parameter
    names; parts: body), block (parts: definitions then the result), tuple, define (value:
    name, or a tuple of names for ``val (a, b) = e``; parts: expression), def (value: name
    and parameter names; parts: body), placeholder."""

    kind: str
    tok: Token
    parts: list = field(default_factory=list)
    value: object = None


class Reader(TokenCursor):
    def __init__(self, text: str):
        super().__init__(text, tokenize(text))
        self.nested = 0  # inside parentheses: line breaks do not end anything

    def line_break_before(self) -> bool:
        """A line break between the previous token and this one ends a definition (outside
        parentheses)."""
        return self.nested == 0 and self.pos > 0 and \
            self.tokens[self.pos - 1].line < self.tok.line

    # --- definitions -------------------------------------------------------------------------
    def program(self) -> list[Node]:
        out = []
        while self.tok.kind != "eof":
            if self.at(";"):
                self.advance()
                continue
            out.append(self.statement())
        return out

    def statement(self) -> Node:
        while self.at("private", "lazy", "override"):
            self.advance()
        if self.at("val", "def", "var"):
            start = self.advance()
            if start.text == "val" and self.at("("):  # val (a, b) = e
                names = self.parameters()
                self.skip_ascription()
                self.expect("=", f"'=' after {start.text} ({', '.join(names)})")
                return Node("define", start, [self.expression()], tuple(names))
            if self.tok.kind != "ident":
                raise self.error(f"expected a name after {start.text}, found {self.found()}",
                                 expected="a name")
            name = self.advance().text
            params = None
            if start.text == "def" and self.at("["):  # def f[T](x: T): type parameters
                self.skip_balanced("[", "]")
            defaults: list = []
            if start.text == "def" and self.at("("):  # def f(x: Param, n: Int = 2) = e
                params, defaults = self.parameters_with_defaults()
            self.skip_ascription()
            self.expect("=", f"'=' after {start.text} {name}")
            body = self.expression()
            if params is not None:
                return Node("def", start, [body, *defaults], (name, tuple(params)))
            return Node("define", start, [body], name)
        return self.expression()

    def parameters(self) -> list[str]:
        """``(a, b: T, c)``: the names (their types are not needed)."""
        self.expect("(")
        names = []
        while not self.at(")"):
            if self.tok.kind == "eof":
                raise self.error("the parameter list is not closed", expected="')'")
            names.append(self.expect_name())
            if self.at(":"):
                self.skip_type()
            if not self.at(")"):
                self.expect(",", "',' or ')'")
        self.advance()
        return names

    def parameters_with_defaults(self) -> tuple[list[str], list]:
        """A ``def``'s ``(a, b: T, c: Int = 2)``: the names, and for each its default
        argument (an expression node) or None; after a parameter with a default every
        parameter has one, as Scala's callers may leave out only trailing arguments here."""
        self.expect("(")
        self.nested += 1
        try:
            names, defaults = [], []
            while not self.at(")"):
                if self.tok.kind == "eof":
                    raise self.error("the parameter list is not closed", expected="')'")
                names.append(self.expect_name())
                if self.at(":"):
                    self.skip_type()
                default = None
                if self.at("="):
                    self.advance()
                    default = self.expression()
                elif any(d is not None for d in defaults):
                    raise self.error(f"the parameter {names[-1]} follows one with a default "
                                     f"argument and has none", expected="'='")
                defaults.append(default)
                if not self.at(")"):
                    self.expect(",", "',' or ')'")
            self.advance()
            return names, defaults
        finally:
            self.nested -= 1

    def skip_type(self) -> None:
        """``: Float``, ``: Array[Float]``, ``: (Int, Int)``: skipped."""
        self.expect(":")
        while not self.at(",", ")", "=") and self.tok.kind != "eof":
            if self.at("(", "["):
                self.skip_balanced(self.tok.text, ")" if self.tok.text == "(" else "]")
            else:
                self.advance()

    def skip_ascription(self) -> None:
        if self.at(":"):  # a type ascription: skipped up to '='
            while not self.at("=") and self.tok.kind != "eof":
                self.advance()

    # --- expressions -------------------------------------------------------------------------
    def expression(self) -> Node:
        if self.is_lambda():
            return self.lambda_()
        return _placeholder_function(self.infix(0))

    def is_lambda(self) -> bool:
        if self.tok.kind == "ident" and self.peek().text == "=>":
            return True
        if not self.at("("):
            return False
        depth, k = 0, 0
        while True:  # ( names ) =>
            t = self.peek(k)
            if t.kind == "eof":
                return False
            if t.text == "(":
                depth += 1
            elif t.text == ")":
                depth -= 1
                if depth == 0:
                    return self.peek(k + 1).text == "=>"
            elif depth == 1 and not (t.kind == "ident" or t.text in (",", ":", "_")):
                return False
            k += 1

    def lambda_(self) -> Node:
        start = self.tok
        if self.at("("):
            self.advance()
            names = []
            while not self.at(")"):
                names.append(self.expect_name())
                if self.at(":"):  # (x: Float) => ...: the type is not needed
                    self.advance()
                    self.expect_name()
                if self.at(","):
                    self.advance()
            self.advance()
        else:
            names = [self.expect_name()]
        self.expect("=>")
        return Node("lambda", start, [self.expression()], names)

    def expect_name(self) -> str:
        if self.tok.kind != "ident" and not self.at("_"):
            raise self.error(f"expected a parameter name, found {self.found()}",
                             expected="a name")
        return self.advance().text

    def infix(self, level: int) -> Node:
        if level > len(_LEVELS):
            return self.prefix()
        left = self.infix(level + 1)
        while True:
            tok = self.tok
            op = tok.text if tok.kind in ("op", "ident") else None
            if op not in INFIX or _level(op) != level or self.line_break_before():
                return left
            self.advance()
            if op.endswith(":"):  # f <<: g <<: x is f <<: (g <<: x), as in Scala
                right = self.lambda_() if self.is_lambda() else self.infix(level)
                return Node("infix", tok, [left, right], op)
            right = self.lambda_() if self.is_lambda() else self.infix(level + 1)
            left = Node("infix", tok, [left, right], op)

    def prefix(self) -> Node:
        if self.at("-", "!"):
            op = self.advance()
            operand = self.prefix()
            if op.text == "-" and operand.kind == "num":
                return Node("num", op, [], -operand.value)
            return Node("prefix", op, [operand], op.text)
        return self.postfix()

    def postfix(self) -> Node:
        node = self.primary()
        while True:
            if self.at("(") and not self.line_break_before():
                node = Node("call", self.tok, [node, self.arguments()])
            elif self.at(".") and self.peek().kind == "ident":
                dot = self.advance()
                name = self.advance().text
                node = Node("member", dot, [node], name)
            elif self.at("["):  # a type argument (asInstanceOf[Float]): skipped
                self.skip_balanced("[", "]")
            else:
                return node

    def arguments(self) -> list[Node]:
        self.expect("(")
        self.nested += 1
        try:
            args = []
            while not self.at(")"):
                if self.tok.kind == "eof":
                    raise self.error("the argument list is not closed", expected="')'")
                args.append(self.expression())
                if not self.at(")"):
                    self.expect(",", "',' or ')'")
            self.advance()
            return args
        finally:
            self.nested -= 1

    def skip_balanced(self, open_: str, close: str) -> None:
        depth = 0
        while True:
            t = self.advance()
            if t.kind == "eof":
                raise self.error(f"'{open_}' is not closed", t, f"'{close}'")
            if t.text == open_:
                depth += 1
            elif t.text == close:
                depth -= 1
                if depth == 0:
                    return

    def primary(self) -> Node:
        tok = self.tok
        if tok.kind == "num":
            self.advance()
            return Node("num", tok, [], tok.value)
        if tok.kind == "str":
            self.advance()
            return Node("str", tok, [], tok.value)
        if tok.kind == "ident" and tok.text not in KEYWORDS:
            self.advance()
            return Node("name", tok, [], tok.text)
        if self.at("_"):
            self.advance()
            return Node("placeholder", tok)
        if self.at("\\", "λ"):  # Lift's \(...) is its fun(...)
            self.advance()
            return Node("name", tok, [], "fun")
        if self.at("("):
            args = self.arguments()
            if len(args) == 1:
                return args[0]
            return Node("tuple", tok, args)
        if self.at("{"):
            return self.block()
        if tok.kind == "eof":
            raise self.error("the program ends too early", expected="an expression")
        raise self.error(f"expected an expression, found {self.found()}",
                         expected="a name, a number, a string or '('")

    def block(self) -> Node:
        start = self.expect("{")
        outer, self.nested = self.nested, 0
        try:
            parts = []
            while not self.at("}"):
                if self.tok.kind == "eof":
                    raise self.error("the block { ... is not closed", start, "'}'")
                if self.at(";"):
                    self.advance()
                    continue
                parts.append(self.statement())
            self.advance()
        finally:
            self.nested = outer
        if not parts or parts[-1].kind == "define":
            raise self.error("a block must end with an expression", start, "an expression")
        return Node("block", start, parts)


def _placeholder_function(node: Node) -> Node:
    """Scala's placeholder syntax: an expression holding ``_`` (``Zip(_, _)``,
    ``Map(f) $ _``, ``_._0``) is the function of as many parameters as it has ``_``, in
    order, each ``_`` one of them. A ``_`` belongs to the smallest expression that properly
    holds it, as in Scala: an argument that is only ``_`` belongs to the call around it,
    while an argument that holds one inside (``Map(_._0)``) is a function itself."""
    if node.kind == "placeholder":
        return node  # an argument that is only _: the call around it is the function
    found: list[Node] = []
    _placeholders(node, found)
    if not found:
        return node
    taken = _names(node)
    names, k = [], 0
    for hole in found:
        # x1, x2, ...: names the expression does not use, so that none is captured (and the
        # function prints as a lambda that reads back)
        k += 1
        while f"x{k}" in taken:
            k += 1
        hole.kind, hole.value = "name", f"x{k}"
        names.append(hole.value)
    return Node("lambda", node.tok, [node], names)


def _names(node) -> set[str]:
    """Every name written in a syntax tree."""
    if isinstance(node, list):
        return set().union(*(_names(n) for n in node)) if node else set()
    if not isinstance(node, Node):
        return set()
    own = {node.value} if node.kind == "name" else set(node.value) \
        if node.kind == "lambda" else set()
    return own | _names(node.parts)


def _placeholders(node: Node, found: list) -> None:
    """The ``_`` of an expression that belong to it, left to right: not those of its
    lambdas, blocks and arguments (expressions of their own), but arguments that are only
    ``_``."""
    if node.kind == "placeholder":
        found.append(node)
    elif node.kind == "call":
        _placeholders(node.parts[0], found)
        for arg in node.parts[1]:
            if arg.kind == "placeholder":
                found.append(arg)
    elif node.kind in ("member", "infix", "prefix"):
        for part in node.parts:
            _placeholders(part, found)


def read_program(text: str) -> list[Node]:
    try:
        return Reader(text).program()
    except RecursionError:
        raise ParseError("the program is nested too deeply", 1, 1) from None


def read_expression(text: str) -> Node:
    reader = Reader(text)
    try:
        node = reader.expression()
    except RecursionError:
        raise ParseError("the expression is nested too deeply", 1, 1) from None
    if reader.tok.kind != "eof":
        raise reader.error(f"unexpected {reader.found()} after a complete expression",
                           expected="the end of the expression")
    return node
