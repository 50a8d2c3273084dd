"""Derivations: a start expression plus the rewrite steps taken (SPEC 5).

A ``Derivation`` keeps the steps of its current branch, an undo/redo history, and the
branches left behind when the user tried another rule at an earlier step. It is saved as
JSON (data only) and replayed step by step on load: every step is re-applied and checked,
and the first bad entry is reported by number. It exports to Markdown and LaTeX in the
style of ICFP 2015 Fig. 10 (each line annotated with the rule that produced it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path as FilePath

from .domain import ranges_of, ranges_problem, ranges_text, with_ranges
from .errors import (
    ArgumentError,
    NotText,
    ParseError,
    WorkbenchError,
    as_path,
    decode_utf8,
    file_argument,
    flag_argument,
    format_path,
    parse_path,
    text_argument,
    whole_argument,
)
from .expr import Expr, Path, expression_argument
from .notation import parse, parse_ranges
from .notation.program import named, user_functions_text
from .notation.reading import user_functions
from .rewriting.step import Step
from .rules import RewriteRefused, apply, lookup_rule
from .typecheck import input_type_argument, typecheck
from .types import FunctionType, Type, function_parts

FORMAT = "rewrite-workbench derivation"
VERSION = 1  # the format version this workbench writes and reads


class DerivationError(WorkbenchError):
    """A saved derivation that is corrupt, truncated, or does not replay. ``source`` is the
    file (or the name given to ``from_json``); ``entry`` the entry at fault (``"steps"``,
    ``"version"``, ...), with ``step`` (1-based) and ``branch`` for a step; ``line`` and
    ``column`` locate text that is not JSON."""

    def __init__(self, message: str, source: str = "", entry: str | None = None,
                 step: int | None = None, branch: int | None = None,
                 line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.source, self.entry, self.step, self.branch = source, entry, step, branch
        self.line, self.column = line, column


def _parsed_start(text: str, definitions: str) -> Expr:
    """A derivation's start given as text, parsed (a ``ParseError`` names the start)."""
    functions = user_functions(definitions)
    try:
        return parse(text, functions)
    except ParseError as err:
        raise ParseError(err.reason, err.line, err.column, err.source_line, err.expected,
                         "start") from None


