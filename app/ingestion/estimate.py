"""How long an ingest run has left, told only once it can be told honestly.

Files are told apart by the kind of work reading them is (``Format.cost``: text, PDF pages,
OCR, transcription): a note takes milliseconds, a scan seconds, an hour of recording many
minutes, so one pace for a whole run would be a wild guess. A kind's pace is the bytes of its
files done per second spent on them, the file in progress counted by its own progress (pages,
or seconds of a recording, done). The time left is each kind's bytes left at its own pace.
While a kind with files left has no pace of its own yet (less than ``MIN_EVIDENCE_S`` spent on
it, or nothing of it done), there is no estimate: saying nothing beats a guess.

The run's files are taken one after another (``begin``); a file's time is from when it is taken
to when the next one is (its read, its embedding, its share of the writes). A file read ahead
reports progress (``advance``) before it is taken: the time of that reading is counted in the
file before it, so within a kind the sums stay right.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from cairn.app.ingestion.extraction import cost_of
from cairn.app.ingestion.plan import PlannedFile
from cairn.ingest.format_declaration import Cost

# Less time than this spent on a kind of work says too little of its pace (a reader's start,
# a model loading) to tell the time its files take.
MIN_EVIDENCE_S = 5.0


@dataclass
class _Kind:
    bytes_left: int = 0  # of the files not yet done (the ones in progress included)
    bytes_done: int = 0
    seconds: float = 0.0  # spent on the files done


class TimeLeft:
    """The time a run has left (``seconds_left``), from the pace of each kind of work."""

    def __init__(
        self, files: Iterable[PlannedFile], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._clock = clock
        self._lock = threading.Lock()  # a file read ahead reports from the reading thread
        self._kinds: dict[Cost, _Kind] = {}
        self._files: dict[str, tuple[Cost, int]] = {}  # source: its kind of work, its size
        for planned in files:
            cost = cost_of(planned.kind)
            self._files[planned.source] = (cost, planned.size)
            self._kinds.setdefault(cost, _Kind()).bytes_left += planned.size
        self._shares: dict[str, float] = {}  # how much of a file in progress is done, 0 to 1
        self._current: str | None = None
        self._since = 0.0

    def begin(self, source: str | None) -> None:
        """The run takes the file ``source`` (None: the last one is done); the one taken
        before it is done."""
        with self._lock:
            now = self._clock()
            if self._current is not None:
                cost, size = self._files[self._current]
                kind = self._kinds[cost]
                kind.seconds += now - self._since
                kind.bytes_done += size
                kind.bytes_left -= size
                self._shares.pop(self._current, None)
            self._current, self._since = source, now

    def advance(self, source: str, done: float, total: float) -> None:
        """The reader of ``source`` has done ``done`` of ``total`` (pages, seconds)."""
        if total > 0 and source in self._files:
            with self._lock:
                self._shares[source] = min(1.0, max(0.0, done / total))

    def share(self, source: str) -> float:
        """How much of ``source`` its reader has done, 0 to 1 (0 when it told nothing)."""
        with self._lock:
            return self._shares.get(source, 0.0)

    def seconds_left(self) -> float | None:
        """The time the files not yet done will take at their kinds' paces; None until every
        kind with files left has shown its pace."""
        with self._lock:
            now = self._clock()
            total = 0.0
            for cost, kind in self._kinds.items():
                in_progress = sum(
                    self._files[source][1] * share
                    for source, share in self._shares.items()
                    if self._files[source][0] == cost
                )
                left = kind.bytes_left - in_progress
                if left <= 0:
                    continue
                seconds = kind.seconds
                if self._current is not None and self._files[self._current][0] == cost:
                    seconds += now - self._since
                done = kind.bytes_done + in_progress
                if seconds < MIN_EVIDENCE_S or done <= 0:
                    return None
                total += left * seconds / done
            return total
