"""Speech in audio and video files, transcribed on this computer with faster-whisper.

The file is read as a stream (the file itself, or bytes in memory) and decoded in windows of
ten minutes (``audio_windows``; a video's sound track the same way), so no plaintext copy of a
recording ever reaches the disk and memory is bounded by a window whatever the recording's
length: ten hours are read in about 600 MiB, the model included, a memo in about 400. Each
window is transcribed on its own and its segments' times are offset by its start. Voice
activity detection skips the silent stretches, which also keeps Whisper from inventing text in
them. Each Whisper segment becomes a ``Segment`` located by its time range, so a passage found
later can be played from its place. The language is the one set, or the one detected on the
recording's first speech (as Whisper did on a whole file), kept for every later window; it is
in the metadata.

A file PyAV cannot open or decode fails with the reason. A file that ends early (cut off while
copying) is transcribed as far as it decodes, with a warning naming how much of its stated
length was missing: what it says up to the cut is still worth keeping. Audio without speech is
kept as a document without segments, with a warning, so it is not mistaken for a failure. A
recording so long for its size that even decoding it and finding its speech could not finish
in the time the app allows it (``TimeBudget``) is refused before anything is decoded, with
what to do: hours spent on a file that is then stopped would be lost.

The model (see ``whisper_model``) is loaded once per process for each folder and thread count:
loading takes about a second. Whisper base on one core transcribes speech in about 0.4 times
its length, a third less when the language is set (detecting it costs an encoder pass);
decoding and voice detection cost about a three-hundredth of the length, speech or not.
"""

from __future__ import annotations

import io
import math
import threading
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, BinaryIO

from cairn.ingest.audio_settings import (
    TimeBudget,
    WhisperSettings,
)
from cairn.ingest.audio_windows import Recording, Window
from cairn.ingest.document import ExtractedDocument, ExtractionError, Locator, Segment
from cairn.ingest.format_declaration import Cost, Format, Progress, Reading
from cairn.ingest.whisper_model import TranscriptionUnavailable, bundled_model_dir, check_model_dir

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

# ORT_DISABLE_TELEMETRY and HF_HUB_OFFLINE are set by the package (cairn/ingest/__init__.py).

COMPUTE_TYPE = "int8"  # a quarter of float32's memory, and the fastest on a CPU
# A decoded recording shorter than its container states by more than this was cut short.
MISSING_TOLERANCE_S = 0.5
# The least time a second of recording costs, however little of it is speech: decoding and
# resampling it (AAC, MP3, Opus: 1/600 to 1/900 s of one core here) and the voice detection
# that finds nothing in it to transcribe (1/530 s). A machine twice as fast as this one would
# still need 1/500 s: a recording over its time budget at this rate can never be read in it.
LEAST_SECONDS_PER_SECOND = 1 / 500
NO_SPEECH_WARNING = "no speech found"
MEDIA_TYPES = {
    ".mp3": "audio/mpeg", ".wav": "audio/wav", ".flac": "audio/flac", ".ogg": "audio/ogg",
    ".oga": "audio/ogg", ".opus": "audio/opus", ".m4a": "audio/mp4", ".aac": "audio/aac",
    ".wma": "audio/x-ms-wma", ".aiff": "audio/aiff", ".aif": "audio/aiff",
    ".mp4": "video/mp4", ".m4v": "video/mp4", ".mkv": "video/x-matroska", ".webm": "video/webm",
    ".mov": "video/quicktime", ".avi": "video/x-msvideo",
}  # fmt: skip
FALLBACK_MEDIA_TYPE = "application/octet-stream"


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


def extract(
    source: bytes | BinaryIO,
    name: str,
    settings: WhisperSettings,
    progress: Progress | None = None,
) -> ExtractedDocument:
    """Transcribe one audio or video file, its speech as segments located by time. ``source``
    is the file's bytes or the open file (seekable, read from where it stands). ``progress``,
    when the file states its length, is told the seconds transcribed of that length."""
    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    size = _remaining(stream)
    if not size:
        raise ExtractionError(f"{name} is empty: there is nothing to transcribe.")
    with Recording(stream, name) as recording:
        if settings.time_budget is not None and recording.stated_s is not None:
            _refuse_if_too_long(name, recording.stated_s, size, settings.time_budget)
        told = _told(progress, recording.stated_s)
        segments, language = _transcribe(recording, settings, told)
        duration = recording.decoded_s
        stated_s, title = recording.stated_s, recording.title
    if duration == 0:
        raise ExtractionError(
            f"{name} holds no sound that could be decoded; the file may be cut short or damaged. "
            "Add a complete copy."
        )
    warnings: list[str] = []
    if stated_s is not None and stated_s - duration > MISSING_TOLERANCE_S:
        warnings.append(
            f"only {duration:.1f} s of its {stated_s:.1f} s could be decoded; the file "
            "may be cut short or damaged"
        )
    metadata: dict[str, Any] = {"duration_s": round(duration, 3)}
    if language is not None:
        metadata["language"], probability = language
        metadata["language_probability"] = round(probability, 3)
    else:
        warnings.append(NO_SPEECH_WARNING)
    return ExtractedDocument(
        title=title or PurePath(name).stem,
        media_type=MEDIA_TYPES.get(PurePath(name).suffix.lower(), FALLBACK_MEDIA_TYPE),
        segments=tuple(segments),
        metadata=metadata,
        warnings=tuple(warnings),
    )


