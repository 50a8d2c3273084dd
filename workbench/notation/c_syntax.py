"""User-function bodies written in OpenCL C, read into a small syntax tree.

Lift's user functions are C function bodies (``UserFun("calcAcc", …, "{ float4 r; r.xyz =
p2.xyz - p1.xyz; … }", …)``). Bodies that the scalar language can express are read into it
(``c_body``); every other body is read here, kept as written for the code generator, and
evaluated by ``c_evaluation``. Read here:

- statements: declarations (``float a = 1.0f, b;``, ``const``, ``float4 r;``, ``Tuple t =
  {x, y};``), assignments (``=``, ``+=`` … ``>>=``, ``x++``, ``--x``) to variables, tuple
  fields (``t._0``), vector components and swizzles (``acc.xyz``, ``v.s01``, ``v.lo``),
  ``if``/``else``, blocks, ``for``/``while``/``do``, ``break``, ``continue``, ``return``;
- expressions: C's operators with C's precedence, ``?:``, casts (``(float)x``), vector
  literals (``(float4)(a, b, c, d)``), fields and swizzles, brace initialisers and calls of
  OpenCL's built-in functions (``c_evaluation.BUILTINS``);
- the preprocessor's ``#define`` of object- and function-like macros (``#define PIx2
  6.28f``, ``#define SQ(x) ((x)*(x))``), ``#undef`` and ``#pragma``.

Whatever else (pointers, arrays, ``switch``, ``goto``, other functions, ``#if``) is refused
with a ``CBodyError`` naming the construct, its line and column within the body and the
user function.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import WorkbenchError


class CBodyError(WorkbenchError, ValueError):
    """A user function's C body that cannot be read: ``reason`` names the construct, and
    ``line``/``column`` (1-based, within the body) where it is written."""

    def __init__(self, function: str, reason: str, line: int | None = None,
                 column: int | None = None):
        self.function, self.reason, self.line, self.column = function, reason, line, column
        where = f", line {line}, column {column} of its C body" if line is not None else \
            " (its C body)"
        super().__init__(f"user function {function}{where}: {reason}")


# --- tokens ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Token:
    kind: str  # "num", "ident", "op", "directive"
    text: str
    line: int
    column: int
    value: object = None  # a number's value
    num_type: str = ""  # a number's C type: int, uint, long, float, double


_PATTERN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+|\\\n)
  | (?P<newline>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*
        |(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFuUlLhH]*)
  | (?P<ident>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op><<=|>>=|\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<|>>|<=|>=|==|!=|&&|\|\||->
        |[-+*/%<>=!~&|^?:;,.(){}\[\]\#])
""", re.VERBOSE | re.DOTALL)


def _number(function: str, text: str, line: int, column: int) -> Token:
    lower = text.lower()
    if lower.startswith("0x"):
        digits = lower.rstrip("ul")
        kind = "uint" if "u" in lower[len(digits):] else \
            "long" if "l" in lower[len(digits):] else "int"
        return Token("num", text, line, column, int(digits, 16), kind)
    body = lower.rstrip("fuhl")
    suffix = lower[len(body):]
    floating = any(c in body for c in ".e")
    if floating or "f" in suffix:
        if "u" in suffix or ("l" in suffix and "f" in suffix):
            raise CBodyError(function, f"the number '{text}'", line, column)
        return Token("num", text, line, column, float(body),
                     "float" if "f" in suffix or "h" in suffix else "double")
    if "f" in suffix:
        raise CBodyError(function, f"the number '{text}'", line, column)
    kind = "uint" if "u" in suffix else "long" if "l" in suffix else "int"
    return Token("num", text, line, column, int(body, 10), kind)


