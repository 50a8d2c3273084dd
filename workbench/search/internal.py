"""Internal errors of a search: a bug met while a strategy prepared a candidate.

A candidate that cannot be lowered or generated is refused with a ``WorkbenchError`` (a rule
refused, a nesting the code generator does not support): expected, and simply not a
candidate. Any other exception there is a bug in the workbench (a code generator's
``KeyError``, an ``AssertionError``). The search goes on without that candidate, as it would
have, but reports each such error — where, on which expression, and the traceback — in its
result (``SearchResult.internal_errors``), so that the bug is seen rather than taken for a
refusal.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass


@dataclass(frozen=True)
class InternalError:
    where: str  # the strategy's step: "completion (guided)", "ranking (ranked)"
    expression: str
    error: str  # the exception's type and message
    traceback: str

    @staticmethod
    def of(where: str, expression, err: BaseException) -> InternalError:
        return InternalError(where, str(expression), f"{type(err).__name__}: {err}",
                             "".join(traceback.format_exception(err)))

    def __str__(self) -> str:
        return f"internal error in {self.where}: {self.error}\n  on {self.expression}"

    def as_json(self) -> dict:
        return {"where": self.where, "expression": self.expression, "error": self.error,
                "traceback": self.traceback}
