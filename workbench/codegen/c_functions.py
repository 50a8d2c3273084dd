"""The OpenCL C text of a user function written in C (a Lift ``UserFun`` body): its body
as written, between the names it needs and their removal.

A Lift body names its tuple types as Lift's generator declares them: ``Tuple`` for the
function's own tuple type (its result's, or else its one tuple parameter's) and
``Tuple2_float_float`` spelled out. The workbench declares ``struct Tuple_float_float``, so
each such name the body uses is ``#define``d to the struct before the body and ``#undef``ined
after it, with the macros the body defines itself: nothing a body names leaks into the
functions and kernels after it.

Where a body takes the sine and the cosine of one float variable (MRI-Q's ``mapFun``), one
``sincos`` computes both (``shared_sincos``): the two share their argument's reduction
(PoCL does not combine them: MRI-Q's computeQ at 8192 voxels ran 1.3 to 1.5 times faster
with it; on an H200 the hand-written computeQ, 1.3 times faster than the searched one, calls
``sincos`` where the searched one called ``sin`` and ``cos``).
"""

from __future__ import annotations

from ..notation.c_syntax import preprocess, tokenize, type_name
from ..sizes import Size
from ..types import ScalarType, TupleType, Type, VectorType, function_parts
from .c_types import StructRegistry, c_type

_SCALARS = {"int", "float", "double", "bool"}


def function_text(name: str, body: str, fn_type: Type, program: StructRegistry,
                  param_names: tuple[str, ...] = ()) -> str:
    """The body to print inside the function's braces (directives on lines of their own),
    the sine and cosine of one float computed together (``shared_sincos``)."""
    params, _ = function_parts(fn_type)
    floats = {n for n, t in zip(param_names, params) if t == ScalarType("float")}
    body = shared_sincos(name, body, floats)
    tokens = tokenize(name, body)
    _, macros = preprocess(name, tokens)
    params, result = function_parts(fn_type)
    names: dict[str, str] = {}
    for t in tokens:
        if t.kind != "ident" or t.text in names or not t.text.startswith("Tuple"):
            continue
        if t.text == "Tuple":
            own = _own_tuple(params, result)
            if own is not None:
                names["Tuple"] = c_type(own, program)
            continue
        spelled = _tuple_type(type_name(t.text))
        if spelled is not None:
            names[t.text] = c_type(spelled, program)
    before = [f"#define {k} {v}" for k, v in names.items()]
    after = [f"#undef {k}" for k in [*names, *dict.fromkeys(macros)]]
    return "\n".join([*before, body.strip("\n"), *after])


# a statement does not start with these: a declaration before them would split a statement
_NOT_A_STATEMENT_START = {"else", "case", "default", "do"}
_ASSIGNING = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"}


def shared_sincos(name: str, body: str, float_params=frozenset()) -> str:
    """The body with ``sin(v)`` and ``cos(v)`` of one float variable ``v`` (a float
    parameter, or declared ``float v`` in the body before them) computed by one
    ``sincos(v, &c)``, declared just before the statement of the first call: the two share
    their argument's reduction (MRI-Q's ``mapFun`` computes both of one angle). Left as it
    is where ``v`` may change between the calls or the calls are not in one block."""
    while True:  # one variable at a time, the body read again after each
        tokens = tokenize(name, body)
        taken = {t.text for t in tokens if t.kind == "ident"}
        found = [(var, first, calls) for var, calls in _sin_cos_calls(tokens).items()
                 if f"sin_of_{var}" not in taken and f"cos_of_{var}" not in taken
                 and (first := _shared(tokens, var, calls, float_params)) is not None]
        if not found:
            return body
        body = _with_sincos(body, tokens, _line_starts(body), *found[0])


def _sin_cos_calls(tokens) -> dict[str, list[tuple[int, str]]]:
    """Per variable, the token indices and names of the calls ``sin(v)`` and ``cos(v)``
    (both needed)."""
    calls: dict[str, list[tuple[int, str]]] = {}
    for i, t in enumerate(tokens[:-3]):
        if t.kind == "ident" and t.text in ("sin", "cos") and tokens[i + 1].text == "(" \
                and tokens[i + 2].kind == "ident" and tokens[i + 3].text == ")" \
                and (i == 0 or tokens[i - 1].text not in (".", "->")):
            calls.setdefault(tokens[i + 2].text, []).append((i, t.text))
    return {v: c for v, c in calls.items() if {n for _, n in c} == {"sin", "cos"}}


