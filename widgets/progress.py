"""Progress for long notebook cells (SPEC 8: progress is visible while work runs).

``Progress(total)`` shows a bar and a line of text below the cell that creates it. Pass it
as a search's ``progress=`` (it counts candidates and keeps the best time so far), or call
``advance`` in a loop of runs; ``start`` names the part now running. Interrupting the
kernel stops the work; a search's log keeps every finished candidate.

    >>> progress = Progress(36, "candidates")                     # doctest: +SKIP
    >>> for seed in range(3):
    ...     progress.start(f"seed {seed}")
    ...     search(expr, "[float]_4096", budget=12, progress=progress, seed=seed)
    >>> progress.finish()
"""

from __future__ import annotations

import html
import time

import ipywidgets as w


class Progress(w.VBox):
    def __init__(self, total: int, what: str = "candidates", show: bool = True):
        self.total, self.what = max(1, int(total)), what
        self.done = 0
        self.best_ms: float | None = None
        self.best_text = ""  # the best time with the range of its repeats
        self.stage = ""
        self.last = ""
        self.started = time.monotonic()
        self.bar = w.IntProgress(value=0, min=0, max=self.total,
                                 layout=w.Layout(width="420px"))
        self.text = w.HTML("")
        self.text.add_class("wb-progress-text")
        super().__init__([self.bar, self.text])
        self.add_class("wb-progress")
        self._show()
        if show:
            from IPython.display import display

            display(self)

    def start(self, stage: str) -> None:
        """Name the part that runs now (e.g. "mcts, seed 1")."""
        self.stage = stage
        self._show()

    def advance(self, note: str = "", steps: int = 1) -> None:
        """``steps`` more done; ``note`` says what the last one gave."""
        self.done += steps
        self.last = note
        self._show()

    def __call__(self, record: dict) -> None:
        """A search's progress callback: one more candidate measured."""
        ok = record.get("correct") and record.get("kernel_ms") is not None
        shown = _timed(record) if ok else str(record.get("status"))
        if ok and (self.best_ms is None or record["kernel_ms"] < self.best_ms):
            self.best_ms = record["kernel_ms"]
            self.best_text = shown
        self.advance(shown)

    def finish(self, note: str = "done") -> None:
        self.bar.value = self.bar.max
        self.stage, self.last = "", note
        self._show()

    def _show(self) -> None:
        self.bar.value = min(self.done, self.total)
        parts = [f"{self.done} / {self.total} {self.what}"]
        if self.stage:
            parts.append(self.stage)
        if self.best_ms is not None:
            parts.append(f"best so far {self.best_text or f'{self.best_ms:.4f} ms'}")
        if self.last:
            parts.append(f"last: {self.last}")
        parts.append(f"{time.monotonic() - self.started:.0f} s")
        self.text.value = (f'<span style="font-size:12px;color:#3f3f46">'
                           f"{html.escape(' · '.join(parts))}</span>")


def _timed(record: dict) -> str:
    """A candidate's time with the range of its repeats: ``0.0123 ms [0.0118–0.0150]``."""
    ms, low, high = (record.get(k) for k in ("kernel_ms", "kernel_ms_min", "kernel_ms_max"))
    return f"{ms:.4f} ms" + (f" [{low:.4f}–{high:.4f}]" if low is not None and high is not None
                             else "")