class Derivation:
    """A start expression, its input types, and the steps of the current branch."""

    def __init__(self, start: Expr | str, *input_types: Type | str, name: str = "",
                 definitions: str = ""):
        self.definitions = text_argument(definitions, "definitions")
        self.start = _parsed_start(start, definitions) if isinstance(start, str) \
            else expression_argument(start, "start")
        self.input_types = tuple(input_type_argument(k, t)
                                 for k, t in enumerate(input_types, start=1))
        self.name = (text_argument(name, "name") or getattr(self.start, "definition_name", "")
                     or "expr")
        if self.input_types and getattr(self.start, "declared_type", None) is None:
            # Every line then knows its signature, so its sizes (N in split (N/128)) are
            # bound when it is evaluated on arrays.
            result = typecheck(self.start, *self.input_types)
            signature = result
            for t in reversed(self.input_types):
                signature = FunctionType(t, signature)
            self.start = named(self.start, self.name, signature)
        self.steps: list[Step] = []
        self._redo: list[Step] = []
        self.branches: list[list[Step]] = []

    # --- stepping -------------------------------------------------------------------------
    @property
    def current(self) -> Expr:
        return self.steps[-1].result if self.steps else self.start

    def expressions(self) -> list[Expr]:
        return [self.start] + [s.result for s in self.steps]

    def apply(self, rule: str, path: Path | str | int, **params) -> Expr:
        """Apply a rule to the current expression at ``path`` (``"1.0"``, ``(1, 0)``, ``0``
        or ``"root"``); raises ``RewriteRefused`` if it does not apply (the derivation is
        then unchanged)."""
        path = as_path(path)
        result = apply(self.current, rule, path, *self.input_types, **params)
        rule_obj = lookup_rule(rule)
        values = {p.name: params[p.name] for p in rule_obj.params if p.name in params}
        self.steps.append(Step(rule, path, values, result))
        self._redo.clear()
        return result

    def undo(self) -> Expr:
        if not self.steps:
            raise WorkbenchError("nothing to undo: the derivation is at its start")
        self._redo.append(self.steps.pop())
        return self.current

    def redo(self) -> Expr:
        if not self._redo:
            raise WorkbenchError("nothing to redo")
        self.steps.append(self._redo.pop())
        return self.current

    @property
    def can_undo(self) -> bool:
        return bool(self.steps)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def branch(self, k: int) -> None:
        """Go back to after step ``k`` (0: the start) to try something else; the steps
        after ``k`` are kept as a branch that ``switch`` can return to."""
        k = whole_argument(k, "k")
        if not 0 <= k <= len(self.steps):
            raise WorkbenchError(f"no step {k}: the derivation has {len(self.steps)} steps")
        self.branches.append(list(self.steps))
        del self.steps[k:]
        self._redo.clear()

    def switch(self, i: int) -> None:
        """Make saved branch ``i`` current (the current steps become a branch)."""
        i = whole_argument(i, "i")
        if not 0 <= i < len(self.branches):
            raise WorkbenchError(f"no branch {i}: there are {len(self.branches)}")
        chosen = self.branches.pop(i)
        self.branches.append(list(self.steps))
        self.steps = chosen
        self._redo.clear()

    # --- macro steps ----------------------------------------------------------------------
    def expansion(self, k: int) -> list[Step]:
        """The basic steps that step ``k`` (1-based) is made of, each with the expression
        after it, when its rule is a macro (``rewriting.expansion``)."""
        from .rewriting.expansion import expand

        k = whole_argument(k, "k")
        if not 1 <= k <= len(self.steps):
            raise WorkbenchError(f"no step {k}: the derivation has {len(self.steps)} steps")
        step = self.steps[k - 1]
        before = self.expressions()[k - 1]
        return expand(before, step.rule, step.path, *self.input_types, **step.params)

    def is_macro(self, k: int) -> bool:
        from .rewriting.expansion import is_macro

        k = whole_argument(k, "k")
        return 1 <= k <= len(self.steps) and is_macro(self.steps[k - 1].rule)

    def expand(self, k: int) -> Expr:
        """Step ``k`` replaced by its basic steps (the steps after it are kept: they apply to
        the same expression); the current expression is unchanged."""
        basic = self.expansion(k)
        step = self.steps[k - 1]
        if basic[-1].result != step.result:
            raise WorkbenchError(f"the basic steps of step {k} ({step.rule}) give "
                                 f"`{basic[-1].result}`, not `{step.result}`")
        self.steps[k - 1:k] = basic
        self._redo.clear()
        return self.current

    def expanded(self) -> Derivation:
        """A copy of this derivation with every macro step replaced by its basic steps."""
        copy = Derivation(self.start, *self.input_types, name=self.name,
                          definitions=self.definitions)
        copy.steps = list(self.steps)
        for k in range(len(copy.steps), 0, -1):
            if copy.is_macro(k):
                copy.expand(k)
        return copy

    # --- JSON -----------------------------------------------------------------------------
    def to_json(self) -> dict:
        doc = {
            "format": FORMAT, "version": VERSION, "name": self.name,
            "definitions": self.definitions or user_functions_text(self.start),
            "start": str(self.start),
            "inputs": [str(t) for t in self.input_types or _declared_inputs(self.start)],
        }
        if ranges_of(self.start) is not None:
            doc["ranges"] = ranges_text(ranges_of(self.start))
        doc["steps"] = [s.as_json() for s in self.steps]
        doc["branches"] = [[s.as_json() for s in b] for b in self.branches]
        return doc

    def save(self, path: str | FilePath) -> None:
        path = file_argument(path, "path", reading=False)
        try:
            path.write_text(json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n",
                            encoding="utf-8")
        except OSError as err:  # a missing folder, a full disk (/dev/full), no permission
            raise ArgumentError(f"path = {str(path)!r}: cannot write the derivation there: "
                                f"{err.strerror}", "path") from None

    @classmethod
    def from_json(cls, doc: object, source: str = "derivation") -> Derivation:
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise DerivationError(f"{source}: not a saved derivation (no \"format\": "
                                  f"\"{FORMAT}\")", source, "format")
        version = doc.get("version", VERSION)
        if version != VERSION or isinstance(version, bool):
            raise DerivationError(f"{source}: format version {_shown(version)} is not one "
                                  f"this workbench reads (it reads version {VERSION}; a newer "
                                  f"workbench may read it)", source, "version")
        inputs = _field(doc, "inputs", list, source)
        if not all(isinstance(t, str) for t in inputs):
            raise DerivationError(f"{source}: \"inputs\" must be a list of types written as "
                                  f"text, such as \"[float]_N\"", source, "inputs")
        try:
            d = cls(_field(doc, "start", str, source), *inputs,
                    name=str(doc.get("name", "")), definitions=str(doc.get("definitions", "")))
        except DerivationError:
            raise
        except WorkbenchError as err:
            raise DerivationError(f"{source}: the start expression: {err}", source,
                                  "start") from None
        if "ranges" in doc:
            d.start = with_ranges(d.start, _ranges(doc["ranges"], d, source))
        for i, entry in enumerate(_field(doc, "steps", list, source), start=1):
            d._replay(entry, f"{source}: step {i}", source, i, None)
        branches = doc.get("branches", [])
        for b, branch in enumerate(branches if isinstance(branches, list) else []):
            if not isinstance(branch, list):
                raise DerivationError(f"{source}: branch {b} must be a list of steps", source,
                                      "branches", branch=b)
            main = list(d.steps)
            d.steps = []
            for i, entry in enumerate(branch, start=1):
                d._replay(entry, f"{source}: branch {b}, step {i}", source, i, b)
            d.branches.append(d.steps)
            d.steps = main
        return d

    def _replay(self, entry: object, where: str, source: str = "", step: int | None = None,
                branch: int | None = None) -> None:
        def error(message: str) -> DerivationError:
            return DerivationError(f"{where}{message}", source, "branches" if branch is not None
                                   else "steps", step, branch)

        if not isinstance(entry, dict):
            raise error(": expected an object with rule, path, params")
        rule = entry.get("rule")
        if not isinstance(rule, str):
            raise error(": missing \"rule\"")
        try:
            lookup_rule(rule)
            path = parse_path(str(entry.get("path", "")))
            params = entry.get("params") or {}
            if not isinstance(params, dict):
                raise error(": \"params\" must be an object")
            result = self.apply(rule, path, **params)
        except DerivationError:
            raise
        except RewriteRefused as err:
            raise error(f" does not replay: {err}") from None
        except WorkbenchError as err:
            raise error(f": {err}") from None
        expected = entry.get("result")
        if expected is not None and expected != str(result):
            raise error(f": replaying {rule} gives `{result}`, the file says `{expected}`")

    @classmethod
    def load(cls, path: str | FilePath) -> Derivation:
        path = file_argument(path, "path")
        try:
            text = decode_utf8(path.read_bytes())
        except OSError as err:
            raise DerivationError(f"cannot read {path}: {err.strerror}", str(path)) from None
        except NotText as err:
            raise DerivationError(f"{path.name}: {err}", path.name, line=err.line,
                                  column=err.column) from None
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as err:
            raise DerivationError(f"{path.name}: not valid JSON (line {err.lineno}, column "
                                  f"{err.colno}: {err.msg}); the file may be truncated",
                                  path.name, line=err.lineno, column=err.colno) from None
        except RecursionError:
            raise DerivationError(f"{path.name}: the JSON is nested too deeply",
                                  path.name) from None
        except ValueError as err:  # e.g. a number of more than 4,300 digits
            raise DerivationError(f"{path.name}: not a derivation this workbench can read "
                                  f"({err})", path.name) from None
        return cls.from_json(doc, path.name)

    # --- export ---------------------------------------------------------------------------
    def lines(self, expand: bool = False) -> list[tuple[str, str, Expr]]:
        """(label, rule annotation, expression) per line, as in ICFP Fig. 10; with
        ``expand``, each macro step is followed by its basic steps, labelled (k.1), (k.2), …"""
        expand = flag_argument(expand, "expand")
        out = [("", "", self.start)]
        for i, step in enumerate(self.steps, start=1):
            out.append((f"({i})", _annotation(step), step.result))
            if expand and self.is_macro(i):
                for j, sub in enumerate(self.expansion(i), start=1):
                    out.append((f"({i}.{j})", _annotation(sub), sub.result))
        return out

    def to_markdown(self, expand: bool = False) -> str:
        """A table of the lines (``expand``: with each macro's basic steps)."""
        rows = [f"**{self.name}** : " + " → ".join(str(t) for t in self.input_types)
                if self.input_types else f"**{self.name}**", "",
                "| | rule | expression |", "|---|---|---|"]
        for label, rule, e in self.lines(expand):
            rows.append(f"| {label} | {rule} | `{e}` |")
        return "\n".join(rows) + "\n"

    def to_latex(self, expand: bool = False) -> str:
        out = ["\\begin{align*}"]
        for i, (label, rule, e) in enumerate(self.lines(expand)):
            body = latex_expression(e)
            if i == 0:
                out.append(f"\\mathit{{{_latex_name(self.name)}}} &= {body} \\\\")
            else:
                label_text = _latex_escape(rule).replace("→", "$\\to$")
                out.append(f"&\\xrightarrow{{\\text{{{label_text}}}}} {body} "
                           f"&& {label} \\\\")
        out.append("\\end{align*}")
        return "\n".join(out) + "\n"

    def to_text(self, expand: bool = False) -> str:
        """Plain text in the style of ICFP 2015 Fig. 10: the start, then one numbered line
        per step naming its rule (parameters, place, figure) above the expression it
        gives; with ``expand``, each macro step's basic steps follow it, numbered (k.1),
        (k.2), … This is ``str(derivation)``."""
        out = [f"{self.name} : " + " → ".join(str(t) for t in self.input_types)
               ] if self.input_types else []
        out.append(f"{self.name} = {self.start}")
        rows, expand = [], flag_argument(expand, "expand")
        for i, step in enumerate(self.steps, start=1):
            rows.append((f"({i})", step))
            if expand and self.is_macro(i):
                rows += [(f"({i}.{j})", sub) for j, sub in enumerate(self.expansion(i), 1)]
        width = max((len(label) for label, _ in rows), default=0) + 1
        for label, step in rows:
            out.append(f"{label:<{width}}→ {_rule_line(step)}")
            out.append(" " * width + f"= {step.result}")
        return "\n".join(out)

    def to_lift(self) -> str:
        """The current expression as a Lift program (``val name = fun(types..., ...)``, with
        its sizes and user functions), to take the derived kernel to Lift."""
        from .notation.lift_printer import lift_program

        return lift_program(self.current, _identifier(self.name))

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return (f"<Derivation {self.name}: {len(self.steps)} step"
                f"{'s' if len(self.steps) != 1 else ''}, now `{self.current}`>")

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __len__(self) -> int:
        return len(self.steps)


