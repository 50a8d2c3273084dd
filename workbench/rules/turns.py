"""A user function's sine and cosine of an angle 2π·t taken in turns (``sin-cos-turns``):
``sin(2π·t) = sinpi(2t)`` and ``cos(2π·t) = cospi(2t)`` (OpenCL 1.2, sect. 6.12.2).

MRI-Q's ``mapFun`` (Parboil, as Lift writes it) computes ``expArg = PIx2 * (Kx * sX + …)``
and then ``cos(expArg)`` and ``sin(expArg)``. A full-precision sine first reduces its
argument to a period by a multiple of π carried in extra precision; ``sinpi`` reduces ``2t``
by whole numbers, exactly, in a few instructions. On PoCL 3.0 and 3.1 the kernel's loop runs
about twice as fast with ``sinpi`` and ``cospi`` as with one ``sincos`` (``benchmarks.
mriq_study``; ``native_sin`` and ``-cl-fast-relaxed-math`` gain less or nothing), and its
results are as close to the exact ones: the product by the float nearest 2π rounds, where
``2t`` is exact.

The rule rewrites the body of a user function written in C: where a float variable is
declared ``float v = K * (e);`` (or ``K * name``) with ``K`` a float constant (a literal or a
macro the body defines) equal to π or 2π to float precision, and every later use of ``v`` is
``sin(v)`` or ``cos(v)``, the declaration becomes ``float v = (e);`` or ``2.0f * (e)`` and
the calls ``sinpi(v)`` and ``cospi(v)``. The function gets a name of its own
(``<name>_turns``): a program may call both. It is left out of the walks (``OTHER_SEED``):
the guided search measures it first on a CPU (``search.guided.measure_turns``).
"""

from __future__ import annotations

import math

from ..expr import Expr, UserFun
from ..notation.c_body import user_function
from ..notation.c_syntax import CBodyError, Token, tokenize
from ..rewriting.match import kind, matches
from ..types import function_parts
from .rule import Refused, Rule, Site

SUFFIX = "_turns"
_IN_TURNS = {"sin": "sinpi", "cos": "cospi"}
_CLOSE = 1e-6  # relative: a float constant within this of π or 2π is that multiple


def turns_body(name: str, body: str) -> str:
    """``body`` with its angles in turns, or raises ``_NotInTurns`` saying why not."""
    tokens = tokenize(name, body)
    constants = _float_macros(tokens)
    reasons = []
    for var in dict.fromkeys(t.text for t in _trig_arguments(tokens)):
        found = _angle(tokens, var, constants)
        if isinstance(found, str):
            reasons.append(f"{var}: {found}")
            continue
        return _rewritten(body, tokens, var, *found)
    raise _NotInTurns("; ".join(reasons) or "it takes no sin(v) or cos(v) of a variable v")


class _NotInTurns(ValueError):
    pass


def _float_macros(tokens: list[Token]) -> dict[str, float]:
    """The object-like macros the body defines as one float literal."""
    found = {}
    for t in tokens:
        if t.kind != "directive":
            continue
        words = t.text.split()
        if len(words) == 3 and words[0] == "define" and words[1].isidentifier():
            value = tokenize("", words[2])
            if len(value) == 1 and value[0].kind == "num" and value[0].num_type == "float":
                found[words[1]] = float(value[0].value)
    return found


def _call_at(tokens: list[Token], i: int) -> bool:
    """Whether token ``i`` is the argument ``v`` of a call ``sin(v)`` or ``cos(v)``."""
    return 2 <= i < len(tokens) - 1 and tokens[i - 2].text in _IN_TURNS \
        and tokens[i - 2].kind == "ident" and tokens[i - 1].text == "(" \
        and tokens[i + 1].text == ")" and (i < 3 or tokens[i - 3].text not in (".", "->"))


def _trig_arguments(tokens: list[Token]) -> list[Token]:
    return [t for i, t in enumerate(tokens) if t.kind == "ident" and _call_at(tokens, i)]


