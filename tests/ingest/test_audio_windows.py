"""Recordings decoded and transcribed window by window: the windows hold exactly the sound
faster-whisper's whole-file decoder gives, cut at quiet points on a fixed grid; speech across a
window's edge is heard whole and at its time, in a video's sound track too; and a recording too
long for the time it is allowed is refused before it is decoded."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import numpy as np
import pytest
from faster_whisper.audio import decode_audio

from cairn.ingest import audio, whisper_model
from cairn.ingest.audio import LEAST_SECONDS_PER_SECOND
from cairn.ingest.audio_settings import TimeBudget, WhisperSettings
from cairn.ingest.audio_windows import QUIET_SHARE, SAMPLE_RATE, Recording, quiet_cut
from cairn.ingest.document import ExtractionError
from tests.ingest.long_recordings import (
    CHILD,
    JFK,
    JOY,
    STRIPE,
    assert_heard_in_place,
    place,
    sound,
    wav,
    write_flac,
    write_video,
)

pytestmark = pytest.mark.audio


@pytest.fixture(scope="module")
def english(tmp_path_factory: pytest.TempPathFactory) -> WhisperSettings:
    data = tmp_path_factory.mktemp("data")
    whisper_model.bundled_model_dir(data)
    return WhisperSettings(data_dir=data, language="en", window_s=60.0)


def test_a_cut_is_the_middle_of_the_quietest_half_second_before_the_line() -> None:
    rng = np.random.default_rng(1)
    window = (rng.standard_normal(20 * SAMPLE_RATE) * 0.2).astype(np.float32)  # loud throughout
    span = 2 * SAMPLE_RATE  # the last tenth
    window[round(18.4 * SAMPLE_RATE) : round(19.1 * SAMPLE_RATE)] *= 0.01  # a 0.7 s pause
    window[round(19.5 * SAMPLE_RATE) : round(19.7 * SAMPLE_RATE)] = 0  # nearer, but too short
    window[round(10.0 * SAMPLE_RATE) : round(12.0 * SAMPLE_RATE)] = 0  # quieter, but too early
    cut = quiet_cut(window, span) / SAMPLE_RATE
    assert 18.65 <= cut <= 18.85  # the middle of the pause, a quarter second from its sound

    silence = np.zeros(20 * SAMPLE_RATE, np.float32)
    silence[round(19.0 * SAMPLE_RATE) :] = 0.3  # a word begins a second before the line
    # Digital silence is equally quiet everywhere: the cut goes as late as it can, a quarter
    # second before the word, so the window is as long as it may be and the word stays whole.
    assert quiet_cut(silence, span) / SAMPLE_RATE == pytest.approx(18.75, abs=0.01)


def test_windows_hold_the_whole_decoded_sound_cut_on_the_grid(corpus: Path) -> None:
    clips = [place(corpus, JFK, 15.0), place(corpus, CHILD, 38.5), place(corpus, JOY, end_s=60.0)]
    data = wav(sound(95.0, clips))
    whole = decode_audio(io.BytesIO(data))
    buffer = io.BytesIO(data)

    window_s = 20.0
    with Recording(buffer, "memo.wav") as recording:
        windows = [(w.start_s, w.samples.copy()) for w in recording.windows(window_s)]
        assert recording.decoded_s == pytest.approx(95.0)
    # Exactly the samples faster-whisper's whole-file decoder gives, each once, in order.
    assert np.array_equal(np.concatenate([s for _, s in windows]), whole)
    ends = [start + s.shape[0] / SAMPLE_RATE for start, s in windows]
    assert [start for start, _ in windows] == [0.0, *ends[:-1]]  # no gap, no overlap
    for line, end in enumerate(ends[:-1], start=1):  # each cut just before its grid line
        assert line * window_s - QUIET_SHARE * window_s < end < line * window_s
    assert ends[-1] == pytest.approx(95.0)
    # The first line falls in the clip's words, 5 s into it; the cut is moved back to its pause
    # after "ask not" (4.3 to 5.3 s into the clip), and the words on each side stay whole.
    assert 15.0 + 4.3 < ends[0] < 20.0


@pytest.mark.slow
def test_speech_across_window_edges_is_heard_whole_at_its_time(
    corpus: Path, english: WhisperSettings
) -> None:
    # Grid lines every 60 s; the clips two windows apart, so that no two share a window (Whisper
    # runs a window's speech together, and would join their sentences).
    clips = [
        place(corpus, JFK, 60.0 - 5.5),  # across the first line: a plain cut would split "what"
        place(corpus, CHILD, 180.0),  # from the third line on
        place(corpus, STRIPE, end_s=300.0),  # up to the fifth
        # Speech over all of the seventh line's search span: the cut must fall in a pause.
        place(corpus, JFK, 420.0 - 9.0),
        place(corpus, JOY, 420.0 - 9.0 + 11.3),
    ]
    doc = audio.extract(wav(sound(450.0, clips)), "meeting.wav", english)
    assert doc.warnings == ()
    assert doc.metadata["duration_s"] == pytest.approx(450.0)
    assert_heard_in_place(doc, clips)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "container", "codec", "rate", "media_type"),
    [
        ("talk.mkv", "matroska", "libopus", 48_000, "video/x-matroska"),
        ("talk.mp4", "mp4", "aac", 44_100, "video/mp4"),
    ],
)
def test_a_video_sound_track_is_transcribed_in_windows(
    corpus: Path,
    english: WhisperSettings,
    tmp_path: Path,
    name: str,
    container: str,
    codec: str,
    rate: int,
    media_type: str,
) -> None:
    clips = [place(corpus, JFK, 60.0 - 5.5), place(corpus, CHILD, 150.0)]  # windows 2 and 3
    path = tmp_path / name
    write_video(path, 170.0, clips, container, codec, rate)
    with path.open("rb") as stream:  # as the worker reads it: the file itself, streamed
        doc = audio.extract(stream, name, english)
    assert doc.media_type == media_type
    assert doc.metadata["duration_s"] == pytest.approx(170.0, abs=0.1)
    assert_heard_in_place(doc, clips)


def test_a_recording_too_long_for_its_time_budget_is_refused_before_decoding(
    tmp_path: Path, english: WhisperSettings
) -> None:
    path = tmp_path / "all night.flac"
    write_flac(path, 3 * 3600.0, noise=0.0)  # three hours in 2 MB
    size = path.stat().st_size
    budget = TimeBudget(base_s=5.0, per_mib_s=5.0)
    allowed = budget.seconds(size)
    assert allowed < 3 * 3600 * LEAST_SECONDS_PER_SECOND  # 15 s allowed, 22 s needed at least
    settings = WhisperSettings(data_dir=english.data_dir, language="en", time_budget=budget)

    started = time.monotonic()
    with path.open("rb") as stream, pytest.raises(ExtractionError) as refused:
        audio.extract(stream, path.name, settings)
    # Decoding three hours and finding no speech in them takes 20 s and more here.
    assert time.monotonic() - started < 2.0
    message = str(refused.value)
    assert message.startswith("all night.flac is 3.0 h long for its 1.9 MiB: even decoding it")
    assert "would take about 22 s, and a file of its size is allowed 15 s" in message
    assert "so it was not decoded" in message
    longest = re.search(r"Split it into recordings of at most (\d+\.\d) h each", message)
    assert longest is not None
    # A part that long, of the same bit rate, is allowed the time it needs at the least.
    part_s = float(longest.group(1)) * 3600
    assert part_s * LEAST_SECONDS_PER_SECOND <= budget.seconds(size * part_s // (3 * 3600))