def _identifier(name: str) -> str:
    text = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "expr"
    return text if not text[0].isdigit() else f"_{text}"


def _field(doc: dict, key: str, kind: type, source: str):
    if key not in doc:
        raise DerivationError(f"{source}: missing \"{key}\" (the file may be truncated)",
                              source, key)
    value = doc[key]
    if not isinstance(value, kind):
        raise DerivationError(f"{source}: \"{key}\" must be a {kind.__name__}", source, key)
    return value


def _shown(value: object) -> str:
    if isinstance(value, int) and value.bit_length() > 128:
        return f"(a number of {value.bit_length()} bits)"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _ranges(value: object, d: Derivation, source: str) -> tuple:
    """The start's input ranges, as a program file's ranges line writes them."""
    if not isinstance(value, str):
        raise DerivationError(f"{source}: \"ranges\" must be a str such as \"[0, 1], _\"",
                              source, "ranges")
    try:
        ranges = parse_ranges(value)
    except WorkbenchError as err:
        raise DerivationError(f"{source}: \"ranges\": {err}", source, "ranges") from None
    inputs = list(d.input_types) or _declared_inputs(d.start)
    problem = ranges_problem(ranges, inputs)
    if problem is not None:
        raise DerivationError(f"{source}: \"ranges\": {problem}", source, "ranges")
    return ranges