def _angle(tokens: list[Token], var: str, constants: dict[str, float]):
    """For ``float var = K * (e);``: the index of ``K``, the index past ``*`` and the
    multiple of π (1 or 2); else why not (a text)."""
    uses = [i for i, t in enumerate(tokens) if t.kind == "ident" and t.text == var]
    declared = [i for i in uses if i >= 1 and tokens[i - 1].text == "float"
                and i + 1 < len(tokens) and tokens[i + 1].text == "="]
    if len(declared) != 1:
        return "not declared once as float v = ...; (a parameter, or declared twice)"
    at = declared[0]
    if any(i < at for i in uses):
        return "used before its declaration"
    if not all(_call_at(tokens, i) for i in uses if i != at):
        return "used otherwise than as sin(v) or cos(v)"
    k = at + 2
    if k + 2 >= len(tokens) or tokens[k + 1].text != "*":
        return "its value is not K * (e) with K a constant"
    multiple = _multiple_of_pi(tokens[k], constants)
    if multiple is None:
        return f"{tokens[k].text} is no float constant equal to π or 2π"
    end = _operand_end(tokens, k + 2)
    if end is None or tokens[end].text != ";":
        return "its value is not K * (e) or K * name alone"
    return k, k + 2, multiple


def _multiple_of_pi(t: Token, constants: dict[str, float]) -> int | None:
    if t.kind == "num" and t.num_type == "float":
        value = float(t.value)
    elif t.kind == "ident" and t.text in constants:
        value = constants[t.text]
    else:
        return None
    for multiple in (1, 2):
        if abs(value / (multiple * math.pi) - 1) < _CLOSE:
            return multiple
    return None


def _operand_end(tokens: list[Token], i: int) -> int | None:
    """The index past a parenthesised expression or a name starting at ``i``."""
    if tokens[i].kind == "ident" and tokens[i].text not in _IN_TURNS:
        return i + 1
    if tokens[i].text != "(":
        return None
    depth = 0
    for j in range(i, len(tokens)):
        depth += (tokens[j].text == "(") - (tokens[j].text == ")")
        if depth == 0:
            return j + 1
    return None


def _rewritten(body: str, tokens: list[Token], var: str, k: int, operand: int,
               multiple: int) -> str:
    """The edits from the end, so that earlier offsets hold."""
    starts = [0] + [i + 1 for i, ch in enumerate(body) if ch == "\n"]

    def offset(t: Token) -> int:
        return starts[t.line - 1] + t.column - 1

    for i in reversed([i for i, t in enumerate(tokens) if t.text == var and _call_at(tokens, i)]):
        call = tokens[i - 2]
        body = body[:offset(call)] + _IN_TURNS[call.text] + body[offset(call) + len(call.text):]
    factor = "2.0f * " if multiple == 2 else ""
    return body[:offset(tokens[k])] + factor + body[offset(tokens[operand]):]


@matches(kind(UserFun, why="it rewrites a user function written in C"))
def _in_turns(m, site: Site, p) -> Expr | Refused:
    node = site.node
    if node.c_body is None:
        return Refused(f"the user function {node.name} is written in the scalar language, "
                       "not in C")
    try:
        text = turns_body(node.name, node.c_body)
    except _NotInTurns as why:
        return Refused(f"the user function {node.name} takes no sine or cosine of a float "
                       f"v = K * (e) with K equal to π or 2π and v used only so ({why})")
    except CBodyError as err:
        return Refused(f"the user function {node.name}'s body does not read: {err}")
    params, result = function_parts(node.type)
    return user_function(node.name + SUFFIX, list(node.params), list(params), result, text)


SIN_COS_TURNS = Rule(
    "sin-cos-turns", "float v = 2π * e; … sin(v) … cos(v) → float v = 2.0f * e; … sinpi(v) … "
    "cospi(v)", "opencl", "OpenCL 1.2 sect. 6.12.2 (sinpi, cospi)", _in_turns,
    doc="A C user function's sine and cosine of 2π·t (or π·t) taken in turns: sinpi and cospi "
        "reduce their argument exactly and cheaply (MRI-Q's computeQ twice as fast on PoCL).")

RULES = [SIN_COS_TURNS]
