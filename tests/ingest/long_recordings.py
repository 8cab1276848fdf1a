"""Long recordings made on the spot: real speech from the shared corpus (03_audio) placed at
known times in a room's quiet (low noise, as a real microphone hears), encoded with PyAV a
stretch at a time, so that building hours of sound never holds them in memory; and the check
that a transcript puts each clip's words at its place, once, and nothing in the quiet."""

from __future__ import annotations

import io
import re
import wave
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import numpy.typing as npt
from faster_whisper.audio import decode_audio

from cairn.ingest.document import ExtractedDocument

RATE = 16_000
NOISE = 0.003  # about -50 dBFS: a quiet room; the corpus clips' own floor is about 0.009
_WORD = re.compile(r"[a-z']+")

JFK = "openai_whisper/jfk.flac"  # 11 s, with pauses after "Americans" and after "ask not"
CHILD = "speechbrain_asr_samples/spk1_snt1.wav"  # 2.9 s
JOY = "speechbrain_asr_samples/spk2_snt2.wav"  # 1.8 s
STRIPE = "speechbrain_asr_samples/spk1_snt4.wav"  # 2.5 s
SUNDAY = "speechbrain_asr_samples/spk1_snt5.wav"  # 2.6 s
# What Whisper base hears in each clip, phrase by phrase, whatever the window: in the quiet it
# hears "my fellow America" as often as "Americans", and "ask not" ending a window as "asked".
SAYS = {
    JFK: (
        "and so my fellow america",
        "what your country can do for you",
        "what you can do for your country",
    ),
    CHILD: ("the child almost hurt the small dog",),
    JOY: ("what joy there is in living",),
    STRIPE: ("a thin stripe runs down the middle",),
    SUNDAY: ("sunday is the best part of the week",),
}
START_TOLERANCE_S = 1.0  # voice detection pads speech by 0.4 s; Whisper's stamps are coarse
END_TOLERANCE_S = 1.5