def _transcribe(
    recording: Recording, settings: WhisperSettings, progress: Callable[[float], None]
) -> tuple[list[Segment], tuple[str, float] | None]:
    """Every window's segments, and the language with its probability (None without speech)."""
    segments: list[Segment] = []
    model: WhisperModel | None = None
    language = settings.language
    # A language "detected" in silence is a guess about nothing: taken from the first window
    # with speech in it, and then set for the windows after (one language for the recording,
    # one encoder pass saved per window).
    detected: tuple[str, float] | None = None
    for window in recording.windows(settings.window_s):
        progress(window.start_s)
        if model is None:  # after the first window decodes: a damaged file fails before loading
            model = _loaded_model(settings)
        found, info = model.transcribe(
            window.samples, language=language, beam_size=settings.beam_size, vad_filter=True
        )
        # The window's samples are reused after this; each segment tells how far it reached.
        pieces = _segments(found, window, progress)
        if pieces and detected is None:
            detected = (str(info.language), float(info.language_probability))
            language = detected[0]
        segments.extend(pieces)
    return segments, detected


def _loaded_model(settings: WhisperSettings) -> WhisperModel:
    model = load_model(settings)
    if settings.language is not None and settings.language not in model.supported_languages:
        raise TranscriptionUnavailable(
            f"The transcription language {settings.language!r} is not one this model knows "
            f"({', '.join(model.supported_languages)}). Choose one of those in the settings, or "
            "leave the language to be detected."
        )
    return model


def _remaining(stream: BinaryIO) -> int:
    here = stream.tell()
    end = stream.seek(0, io.SEEK_END)
    stream.seek(here)
    return end - here


def _refuse_if_too_long(name: str, stated_s: float, size: int, budget: TimeBudget) -> None:
    """Raise, before any decoding, if the recording's length alone needs more than its budget."""
    least = stated_s * LEAST_SECONDS_PER_SECOND
    allowed = budget.seconds(size)
    if least <= allowed:
        return
    # A part of length L at the same bit rate is allowed base + per_mib * L * bytes/s / MiB and
    # needs L * LEAST; the two meet at the longest part that fits. The slope is positive here,
    # since even the size's share of the budget falls short of the whole recording's need.
    slope = LEAST_SECONDS_PER_SECOND - budget.per_mib_s * size / stated_s / 2**20
    longest = budget.base_s / slope
    raise ExtractionError(
        f"{name} is {_length(stated_s)} long for its {size / 2**20:.1f} MiB: even decoding it and "
        f"finding where its speech is would take about {_length(least)}, and a file of its size "
        f"is allowed {_length(allowed)} to be read (the time allowed grows with a file's size, "
        "not its length), so it was not decoded. Split it into recordings of at most "
        f"{_at_most(longest)} each and add those."
    )


def _at_most(seconds: float) -> str:
    """A length rounded down, so that a part of that length surely fits."""
    if seconds >= 3600:
        return f"{math.floor(seconds / 360) / 10:.1f} h"
    if seconds >= 60:
        return f"{math.floor(seconds / 60)} min"
    return f"{math.floor(seconds)} s"


def _length(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def _told(progress: Progress | None, stated_s: float | None) -> Callable[[float], None]:
    """``progress`` told the seconds reached of the stated length (never past it: a container
    may understate a length); a no-op when nobody asks or the length is not stated."""
    if progress is None or not stated_s:
        return lambda _reached: None
    return lambda reached: progress(min(reached, stated_s), stated_s)


def _segments(found: Any, window: Window, progress: Callable[[float], None]) -> list[Segment]:
    """Whisper's segments of one window, placed in the recording by the window's start.
    Whisper transcribes as its segments are taken, so each one taken is progress."""
    segments = []
    for piece in found:
        progress(window.start_s + min(max(float(piece.end), 0.0), window.duration_s))
        text = piece.text.strip()
        if not text:
            continue
        start = min(max(float(piece.start), 0.0), window.duration_s)
        end = min(max(float(piece.end), start), window.duration_s)
        segments.append(
            Segment(
                text,
                Locator(
                    start_s=round(window.start_s + start, 3), end_s=round(window.start_s + end, 3)
                ),
            )
        )
    return segments


def _read(source: bytes | BinaryIO, name: str, reading: Reading) -> ExtractedDocument:
    settings = reading.whisper() if reading.whisper else WhisperSettings()
    return extract(source, name, settings, reading.progress)


_READ = (
    ".mp3", ".wav", ".flac", ".m4a", ".ogg", ".oga", ".opus", ".aac",  # sound
    ".mp4", ".mkv", ".webm", ".mov", ".avi", ".m4v",  # video: its sound track
)  # fmt: skip
# Decoded a window at a time from the open file: a day's recording runs to gigabytes.
AUDIO = Format(
    name="audio",
    label="recording",
    suffixes=frozenset(_READ),
    media_types=frozenset(MEDIA_TYPES[suffix] for suffix in _READ),
    read=_read,
    read_stream=_read,
    cost=Cost.TRANSCRIPTION,
    unit="second",
)
