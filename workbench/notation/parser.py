"""Parser of the notation (SPEC 3): text -> ``Expr`` and text -> ``Type``.

Parsing is two steps. The grammar below builds a small *surface* tree that remembers where
each piece was written; ``resolve`` then decides what every name means (a bound variable,
a primitive whose static arguments it collects, a scalar function, a definition of the
program) and builds the IR. Errors name the line and column and say what was expected.

    expr     := lambda | 'if' expr 'then' expr 'else' expr | compose
    lambda   := ('λ' | '\\') param+ '.' expr  |  'fun' '(' param (',' param)* '=>' expr ')'
    param    := name | '(' param (',' param)* ')'
    compose  := or (('∘' | 'o') (or | lambda))*
    or, and, comparison, additive, multiplicative: the usual C operators
    unary    := ('-' | '!') unary | power
    power    := app ('^' unary)?
    app      := postfix postfix*            (juxtaposition; ``iterate^7 f`` is ``iterate 7 f``)
    postfix  := atom ('.' index)*
    atom     := number | name | '(' ')' | '(' op ')' | '(' op expr ')' | '(' unary op ')'
              | '(' expr (',' expr)* ')'
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from ..domain import Interval
from ..errors import ParseError, text_argument
from ..expr import (
    Apply,
    BinOp,
    Expr,
    Lambda,
    Lit,
    Prim,
    Section,
    TupleExpr,
    UnOp,
    UserFun,
    Var,
    compose,
)
from ..primitives import PRIMITIVES, lookup, spellings
from ..sizes import Size, arithmetic_refusal, magnitude_refusal, natural_refusal
from ..types import (
    SCALARS,
    ArrayType,
    FunctionType,
    TupleType,
    Type,
    VectorType,
    use_type_parser,
)
from .lexer import Token, TokenCursor, tokenize

BINARY_LEVELS = [["||"], ["&&"], ["==", "!=", "<", "<=", ">", ">="], ["+", "-"], ["*", "/", "%"]]
SECTION_OPS = {"+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||"}
# Lift's names for the operators of its examples.
LIFT_OPERATORS = {"add": "+", "mult": "*", "plus": "+", "multiply": "*", "sub": "-"}
KEYWORDS = {"if", "then", "else", "o", "fun", "true", "false"}


@dataclass
class S:
    """A surface-syntax node: ``kind`` plus fields, with the token it started at."""

    kind: str
    tok: Token
    parts: list = field(default_factory=list)
    value: object = None


class Parser(TokenCursor):
    def __init__(self, text: str, tokens: list[Token] | None = None):
        super().__init__(text, tokens if tokens is not None else tokenize(text))

    # --- helpers --------------------------------------------------------------------------
    def expect_end(self) -> None:
        if self.tok.kind != "eof":
            raise self.error(f"unexpected {self.found()} after a complete expression "
                             f"(unbalanced parentheses or a missing operator?)",
                             expected="the end of the expression")

    # --- expressions ----------------------------------------------------------------------
    def expression(self) -> S:
        if self.at("λ"):
            return self.lambda_()
        if self.tok.kind == "ident" and self.tok.text == "fun" and self.peek().text == "(":
            return self.lift_lambda()
        if self.at("if"):
            start = self.advance()
            cond = self.expression()
            self.expect("then")
            then = self.expression()
            self.expect("else")
            other = self.expression()
            return S("if", start, [cond, then, other])
        return self.composition()

    def lambda_(self) -> S:
        start = self.advance()
        params = []
        while not self.at("."):
            if self.tok.kind == "eof" or not (self.tok.kind == "ident" or self.at("(")):
                raise self.error(f"expected a parameter name or '.', found {self.found()}",
                                 expected="a parameter or '.'")
            params.append(self.param())
        if not params:
            raise self.error("a lambda needs at least one parameter", expected="a parameter")
        self.advance()
        return S("lam", start, [self.expression()], params)

    def lift_lambda(self) -> S:
        start = self.advance()
        self.expect("(")
        params = [self.param()]
        while self.at(","):
            self.advance()
            params.append(self.param())
        self.expect("=>", "'=>' after the parameters of fun(...)")
        body = self.expression()
        self.expect(")", "')' closing fun(...)")
        return S("lam", start, [body], params)

    def param(self):
        if self.at("("):
            self.advance()
            items = [self.param()]
            while self.at(","):
                self.advance()
                items.append(self.param())
            self.expect(")", "')' closing the tuple pattern")
            return tuple(items)
        tok = self.tok
        if tok.kind != "ident" or tok.text in KEYWORDS:
            raise self.error(f"expected a parameter name, found {self.found()}",
                             expected="a parameter name")
        self.advance()
        return tok.text

    def composition(self) -> S:
        first = self.binary(0)
        items = [first]
        while self.at("∘", "o"):
            self.advance()
            items.append(self.lambda_() if self.at("λ") else self.binary(0))
        return items[0] if len(items) == 1 else S("compose", first.tok, items)

    def binary(self, level: int) -> S:
        if level == len(BINARY_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.tok.kind == "op" and self.tok.text in BINARY_LEVELS[level]:
            op = self.advance()
            right = self.binary(level + 1)
            left = S("bin", op, [left, right], op.text)
            if level == 2:  # comparisons do not chain
                break
        return left

    def unary(self) -> S:
        if self.at("-", "!"):
            op = self.advance()
            operand = self.unary()
            if op.text == "-" and operand.kind == "num":
                return S("num", op, [], -operand.value)
            return S("un", op, [operand], op.text)
        base = self.application()
        if self.at("^"):
            op = self.advance()
            return S("bin", op, [base, self.unary()], "^")
        return base

    def starts_atom(self) -> bool:
        t = self.tok
        if t.kind == "num":
            return True
        if t.kind == "ident":
            return t.text not in KEYWORDS or t.text in ("true", "false")
        return t.kind == "op" and t.text == "("

    def application(self) -> S:
        head = self.postfix()
        args = []
        if head.kind == "ident" and self.at("^") and lookup(head.value):
            self.advance()  # iterate^7 f, as the papers write it
            args.append(self.postfix())
        while self.starts_atom():
            args.append(self.postfix())
        return S("app", head.tok, [head, *args]) if args else head

    def postfix(self) -> S:
        node = self.atom()
        while self.at(".") and self.peek().kind == "num" and isinstance(self.peek().value, int):
            dot = self.advance()
            index = self.advance()
            node = S("proj", dot, [node], index.value)
        return node

    def atom(self) -> S:
        tok = self.tok
        if tok.kind == "num":
            self.advance()
            return S("num", tok, [], tok.value)
        if tok.kind == "ident" and (tok.text not in KEYWORDS or tok.text in ("true", "false")):
            self.advance()
            if tok.text in ("true", "false"):
                return S("num", tok, [], tok.text == "true")
            return S("ident", tok, [], tok.text)
        if self.at("("):
            return self.parenthesised()
        if tok.kind == "eof":
            raise self.error("the expression ends too early", expected="an expression")
        raise self.error(f"expected an expression, found {self.found()}",
                         expected="a name, a number or '('")

    def parenthesised(self) -> S:
        start = self.advance()
        if self.at(")"):
            self.advance()
            return S("unit", start)
        if self.tok.kind == "op" and self.tok.text in SECTION_OPS:
            op = self.tok
            if self.peek().text == ")":  # (+)
                self.advance()
                self.advance()
                return S("section", op, [None, None], op.text)
            if op.text != "-":  # (*a); (-x) is a negation
                self.advance()
                operand = self.binary(BINARY_LEVELS_INDEX[op.text] + 1)
                self.expect(")", "')' closing the operator section")
                return S("section", op, [None, operand], op.text)
        saved = self.pos
        if self.closes_with_operator():
            try:  # a left section: (2*)
                operand = self.unary()
                if self.tok.kind == "op" and self.tok.text in SECTION_OPS \
                        and self.peek().text == ")":
                    op = self.advance()
                    self.advance()
                    return S("section", op, [operand, None], op.text)
            except ParseError:
                pass
            self.pos = saved
        first = self.expression()
        if self.at(","):
            items = [first]
            while self.at(","):
                self.advance()
                items.append(self.expression())
            self.expect(")", "')' closing the tuple")
            return S("tuple", start, items)
        self.expect(")", "')' or an operator")
        return S("paren", start, [first])

    def closes_with_operator(self) -> bool:
        """Does this parenthesis end with ``op )`` at its own level (a left section)?"""
        depth = 0
        for i in range(self.pos, len(self.tokens) - 1):
            t = self.tokens[i]
            if t.text in ("(", "[", "{"):
                depth += 1
            elif t.text in (")", "]", "}"):
                if depth == 0:
                    return False
                depth -= 1
            elif depth == 0 and t.kind == "op" and t.text in SECTION_OPS \
                    and self.tokens[i + 1].text == ")":
                return True
        return False

    # --- types ----------------------------------------------------------------------------
    def type_(self) -> Type:
        left = self.type_atom()
        if self.at("->"):
            self.advance()
            return FunctionType(left, self.type_())
        return left

    def type_atom(self) -> Type:
        tok = self.tok
        if tok.kind == "ident" and tok.text in SCALARS:
            self.advance()
            return SCALARS[tok.text]
        if self.at("["):
            self.advance()
            elem = self.type_()
            self.expect("]", "']' closing the array type")
            return ArrayType(elem, self.size_subscript())
        if self.at("<"):
            self.advance()
            elem = self.type_()
            self.expect(">", "'>' closing the vector type")
            return VectorType(elem, self.size_subscript())
        if self.at("("):
            self.advance()
            items = [self.type_()]
            while self.at(","):
                self.advance()
                items.append(self.type_())
            self.expect(")", "')' closing the type")
            return items[0] if len(items) == 1 else TupleType(tuple(items))
        raise self.error(f"expected a type, found {self.found()}",
                         expected="int, float, double, bool, [A]_N, <A>_n or (A, B)")

    def size_subscript(self) -> Size:
        self.expect("_", "'_' and the array size (as in [float]_N)")
        tok = self.tok
        if tok.kind == "num" and isinstance(tok.value, int) and not isinstance(tok.value, bool):
            self.advance()
            self.refuse_size_operator(tok)
            return Size.const(tok.value)
        if tok.kind == "ident":
            self.advance()
            size = size_variable(tok, self)
            self.refuse_size_operator(tok)
            return size
        if self.at("-"):
            raise self.error("a length is a natural number, not negative",
                             expected="a natural number")
        if self.at("{", "("):
            close = "}" if self.advance().text == "{" else ")"
            node = self.expression()
            self.expect(close, f"'{close}' closing the size")
            size = to_size(node, self)
            reason = natural_refusal(size)
            if reason is not None:
                raise self.error(f"a length is a natural number, and {reason}", node.tok,
                                 "a natural number")
            return size
        raise self.error(f"expected a size, found {self.found()}",
                         expected="a number, a size name or {size expression}")


    def refuse_size_operator(self, size: Token) -> None:
        """``[float]_N+1`` is ``[float]_N`` followed by ``+1``: a size written with an
        operator goes in braces."""
        if self.tok.kind == "op" and self.tok.text in ("+", "-", "*", "/", "^"):
            raise self.error(f"a size with an operator goes in braces, as in "
                             f"_{{{size.text}{self.tok.text}1}}; found {self.found()} after "
                             f"_{size.text}", expected="the end of the size")

    # --- input ranges (see ``domain``) -------------------------------------------------------
    def ranges(self) -> tuple:
        """``[low, high], _, ([0, 1], _)``: one range per input."""
        items = [self.range_item()]
        while self.at(","):
            self.advance()
            items.append(self.range_item())
        return tuple(items)

    def range_item(self):
        if self.tok.text == "_" and self.tok.kind in ("ident", "op"):
            self.advance()
            return None
        if self.at("["):
            self.advance()
            low = self.range_bound()
            self.expect(",", "',' between the low and high ends of the range")
            high_tok = self.tok
            high = self.range_bound()
            self.expect("]", "']' closing the range")
            if high < low:
                raise self.error(f"the range [{low}, {high}] is empty (its high end is below "
                                 f"its low end)", high_tok, "a high end >= the low end")
            return Interval(low, high)
        if self.at("("):
            self.advance()
            items = [self.range_item()]
            while self.at(","):
                self.advance()
                items.append(self.range_item())
            self.expect(")", "')' closing the tuple of ranges")
            return items[0] if len(items) == 1 else tuple(items)
        raise self.error(f"expected a range, found {self.found()}",
                         expected="[low, high], _ or (range, range, ...)")

    def range_bound(self) -> int | float:
        negative = self.at("-")
        if negative:
            self.advance()
        tok = self.tok
        if tok.kind != "num" or isinstance(tok.value, bool):
            raise self.error(f"expected a number, found {self.found()}", expected="a number")
        self.advance()
        return -tok.value if negative else tok.value


BINARY_LEVELS_INDEX = {op: i for i, ops in enumerate(BINARY_LEVELS) for op in ops}


def size_variable(tok: Token, parser: Parser) -> Size:
    """A size name: ASCII letters, digits and '_' (sizes become C identifiers)."""
    if not _SIZE_NAME.match(tok.text):
        raise parser.error(f"{tok.text!r} cannot name a size: size names are ASCII letters, "
                           f"digits and '_', starting with a letter", tok, "a size name")
    return Size.var(tok.text)


_SIZE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def to_size(node: S, parser: Parser) -> Size:
    """A surface expression read as a size: numbers, names, + - * / and ^ (refused where
    written when the size would be absurdly large, see ``sizes.arithmetic_refusal``)."""
    size = _to_size(node, parser)
    reason = magnitude_refusal(size)
    if reason is not None:
        raise parser.error(f"this size is too large: {reason}", node.tok, "a smaller size")
    return size


def _to_size(node: S, parser: Parser) -> Size:
    if node.kind == "num" and isinstance(node.value, int) and not isinstance(node.value, bool):
        if node.value < 0:
            raise parser.error("sizes are natural numbers", node.tok, "a size")
        return Size.const(node.value)
    if node.kind == "ident":
        return size_variable(node.tok, parser)
    if node.kind == "paren":
        return _to_size(node.parts[0], parser)
    if node.kind == "un" and node.value == "-":  # 2^(-s), as sizes with exponents print
        return Size.const(0) - _to_size(node.parts[0], parser)
    if node.kind == "bin" and node.value in ("+", "-", "*", "/", "^"):
        a, b = _to_size(node.parts[0], parser), _to_size(node.parts[1], parser)
        reason = arithmetic_refusal(node.value, a, b)
        if reason is not None:
            raise parser.error(f"this size is too large: {reason}", node.tok, "a smaller size")
        try:
            if node.value == "+":
                return a + b
            if node.value == "-":
                return a - b
            if node.value == "*":
                return a * b
            if node.value == "/":
                return a / b
            return a ** b
        except ZeroDivisionError:
            raise parser.error("a size divided by zero", node.tok, "a divisor that is not "
                               "zero") from None
    raise parser.error("expected a size (a number, a size name, or arithmetic on them)",
                       node.tok, "a size")


# --- resolution: surface tree -> IR -----------------------------------------------------------

class Resolver:
    """Gives every name its meaning; ``definitions`` maps names of a program to their IR."""

    def __init__(self, parser: Parser, definitions: dict[str, Expr] | None = None):
        self.parser = parser
        self.definitions = definitions or {}

    def error(self, message: str, node: S, expected: str = "") -> ParseError:
        return self.parser.error(message, node.tok, expected)

    def resolve(self, node: S, scope: frozenset[str]) -> Expr:
        kind = node.kind
        if kind == "num":
            return Lit(node.value)
        if kind == "ident":
            return self.name(node, scope, [])
        if kind == "app":
            head, *args = node.parts
            if head.kind == "ident":
                return self.name(head, scope, args)
            fn = self.resolve(head, scope)
            return Apply(fn, tuple(self.resolve(a, scope) for a in self.spread(args, False)))
        if kind == "paren":
            return self.resolve(node.parts[0], scope)
        if kind == "tuple":
            return TupleExpr(tuple(self.resolve(i, scope) for i in node.parts))
        if kind == "unit":
            raise self.error("() is only allowed after a Lift primitive, as in Join()", node)
        if kind == "lam":
            names = {n for p in node.value for n in _flatten(p)}
            body = self.resolve(node.parts[0], scope | names)
            return Lambda(tuple(node.value), body)
        if kind == "compose":
            return compose(*(self.resolve(p, scope) for p in node.parts))
        if kind == "bin":
            self.refuse_negative_argument(node, scope)
            if node.value == "^":
                raise self.error("'^' is only for sizes and iterate^n; use pow x y for powers",
                                 node)
            return BinOp(node.value, self.resolve(node.parts[0], scope),
                         self.resolve(node.parts[1], scope))
        if kind == "un":
            return UnOp(node.value, self.resolve(node.parts[0], scope))
        if kind == "section":
            left, right = node.parts
            return Section(node.value, None if left is None else self.resolve(left, scope),
                           None if right is None else self.resolve(right, scope))
        if kind == "proj":
            return Apply(Prim("get", (node.value,)), (self.resolve(node.parts[0], scope),))
        if kind == "if":
            c, t, e = (self.resolve(p, scope) for p in node.parts)
            return Apply(Prim("select"), (c, t, e))
        raise self.error(f"unexpected {kind}", node)  # pragma: no cover

    def refuse_negative_argument(self, node: S, scope: frozenset[str]) -> None:
        """``get -1`` and ``iterate -1 f`` read as subtractions from the primitive; say
        that its index or size cannot be negative instead of that it lacks one."""
        left, right = node.parts
        if node.value != "-" or left.kind != "ident" or left.value in scope \
                or left.value in self.definitions:
            return
        decl = lookup(left.value)
        params = [p for p in decl.params if p.kind != "dim"] if decl else []
        number = right.parts[0] if right.kind == "app" else right
        if not params or params[0].kind not in ("index", "size") or number.kind != "num" \
                or isinstance(number.value, bool):
            return
        if params[0].kind == "index":
            reason = ("component indices count from 0 (0, 1, ...); a negative one does not "
                      "count from the end")
        else:
            reason = f"its {params[0].name} is a natural number, not negative"
        raise self.error(f"{left.value} -{number.value}: {reason}", node,
                         "a natural number")

    def natural(self, arg: S, decl, param) -> Size:
        """A static size argument (a length, count, width or step): a natural number."""
        size = to_size(arg, self.parser)
        reason = natural_refusal(size)
        if reason is not None:
            each = "each of " if param.kind == "sizes" else ""
            raise self.error(f"{each}the {param.name} of {decl.name} is a natural number, and "
                             f"{reason}", arg, "a natural number")
        return size

    def spread(self, args: list[S], lift_style: bool) -> list[S]:
        """Lift's ``Split(4)``, ``ReduceSeq(add, 0.0f)``, ``Join()``: a tuple is the arguments."""
        if not lift_style:
            return args
        out = []
        for a in args:
            if a.kind == "tuple":
                out.extend(a.parts)
            elif a.kind != "unit":
                out.append(a)
        return out

    def name(self, node: S, scope: frozenset[str], args: list[S]) -> Expr:
        word = node.value
        if word in scope:
            fn: Expr = Var(word)
        elif word in self.definitions:
            fn = self.definitions[word]
        elif word in LIFT_OPERATORS:
            fn = Section(LIFT_OPERATORS[word])
        else:
            decl = lookup(word)
            if decl is None:
                raise self.unknown(node, scope)
            lift_style = word[:1].isupper()
            return self.primitive(node, decl, self.spread(args, lift_style), scope, lift_style)
        if not args:
            return fn
        return Apply(fn, tuple(self.resolve(a, scope) for a in args))

    def primitive(self, node: S, decl, args: list[S], scope, lift_style: bool = False) -> Expr:
        static = []
        rest = list(args)
        for param in decl.params:
            if param.kind == "dim":
                first = _unparen(rest[0]) if rest else None
                if first is not None and first.kind == "num" and first.value in (0, 1, 2) \
                        and not isinstance(first.value, bool):
                    static.append(_unparen(rest.pop(0)).value)
                else:
                    static.append(0)
                continue
            if not rest:
                wanted = ", ".join(p.name for p in decl.params if p.kind != "dim")
                raise self.error(
                    f"{decl.name} expects its argument{'s' if ',' in wanted else ''} "
                    f"({wanted}) before the data, e.g. {_example(decl)}", node, wanted)
            arg = _unparen(rest.pop(0))
            if param.kind == "size":
                static.append(self.natural(arg, decl, param))
            elif param.kind == "sizes":
                items = arg.parts if arg.kind == "tuple" else [arg]
                if lift_style:  # Rearrange(1, 0): the arguments are the sizes
                    items, rest = [arg, *rest], []
                static.append(tuple(self.natural(_unparen(i), decl, param) for i in items))
            elif param.kind == "index":
                if arg.kind == "num" and isinstance(arg.value, int) and arg.value < 0:
                    raise self.error(f"{decl.name} {arg.value}: component indices count from 0 "
                                     f"(0, 1, ...); a negative one does not count from the end",
                                     arg, "an index")
                if arg.kind != "num" or not isinstance(arg.value, int) \
                        or isinstance(arg.value, bool):
                    raise self.error(f"{decl.name} expects a literal index (0, 1, ...)", arg,
                                     "an index")
                static.append(arg.value)
            elif param.kind == "distribution":
                static.append(self.distribution(arg, decl))
            else:
                static.append(self.resolve(arg, scope))
        prim = Prim(decl.name, tuple(static))
        if not rest:
            return prim
        return Apply(prim, tuple(self.resolve(a, scope) for a in rest))

    def distribution(self, arg: S, decl) -> str:
        """A distribution written after ``redistribute``: ``block``, ``copy`` or ``(overlap
        h)``, held as that text without parentheses."""
        if arg.kind == "ident" and arg.value in ("block", "copy"):
            return arg.value
        if arg.kind == "app" and len(arg.parts) == 2 and arg.parts[0].kind == "ident" \
                and arg.parts[0].value == "overlap":
            halo = _unparen(arg.parts[1])
            if halo.kind == "num" and isinstance(halo.value, int) \
                    and not isinstance(halo.value, bool) and halo.value >= 0:
                return f"overlap {halo.value}"
            raise self.error(f"{decl.name} (overlap h): the halo h is a whole number of rows, "
                             f"at least 0", halo, "a whole number")
        raise self.error(f"{decl.name} takes a distribution before the data: block, copy or "
                         f"(overlap h) with h halo rows, e.g. {decl.name} block xs", arg,
                         "a distribution")

    def unknown(self, node: S, scope) -> ParseError:
        known = list(scope) + list(self.definitions) + list(spellings()) + list(LIFT_OPERATORS)
        close = difflib.get_close_matches(node.value, known, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        return self.error(f"unknown name {node.value!r}: not a variable, primitive or "
                          f"definition{hint}", node, "a known name")


def _unparen(node: S) -> S:
    while node.kind == "paren":
        node = node.parts[0]
    return node


def _flatten(pattern):
    if isinstance(pattern, str):
        return [pattern]
    return [n for p in pattern for n in _flatten(p)]


def _example(decl) -> str:
    samples = {"fun": "f", "value": "0", "size": "4", "index": "0", "sizes": "(0, 4)",
               "distribution": "block"}
    return " ".join([decl.name] + [samples[p.kind] for p in decl.params if p.kind != "dim"])


# --- public entry points ----------------------------------------------------------------------

def parse(text: str, definitions: dict[str, Expr] | None = None) -> Expr:
    """Parse an expression written in the paper notation, its ASCII form or the point-free
    subset of Lift's DSL (``reading.parse`` also reads Lift program text)."""
    parser = Parser(text_argument(text, "text"))
    try:
        tree = parser.expression()
        parser.expect_end()
        return Resolver(parser, definitions).resolve(tree, frozenset())
    except RecursionError:
        raise ParseError("the expression is nested too deeply", 1, 1) from None


def parse_type(text: str) -> Type:
    """Parse a type such as ``[float]_N -> [float]_1`` or ``[<float>_4]_{N/4}``."""
    parser = Parser(text_argument(text, "text"))
    try:
        t = parser.type_()
    except RecursionError:
        raise ParseError("the type is nested too deeply", 1, 1) from None
    if parser.tok.kind != "eof":
        raise parser.error(f"unexpected {parser.found()} after a complete type",
                           expected="the end of the type")
    return t


def parse_ranges(text: str) -> tuple:
    """Parse input ranges as a program file's ranges line writes them, ``[0, 10], _``."""
    parser = Parser(text)
    try:
        ranges = parser.ranges()
    except RecursionError:
        raise ParseError("the ranges are nested too deeply", 1, 1) from None
    if parser.tok.kind != "eof":
        raise parser.error(f"unexpected {parser.found()} after the ranges",
                           expected="',' and another range, or the end")
    return ranges


def is_user_function(decl_type: Type | None, body: Expr) -> bool:
    """Definitions on scalars stay named ``UserFun``s; array programs are inlined."""
    if decl_type is not None:
        return not _mentions_arrays(decl_type)
    return not any(isinstance(n, Prim) and n.name in PRIMITIVES and
                   PRIMITIVES[n.name].category != "scalar" for n in _nodes(body))


def _mentions_arrays(t: Type) -> bool:
    if isinstance(t, ArrayType | VectorType):
        return True
    if isinstance(t, TupleType):
        return any(_mentions_arrays(i) for i in t.items)
    if isinstance(t, FunctionType):
        return _mentions_arrays(t.arg) or _mentions_arrays(t.result)
    return False


def _nodes(e: Expr):
    yield e
    for c in e.children():
        yield from _nodes(c)


__all__ = ["parse", "parse_type", "parse_ranges", "Parser", "Resolver", "UserFun"]


use_type_parser(parse_type)
