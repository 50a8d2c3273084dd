"""Program files (``*.lift``): definitions with type signatures and user functions.

    asum : [float]_N -> [float]_1
    asum = reduce (+) 0 ∘ map abs

    mul3 : float -> float
    mul3 = λx. x * 3

A definition starts at the first column with ``name :`` (its signature) or ``name =`` (its
body); indented lines continue it. Definitions may use each other in any order. A
definition on scalars becomes a named user function (``UserFun``, printed by its name, as
``mul3`` in ICFP Fig. 3); an array program used inside another is inlined there.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path as FilePath

from ..errors import ParseError, TypeCheckError, WorkbenchError
from ..expr import Expr, Lambda, UserFun
from ..types import Type
from .lexer import Token, tokenize
from .parser import Parser, Resolver, is_user_function
from .printer import to_text


@dataclass
class _Source:
    name: str
    signature: list[Token] | None
    body: list[Token] | None
    token: Token  # where the definition starts (for errors)


class Program(Mapping):
    """Definitions of a program file, in file order: name -> ``Expr``.

    Each expression carries ``.definition_name`` and, when the file gives one, ``.declared_type``
    (used by ``typecheck``/``evaluate`` when no input types are given).
    """

    def __init__(self, definitions: dict[str, Expr], order: list[str]):
        self._definitions = definitions
        self._order = order

    def __getitem__(self, name: str) -> Expr:
        return self._definitions[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __str__(self) -> str:
        blocks = []
        for name in self._order:
            e = self._definitions[name]
            body = e.body if isinstance(e, UserFun) else e
            t = e.type if isinstance(e, UserFun) else getattr(e, "declared_type", None)
            lines = [f"{name} : {t}"] if t is not None else []
            lines.append(f"{name} = {to_text(body)}")
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks) + "\n"

    def __repr__(self) -> str:
        return f"Program({', '.join(self._order)})"


def named(expr: Expr, name: str, declared_type: Type | None) -> Expr:
    """A copy of ``expr`` that carries its definition's name and declared type."""
    out = copy.copy(expr)
    object.__setattr__(out, "definition_name", name)
    object.__setattr__(out, "declared_type", declared_type)
    return out


def _split_definitions(text: str, tokens: list[Token], parser: Parser) -> list[_Source]:
    sources: dict[str, _Source] = {}
    order: list[_Source] = []
    current: tuple[_Source, str] | None = None
    for i, tok in enumerate(tokens):
        if tok.kind == "eof":
            break
        starts = tok.line_start and tok.col == 1
        if starts:
            nxt = tokens[i + 1]
            if tok.kind != "ident" or nxt.text not in (":", "="):
                raise parser.error(
                    f"expected a definition 'name = expression' or a signature "
                    f"'name : type', found {tok.text!r}", tok, "a definition")
            src = sources.get(tok.text)
            if src is None:
                src = _Source(tok.text, None, None, tok)
                sources[tok.text] = src
                order.append(src)
            kind = "signature" if nxt.text == ":" else "body"
            if getattr(src, kind) is not None:
                raise parser.error(f"{tok.text} has two {kind}s", tok, "one definition per name")
            setattr(src, kind, [])
            current = (src, kind)
            continue
        if current is None:
            raise parser.error("indented text before the first definition", tok, "a definition")
        src, kind = current
        part = getattr(src, kind)
        if not part and tok.text in (":", "=") and tokens[i - 1].line_start:
            continue  # the ':' or '=' right after the name
        part.append(tok)
    return order


def parse_program(text: str) -> Program:
    """Parse a program file: every definition resolved, type-checked against its signature."""
    tokens = tokenize(text)
    parser = Parser(text, tokens)
    sources = _split_definitions(text, tokens, parser)
    by_name = {s.name: s for s in sources}
    resolved: dict[str, Expr] = {}
    in_progress: list[str] = []

    def sub_parser(part: list[Token], after: Token) -> Parser:
        end = part[-1] if part else after
        eof = Token("eof", "", end.line, end.col + len(end.text), None)
        return Parser(text, part + [eof])

    def resolve(name: str) -> Expr:
        if name in resolved:
            return resolved[name]
        src = by_name[name]
        if name in in_progress:
            cycle = " -> ".join(in_progress[in_progress.index(name):] + [name])
            raise parser.error(f"definitions refer to each other in a cycle: {cycle}", src.token,
                               "non-recursive definitions")
        if src.body is None:
            raise parser.error(f"{name} has a signature but no definition '{name} = ...'",
                               src.token, "a definition")
        in_progress.append(name)
        declared = None
        if src.signature is not None:
            p = sub_parser(src.signature, src.token)
            if not src.signature:
                raise p.error(f"{name}: the signature has no type", src.token, "a type")
            declared = p.type_()
            if p.tok.kind != "eof":
                raise p.error(f"unexpected {p.found()} after the type of {name}",
                              expected="the end of the type")
        p = sub_parser(src.body, src.token)
        if not src.body:
            raise p.error(f"{name} = needs an expression", src.token, "an expression")
        tree = p.expression()
        p.expect_end()
        used = [t.text for t in src.body if t.kind == "ident" and t.text in by_name
                and t.text != name]
        definitions = {}
        for other in used:
            definitions[other] = resolve(other)
        body = Resolver(p, definitions).resolve(tree, frozenset())
        if is_user_function(declared, body) and isinstance(body, Lambda):
            result: Expr = UserFun(name, body=body, type=declared)
        else:
            result = named(body, name, declared)
        in_progress.pop()
        resolved[name] = result
        return result

    for src in sources:
        resolve(src.name)
    program = Program(resolved, [s.name for s in sources])
    _check_signatures(program, by_name, parser)
    return program


def _check_signatures(program: Program, sources, parser: Parser) -> None:
    from ..typecheck import typecheck

    for name, expr in program.items():
        if isinstance(expr, UserFun) or getattr(expr, "declared_type", None) is None:
            continue
        try:
            typecheck(expr)
        except TypeCheckError as err:
            raise parser.error(f"{name} does not have its declared type "
                               f"{expr.declared_type}: {err}", sources[name].token,
                               "a well-typed definition") from None


def load(path: str | FilePath) -> Program:
    """Read and parse a program file."""
    path = FilePath(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise WorkbenchError(f"cannot read program file {path}: {err.strerror}") from None
    try:
        return parse_program(text)
    except ParseError as err:
        raise ParseError(f"{path.name}: {err.reason}", err.line, err.column, err.source_line,
                         err.expected) from None
