"""How a recording is to be read: the Whisper settings a reader is handed, and the time a file is
allowed. Apart from ``audio.py`` so that what a format declares (``format_declaration``) can name
them without loading the reader.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from cairn.ingest.audio_windows import MIN_WINDOW_S

DEFAULT_BEAM_SIZE = 5  # faster-whisper's default; 1 (greedy) is hardly faster for base
# Half the cores leaves the others to the app while a folder of recordings is transcribed in
# the background; 4 is what faster-whisper itself uses.
MAX_DEFAULT_THREADS = 4
# Ten minutes of 16 kHz float32 is 38 MB; with voice detection's copies and the features of a
# window full of speech a window costs 200-350 MB on top of the loaded model, which leaves
# room in the worker's 3 GiB for a larger model the user chose. Longer windows save little:
# a window's fixed cost is a fraction of a second.
DEFAULT_WINDOW_S = 600.0


def default_threads() -> int:
    # The cores this process may run on (a container or taskset can allow fewer than the
    # machine has).
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(MAX_DEFAULT_THREADS, (cores or 1) // 2))


@dataclass(frozen=True)
class TimeBudget:
    """The time the app allows for reading a file: ``base_s`` and ``per_mib_s`` for each MiB."""

    base_s: float
    per_mib_s: float

    def seconds(self, size: int) -> float:
        return self.base_s + self.per_mib_s * size / 2**20


@dataclass(frozen=True)
class WhisperSettings:
    model_dir: Path | None = None  # a CTranslate2 Whisper folder the user chose; None: bundled
    data_dir: Path | None = None  # the app's data dir: the bundled model is joined under it
    language: str | None = None  # a Whisper language code ("en", "de"); None: detected per file
    threads: int = field(default_factory=default_threads)
    beam_size: int = DEFAULT_BEAM_SIZE
    window_s: float = DEFAULT_WINDOW_S  # the length decoded and transcribed at a time
    time_budget: TimeBudget | None = None  # None: no recording is refused for its length

    def __post_init__(self) -> None:
        if self.threads < 1:
            raise ValueError(f"threads must be at least 1, not {self.threads}")
        if self.beam_size < 1:
            raise ValueError(f"beam_size must be at least 1, not {self.beam_size}")
        if self.window_s < MIN_WINDOW_S:
            raise ValueError(f"window_s must be at least {MIN_WINDOW_S:g} s, not {self.window_s}")