def _shared(tokens, var: str, calls, float_params) -> int | None:
    """The index of the token that starts the statement of the first call, where ``v`` is a
    float that no token between it and the last call assigns and every call is in that
    statement's block; None where not."""
    first, last = calls[0][0], calls[-1][0]
    declared = [i for i in range(len(tokens) - 1) if tokens[i].text == "float"
                and tokens[i + 1].text == var]
    if not (var in float_params or (declared and declared[0] < first)):
        return None
    start = _statement_start(tokens, first)
    if start is None or tokens[start].text in _NOT_A_STATEMENT_START:
        return None
    grouping, depth = _grouping(tokens), 0
    for i in range(start, last + 4):
        t = tokens[i].text
        if i not in grouping:  # a block's braces
            depth += (t == "{") - (t == "}")
        if depth < 0 or (t == var and _assigned(tokens, i)):
            return None
    return start


def _assigned(tokens, i: int) -> bool:
    before = tokens[i - 1].text if i > 0 else ""
    after = tokens[i + 1].text if i + 1 < len(tokens) else ""
    return after in _ASSIGNING or before in ("++", "--")


def _statement_start(tokens, i: int) -> int | None:
    """The index of the first token of the statement holding token ``i`` (after the ``;``,
    or the brace of a block, before it outside parentheses and initializers' braces); None
    inside a directive."""
    grouping = _grouping(tokens)
    depth = 0
    while i > 0:
        t = tokens[i - 1]
        if t.kind == "directive":
            return i if depth == 0 else None
        depth += grouping.get(i - 1, 0)
        if depth < 0:
            depth = 0  # the statement's own parenthesis (an if's condition, an initializer)
        if depth == 0 and grouping.get(i - 1) is None and t.text in (";", "{", "}"):
            return i
        i -= 1
    return 0


_CONTROL = {"if", "for", "while", "switch"}


def _grouping(tokens) -> dict[int, int]:
    """The tokens that group an expression, read backwards: ``)`` and an initializer's
    ``}`` open (+1), ``(`` and an initializer's ``{`` close (-1). An initializer's brace
    follows ``=``, ``,``, ``return``, another initializer's brace, or a compound literal's
    type in parentheses (not a control statement's condition)."""
    grouping: dict[int, int] = {}
    parens: list[int] = []
    braces: list[bool] = []  # per open brace: an initializer's
    control: set[int] = set()  # the ``)`` closing an if's, for's, while's or switch's
    for k, t in enumerate(tokens):
        before = tokens[k - 1].text if k else ""
        if t.text == "(":
            grouping[k] = -1
            parens.append(k)
        elif t.text == ")":
            grouping[k] = 1
            if parens and (opened := parens.pop()) and tokens[opened - 1].text in _CONTROL:
                control.add(k)
        elif t.text == "{":
            init = before in ("=", ",", "return") or \
                (before == "{" and bool(braces) and braces[-1]) or \
                (before == ")" and k - 1 not in control)
            braces.append(init)
            if init:
                grouping[k] = -1
        elif t.text == "}" and braces and braces.pop():
            grouping[k] = 1
    return grouping


def _line_starts(text: str) -> list[int]:
    return [0] + [k + 1 for k, ch in enumerate(text) if ch == "\n"]


def _with_sincos(body: str, tokens, starts: list[int], var: str, first: int, calls) -> str:
    """``body`` with each call of ``calls`` replaced by its variable, the ``sincos``
    declared before token ``first`` (edits from the end: earlier offsets hold)."""
    def offset(t) -> int:
        return starts[t.line - 1] + t.column - 1

    s, c = f"sin_of_{var}", f"cos_of_{var}"
    for i, fn in reversed(calls):
        at, end = offset(tokens[i]), offset(tokens[i + 3]) + 1
        body = body[:at] + (s if fn == "sin" else c) + body[end:]
    at = offset(tokens[first])
    return body[:at] + f"float {c}; float {s} = sincos({var}, &{c}); " + body[at:]


def _own_tuple(params: list[Type], result: Type) -> TupleType | None:
    if isinstance(result, TupleType):
        return result
    found = {p for p in params if isinstance(p, TupleType)}
    return found.pop() if len(found) == 1 else None


def _tuple_type(t) -> TupleType | None:
    """The tuple type of a Lift struct name's items (Tuple2_float_int), if all are
    scalars or vectors the workbench has."""
    if t is None or t.name != "Tuple" or not t.items:
        return None
    items: list[Type] = []
    for item in t.items:
        if item.name not in _SCALARS:
            return None
        scalar = ScalarType(item.name)
        if item.width:
            items.append(VectorType(scalar, Size.const(item.width)))
        else:
            items.append(scalar)
    return TupleType(tuple(items))
