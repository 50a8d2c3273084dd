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

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path as FilePath

from ..domain import ranges_of, ranges_problem, ranges_text, with_ranges
from ..errors import (
    NotText,
    ParseError,
    TypeCheckError,
    WorkbenchError,
    decode_utf8,
    text_argument,
)
from ..expr import Expr, Lambda, Signature, UserFun, walk, with_signature
from ..types import Type, function_parts
from .lexer import Token, tokenize
from .parser import Parser, Resolver, is_user_function
from .printer import to_text


@dataclass
class _Source:
    name: str
    signature: list[Token] | None
    body: list[Token] | None
    token: Token  # where the definition starts (for errors)
    ranges: list[Token] | None = None  # the line 'name ranges : ...' (see ``domain``)
    ranges_token: Token | None = None


class UnknownDefinition(WorkbenchError, KeyError):
    """A name no definition of the program file has: the names it has, the closest first
    (a ``KeyError`` too, so that ``in`` and ``get`` work as on any mapping)."""

    def __init__(self, name, names: list[str]):
        import difflib

        close = difflib.get_close_matches(str(name), names, n=3)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        super().__init__(f"no definition {name!r} in this program file{hint} (it has: "
                         f"{', '.join(names) or 'none'})")

    def __str__(self) -> str:
        return self.args[0]


class Program(Mapping):
    """Definitions of a program file, in file order: name -> ``Expr``.

    Each expression carries ``.definition_name`` and, when the file gives one, ``.declared_type``
    (used by ``typecheck``/``evaluate`` when no input types are given).
    """

    def __init__(self, definitions: dict[str, Expr], order: list[str]):
        self._definitions = definitions
        self._order = order

    def __getitem__(self, name: str) -> Expr:
        try:
            return self._definitions[name]
        except (KeyError, TypeError):
            raise UnknownDefinition(name, self._order) from None

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
            if ranges_of(e) is not None:
                lines.append(f"{name} ranges : {ranges_text(ranges_of(e))}")
            lines.append(f"{name} = {to_text(body)}")
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks) + "\n"

    def __repr__(self) -> str:
        return f"Program({', '.join(self._order)})"


def named(expr: Expr, name: str, declared_type: Type | None, ranges: tuple | None = None
          ) -> Expr:
    """``expr`` carrying its definition's signature: name, declared type and (when the file
    declared them) input ranges."""
    return with_signature(expr, Signature(name, declared_type,
                                          tuple(ranges) if ranges is not None else None))


def _split_definitions(text: str, tokens: list[Token], parser: Parser) -> list[_Source]:
    sources: dict[str, _Source] = {}
    order: list[_Source] = []
    current: tuple[_Source, str] | None = None
    skip = 0  # the ':', '=' or 'ranges :' after a definition's name
    for i, tok in enumerate(tokens):
        if tok.kind == "eof":
            break
        if skip:
            skip -= 1
            continue
        starts = tok.line_start and tok.col == 1
        if starts:
            nxt = tokens[i + 1]
            is_ranges = nxt.kind == "ident" and nxt.text == "ranges" and \
                tokens[i + 2].text == ":" and tokens[i + 2].line == tok.line
            if tok.kind != "ident" or (nxt.text not in (":", "=") and not is_ranges):
                raise parser.error(
                    f"expected a definition 'name = expression', a signature 'name : type' "
                    f"or input ranges 'name ranges : [low, high], ...', found "
                    f"{tok.text!r}", tok, "a definition")
            src = sources.get(tok.text)
            if src is None:
                src = _Source(tok.text, None, None, tok)
                sources[tok.text] = src
                order.append(src)
            kind = "ranges" if is_ranges else "signature" if nxt.text == ":" else "body"
            if getattr(src, kind) is not None:
                plural = {"signature": "signatures", "body": "bodies", "ranges": "ranges lines"}
                raise parser.error(f"{tok.text} has two {plural[kind]}", tok,
                                   "one definition per name")
            setattr(src, kind, [])
            if is_ranges:
                src.ranges_token = tok
            current = (src, kind)
            skip = 2 if is_ranges else 1
            continue
        if current is None:
            raise parser.error("indented text before the first definition", tok, "a definition")
        src, kind = current
        getattr(src, kind).append(tok)
    return order


