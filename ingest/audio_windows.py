"""A recording's sound decoded window by window, so memory is bounded by a window, not the file.

Whisper listens at 16 kHz, so an hour of sound is 230 MB as one float32 array, and
faster-whisper's ``decode_audio`` holds it about two and a half times over while it converts
(its s16 bytes, the float32 copy and a temporary), before voice detection copies it twice more:
a ten-hour recording needed far more than the extraction worker's 3 GiB. Here PyAV reads the
file as a stream (the file itself, or bytes already in memory; nothing decoded is ever written
anywhere), decodes its first sound track, resamples it to 16 kHz mono s16 exactly as
``decode_audio`` does, and fills one reused buffer that is handed out a window at a time.

Windows lie on a fixed grid, one line every ``window_s`` seconds. Each cut is moved back from
its line to the quietest half second among the last tenth of the window (the quietest stretch
nearest the line when several are as quiet), and the samples after the cut open the next
window. So a word that runs across a line is heard whole in one window, not cut in two or
heard twice as an overlap would risk; and as the grid does not drift, a window is never longer
than ``window_s`` and a tenth. When speech fills the whole tenth (a speech without a pause of
half a second for a minute), the cut still falls in its quietest stretch: a pause between
words, where Whisper loses nothing.

A file that stops decoding part of the way (cut short, or damaged) ends where it stops, as
faster-whisper's decoder does; the caller compares the decoded length with the stated one.
"""

from __future__ import annotations

import ctypes
import functools
import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, BinaryIO

import numpy as np
import numpy.typing as npt

from cairn.ingest.document import ExtractionError

if TYPE_CHECKING:
    from av.audio.frame import AudioFrame
    from av.audio.stream import AudioStream
    from av.container import InputContainer

SAMPLE_RATE = 16_000  # what Whisper listens at
_S16_SCALE = np.float32(1 / 32768)  # s16 to float32, as faster-whisper converts (a power of two)
QUIET_SHARE = 0.1  # the part of a window, before its grid line, where its cut is looked for
QUIET_S = 0.5  # the stretch of quiet a cut is put in the middle of
_HOP = 160  # samples per energy frame: 10 ms
MIN_WINDOW_S = 10.0  # below this the search for a quiet cut has too little room


@dataclass(frozen=True)
class Window:
    """``samples`` of the recording from ``start_s`` on. The array is a view of a buffer the
    next window reuses: it is valid until the next window is asked for."""

    start_s: float
    samples: npt.NDArray[np.float32]

    @property
    def duration_s(self) -> float:
        return int(self.samples.shape[0]) / SAMPLE_RATE


def unreadable(name: str, exc: Exception) -> ExtractionError:
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return ExtractionError(
        f"{name} is not an audio or video file that can be read ({reason}); it may be damaged or "
        "cut short. Add a complete copy, or convert it to a common format (mp3, m4a, wav)."
    )


