"""The settings dialog: vault settings changed for real and read back from the service, this
computer's preferences, the passphrase change, the vector rebuild, and the graph server page
(tested in full in test_graph_server.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.memory_settings import SETTINGS
from cairn.app.server.http_server import DEFAULT_PORT
from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session
from cairn.ui.lock import saved_passphrase
from cairn.ui.settings.dialog import SettingsDialog
from cairn.ui.settings.pages import installed_ocr_languages
from tests.app.server.server_probe import free_port, get, refused
from tests.conftest import PASSPHRASE
from tests.ui.lock import fake_keyring

NEW_PASSPHRASE = "lantern river stone meadow"


@pytest.fixture
def dialog(qtbot, open_session: Session, tmp_path: Path) -> Iterator[SettingsDialog]:
    widget = SettingsDialog(open_session, Preferences(tmp_path / "prefs.ini"))
    qtbot.addWidget(widget)
    qtbot.waitUntil(lambda: widget.memory_page.isEnabled())  # the vault's values are in
    yield widget


def _apply(qtbot, dialog: SettingsDialog) -> None:
    with qtbot.waitSignal(dialog.applied, timeout=10_000):
        qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)


def test_every_vault_setting_is_shown_with_its_help(dialog: SettingsDialog) -> None:
    service = dialog.session.service
    current = service.settings()
    assert set(dialog.memory_fields) == set(SETTINGS)
    for name, field in dialog.memory_fields.items():
        assert field.toolTip() == SETTINGS[name].help
        if isinstance(field, QComboBox):
            assert field.currentText() == current[name]
        else:
            assert isinstance(field, QDoubleSpinBox)
            assert field.value() == pytest.approx(current[name])
    assert dialog.memory_changes() == {}


def test_a_dedup_threshold_is_changed_in_the_vault(qtbot, dialog: SettingsDialog) -> None:
    dialog.memory_fields["dedup_jaccard"].setValue(0.7)
    dialog.memory_fields["tag_anchoring"].setCurrentText("auto")
    _apply(qtbot, dialog)
    stored = dialog.session.service.settings()
    assert stored["dedup_jaccard"] == pytest.approx(0.7)
    assert stored["tag_anchoring"] == "auto"
    assert dialog.memory_changes() == {}


def test_raising_both_bands_works_in_either_order(qtbot, dialog: SettingsDialog) -> None:
    # dedup_low above the old dedup_high is refused alone; with the new high it is fine.
    dialog.memory_fields["dedup_low"].setValue(0.97)
    dialog.memory_fields["dedup_high"].setValue(0.98)
    _apply(qtbot, dialog)
    stored = dialog.session.service.settings()
    assert (stored["dedup_low"], stored["dedup_high"]) == (pytest.approx(0.97), 0.98)


def test_a_refused_setting_says_why_and_keeps_the_dialog(qtbot, dialog: SettingsDialog) -> None:
    dialog.memory_fields["dedup_low"].setValue(0.99)  # above dedup_high (0.95)
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.memory_notice.isVisibleTo(dialog))
    assert "may not be above dedup_high" in dialog.memory_notice.text()
    assert dialog.current_page() is dialog.memory_page
    assert dialog.session.service.settings()["dedup_low"] == pytest.approx(
        SETTINGS["dedup_low"].default
    )


def test_machine_preferences_are_saved(qtbot, dialog: SettingsDialog, tmp_path: Path) -> None:
    dialog.autolock_minutes.setValue(3)
    reading = dialog.reading_files
    reading.folder_model.setChecked(True)
    reading.model_folder.setText(str(tmp_path / "whisper-small"))
    _apply(qtbot, dialog)
    again = Preferences(tmp_path / "prefs.ini")
    assert again.autolock_minutes() == 3
    assert again.whisper_model_dir() == str(tmp_path / "whisper-small")
    reading.bundled_model.setChecked(True)
    _apply(qtbot, dialog)
    assert Preferences(tmp_path / "prefs.ini").whisper_model_dir() is None


def test_ocr_languages_come_from_tesseract(qtbot, open_session: Session, tmp_path: Path) -> None:
    installed = installed_ocr_languages()  # this machine: eng (osd is not a language)
    assert "eng" in installed and "osd" not in installed and "zul" not in installed
    preferences = Preferences(tmp_path / "prefs.ini")
    preferences.set_ocr_languages(["eng", "zul"])  # chosen once, since uninstalled
    dialog = SettingsDialog(open_session, preferences)
    qtbot.addWidget(dialog)
    reading = dialog.reading_files
    qtbot.waitUntil(lambda: reading.languages_note.text().endswith("installed."))
    shown = {
        reading.languages.item(row).data(Qt.ItemDataRole.UserRole): reading.languages.item(
            row
        ).text()
        for row in range(reading.languages.count())
    }
    assert set(shown) == set(installed) | {"zul"}
    assert shown["zul"] == "zul  (not installed)"
    assert reading.chosen_languages() == ["eng", "zul"]
    reading.languages.findItems("zul", Qt.MatchFlag.MatchStartsWith)[0].setCheckState(
        Qt.CheckState.Unchecked
    )
    _apply(qtbot, dialog)
    assert Preferences(tmp_path / "prefs.ini").ocr_languages() == ["eng"]


def test_the_passphrase_is_changed(qtbot, dialog: SettingsDialog, embedder: MiniLMEmbedder) -> None:
    fields = dialog.new_passphrase
    qtbot.keyClicks(fields.first, NEW_PASSPHRASE)
    qtbot.keyClicks(fields.second, NEW_PASSPHRASE)
    with qtbot.waitSignal(dialog.passphrase_changed, timeout=30_000):
        qtbot.mouseClick(dialog.change_button, Qt.MouseButton.LeftButton)
    assert fields.first.text() == ""
    assert "changed" in dialog.passphrase_notice.text()
    vault = dialog.session.path
    dialog.session.lock()
    compose.open_vault(vault, NEW_PASSPHRASE, embedder=embedder).close()


def test_a_passphrase_in_the_keyring_is_changed_with_the_vault(
    qtbot, open_session: Session, tmp_path: Path
) -> None:
    vault = open_session.path
    with fake_keyring.installed() as memory:
        saved_passphrase.remember(vault, PASSPHRASE)
        dialog = SettingsDialog(open_session, Preferences(tmp_path / "prefs.ini"))
        qtbot.addWidget(dialog)
        qtbot.keyClicks(dialog.new_passphrase.first, NEW_PASSPHRASE)
        qtbot.keyClicks(dialog.new_passphrase.second, NEW_PASSPHRASE)
        with qtbot.waitSignal(dialog.passphrase_changed, timeout=30_000):
            dialog.change_passphrase()
        assert memory.secrets == {("cairn", str(vault.resolve())): NEW_PASSPHRASE}


def test_a_mismatched_new_passphrase_is_refused(qtbot, dialog: SettingsDialog) -> None:
    qtbot.keyClicks(dialog.new_passphrase.first, NEW_PASSPHRASE)
    qtbot.keyClicks(dialog.new_passphrase.second, "something else entirely")
    qtbot.mouseClick(dialog.change_button, Qt.MouseButton.LeftButton)
    # Said once, under the fields, not again by the button.
    assert "differ" in dialog.new_passphrase.strength_label.text()
    assert "differ" not in dialog.passphrase_notice.text()
    assert not dialog.change_button.isHidden() and dialog.passphrase_busy.isHidden()


def test_rebuild_vectors_reports_and_shows_the_embedder(qtbot, dialog: SettingsDialog) -> None:
    service = dialog.session.service
    assert dialog.embedder_label.text() == service.stats(scopes=service.scopes()).embedder
    service.write("Note", "Pharmacy hours", "Opens at eight.")
    with qtbot.waitSignal(dialog.vectors_rebuilt, timeout=30_000) as rebuilt:
        qtbot.mouseClick(dialog.rebuild_button, Qt.MouseButton.LeftButton)
    assert rebuilt.args == [0]  # every memory already has its vector
    assert dialog.rebuild_button.isEnabled()
    assert "search by meaning is on" in dialog.search_notice.text()


def test_the_graph_server_page_goes_with_a_dialog_of_its_own(
    qtbot, open_session: Session, tmp_path: Path
) -> None:
    # Without the window's switch the dialog has its own, and its server goes with it.
    dialog = SettingsDialog(open_session, Preferences(tmp_path / "prefs.ini"))
    page = dialog.graph_server
    assert page.enabled.isEnabled() and not page.enabled.isChecked()
    assert page.port.value() == DEFAULT_PORT
    page.port.setValue(free_port())
    page.enabled.click()
    port = page.switch.state.port
    assert port is not None and get(port, "/v1/health") == 200
    dialog.deleteLater()
    qtbot.waitUntil(lambda: refused(port))