def parse_program(text: str) -> Program:
    """Parse a program file in the paper notation: every definition resolved, type-checked
    against its signature (``reading.parse_program`` also reads Lift programs)."""
    text_argument(text, "text")
    try:
        return _parse_program(text)
    except RecursionError:
        raise ParseError("a definition is nested too deeply", 1, 1) from None


def _parse_program(text: str) -> Program:
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
        if src.ranges is not None:
            result = with_ranges(result, read_ranges(src, declared))
        in_progress.pop()
        resolved[name] = result
        return result

    def read_ranges(src: _Source, declared: Type | None) -> tuple:
        at = src.ranges_token
        if declared is None:
            raise parser.error(f"{src.name}: input ranges need a signature "
                               f"'{src.name} : type' to say which inputs they are for", at,
                               "a signature")
        p = sub_parser(src.ranges, at)
        if not src.ranges:
            raise p.error(f"{src.name}: the ranges line has no ranges", at,
                          "[low, high] or _ for each input")
        ranges = p.ranges()
        if p.tok.kind != "eof":
            raise p.error(f"unexpected {p.found()} after the ranges of {src.name}",
                          expected="',' and another range, or the end of the line")
        problem = ranges_problem(ranges, function_parts(declared)[0])
        if problem is not None:
            raise parser.error(f"{src.name}: {problem}", at, "a range per input")
        return ranges

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


def load(path: str | FilePath, reader=None) -> Program:
    """Read and parse a program file (UTF-8; errors name the file, line and column) with
    ``reader`` (default ``parse_program``)."""
    path = FilePath(path)
    try:
        text = decode_utf8(path.read_bytes())
    except OSError as err:
        raise WorkbenchError(f"cannot read program file {path}: {err.strerror}") from None
    except NotText as err:
        raise ParseError(err.reason, err.line, err.column, "", "UTF-8 text",
                         path=str(path)) from None
    try:
        return (reader or parse_program)(text)
    except ParseError as err:
        raise ParseError(err.reason, err.line, err.column, err.source_line, err.expected,
                         path=str(path)) from None


def user_functions(program_text: str) -> dict[str, Expr]:
    """The definitions of a program text (typically ``user_functions_text``'s), by name: the
    user functions a parsed expression may call."""
    if not program_text:
        return {}
    return dict(parse_program(program_text).items())


def user_functions_text(expr: Expr) -> str:
    """The program text of the user functions an expression calls, each after the functions
    its own body calls (``compCallPut`` after ``option``, ``cnd``, …): with it, the printed
    expression parses back to the same expression in another process. Where one of them is
    written in OpenCL C (a Lift ``UserFun`` the scalar language cannot express), which the
    paper notation has no form for, they are all written as Lift's ``UserFun`` values
    (``reading.user_functions`` reads either)."""
    seen: dict[str, UserFun] = {}

    def visit(e: Expr) -> None:
        for _, node in walk(e):
            if isinstance(node, UserFun) and node.name not in seen:
                if node.body is not None:
                    visit(node.body)
                seen[node.name] = node

    visit(expr)
    if any(fun.body is None for fun in seen.values()):
        from .lift_printer import user_fun

        try:
            return "\n".join(user_fun(fun) for fun in seen.values())
        except ValueError:  # a function Lift's UserFun cannot hold: the scalar ones only
            pass
    seen = {name: fun for name, fun in seen.items() if fun.body is not None}
    blocks = []
    for name, fun in seen.items():
        head = f"{name} : {fun.type}\n" if fun.type is not None else ""
        blocks.append(f"{head}{name} = {to_text(fun.body)}")
    return "\n\n".join(blocks)
