"""Tokens of the paper notation, its ASCII spelling and the subset of Lift's Scala DSL.

Composition is ``∘`` or the word ``o`` (as in Lift); lambdas start with ``λ`` or ``\\``;
identifiers may be hyphenated when they spell a primitive (``map-workgroup``); float
literals may carry C's ``f`` suffix (``0.0f``). Comments run from ``--``, ``#`` or ``//`` to
the end of the line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..errors import ParseError


@dataclass(frozen=True)
class Token:
    kind: str  # "ident", "num", "op", "eof"
    text: str
    line: int
    col: int
    value: object = None
    line_start: bool = False  # first token of its line


# Longest first, so "<=" wins over "<" and "->" over "-".
_OPERATORS = ["->", "=>", "==", "!=", "<=", ">=", "&&", "||", "→", "∘", "λ", "×", "·",
              "(", ")", "[", "]", "{", "}", "<", ">", ",", ".", "\\", ":", "+", "-", "*",
              "/", "%", "^", "!", "=", "_"]
_CANONICAL = {"→": "->", "×": "*", "·": "*", "\\": "λ"}
_NUMBER = re.compile(r"(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?[fF]?", re.ASCII)
_DIGITS = re.compile(r"\d+", re.ASCII)
# Whole numbers are C's int, long or a size: anything past 64 bits is a typo, and Python
# refuses to convert integer text of more than 4,300 digits anyway.
MAX_INTEGER = 2 ** 63 - 1


def _hyphenated() -> re.Pattern:
    from ..primitives import spellings

    words = sorted((s for s in spellings() if "-" in s), key=len, reverse=True)
    return re.compile("|".join(re.escape(w) for w in words) + r"(?![\w-])")


_HYPHENATED: re.Pattern | None = None


def _is_ident_start(ch: str) -> bool:
    return ch == "_" or (ch.isalpha() and ch != "λ")


def _is_ident_char(ch: str) -> bool:
    return ch == "_" or ch == "'" or (ch.isalnum() and ch != "λ")


def _number(literal: str, is_float: bool, line: str, line_no: int, col: int) -> int | float:
    """The value of a number literal; a float that would be infinite, or a whole number
    past 64 bits, is refused where it is written (it could not be printed back)."""
    number = literal.rstrip("fF")
    if is_float:
        value = float(number)
        if not math.isfinite(value):
            raise ParseError(f"the number {_shorten(literal)} is too large for a float (it "
                             f"would be infinite)", line_no, col, line, "a finite number")
        return value
    digits = number.lstrip("0")
    if len(digits) > len(str(MAX_INTEGER)) or int(digits or "0") > MAX_INTEGER:
        raise ParseError(f"the whole number {_shorten(literal)} does not fit in 64 bits (at "
                         f"most {MAX_INTEGER}; write a float such as 1e20 for a large "
                         f"constant)", line_no, col, line, "a smaller number")
    return int(digits or "0")


def _shorten(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:10]}...{text[-10:]} ({len(text)} characters)"


def tokenize(text: str) -> list[Token]:
    global _HYPHENATED
    if _HYPHENATED is None:
        _HYPHENATED = _hyphenated()
    lines = text.split("\n")
    tokens: list[Token] = []
    for line_no, line in enumerate(lines, start=1):
        i = 0
        first = True
        while i < len(line):
            ch = line[i]
            if ch in " \t\r":
                i += 1
                continue
            if line.startswith(("--", "//"), i) or ch == "#":
                break
            col = i + 1
            prev = tokens[-1] if tokens and tokens[-1].line == line_no else None
            if "0" <= ch <= "9":
                # ``p.0.1`` is a projection chain: digits glued to a '.' that is glued to a
                # name or ')' are an index, not the start of a float.
                after_dot = (prev is not None and prev.text == "." and prev.col == col - 1
                             and len(tokens) > 1 and tokens[-2].line == line_no
                             and tokens[-2].col + len(tokens[-2].text) == prev.col
                             and (tokens[-2].kind in ("ident", "num") or tokens[-2].text == ")"))
                m = (_DIGITS if after_dot else _NUMBER).match(line, i)
                literal = m.group(0)
                is_float = not after_dot and any(c in literal for c in ".eEfF")
                value = _number(literal, is_float, line, line_no, col)
                tokens.append(Token("num", literal, line_no, col, value, first))
                i = m.end()
            elif _is_ident_start(ch) and not (ch == "_" and prev and prev.text in ("]", ">")):
                m = _HYPHENATED.match(line, i)
                if m:
                    end = m.end()
                else:
                    end = i + 1
                    while end < len(line) and _is_ident_char(line[end]):
                        end += 1
                word = line[i:end]
                tokens.append(Token("ident", word, line_no, col, word, first))
                i = end
            else:
                for op in _OPERATORS:
                    if line.startswith(op, i):
                        tokens.append(Token("op", _CANONICAL.get(op, op), line_no, col, op, first))
                        i += len(op)
                        break
                else:
                    raise ParseError(f"unexpected character {ch!r}", line_no, col, line,
                                     "an expression")
            first = False
    last_line = len(lines)
    tokens.append(Token("eof", "", last_line, len(lines[-1]) + 1, None, False))
    return tokens


class TokenCursor:
    """A position in a list of tokens, with the helpers every reader of them needs: look
    ahead, test, consume, expect, and errors located at a token's line and column."""

    def __init__(self, text: str, tokens: list[Token]):
        self.text = text
        self.lines = text.split("\n")
        self.tokens = tokens
        self.pos = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, k: int = 1) -> Token:
        return self.tokens[min(self.pos + k, len(self.tokens) - 1)]

    def at(self, *texts: str) -> bool:
        return self.tok.kind in ("op", "ident") and self.tok.text in texts

    def advance(self) -> Token:
        t = self.tok
        self.pos += 1
        return t

    def error(self, message: str, tok: Token | None = None, expected: str = "") -> ParseError:
        tok = tok or self.tok
        line = self.lines[tok.line - 1] if 0 < tok.line <= len(self.lines) else ""
        return ParseError(message, tok.line, tok.col, line, expected)

    def found(self) -> str:
        return "the end of the text" if self.tok.kind == "eof" else repr(self.tok.text)

    def expect(self, text: str, what: str = "") -> Token:
        if not self.at(text):
            expected = what or f"'{text}'"
            raise self.error(f"expected {expected}, found {self.found()}", expected=expected)
        return self.advance()