def tokenize(function: str, text: str) -> list[Token]:
    """The tokens of a body; a preprocessor line is one ``directive`` token (its text
    after ``#``)."""
    out: list[Token] = []
    pos, line, start = 0, 1, 0
    at_line_start = True
    while pos < len(text):
        column = pos - start + 1
        if at_line_start and text[pos] == "#":
            end = pos
            while True:  # a directive runs to the end of its line (or its continuations)
                nl = text.find("\n", end)
                if nl < 0:
                    end = len(text)
                    break
                if text[nl - 1] == "\\":
                    end = nl + 1
                    continue
                end = nl
                break
            raw = text[pos + 1:end]
            out.append(Token("directive", raw.replace("\\\n", " "), line, column))
            line += raw.count("\n")
            if raw.count("\n"):
                start = pos + 1 + raw.rfind("\n") + 1
            pos = end
            continue
        m = _PATTERN.match(text, pos)
        if m is None:
            raise CBodyError(function, f"the character {text[pos]!r}", line, column)
        kind, piece = m.lastgroup, m.group()
        if kind == "newline":
            line, start, at_line_start = line + 1, m.end(), True
        elif kind in ("space", "comment"):
            if "\n" in piece:
                line += piece.count("\n")
                start = pos + piece.rfind("\n") + 1
        else:
            at_line_start = False
            if kind == "num":
                out.append(_number(function, piece, line, column))
            elif piece == "#":
                raise CBodyError(function, "a '#' that does not start a line", line, column)
            else:
                out.append(Token(kind, piece, line, column))
        pos = m.end()
    return out


# --- the preprocessor -----------------------------------------------------------------------

@dataclass
class Macro:
    params: tuple[str, ...] | None  # None: an object-like macro
    tokens: list[Token]


def preprocess(function: str, tokens: list[Token]) -> tuple[list[Token], list[str]]:
    """The tokens with macros expanded (each expanded token located where the macro is
    used), and the names the body defines."""
    macros: dict[str, Macro] = {}
    defined: list[str] = []
    out: list[Token] = []
    k = 0
    while k < len(tokens):
        t = tokens[k]
        if t.kind == "directive":
            _directive(function, t, macros, defined)
            k += 1
            continue
        k = _expand_at(function, tokens, k, macros, out, frozenset())
    return out, defined


def _directive(function: str, t: Token, macros: dict, defined: list) -> None:
    words = t.text.strip()
    m = re.match(r"(\w*)\s*(.*)", words, re.DOTALL)
    name, rest = m.group(1), m.group(2)
    if name == "pragma":
        return
    if name == "undef":
        macros.pop(rest.strip(), None)
        return
    if name != "define":
        raise CBodyError(function, f"the preprocessor directive '#{name}' (#define, #undef "
                         f"and #pragma are read)", t.line, t.column)
    head = re.match(r"([A-Za-z_]\w*)(\(([^)]*)\))?", rest)
    if head is None:
        raise CBodyError(function, "a #define without a name", t.line, t.column)
    offset = t.column + 1 + len(words) - len(rest) + head.end()
    body = tokenize(function, " " * (offset - 1) + rest[head.end():])
    body = [Token(b.kind, b.text, t.line, b.column, b.value, b.num_type) for b in body]
    params = None
    if head.group(2) is not None:
        params = tuple(p.strip() for p in head.group(3).split(",") if p.strip())
    macros[head.group(1)] = Macro(params, body)
    defined.append(head.group(1))


