"""Tokens of the paper notation, its ASCII spelling and the subset of Lift's Scala DSL.

Composition is ``∘`` or the word ``o`` (as in Lift); lambdas start with ``λ`` or ``\\``;
identifiers may be hyphenated when they spell a primitive (``map-workgroup``); float
literals may carry C's ``f`` suffix (``0.0f``). Comments run from ``--``, ``#`` or ``//`` to
the end of the line.
"""

from __future__ import annotations

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
_NUMBER = re.compile(r"(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?[fF]?")
_DIGITS = re.compile(r"\d+")


def _hyphenated() -> re.Pattern:
    from ..primitives import spellings

    words = sorted((s for s in spellings() if "-" in s), key=len, reverse=True)
    return re.compile("|".join(re.escape(w) for w in words) + r"(?![\w-])")


_HYPHENATED: re.Pattern | None = None


def _is_ident_start(ch: str) -> bool:
    return ch == "_" or (ch.isalpha() and ch != "λ")


def _is_ident_char(ch: str) -> bool:
    return ch == "_" or ch == "'" or (ch.isalnum() and ch != "λ")


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
            if ch.isdigit():
                # ``p.0.1`` is a projection chain: digits glued to a '.' that is glued to a
                # name or ')' are an index, not the start of a float.
                after_dot = (prev is not None and prev.text == "." and prev.col == col - 1
                             and len(tokens) > 1 and tokens[-2].line == line_no
                             and tokens[-2].col + len(tokens[-2].text) == prev.col
                             and (tokens[-2].kind in ("ident", "num") or tokens[-2].text == ")"))
                m = (_DIGITS if after_dot else _NUMBER).match(line, i)
                literal = m.group(0)
                is_float = not after_dot and any(c in literal for c in ".eEfF")
                number = literal.rstrip("fF")
                value = float(number) if is_float else int(number)
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
