"""A program's sines and cosines of 2π·t taken in turns (``turns``): every user function
written in C that ``sin-cos-turns`` rewrites (MRI-Q's ``mapFun``: ``sin(2π·t)`` as
``sinpi(2t)``), the last first, so that rewriting one leaves the places of those before it as
they were. On PoCL MRI-Q's computeQ in float16 lanes ran twice as fast so (``benchmarks.
mriq_study``): the guided search measures the program in turns in vector lanes first on a
CPU (``guided.measure_turns``, option ``turns_first``); the rule is left out of the walks.
"""

from __future__ import annotations

from ..expr import Expr, Prim
from ..notation.program import user_functions_text
from ..rewriting.application import lookup_rule, rewrites
from ..rewriting.step import Step
from ..types import Type

REWRITES_AT_MOST = 16  # user functions rewritten in one program (each rewrite typed again)


def in_turns(expr: Expr, types: tuple[Type, ...]) -> tuple[Expr, list[Step]] | None:
    """The program with each user function ``sin-cos-turns`` rewrites rewritten, and the
    steps; None where it rewrites none."""
    rule, current, steps = lookup_rule("sin-cos-turns"), expr, []
    for _ in range(REWRITES_AT_MOST):
        found = rewrites(current, *types, rules=[rule])
        if not found:
            break
        last = max(found, key=lambda r: r.path)
        current, steps = last.result, steps + [last.bare()]
    return (current, steps) if steps else None


def search_definitions(start: Expr, types: tuple[Type, ...]) -> str:
    """The text of the user functions a search's workers read its candidates with (its log
    header's ``definitions``): the start's (``user_functions_text``), then those in turns
    that ``sin-cos-turns`` makes of them (``mapFun_turns``), which a candidate the guided
    search measures in turns calls; the start's alone where the rule rewrites none."""
    own = user_functions_text(start)
    turned = in_turns(start, types)
    if turned is None:
        return own
    both = user_functions_text(Prim("zip", (start, turned[0])))
    return both if both.startswith(own) else own
