"""A page of the settings dialog that concerns this computer rather than the vault: how files
are read (OCR languages, the Whisper model). The graph server's page is ``server_page``.

The OCR languages offered are the Tesseract language packs installed here, listed by running
``tesseract --list-langs`` in a worker; others are one package away, and the page says which.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from cairn.app import api
from cairn.app.api import CairnError
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.preferences import Preferences

MORE_LANGUAGES = (
    "Other languages are one package away: on Debian or Ubuntu install tesseract-ocr-CODE "
    "(for German: sudo apt-get install tesseract-ocr-deu; for all of them: tesseract-ocr-all), "
    "on macOS brew install tesseract-lang. Then reopen the settings."
)
NO_TESSERACT = (
    "Tesseract is not installed, so scanned pages and images cannot be read. On Debian or "
    "Ubuntu: sudo apt-get install tesseract-ocr; on macOS: brew install tesseract."
)


def installed_ocr_languages() -> list[str]:
    """The Tesseract language packs on this machine (runs the program: call in a worker)."""
    try:
        return api.installed_ocr_languages()
    except CairnError:
        raise FileNotFoundError(NO_TESSERACT) from None  # this page's words: what OCR is for


class ReadingFilesPage(QWidget):
    def __init__(self, preferences: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preferences = preferences

        ocr_box = QGroupBox("Text in scans and images (OCR)")
        self.languages = QListWidget()
        self.languages.setAccessibleName("OCR languages")
        self.languages.setAccessibleDescription("Ticked languages are read in scanned pages")
        self.languages.setMaximumHeight(140)
        self.languages_note = QLabel("Looking for the installed languages…")
        self.languages_note.setWordWrap(True)
        more = QLabel(MORE_LANGUAGES)
        more.setWordWrap(True)
        more.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        ocr_column = QVBoxLayout(ocr_box)
        ocr_column.addWidget(QLabel("Read scanned pages in these languages:"))
        ocr_column.addWidget(self.languages)
        ocr_column.addWidget(self.languages_note)
        ocr_column.addWidget(more)

        whisper_box = QGroupBox("Speech in recordings and videos (Whisper)")
        self.bundled_model = QRadioButton("The bundled model (Whisper base, English and more)")
        self.folder_model = QRadioButton("A model folder of my own (CTranslate2 format):")
        group = QButtonGroup(self)
        group.addButton(self.bundled_model)
        group.addButton(self.folder_model)
        self.model_folder = QLineEdit()
        self.model_folder.setAccessibleName("Whisper model folder")
        self.model_folder.setPlaceholderText("No folder chosen")
        choose = QPushButton("C&hoose…")
        choose.clicked.connect(self.choose_model_folder)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.model_folder, 1)
        folder_row.addWidget(choose)
        whisper_column = QVBoxLayout(whisper_box)
        whisper_column.addWidget(self.bundled_model)
        whisper_column.addWidget(self.folder_model)
        whisper_column.addLayout(folder_row)

        column = QVBoxLayout(self)
        column.addWidget(ocr_box)
        column.addWidget(whisper_box)
        column.addStretch(1)

        folder = preferences.whisper_model_dir()
        self.model_folder.setText(folder or "")
        (self.folder_model if folder else self.bundled_model).setChecked(True)
        self.model_folder.textEdited.connect(lambda _: self.folder_model.setChecked(True))
        self._fill_languages(list(preferences.ocr_languages()), installed=None)
        call_in_worker(
            self,
            installed_ocr_languages,
            on_done=lambda names: self._fill_languages(self.chosen_languages(), names),
            on_failed=self.languages_note.setText,
        )

    def chosen_languages(self) -> list[str]:
        items = (self.languages.item(row) for row in range(self.languages.count()))
        return [
            str(item.data(Qt.ItemDataRole.UserRole))
            for item in items
            if item.checkState() == Qt.CheckState.Checked
        ]

    def choose_model_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Choose a Whisper model folder", self.model_folder.text()
        )
        if folder:
            self.model_folder.setText(folder)
            self.folder_model.setChecked(True)

    def save(self) -> None:
        self.preferences.set_ocr_languages(self.chosen_languages())
        folder = self.model_folder.text().strip()
        self.preferences.set_whisper_model_dir(
            folder if self.folder_model.isChecked() and folder else None
        )

    def _fill_languages(self, chosen: list[str], installed: list[str] | None) -> None:
        self.languages.clear()
        for code in sorted(set(chosen) | set(installed or [])):
            missing = installed is not None and code not in installed
            item = QListWidgetItem(f"{code}  (not installed)" if missing else code)
            item.setData(Qt.ItemDataRole.UserRole, code)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if code in chosen else Qt.CheckState.Unchecked)
            self.languages.addItem(item)
        if installed is not None:
            self.languages_note.setText(
                f"{len(installed)} language{'s' if len(installed) != 1 else ''} installed."
            )
