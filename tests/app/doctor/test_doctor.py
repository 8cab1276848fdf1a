"""``cairn doctor`` on this machine (everything is installed here, so every check passes), and
the real conditions that make a check warn or fail, each with the advice it prints."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.app import compose
from cairn.app.cli.main import main
from cairn.app.doctor import qt
from cairn.app.embedding import model
from cairn.app.process import diagnostic_log
from cairn.ingest import whisper_model
from tests.conftest import PASSPHRASE, damaged_whisper_source


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    """Files and folders are made as a careless session would: readable by everyone."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _doctor(
    capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[int, dict[str, dict[str, str]]]:
    code = main(["doctor", "--json", *argv])
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] == (code == 0)
    return code, {finding["name"]: finding for finding in report["findings"]}


def test_every_check_passes_on_this_machine(capsys: pytest.CaptureFixture[str]) -> None:
    code, findings = _doctor(capsys)
    assert code == 0
    assert set(findings) == {
        "sqlcipher",
        "embedder",
        "tesseract",
        "whisper",
        "qt plugins",
        "disk",
        "data dir",
        "window settings",
        "vault file",
        "log",
        "crash dumps",
        "swap",
    }
    assert {name: f["status"] for name, f in findings.items() if f["status"] != "ok"} == {}
    assert "SQLCipher 4." in findings["sqlcipher"]["detail"]
    assert "kdf_iter=256000" in findings["sqlcipher"]["detail"]
    assert "eng" in findings["tesseract"]["detail"] and "osd" in findings["tesseract"]["detail"]
    assert model.MODEL_SHA256[:8] in findings["embedder"]["detail"]
    assert findings["crash dumps"]["detail"].startswith("off for every Cairn process")
    # Doctor writes nothing: the data dir is still not there, no Whisper model was joined.
    assert not compose.Config.from_environment().data_dir.exists()


def test_the_human_report_is_one_line_a_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 12
    assert all(line.startswith("ok ") for line in lines), lines


