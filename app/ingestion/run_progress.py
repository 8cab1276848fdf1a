"""What a run tells its caller as it goes, from whichever thread knows it: the events of
``report.IngestProgress``, each with the files settled since the last one, whether memories
were committed, the current file's own progress and the run's time left (``estimate``).

The run's main thread takes, embeds and writes the files; the reading thread reads the next
file meanwhile and tells its reader's progress from there. The caller's sink is called under a
lock, one event at a time, so a sink that writes to a pipe never interleaves two.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from cairn.app.ingestion.estimate import TimeLeft
from cairn.app.ingestion.extraction import unit_of
from cairn.app.ingestion.plan import Plan, PlannedFile
from cairn.app.ingestion.report import FileOutcome, IngestProgress, IngestReport

# What a file's outcome has put in the vault that a window shows (a failure is a source row).
STORING_STATES = frozenset({"ingested", "replaced", "moved"})


class RunProgress:
    def __init__(
        self,
        plan: Plan,
        report: IngestReport,
        sink: Callable[[IngestProgress], None],
        time_left: TimeLeft | None = None,
    ) -> None:
        to_read = [planned for planned in plan.files if planned.to_read]
        self.report = report  # the run's, which ``settle`` adds each outcome to
        self._sink = sink
        self._lock = threading.Lock()
        self._files_total = len(to_read)
        self._bytes_total = plan.bytes_to_read
        self._files_done = 0
        self._bytes_done = 0
        self._partial: dict[str, float] = {}  # bytes read so far of a file being read
        self._settled: list[FileOutcome] = []
        self._stored = False
        self.time_left = time_left or TimeLeft(to_read)

    def tell(
        self,
        stage: str,
        current: str | None = None,
        done_units: float = 0.0,
        total_units: float = 0.0,
        unit: str = "",
    ) -> None:
        """An event: ``stage`` of ``current``, with what was settled and stored since the last."""
        with self._lock:
            settled, self._settled = tuple(self._settled), []
            stored, self._stored = self._stored, False
            event = IngestProgress(
                stage,
                self._files_done,
                self._files_total,
                self._bytes_done + int(sum(self._partial.values())),
                self._bytes_total,
                current,
                done_units,
                total_units,
                unit,
                self.time_left.seconds_left(),
                settled,
                stored,
            )
            self._sink(event)

    def reading(self, planned: PlannedFile) -> None:
        """The run takes ``planned``: its time starts, and the caller is told."""
        self.time_left.begin(planned.source)
        self.tell("reading", planned.source, unit=unit_of(planned.kind))

    def advance(self, planned: PlannedFile, done: float, total: float) -> None:
        """``planned``'s reader has done ``done`` of ``total`` of it (any thread)."""
        self.time_left.advance(planned.source, done, total)
        if total > 0:
            with self._lock:
                self._partial[planned.source] = planned.size * min(1.0, done / total)
        self.tell("file_progress", planned.source, done, total, unit_of(planned.kind))

    def read(self, planned: PlannedFile) -> None:
        """``planned`` is read (or failed to be): it counts as done."""
        with self._lock:
            self._files_done += 1
            self._bytes_done += planned.size
            self._partial.pop(planned.source, None)

    def settle(self, outcomes: Iterable[FileOutcome], *, stored: bool = False) -> None:
        """Files whose outcome is final: in the report, and in the next event. ``stored``:
        memories were committed (a long document's part) even if no file settled."""
        outcomes = list(outcomes)
        with self._lock:
            self.report.files += outcomes
            self._settled += outcomes
            for outcome in outcomes:
                self._partial.pop(outcome.path, None)
            self._stored = (
                self._stored or stored or any(o.state in STORING_STATES for o in outcomes)
            )
