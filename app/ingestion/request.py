"""What one ingest run is asked to do, as one value.

The window, ``cairn ingest`` and the watcher each build an ``IngestRequest`` once and hand it
whole to ``MemoryService.ingest``, which passes it on to the pipeline, or down the pipe to the
child process of a run apart (``process``). Plain, frozen values only, so it pickles as it is.

How the caller follows the run (its progress sink and cancel token) and whether it runs in a
child process are not part of it: those belong to the calling process and never cross the pipe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class IngestRequest:
    paths: tuple[str, ...]  # the files and folders named
    scope: str = "personal"
    dry_run: bool = False  # only say what would happen
    # Tesseract codes for scans (e.g. ("eng", "deu")); None: the service's own.
    ocr_languages: tuple[str, ...] | None = None
    # A CTranslate2 Whisper folder instead of the bundled model; None: the bundled one.
    whisper_model_dir: str | None = None
    # A watched folder's batch: only these paths below the folders named are looked at.
    changed: tuple[str, ...] | None = None

    @classmethod
    def of(
        cls,
        paths: Sequence[str | Path],
        *,
        scope: str = "personal",
        dry_run: bool = False,
        ocr_languages: Sequence[str] | None = None,
        whisper_model_dir: str | Path | None = None,
        changed: Sequence[str | Path] | None = None,
    ) -> IngestRequest:
        """A request from what a caller has at hand (lists, ``Path``s); an empty choice of
        languages or model folder means the default."""
        return cls(
            tuple(str(p) for p in paths),
            scope,
            dry_run,
            tuple(ocr_languages) if ocr_languages else None,
            str(whisper_model_dir) if whisper_model_dir else None,
            None if changed is None else tuple(str(p) for p in changed),
        )

    def files(self) -> list[Path]:
        return [Path(p) for p in self.paths]
