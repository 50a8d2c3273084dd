"""Background work for the widget: compile, run and search happen in worker threads so the
notebook stays responsive; each shows a visible "running…" state, and every error lands in
the widget's error area instead of being raised into the kernel (SPEC 12)."""

from __future__ import annotations

import functools
import html
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures

import ipywidgets as w

from workbench.errors import WorkbenchError

from .stderr import collecting


class ErrorArea(w.HBox):
    """The place where the widget reports what went wrong, naming where; it sits next to the
    buttons whose errors it shows, and its × button dismisses them.

    An area made with ``log=`` (the widget's own area) also records its messages there, so
    the widget's ``errors.messages`` lists every error wherever it was shown; only the
    messages reported to an area directly are shown in it.
    """

    def __init__(self, log: ErrorArea | None = None):
        self.text = w.HTML("")
        self.text.add_class("wb-error-text")
        self.dismiss = w.Button(icon="times", tooltip="dismiss", button_style="",
                                layout=w.Layout(width="28px", height="24px", padding="0",
                                                display="none"))
        self.dismiss.add_class("wb-dismiss")
        self.dismiss.on_click(lambda _b: self.clear())
        super().__init__([self.text, self.dismiss],
                         layout=w.Layout(align_items="flex-start", width="100%"))
        self.add_class("wb-errors")
        self.recorder = log
        self.messages: list[str] = []  # shown here (and, for a log, reported anywhere)
        self.shown: list[str] = []

    @property
    def value(self) -> str:
        """The HTML shown (empty when there is no message)."""
        return self.text.value

    def report(self, where: str, err: BaseException) -> None:
        if isinstance(err, WorkbenchError):
            text = str(err)
        else:
            last = traceback.extract_tb(err.__traceback__)[-1:] if err.__traceback__ else []
            at = f" ({last[0].filename.rsplit('/', 1)[-1]}:{last[0].lineno})" if last else ""
            text = f"{type(err).__name__}: {err}{at}"
        self.say(f"{where}: {text}")

    def say(self, message: str) -> None:
        """Show ``message`` (already worded) here."""
        if self.recorder is not None:
            self.recorder.messages = (self.recorder.messages + [message])[-20:]
        self.messages = (self.messages + [message])[-5:]
        self.shown = self.messages
        self.text.value = "".join(
            f'<div style="color:#b91c1c;font-family:monospace;white-space:pre-wrap;'
            f'overflow-wrap:anywhere">{html.escape(m)}</div>' for m in self.shown)
        self.dismiss.layout.display = None

    def clear(self) -> None:
        self.messages = []
        self.shown = []
        self.text.value = ""
        self.dismiss.layout.display = "none"


def guarded(errors: ErrorArea, where: str, fn: Callable) -> Callable:
    """``fn`` with its exceptions reported in ``errors`` (for button and traitlet handlers)."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as err:  # shown in the widget, never raised into the kernel
            errors.report(where, err)
            return None

    return call


class Worker:
    """One job at a time in its own thread; ``status`` says "running…" while jobs are queued.

    ``submit(label, job, done)`` runs ``job()`` and then ``done(result)`` in the worker
    thread; an exception in either is reported in the error area under ``label``.
    """

    def __init__(self, name: str, status: w.HTML, errors: ErrorArea):
        self.name = name
        self.status = status
        self.errors = errors
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"workbench-{name}")
        self._lock = threading.Lock()
        self._pending: list[Future] = []
        self.last_seconds: float | None = None
        self.cancelled = 0  # jobs cancelled before they started (``cancel_pending``)

    @property
    def busy(self) -> bool:
        with self._lock:
            return any(not f.done() for f in self._pending)

    def cancel_pending(self, tag: str) -> int:
        """Cancel the jobs submitted with ``tag`` that have not started (a job running goes
        on to its end); how many were cancelled."""
        with self._lock:
            cancelled = sum(f.cancel() for f in self._pending
                            if getattr(f, "tag", None) == tag and not f.running())
            self.cancelled += cancelled
            self._pending = [f for f in self._pending if not f.done()]
        return cancelled

    def submit(self, label: str, job: Callable, done: Callable | None = None,
               tag: str | None = None) -> Future:
        """``tag`` names a kind of job that ``cancel_pending`` may cancel before it starts."""
        def task():
            self.status.value = f'<span class="wb-running">running… {html.escape(label)}</span>'
            start = time.perf_counter()
            try:
                with collecting():  # the compiler's lines are kept, not printed
                    result = job()
                if done is not None:
                    done(result)
                return result
            except Exception as err:
                self.errors.report(label, err)
                return None
            finally:
                self.last_seconds = time.perf_counter() - start
                with self._lock:
                    queued = sum(not f.done() for f in self._pending) - 1
                if queued <= 0:
                    self.status.value = (f'<span class="wb-idle">ready ({label} took '
                                         f"{self.last_seconds:.2f} s)</span>")

        with self._lock:
            self._pending = [f for f in self._pending if not f.done()]
            future = self._pool.submit(task)
            future.tag = tag
            self._pending.append(future)
        return future

    def wait(self, timeout: float | None = None) -> None:
        """Block until every job submitted so far has finished (or was cancelled)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                pending = [f for f in self._pending if not f.done()]
            if not pending:
                return
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            done, _ = wait_futures(pending, timeout=left)
            if not done and left is not None and left <= 0:
                raise TimeoutError(f"the {self.name} jobs did not finish in {timeout} s")