class Recording:
    """An open audio or video file: what its container states, and its sound in windows."""

    def __init__(self, source: BinaryIO, name: str) -> None:
        import av

        self._name = name
        self._decoded = 0  # samples at 16 kHz handed out so far
        try:
            self._container: InputContainer = av.open(source, mode="r", metadata_errors="ignore")
        except (av.error.FFmpegError, ValueError, OSError) as exc:
            raise unreadable(name, exc) from None
        try:
            streams = self._container.streams.audio
            if not streams:
                raise ExtractionError(f"{name} has no sound track: there is nothing to transcribe.")
            self._stream: AudioStream = streams[0]
            if self._stream.duration is not None and self._stream.time_base is not None:
                self.stated_s: float | None = float(self._stream.duration * self._stream.time_base)
            elif self._container.duration is not None:
                self.stated_s = self._container.duration / av.time_base
            else:
                self.stated_s = None  # a raw stream may not say; only decoding tells
            title = str(self._container.metadata.get("title", "")).strip()
            self.title: str | None = title or None
        except BaseException:
            self._container.close()
            raise

    @property
    def decoded_s(self) -> float:
        """The length decoded so far; the whole decodable length once the windows are done."""
        return self._decoded / SAMPLE_RATE

    def windows(self, window_s: float) -> Iterator[Window]:
        """The recording's sound, 16 kHz mono float32, in windows of at most ``window_s`` and a
        tenth (see the module's docstring), each taken to the end before the next is decoded.
        A file that cannot be decoded raises ``ExtractionError`` saying so."""
        if window_s < MIN_WINDOW_S:
            raise ValueError(f"window_s must be at least {MIN_WINDOW_S:g} s, not {window_s}")
        size = round(window_s * SAMPLE_RATE)
        span = round(size * QUIET_SHARE)
        # A window runs from a cut at most `span` before its grid line to the next line.
        buffer = np.empty(size + span, dtype=np.float32)
        start = 0  # the recording's sample at buffer[0]
        filled = 0
        line = size  # the next grid line, in the recording's samples
        for piece in self._pieces():
            taken = 0
            while taken < piece.shape[0]:
                take = min(line - start - filled, piece.shape[0] - taken)
                target = buffer[filled : filled + take]
                target[:] = piece[taken : taken + take]
                target *= _S16_SCALE
                filled += take
                taken += take
                self._decoded += take
                if start + filled == line:
                    cut = quiet_cut(buffer[:filled], span)
                    yield Window(start / SAMPLE_RATE, buffer[:cut])
                    _give_back_freed_memory()  # the window's transcription is done with
                    rest = filled - cut
                    buffer[:rest] = buffer[cut:filled]  # numpy copies overlapping ranges safely
                    start, filled, line = start + cut, rest, line + size
        if filled:
            yield Window(start / SAMPLE_RATE, buffer[:filled])

    def _pieces(self) -> Iterator[npt.NDArray[np.int16]]:
        """The decoded sound, resampled, in pieces of a frame or so each."""
        import av

        resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
        try:
            frames = self._container.decode(self._stream)
            while True:
                try:
                    frame: AudioFrame | None = next(frames)
                except StopIteration:
                    frame = None
                except av.error.InvalidDataError:
                    # faster-whisper goes on after invalid data; PyAV's decoding stops there,
                    # so the file ends at its damage, and the caller says how much is missing.
                    continue
                if frame is not None:
                    frame.pts = None  # the samples count, not the stamps (as decode_audio)
                for out in resampler.resample(frame):  # None flushes the resampler
                    samples = np.asarray(out.to_ndarray(), dtype=np.int16).reshape(-1)  # mono
                    yield samples
                if frame is None:
                    return
        except (av.error.FFmpegError, ValueError, OSError) as exc:
            raise unreadable(self._name, exc) from None
        finally:
            # PyAV frees a resampler's native buffers only on a collection (faster-whisper
            # issue 390): once per file, not once per window.
            del resampler
            gc.collect()

    def close(self) -> None:
        self._container.close()

    def __enter__(self) -> Recording:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _give_back_freed_memory() -> None:
    """Return the heap's free pages to the system. Voice detection's temporaries (tens of MB a
    window) are freed between windows, but glibc keeps freed heap memory for reuse, and mixed
    with the decoder's many small allocations it grew the worker's resident size window after
    window: from 400 to 700 MiB over ten hours, all of it free. The worker's budget is its
    resident size, so it is given back (malloc_trim, a few milliseconds); elsewhere nothing."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return None
    return trim


def quiet_cut(samples: npt.NDArray[np.float32], span: int) -> int:
    """Where to end a window of ``samples``: the middle of the quietest ``QUIET_S`` within its
    last ``span`` samples, the latest such stretch when several are as quiet (digital silence),
    so windows stay as long as they may. Always inside the span, never at either end of it."""
    region = samples[samples.shape[0] - span :]
    frames = int(region.shape[0]) // _HOP
    power = np.square(region[: frames * _HOP].reshape(frames, _HOP)).mean(axis=1, dtype=np.float64)
    box = max(1, min(frames, round(QUIET_S * SAMPLE_RATE / _HOP)))
    loudness = np.convolve(power, np.ones(box), mode="valid")  # of each stretch of `box` frames
    quietest = int(loudness.shape[0]) - 1 - int(np.argmin(loudness[::-1]))
    return int(samples.shape[0]) - span + (quietest + box // 2) * _HOP
