"""Work off the UI thread: every call that may take more than a few milliseconds (search,
opening a vault, ingest, layout) runs in a worker, and its result, progress and error come back
to the UI thread as Qt signals.

    run_in_worker(service.search, "query", scopes=[...],
                  on_done=show_results, on_failed=window.show_error)

``failed`` carries a sentence a person can act on: Cairn's own errors already are one; anything else
(a bug) is reported as such with its type, never swallowed, and its frames go to the diagnostic log,
whose path the sentence gives (``app/process/diagnostic_log.py``). A task that reports progress
takes a ``progress`` callable as a keyword argument (see ``on_progress``). A widget's own calls go
through ``owned_calls.call_in_worker``, which drops the answer if the widget is gone.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from cairn.app.api import CairnError, log_fault, with_the_log


class TaskSignals(QObject):
    done = Signal(object)
    failed = Signal(str)
    progress = Signal(object)
    finished = Signal()  # after done or failed, whichever it was


class Task(QRunnable):
    def __init__(
        self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        super().__init__()
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.signals = TaskSignals()
        # The pool must not delete the runnable while a caller still holds its signals.
        self.setAutoDelete(False)

    def run(self) -> None:
        try:
            result = self.fn(*self.args, **self.kwargs)
        except CairnError as error:
            self.signals.failed.emit(str(error))
        except OSError as error:
            where = f" ({error.filename})" if error.filename else ""
            self.signals.failed.emit(f"{error.strerror or error}{where}")
        except Exception as error:  # a bug: say so plainly, with enough to report it
            log_fault(error, "a window worker")
            detail = "".join(traceback.format_exception_only(type(error), error)).strip()
            self.signals.failed.emit(
                f"Something went wrong inside Cairn ({detail}). Nothing was lost; please "
                f"report this{with_the_log()}."
            )
        else:
            self.signals.done.emit(result)
        finally:
            self.signals.finished.emit()


_running: set[Task] = set()


def run_in_worker(
    fn: Callable[..., Any],
    *args: Any,
    on_done: Callable[[Any], None] | None = None,
    on_failed: Callable[[str], None] | None = None,
    on_progress: Callable[[Any], None] | None = None,
    with_progress: bool = False,
    pool: QThreadPool | None = None,
    **kwargs: Any,
) -> Task:
    """Start ``fn(*args, **kwargs)`` on a pool thread. The handlers are connected before the
    work starts: a call that takes a millisecond would otherwise finish before anyone listened.
    With ``on_progress`` (or ``with_progress``), ``fn`` gets a ``progress=`` keyword: a
    callable whose argument reaches ``on_progress`` on the UI thread."""
    task = Task(fn, args, kwargs)
    if with_progress or on_progress is not None:
        task.kwargs["progress"] = task.signals.progress.emit
    if on_done is not None:
        task.signals.done.connect(on_done)
    if on_failed is not None:
        task.signals.failed.connect(on_failed)
    if on_progress is not None:
        task.signals.progress.connect(on_progress)
    _running.add(task)
    task.signals.finished.connect(lambda: _running.discard(task))
    (pool or QThreadPool.globalInstance()).start(task)
    return task