def _expand_at(function, tokens, k, macros, out, hidden) -> int:
    """Expand the token at ``k`` into ``out``; the index after what it used."""
    t = tokens[k]
    macro = macros.get(t.text) if t.kind == "ident" and t.text not in hidden else None
    if macro is None:
        out.append(t)
        return k + 1
    here = lambda b: Token(b.kind, b.text, t.line, t.column, b.value, b.num_type)  # noqa: E731
    if macro.params is None:
        body = [here(b) for b in macro.tokens]
        _expand_all(function, body, macros, out, hidden | {t.text})
        return k + 1
    if k + 1 >= len(tokens) or tokens[k + 1].text != "(":
        out.append(t)  # a function-like macro's name without arguments is just a name
        return k + 1
    args: list[list[Token]] = [[]]
    depth, j = 0, k + 2
    while True:
        if j >= len(tokens):
            raise CBodyError(function, f"the macro {t.text}(…) is not closed", t.line,
                             t.column)
        a = tokens[j]
        if a.text == "(":
            depth += 1
        elif a.text == ")":
            if depth == 0:
                break
            depth -= 1
        elif a.text == "," and depth == 0:
            args.append([])
            j += 1
            continue
        args[-1].append(a)
        j += 1
    if args == [[]]:
        args = []
    if len(args) != len(macro.params):
        raise CBodyError(function, f"the macro {t.text} takes {len(macro.params)} "
                         f"arguments, given {len(args)}", t.line, t.column)
    bound = dict(zip(macro.params, args))
    body: list[Token] = []
    for b in macro.tokens:
        if b.kind == "ident" and b.text in bound:
            expanded: list[Token] = []
            _expand_all(function, bound[b.text], macros, expanded, hidden)
            body.extend(expanded)
        else:
            body.append(here(b))
    _expand_all(function, body, macros, out, hidden | {t.text})
    return j + 1


def _expand_all(function, tokens, macros, out, hidden) -> None:
    k = 0
    while k < len(tokens):
        k = _expand_at(function, tokens, k, macros, out, hidden)


# --- the syntax tree ------------------------------------------------------------------------

@dataclass(frozen=True)
class CType:
    """A C type: a scalar (``float``), a vector (``float4``: ``width`` 4) or a tuple struct
    (``Tuple``: ``name`` is the spelling, resolved against the function's types)."""

    name: str
    width: int = 0  # a vector's lanes
    items: tuple = ()  # a named tuple struct's item types (Tuple2_float_float)


@dataclass(frozen=True)
class Node:
    line: int
    column: int


@dataclass(frozen=True)
class Num(Node):
    value: object
    type: str


@dataclass(frozen=True)
class Name(Node):
    name: str


@dataclass(frozen=True)
class Unary(Node):
    op: str
    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Conditional(Node):
    condition: Node
    then: Node
    other: Node


@dataclass(frozen=True)
class Cast(Node):
    type: CType
    operand: Node


@dataclass(frozen=True)
class VectorLiteral(Node):
    type: CType
    items: tuple


@dataclass(frozen=True)
class Call(Node):
    name: str
    args: tuple


@dataclass(frozen=True)
class Field(Node):
    base: Node
    name: str  # _0, x, xyz, s01, lo, hi, even, odd


@dataclass(frozen=True)
class Braces(Node):
    items: tuple


@dataclass(frozen=True)
class Declare(Node):
    type: CType
    name: str
    value: Node | None


@dataclass(frozen=True)
class Assign(Node):
    target: Node  # a Name or Field
    op: str  # "=", "+=", …
    value: Node


@dataclass(frozen=True)
class If(Node):
    condition: Node
    then: Node
    other: Node | None


@dataclass(frozen=True)
class Block(Node):
    body: tuple


@dataclass(frozen=True)
class Loop(Node):
    """``for``/``while`` (the condition first) or ``do`` (``test_first`` false)."""

    init: Node | None
    condition: Node | None
    step: Node | None
    body: Node
    test_first: bool = True


@dataclass(frozen=True)
class Return(Node):
    value: Node | None


@dataclass(frozen=True)
class Jump(Node):
    kind: str  # "break" or "continue"


@dataclass(frozen=True)
class Evaluate(Node):
    """An expression evaluated for nothing (a call as a statement)."""

    value: Node


@dataclass(frozen=True)
class CFunction:
    """A body read: its statements and the macro names it defines."""

    name: str
    body: Block
    macros: tuple[str, ...] = field(default=())


SCALAR_TYPES = ("bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                "float", "double", "half", "size_t")
VECTOR_WIDTHS = (2, 3, 4, 8, 16)
_VECTOR = re.compile(r"(char|uchar|short|ushort|int|uint|long|ulong|float|double)"
                     r"(2|3|4|8|16)$")
_TUPLE = re.compile(r"Tuple\d*((?:_[a-z]+\d*)+)$")
_UNSIGNED = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}


