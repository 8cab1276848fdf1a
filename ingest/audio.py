"""Speech in audio and video files, transcribed on this computer with faster-whisper.

The file's bytes are decoded in memory (PyAV, through faster-whisper, from an ``io.BytesIO``;
a video's sound track the same way), so no plaintext copy of a recording ever reaches the disk.
Voice activity detection skips the silent stretches, which also keeps Whisper from inventing
text in them. Each Whisper segment becomes a ``Segment`` located by its time range, so a passage
found later can be played from its place; the detected language is in the metadata.

A file PyAV cannot open or decode fails with the reason. A file that ends early (cut off while
copying) is transcribed as far as it decodes, with a warning naming how much of its stated
length was missing: what it says up to the cut is still worth keeping. Audio without speech is
kept as a document without segments, with a warning, so it is not mistaken for a failure.

The model (see ``whisper_model``) is loaded once per process for each folder and thread count:
loading takes about a second. Whisper base on one core transcribes in about 0.4 times the
recording's length, a third less when the language is set (detecting it costs an encoder pass).
"""

from __future__ import annotations

import io
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from cairn.ingest.document import ExtractedDocument, ExtractionError, Locator, Segment
from cairn.ingest.whisper_model import TranscriptionUnavailable, bundled_model_dir, check_model_dir

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

# ORT_DISABLE_TELEMETRY and HF_HUB_OFFLINE are set by the package (cairn/ingest/__init__.py).

SAMPLE_RATE = 16_000  # what Whisper listens at; faster-whisper resamples to it
COMPUTE_TYPE = "int8"  # a quarter of float32's memory, and the fastest on a CPU
DEFAULT_BEAM_SIZE = 5  # faster-whisper's default; 1 (greedy) is hardly faster for base
# Half the cores leaves the others to the app while a folder of recordings is transcribed in
# the background; 4 is what faster-whisper itself uses.
MAX_DEFAULT_THREADS = 4
# A decoded recording shorter than its container states by more than this was cut short.
MISSING_TOLERANCE_S = 0.5
NO_SPEECH_WARNING = "no speech found"
MEDIA_TYPES = {
    ".mp3": "audio/mpeg", ".wav": "audio/wav", ".flac": "audio/flac", ".ogg": "audio/ogg",
    ".oga": "audio/ogg", ".opus": "audio/opus", ".m4a": "audio/mp4", ".aac": "audio/aac",
    ".wma": "audio/x-ms-wma", ".aiff": "audio/aiff", ".aif": "audio/aiff",
    ".mp4": "video/mp4", ".m4v": "video/mp4", ".mkv": "video/x-matroska", ".webm": "video/webm",
    ".mov": "video/quicktime", ".avi": "video/x-msvideo",
}  # fmt: skip
EXTENSIONS = frozenset(MEDIA_TYPES)
FALLBACK_MEDIA_TYPE = "application/octet-stream"