def test_a_data_dir_others_can_read_or_change_is_named_with_the_chmod(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data_dir = compose.Config.from_environment().ensure_data_dir()
    data_dir.chmod(0o755)
    code, findings = _doctor(capsys)
    assert code == 0  # readable by others is a warning
    assert findings["data dir"]["status"] == "warn"
    assert findings["data dir"]["advice"] == f"chmod 700 {data_dir}"
    data_dir.chmod(0o777)
    code, findings = _doctor(capsys)
    assert code == 1  # writable by others: they could replace the vault
    assert findings["data dir"]["status"] == "fail"
    assert findings["data dir"]["advice"] == f"chmod 700 {data_dir}"
    data_dir.chmod(0o700)
    assert _doctor(capsys)[1]["data dir"]["status"] == "ok"


def test_doctor_says_where_the_log_is_and_whether_it_is_private(
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = compose.Config.from_environment().log_file
    finding = _doctor(capsys)[1]["log"]
    assert (finding["status"], str(log) in finding["detail"]) == ("ok", True)
    assert "not written yet" in finding["detail"]
    compose.start_log("test")
    diagnostic_log.log.info("a line")  # the log is made with its first record
    assert log.stat().st_mode & 0o777 == 0o600
    finding = _doctor(capsys)[1]["log"]
    assert finding["status"] == "ok" and "never a memory" in finding["detail"], finding
    log.chmod(0o644)
    finding = _doctor(capsys)[1]["log"]
    assert (finding["status"], finding["advice"]) == ("warn", f"chmod 600 {log}")


def test_without_tesseract_on_the_path_it_fails_with_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    code, findings = _doctor(capsys)
    assert code == 1
    assert findings["tesseract"]["status"] == "fail"
    assert "apt-get install tesseract-ocr" in findings["tesseract"]["advice"]


def test_a_language_chosen_in_the_window_but_not_installed_fails(
    capsys: pytest.CaptureFixture[str],
) -> None:
    preferences = compose.window_preferences_path()
    preferences.parent.mkdir(mode=0o700)
    preferences.write_text("[ingest]\nocr_languages=eng+tlh_Klingon\n", encoding="utf-8")
    preferences.chmod(0o600)
    code, findings = _doctor(capsys)
    assert code == 1
    assert findings["tesseract"]["status"] == "fail"
    assert "tesseract-ocr-tlh-klingon" in findings["tesseract"]["advice"]
    assert findings["window settings"]["status"] == "ok"


def test_window_settings_readable_by_others_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    preferences = compose.window_preferences_path()
    preferences.parent.mkdir(mode=0o700)
    preferences.write_text("[security]\nautolock_minutes=5\n", encoding="utf-8")
    preferences.chmod(0o644)
    finding = _doctor(capsys)[1]["window settings"]
    assert (finding["status"], finding["advice"]) == ("warn", f"chmod 600 {preferences}")
    preferences.parent.chmod(0o755)
    finding = _doctor(capsys)[1]["window settings"]
    assert (finding["status"], finding["advice"]) == ("warn", f"chmod 700 {preferences.parent}")


def test_the_vault_file_mode_is_checked_without_opening_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "mine.cairn"
    # No passphrase in the environment: doctor must not need one.
    code, findings = _doctor(capsys, "--vault", str(vault))
    assert code == 1
    assert findings["vault file"]["status"] == "fail"
    assert str(vault) in findings["vault file"]["detail"]
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    assert main(["init", "--vault", str(vault)]) == 0
    monkeypatch.delenv("CAIRN_PASSPHRASE")
    capsys.readouterr()
    assert _doctor(capsys, "--vault", str(vault))[1]["vault file"]["status"] == "ok"
    vault.chmod(0o644)
    finding = _doctor(capsys, "--vault", str(vault))[1]["vault file"]
    assert (finding["status"], finding["advice"]) == ("warn", f"chmod 600 {vault}")


def test_a_damaged_tokenizer_copy_fails_the_hash_check(tmp_path: Path) -> None:
    good = model.checked_files()
    damaged = tmp_path / "tokenizer.json"
    data = bytearray(good.tokenizer.read_bytes())
    data[len(data) // 2] ^= 0x01
    damaged.write_bytes(bytes(data))
    with pytest.raises(model.ModelCorrupt, match="make install"):
        model.checked_files(tokenizer_path=damaged)
    assert model.checked_files(tokenizer_path=damaged, verify=False).identity.endswith(
        hashlib.sha256(bytes(data)).hexdigest()[:8]
    )


def test_a_bundle_whose_qt_libraries_are_missing_says_reinstall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frozen build looks in its own folder; a platform plugin copied there without Qt's
    libraries beside it cannot load, and ldd says which are missing."""
    installed = qt.plugins_dir()
    assert installed is not None
    platforms = tmp_path / "bundle" / "PySide6" / "Qt" / "plugins" / "platforms"
    platforms.mkdir(parents=True)
    shutil.copy(installed / "platforms" / qt.XCB, platforms)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "bundle"), raising=False)
    assert qt.plugins_dir() == platforms.parent
    finding = qt.check_qt_plugins()
    assert finding.status == "fail"
    assert "libQt6XcbQpa.so.6" in finding.detail
    assert "Reinstall Cairn" in finding.advice
    (platforms / qt.XCB).unlink()
    finding = qt.check_qt_plugins()
    assert finding.status == "fail" and "cannot open" in finding.detail


def test_the_data_dir_is_made_private_whatever_the_umask(
    tmp_path: Path, permissive_umask: None
) -> None:
    os.umask(0)
    made = compose.private_dir(tmp_path / "a" / "b")
    assert made.stat().st_mode & 0o777 == 0o700
    # A folder the user already has (CAIRN_DATA_DIR pointed at it) keeps its mode: doctor
    # names it instead of Cairn changing it behind their back.
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    compose.private_dir(shared)
    assert shared.stat().st_mode & 0o777 == 0o755


def test_init_and_backup_under_a_permissive_umask_are_owner_only(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    permissive_umask: None,
) -> None:
    os.umask(0)
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    assert main(["init"]) == 0
    data_dir = compose.Config.from_environment().data_dir
    vault = data_dir / "vault.cairn"
    assert data_dir.stat().st_mode & 0o777 == 0o700
    assert vault.stat().st_mode & 0o777 == 0o600
    backups = tmp_path / "backups"
    backups.mkdir()
    assert main(["backup", str(backups)]) == 0
    (copy,) = backups.iterdir()
    assert copy.stat().st_mode & 0o777 == 0o600
    capsys.readouterr()
    monkeypatch.delenv("CAIRN_PASSPHRASE")
    code, findings = _doctor(capsys)
    assert code == 0
    assert findings["data dir"]["status"] == findings["vault file"]["status"] == "ok"


def test_the_whisper_check_hashes_without_writing_and_refuses_a_damaged_piece(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir = compose.Config.from_environment().data_dir
    with pytest.raises(whisper_model.TranscriptionUnavailable, match="force-reinstall"):
        whisper_model.bundled_model_state(data_dir, damaged_whisper_source(tmp_path))
    assert whisper_model.bundled_model_state(data_dir) == "joinable"
    assert not data_dir.exists()  # checked, not joined
    whisper_model.bundled_model_dir(data_dir)  # what the first transcription does
    assert whisper_model.bundled_model_state(data_dir) == "joined"
    finding = _doctor(capsys)[1]["whisper"]
    assert finding["status"] == "ok" and "sha256 verified" in finding["detail"]
