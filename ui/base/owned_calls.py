"""Worker calls that belong to a widget: their results are dropped if the widget is gone.

A panel closed while its query runs (a window closed, a test's widget torn down) must not
have the answer delivered into a deleted object: Qt would raise from the handler. Built on
``run_in_worker``, which connects the handlers before the work can finish.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject

from cairn.ui.base.workers import Task, run_in_worker


def call_in_worker(
    owner: QObject,
    fn: Callable[..., Any],
    *args: Any,
    on_done: Callable[[Any], None],
    on_failed: Callable[[str], None],
    **kwargs: Any,
) -> Task:
    """Run ``fn(*args, **kwargs)`` in a worker; ``on_done(result)`` or ``on_failed(sentence)``
    runs on the UI thread afterwards, unless ``owner`` was deleted by then."""

    def done(result: Any) -> None:
        if shiboken6.isValid(owner):
            on_done(result)

    def failed(text: str) -> None:
        if shiboken6.isValid(owner):
            on_failed(text)

    return run_in_worker(fn, *args, on_done=done, on_failed=failed, **kwargs)