def _annotation(step: Step) -> str:
    rule = lookup_rule(step.rule)
    m = re.search(r"Fig\. (\w+)", rule.figure)
    fig = m.group(1) if m else ""
    params = ", ".join(f"{k}={v}" for k, v in step.params.items())
    return " ".join(x for x in (fig, step.rule, f"({params})" if params else "") if x)


def _rule_line(step: Step) -> str:
    """``split-join (n=128) at 0, Fig. 6c``: a step's rule for the plain-text form."""
    figure = lookup_rule(step.rule).figure
    params = ", ".join(f"{k}={v}" for k, v in step.params.items())
    return (step.rule + (f" ({params})" if params else "") + f" at {format_path(step.path)}"
            + (f", {figure.removeprefix('ICFP ')}" if figure else ""))


def _declared_inputs(expr: Expr) -> list[Type]:
    declared = getattr(expr, "declared_type", None)
    return function_parts(declared)[0] if declared is not None else []


_LATEX_SYMBOLS = {"∘": r"\circ ", "λ": r"\lambda ", "%": r"\%", "_": r"\_", "&": r"\&",
                  "#": r"\#", "{": r"\{", "}": r"\}", "^": r"\hat{}", "×": r"\times "}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SYMBOLS.get(c, c) for c in text)


def _latex_name(name: str) -> str:
    return _latex_escape(name)


def latex_expression(e: Expr) -> str:
    """The printed expression with names in italics and the papers' symbols."""
    text = str(e)
    out = []
    for token in re.findall(r"[A-Za-z_][A-Za-z0-9_']*|\s+|.", text):
        if re.match(r"[A-Za-z_]", token):
            out.append(f"\\mathit{{{_latex_escape(token)}}}")
        elif token.isspace():
            out.append("\\ ")
        else:
            out.append(_latex_escape(token))
    return "".join(out)
