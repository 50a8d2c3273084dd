"""One rewrite step: which rule, at which node, with which parameters, and (once applied)
the result. A derivation is a list of them, a strategy records them as it runs, a search
logs them for every candidate, and ``rewrites`` lists the ones that apply."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..errors import format_path
from ..expr import Expr, Path


@dataclass(frozen=True)
class Step:
    rule: str
    path: Path
    params: dict = field(default_factory=dict)
    result: Expr | None = field(default=None, compare=False)

    def bare(self) -> Step:
        """The step alone, without the expression it led to (its parameters a copy): what a
        candidate's list of steps keeps of a listed rewrite."""
        return replace(self, params=dict(self.params), result=None)

    def describe(self) -> str:
        params = ", ".join(f"{k} = {v}" for k, v in self.params.items())
        return f"{self.rule}" + (f" ({params})" if params else "") + \
            f" at {format_path(self.path)}"

    def as_json(self) -> dict:
        """``rule``, ``path`` (as users write it), ``params`` (as text) and, when the step
        carries one, ``result`` (the expression after it)."""
        doc = {"rule": self.rule, "path": format_path(self.path),
               "params": {k: str(v) for k, v in self.params.items()}}
        if self.result is not None:
            doc["result"] = str(self.result)
        return doc