def default_threads() -> int:
    # The cores this process may run on (a container or taskset can allow fewer than the
    # machine has).
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(MAX_DEFAULT_THREADS, (cores or 1) // 2))


@dataclass(frozen=True)
class WhisperSettings:
    model_dir: Path | None = None  # a CTranslate2 Whisper folder the user chose; None: bundled
    data_dir: Path | None = None  # the app's data dir: the bundled model is joined under it
    language: str | None = None  # a Whisper language code ("en", "de"); None: detected per file
    threads: int = field(default_factory=default_threads)
    beam_size: int = DEFAULT_BEAM_SIZE

    def __post_init__(self) -> None:
        if self.threads < 1:
            raise ValueError(f"threads must be at least 1, not {self.threads}")
        if self.beam_size < 1:
            raise ValueError(f"beam_size must be at least 1, not {self.beam_size}")


@dataclass(frozen=True)
class _Container:
    stated_s: float | None  # the length the file claims, if it says
    title: str | None


_models_lock = threading.Lock()
_models: dict[tuple[str, int], WhisperModel] = {}


def model_dir(settings: WhisperSettings) -> Path:
    """The model folder ``settings`` point at: the user's, checked, or the bundled one, built."""
    if settings.model_dir is not None:
        return check_model_dir(settings.model_dir)
    if settings.data_dir is None:
        raise ValueError("WhisperSettings needs a data_dir for the bundled model, or a model_dir")
    return bundled_model_dir(settings.data_dir)


def load_model(settings: WhisperSettings) -> WhisperModel:
    """The loaded model for ``settings``, shared within the process (safe across threads)."""
    folder = model_dir(settings)
    key = (str(folder.resolve()), settings.threads)
    with _models_lock:
        model = _models.get(key)
        if model is None:
            from faster_whisper import WhisperModel

            try:
                model = WhisperModel(
                    str(folder),
                    device="cpu",
                    compute_type=COMPUTE_TYPE,
                    cpu_threads=settings.threads,
                    local_files_only=True,
                )
            except (RuntimeError, ValueError, OSError) as exc:
                raise TranscriptionUnavailable(
                    f"The transcription model in {folder} could not be loaded ({exc}). Choose a "
                    "folder with a CTranslate2 Whisper model in the settings, or clear the "
                    "setting to use the bundled Whisper base."
                ) from None
            _models[key] = model
    return model


def extract(data: bytes, name: str, settings: WhisperSettings) -> ExtractedDocument:
    """Transcribe one audio or video file, its speech as segments located by time."""
    if not data:
        raise ExtractionError(f"{name} is empty: there is nothing to transcribe.")
    container = _probe(data, name)
    audio = _decode(data, name)
    duration = audio.shape[0] / SAMPLE_RATE
    warnings: list[str] = []
    if container.stated_s is not None and container.stated_s - duration > MISSING_TOLERANCE_S:
        warnings.append(
            f"only {duration:.1f} s of its {container.stated_s:.1f} s could be decoded; the file "
            "may be cut short or damaged"
        )
    model = load_model(settings)
    if settings.language is not None and settings.language not in model.supported_languages:
        raise TranscriptionUnavailable(
            f"The transcription language {settings.language!r} is not one this model knows "
            f"({', '.join(model.supported_languages)}). Choose one of those in the settings, or "
            "leave the language to be detected."
        )
    found, info = model.transcribe(
        audio, language=settings.language, beam_size=settings.beam_size, vad_filter=True
    )
    segments = tuple(_segments(found, duration))
    metadata: dict[str, Any] = {"duration_s": round(duration, 3)}
    if segments:
        # A language "detected" in silence is a guess about nothing: kept only with speech.
        metadata["language"] = info.language
        metadata["language_probability"] = round(float(info.language_probability), 3)
    else:
        warnings.append(NO_SPEECH_WARNING)
    return ExtractedDocument(
        title=container.title or PurePath(name).stem,
        media_type=MEDIA_TYPES.get(PurePath(name).suffix.lower(), FALLBACK_MEDIA_TYPE),
        segments=segments,
        metadata=metadata,
        warnings=tuple(warnings),
    )


def _probe(data: bytes, name: str) -> _Container:
    import av

    try:
        with av.open(io.BytesIO(data), mode="r", metadata_errors="ignore") as container:
            streams = container.streams.audio
            if not streams:
                raise ExtractionError(f"{name} has no sound track: there is nothing to transcribe.")
            stream = streams[0]
            if stream.duration is not None and stream.time_base is not None:
                stated: float | None = float(stream.duration * stream.time_base)
            elif container.duration is not None:
                stated = container.duration / av.time_base
            else:
                stated = None
            title = str(container.metadata.get("title", "")).strip() or None
    except (av.error.FFmpegError, ValueError, OSError) as exc:
        raise _unreadable(name, exc) from None
    return _Container(stated_s=stated, title=title)


def _decode(data: bytes, name: str) -> npt.NDArray[np.float32]:
    import av
    from faster_whisper.audio import decode_audio

    try:
        audio: npt.NDArray[np.float32] = decode_audio(io.BytesIO(data), sampling_rate=SAMPLE_RATE)
    except (av.error.FFmpegError, ValueError, OSError) as exc:
        raise _unreadable(name, exc) from None
    if audio.size == 0:
        raise ExtractionError(
            f"{name} holds no sound that could be decoded; the file may be cut short or damaged. "
            "Add a complete copy."
        )
    return audio


def _unreadable(name: str, exc: Exception) -> ExtractionError:
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return ExtractionError(
        f"{name} is not an audio or video file that can be read ({reason}); it may be damaged or "
        "cut short. Add a complete copy, or convert it to a common format (mp3, m4a, wav)."
    )


def _segments(found: Any, duration: float) -> list[Segment]:
    segments = []
    for piece in found:
        text = piece.text.strip()
        if not text:
            continue
        start = min(max(float(piece.start), 0.0), duration)
        end = min(max(float(piece.end), start), duration)
        segments.append(Segment(text, Locator(start_s=round(start, 3), end_s=round(end, 3))))
    return segments