def type_name(text: str) -> CType | None:
    """The type a name spells, or None."""
    if text in SCALAR_TYPES:
        return CType("int" if text == "size_t" else text)
    m = _VECTOR.match(text)
    if m:
        return CType(m.group(1), int(m.group(2)))
    if text == "Tuple" or re.fullmatch(r"Tuple\d+", text):  # Lift's Tuple1, Tuple2, ...
        return CType("Tuple")
    m = _TUPLE.match(text)
    if m:
        items = tuple(type_name(p) for p in m.group(1)[1:].split("_"))
        if all(items):
            return CType("Tuple", items=items)
    return None


_STATEMENT_WORDS = ("switch", "goto", "case", "default", "typedef", "sizeof")
_ASSIGN = ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=")
_BINARY = [["||"], ["&&"], ["|"], ["^"], ["&"], ["==", "!="], ["<", "<=", ">", ">="],
           ["<<", ">>"], ["+", "-"], ["*", "/", "%"]]


def read_c(function: str, text: str) -> CFunction:
    """Read a user function's C body (with or without its braces)."""
    tokens, macros = preprocess(function, tokenize(function, text))
    parser = _Parser(function, tokens)
    body = parser.body()
    return CFunction(function, body, tuple(macros))


class _Parser:
    def __init__(self, function: str, tokens: list[Token]):
        self.function = function
        self.tokens = tokens
        self.pos = 0

    # --- helpers ---------------------------------------------------------------------------
    @property
    def tok(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def peek(self, k: int = 1) -> Token | None:
        j = self.pos + k
        return self.tokens[j] if j < len(self.tokens) else None

    def at(self, *texts: str) -> bool:
        return self.tok is not None and self.tok.text in texts

    def where(self) -> tuple[int, int]:
        t = self.tok or (self.tokens[-1] if self.tokens else None)
        if t is None:
            return 1, 1
        return (t.line, t.column) if self.tok is not None else \
            (t.line, t.column + len(t.text))

    def error(self, reason: str, token: Token | None = None) -> CBodyError:
        line, column = (token.line, token.column) if token is not None else self.where()
        return CBodyError(self.function, reason, line, column)

    def take(self, text: str | None = None) -> Token:
        t = self.tok
        if t is None:
            raise self.error(f"the body ends where '{text}' was expected" if text else
                             "the body ends too early")
        if text is not None and t.text != text:
            raise self.error(f"'{t.text}' where '{text}' was expected")
        self.pos += 1
        return t

    def is_type_start(self) -> bool:
        t = self.tok
        if t is None or t.kind != "ident":
            return False
        if t.text in ("const", "unsigned", "signed", "struct", "private", "__private"):
            return True
        return type_name(t.text) is not None and not (self.peek() and self.peek().text in
                                                      ("(",) and t.text in SCALAR_TYPES)

    def type(self) -> CType:
        while self.at("const", "private", "__private", "signed"):
            self.take()
        t = self.take()
        if t.text == "unsigned":
            name = self.take().text if self.tok is not None and self.tok.text in _UNSIGNED \
                else "int"
            return CType(_UNSIGNED[name])
        if t.text == "struct":
            t = self.take()
        found = type_name(t.text)
        if found is None:
            raise self.error(f"the type '{t.text}'", t)
        if found.name == "half" or (found.width and found.width not in VECTOR_WIDTHS):
            raise self.error(f"the type '{t.text}'", t)
        while self.at("const"):
            self.take()
        if self.at("*"):
            raise self.error("a pointer")
        return found

    # --- statements ------------------------------------------------------------------------
    def body(self) -> Block:
        first = self.tok
        if first is None:
            raise CBodyError(self.function, "an empty body (it needs a return statement)")
        if self.at("{") and self._closes_at_end():
            self.take("{")
            items = self.statements("}")
            self.take("}")
        else:
            items = self.statements(None)
        if self.tok is not None:
            raise self.error(f"'{self.tok.text}' after the end of the body")
        return Block(first.line, first.column, tuple(items))

    def _closes_at_end(self) -> bool:
        depth = 0
        for k in range(self.pos, len(self.tokens)):
            if self.tokens[k].text == "{":
                depth += 1
            elif self.tokens[k].text == "}":
                depth -= 1
                if depth == 0:
                    return k == len(self.tokens) - 1
        return False

    def statements(self, end: str | None) -> list[Node]:
        items: list[Node] = []
        while self.tok is not None and not (end is not None and self.at(end)):
            items.extend(self.statement())
        if end is not None and self.tok is None:
            raise self.error(f"a block that is not closed ('{end}' expected)")
        return items

    def statement(self) -> list[Node]:
        t = self.tok
        if t.text == ";":
            self.take()
            return []
        if t.text == "{":
            self.take()
            items = self.statements("}")
            self.take("}")
            return [Block(t.line, t.column, tuple(items))]
        if t.text == "return":
            self.take()
            value = None if self.at(";") else self.expression()
            self.take(";")
            return [Return(t.line, t.column, value)]
        if t.text in ("break", "continue"):
            self.take()
            self.take(";")
            return [Jump(t.line, t.column, t.text)]
        if t.text == "if":
            self.take()
            self.take("(")
            condition = self.expression()
            self.take(")")
            then = self.block_of(self.statement())
            other = None
            if self.at("else"):
                self.take()
                other = self.block_of(self.statement())
            return [If(t.line, t.column, condition, then, other)]
        if t.text == "while":
            self.take()
            self.take("(")
            condition = self.expression()
            self.take(")")
            return [Loop(t.line, t.column, None, condition, None,
                         self.block_of(self.statement()))]
        if t.text == "do":
            self.take()
            body = self.block_of(self.statement())
            self.take("while")
            self.take("(")
            condition = self.expression()
            self.take(")")
            self.take(";")
            return [Loop(t.line, t.column, None, condition, None, body, test_first=False)]
        if t.text == "for":
            self.take()
            self.take("(")
            init = None if self.at(";") else self.block_of(self.simple())
            self.take(";")
            condition = None if self.at(";") else self.expression()
            self.take(";")
            step = None if self.at(")") else self.block_of(self.simple(step=True))
            self.take(")")
            return [Loop(t.line, t.column, init, condition, step,
                         self.block_of(self.statement()))]
        if t.text in _STATEMENT_WORDS:
            raise self.error(f"the statement '{t.text}'", t)
        items = self.simple()
        self.take(";")
        return items

    def block_of(self, items: list[Node]) -> Node:
        if len(items) == 1:
            return items[0]
        t = self.tok or self.tokens[-1]
        return Block(t.line, t.column, tuple(items))

    def simple(self, step: bool = False) -> list[Node]:
        """A declaration, an assignment or an increment (without its ';'); ``step``: also
        comma-separated, as the last part of a ``for``."""
        t = self.tok
        if self.is_type_start():
            ctype = self.type()
            items = []
            while True:
                name = self.take()
                if name.kind != "ident" or type_name(name.text) is not None:
                    raise self.error(f"'{name.text}' where a variable's name was expected",
                                     name)
                if self.at("["):
                    raise self.error("an array variable")
                value = None
                if self.at("="):
                    self.take()
                    value = self.initializer()
                items.append(Declare(name.line, name.column, ctype, name.text, value))
                if not self.at(","):
                    return items
                self.take(",")
        items = [self.assignment()]
        while step and self.at(","):
            self.take(",")
            items.append(self.assignment())
        del t
        return items

    def initializer(self) -> Node:
        if self.at("{"):
            t = self.take("{")
            items = [self.initializer()]
            while self.at(","):
                self.take(",")
                if self.at("}"):
                    break
                items.append(self.initializer())
            self.take("}")
            return Braces(t.line, t.column, tuple(items))
        return self.expression()

    def assignment(self) -> Node:
        t = self.tok
        if self.at("++", "--"):
            op = self.take().text
            target = self.target(self.unary())
            return Assign(t.line, t.column, target, op[0] + "=", Num(t.line, t.column, 1,
                                                                     "int"))
        left = self.expression()
        if self.at("++", "--"):
            op = self.take().text
            return Assign(t.line, t.column, self.target(left), op[0] + "=",
                          Num(t.line, t.column, 1, "int"))
        if self.at(*_ASSIGN):
            op = self.take().text
            value = self.initializer() if op == "=" else self.expression()
            return Assign(t.line, t.column, self.target(left), op, value)
        if isinstance(left, Call):
            return Evaluate(t.line, t.column, left)
        raise self.error("an expression whose value is not used (a statement assigns, "
                         "declares, calls or returns)", t)

    def target(self, node: Node) -> Node:
        base = node
        while isinstance(base, Field):
            base = base.base
        if not isinstance(base, Name):
            raise CBodyError(self.function, "an assignment to something that is not a "
                             "variable or its field", node.line, node.column)
        return node

    # --- expressions -----------------------------------------------------------------------
    def expression(self) -> Node:
        condition = self.binary(0)
        if self.at("?"):
            t = self.take("?")
            then = self.expression()
            self.take(":")
            other = self.expression()
            return Conditional(t.line, t.column, condition, then, other)
        return condition

    def binary(self, level: int) -> Node:
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.tok is not None and self.tok.text in _BINARY[level] and \
                self.tok.kind == "op":
            t = self.take()
            left = Binary(t.line, t.column, t.text, left, self.binary(level + 1))
        return left

    def unary(self) -> Node:
        t = self.tok
        if t is None:
            raise self.error("an expression that ends too early")
        if t.text in ("-", "+", "!", "~"):
            self.take()
            return Unary(t.line, t.column, t.text, self.unary())
        if t.text in ("++", "--"):
            raise self.error(f"'{t.text}' inside an expression (write it as a statement)", t)
        if t.text in ("&", "*"):
            raise self.error("a pointer", t)
        if t.text == "(" and self._cast_ahead():
            self.take("(")
            ctype = self.type()
            self.take(")")
            if ctype.width and self.at("("):
                open_ = self.take("(")
                items = [self.expression()]
                while self.at(","):
                    self.take(",")
                    items.append(self.expression())
                self.take(")")
                del open_
                return VectorLiteral(t.line, t.column, ctype, tuple(items))
            return Cast(t.line, t.column, ctype, self.unary())
        return self.postfix()

    def _cast_ahead(self) -> bool:
        nxt = self.peek()
        if nxt is None or nxt.kind != "ident":
            return False
        if nxt.text in ("const", "unsigned", "struct"):
            return True
        return type_name(nxt.text) is not None and self.peek(2) is not None and \
            self.peek(2).text == ")"

    def postfix(self) -> Node:
        value = self.primary()
        while True:
            if self.at("."):
                self.take(".")
                name = self.take()
                if name.kind != "ident":
                    raise self.error(f"the field '{name.text}'", name)
                value = Field(name.line, name.column, value, name.text)
            elif self.at("["):
                raise self.error("array indexing")
            elif self.at("->"):
                raise self.error("a pointer")
            else:
                return value

    def primary(self) -> Node:
        t = self.tok
        if t is None:
            raise self.error("an expression that ends too early")
        if t.kind == "num":
            self.take()
            return Num(t.line, t.column, t.value, t.num_type)
        if t.text in ("true", "false"):
            self.take()
            return Num(t.line, t.column, int(t.text == "true"), "int")
        if t.text == "(":
            self.take("(")
            value = self.expression()
            self.take(")")
            return value
        if t.text == "{":
            return self.initializer()
        if t.kind == "ident":
            self.take()
            if self.at("("):
                self.take("(")
                args = []
                if not self.at(")"):
                    args.append(self.expression())
                    while self.at(","):
                        self.take(",")
                        args.append(self.expression())
                self.take(")")
                return Call(t.line, t.column, t.text, tuple(args))
            if type_name(t.text) is not None:
                raise self.error(f"the type '{t.text}' where a value was expected", t)
            return Name(t.line, t.column, t.text)
        raise self.error(f"'{t.text}' where a value was expected", t)
