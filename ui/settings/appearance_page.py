"""Settings › Appearance: the theme and the size of the text, applied to the whole window as
soon as they are chosen, so the person sees what they pick. OK or Apply keeps them in this
computer's preferences; Cancel puts back what was kept (``revert``)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QComboBox, QFormLayout, QLabel, QWidget

from cairn.ui.base import appearance
from cairn.ui.base.preferences import Preferences


def _application() -> QApplication:
    app = QApplication.instance()
    assert isinstance(app, QApplication), "the window runs in a QApplication"
    return app


class AppearancePage(QWidget):
    def __init__(self, preferences: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preferences = preferences
        self.theme = QComboBox()
        self.theme.setAccessibleName("Theme")
        for key, name in appearance.THEMES.items():
            self.theme.addItem(name, key)
        self.font_size = QComboBox()
        self.font_size.setAccessibleName("Text size")
        for key, (name, _factor) in appearance.FONT_SIZES.items():
            self.font_size.addItem(name, key)
        self._select(self.theme, preferences.theme())
        self._select(self.font_size, preferences.font_size())

        explained = QLabel(
            "Both apply at once to the whole window. They belong to this computer, not to the "
            "vault."
        )
        explained.setWordWrap(True)
        form = QFormLayout(self)
        form.addRow("&Theme:", self.theme)
        form.addRow("Text &size:", self.font_size)
        form.addRow(explained)

        self.theme.currentIndexChanged.connect(lambda _: self._apply_theme())
        self.font_size.currentIndexChanged.connect(lambda _: self._apply_font_size())

    def chosen_theme(self) -> str:
        return str(self.theme.currentData())

    def chosen_font_size(self) -> str:
        return str(self.font_size.currentData())

    def save(self) -> None:
        self.preferences.set_theme(self.chosen_theme())
        self.preferences.set_font_size(self.chosen_font_size())

    def revert(self) -> None:
        """Put back the look the preferences keep (the dialog was cancelled)."""
        self._select(self.theme, self.preferences.theme())
        self._select(self.font_size, self.preferences.font_size())

    def _apply_theme(self) -> None:
        appearance.apply_theme(_application(), self.chosen_theme())

    def _apply_font_size(self) -> None:
        appearance.apply_font_size(_application(), self.chosen_font_size())

    @staticmethod
    def _select(combo: QComboBox, key: str) -> None:
        combo.setCurrentIndex(max(0, combo.findData(key)))
