"""``run_connected``: the handlers-first form of ``run_in_worker``, kept as the name the panels
call. ``run_in_worker`` now connects the handlers before it starts the work (a call that takes
a millisecond could otherwise finish before anyone listened), so this only forwards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cairn.ui.workers import Task, run_in_worker


def run_connected(
    fn: Callable[..., Any],
    *args: Any,
    on_done: Callable[[Any], None],
    on_failed: Callable[[str], None],
    on_progress: Callable[[Any], None] | None = None,
    **kwargs: Any,
) -> Task:
    """Run ``fn(*args, **kwargs)`` in a worker; with ``on_progress``, ``fn`` gets a
    ``progress=`` callable whose events reach ``on_progress`` on the UI thread."""
    return run_in_worker(
        fn, *args, on_done=on_done, on_failed=on_failed, on_progress=on_progress, **kwargs
    )