def words(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


@dataclass(frozen=True)
class Placed:
    """A clip at its place in a recording, with its samples (16 kHz mono float32)."""

    clip: str
    start_s: float
    samples: npt.NDArray[np.float32]

    @property
    def end_s(self) -> float:
        return self.start_s + self.samples.shape[0] / RATE


def place(corpus: Path, clip: str, start_s: float | None = None, *, end_s: float = 0.0) -> Placed:
    """``clip`` starting at ``start_s``, or, without it, ending at ``end_s``."""
    samples: npt.NDArray[np.float32] = decode_audio(str(corpus / "03_audio" / clip))
    if start_s is None:
        start_s = end_s - samples.shape[0] / RATE
    return Placed(clip, start_s, samples)


def _stretches(
    length_s: float, placed: Sequence[Placed], stretch_s: float, noise: float
) -> Iterator[npt.NDArray[np.float32]]:
    """The recording, ``stretch_s`` at a time: the room's quiet, each clip added at its place."""
    rng = np.random.default_rng(5)
    total, step = round(length_s * RATE), round(stretch_s * RATE)
    for first in range(0, total, step):
        last = min(total, first + step)
        if noise:
            stretch = (rng.standard_normal(last - first) * noise).astype(np.float32)
        else:
            stretch = np.zeros(last - first, np.float32)
        for clip in placed:
            begin = round(clip.start_s * RATE)
            lo, hi = max(first, begin), min(last, begin + clip.samples.shape[0])
            if lo < hi:
                stretch[lo - first : hi - first] += clip.samples[lo - begin : hi - begin]
        yield stretch


def sound(
    length_s: float, placed: Sequence[Placed], noise: float = NOISE
) -> npt.NDArray[np.float32]:
    """A short recording whole, as 16 kHz float32 samples."""
    return np.concatenate(list(_stretches(length_s, placed, 60.0, noise)))


def wav(samples: npt.NDArray[np.float32]) -> bytes:
    """``samples`` as a 16 kHz mono 16-bit WAV file, in memory."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return buffer.getvalue()


def write_flac(
    path: Path, length_s: float, placed: Sequence[Placed] = (), noise: float = NOISE
) -> None:
    """A 16 kHz mono FLAC file of the recording, a minute at a time; ``noise=0`` makes digital
    silence, which FLAC keeps in a few bytes a second."""
    with av.open(str(path), "w", format="flac") as out:
        stream = out.add_stream("flac", rate=RATE, layout="mono")
        pts = 0
        for stretch in _stretches(length_s, placed, 60.0, noise):
            frame = _frame(stretch, pts)
            pts += frame.samples
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)


def write_video(
    path: Path,
    length_s: float,
    placed: Sequence[Placed],
    container: str,
    audio_codec: str,
    audio_rate: int,
) -> None:
    """A video file: a small grey picture once a second, and the recording as its sound track,
    converted from 16 kHz to ``audio_rate`` by the encoder (so reading it resamples)."""
    with av.open(str(path), "w", format=container) as out:
        video = out.add_stream("mpeg4", rate=1)
        video.width, video.height, video.pix_fmt = 32, 32, "yuv420p"
        track = out.add_stream(audio_codec, rate=audio_rate, layout="mono")
        picture = np.full((32, 32, 3), 128, np.uint8)
        pts = 0
        for index, stretch in enumerate(_stretches(length_s, placed, 1.0, NOISE)):
            image = av.VideoFrame.from_ndarray(picture, format="rgb24")
            image.pts = index
            for packet in video.encode(image):
                out.mux(packet)
            frame = _frame(stretch, pts)
            pts += frame.samples
            for packet in track.encode(frame):
                out.mux(packet)
        for stream in (video, track):
            for packet in stream.encode(None):
                out.mux(packet)


def _frame(stretch: npt.NDArray[np.float32], pts: int) -> av.AudioFrame:
    samples = (np.clip(stretch, -1, 1) * 32767).astype(np.int16)[None, :]
    frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
    frame.rate = RATE
    frame.pts = pts
    frame.time_base = Fraction(1, RATE)
    return frame


def assert_heard_in_place(doc: ExtractedDocument, placed: Sequence[Placed]) -> None:
    """Each clip's phrases are said by the segments over it, which start and end about where it
    does; no segment lies in the quiet; and each phrase is in the whole transcript as often as
    its clip was placed (no word lost at a window's edge, none heard twice). Clips placed back
    to back make one stretch of speech, as Whisper may join their sentences in one segment."""
    stretches: list[list[float]] = []
    for clip in sorted(placed, key=lambda c: c.start_s):
        if stretches and clip.start_s - stretches[-1][1] < 1.0:
            stretches[-1][1] = max(stretches[-1][1], clip.end_s)
        else:
            stretches.append([clip.start_s, clip.end_s])
    heard = [(s.locator.start_s or 0.0, s.locator.end_s or 0.0, s.text) for s in doc.segments]
    for start, end, text in heard:
        assert any(
            first - START_TOLERANCE_S <= start and end <= last + END_TOLERANCE_S
            for first, last in stretches
        ), f"{text!r} at {start}-{end} s is in the quiet, not where speech was placed"
    for clip in placed:
        over = [
            (start, end, text)
            for start, end, text in heard
            if start < clip.end_s and end > clip.start_s
        ]
        said = words(" ".join(text for _, _, text in over))
        for phrase in SAYS[clip.clip]:
            assert phrase in said, f"{phrase!r} not in {said!r} ({clip.clip} at {clip.start_s} s)"
        assert min(start for start, _, _ in over) <= clip.start_s + START_TOLERANCE_S, over
        assert max(end for _, end, _ in over) >= clip.end_s - END_TOLERANCE_S, over
    transcript = words(doc.text)
    for name in {clip.clip for clip in placed}:
        times = sum(clip.clip == name for clip in placed)
        for phrase in SAYS[name]:
            assert transcript.count(phrase) == times, (phrase, transcript)
