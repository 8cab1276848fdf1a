"""Settings › Memory: how the vault keeps what is written, first as plain questions with named
steps (``plain_choices``), then, under Advanced, every raw setting with its help text, as
``cairn settings`` names it.

The two halves show the same settings: a step chosen sets the numbers under Advanced, and a
number changed there shows its question's step, or "Custom" when it matches none. What is
saved is what the Advanced fields hold (``changes``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import SETTINGS
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.scaled_font import keep_scaled
from cairn.ui.settings.plain_choices import CUSTOM, DECIMALS, PLAIN_CHOICES, PlainChoice

HELP_TEXT_SCALE = 0.9  # the help under a field reads as secondary to the field's name
INTRO = (
    "These belong to the vault: they travel with it to any computer. A change applies to the "
    "next memory written. Nothing is ever lost by them: a note treated as the same as another "
    "is kept beside it."
)
ADVANCED = "Advanced: the numbers behind these choices"

Field = QDoubleSpinBox | QComboBox


def _secondary(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    keep_scaled(label, HELP_TEXT_SCALE)  # smaller than the text around it, at any size
    return label


class MemoryPage(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plain: dict[str, QComboBox] = {}
        self._says: dict[str, QLabel] = {}
        column = QVBoxLayout(self)
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        column.addWidget(intro)
        for choice in PLAIN_CHOICES:
            column.addWidget(self._question(choice))

        self.advanced_button = QToolButton()
        self.advanced_button.setText(ADVANCED)
        self.advanced_button.setAccessibleName("Show the advanced memory settings")
        self.advanced_button.setCheckable(True)
        self.advanced_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.advanced_button.setArrowType(Qt.ArrowType.RightArrow)
        self.advanced_button.toggled.connect(self._show_advanced)
        self.advanced = self._advanced_fields()
        self.advanced.setVisible(False)
        self.notice = NoticeLabel()
        column.addWidget(self.advanced_button)
        column.addWidget(self.advanced)
        column.addWidget(self.notice)
        column.addStretch(1)

    # -- the two halves -----------------------------------------------------------------------

    def _question(self, choice: PlainChoice) -> QWidget:
        box = QWidget()
        rows = QVBoxLayout(box)
        rows.setContentsMargins(0, 8, 0, 0)
        question = QLabel(choice.question)
        question.setWordWrap(True)
        combo = QComboBox()
        combo.setAccessibleName(choice.question)
        for step in choice.steps:
            combo.addItem(step.name)
        combo.addItem(CUSTOM)
        question.setBuddy(combo)
        says = _secondary("")
        rows.addWidget(question)
        rows.addWidget(combo)
        rows.addWidget(says)
        combo.currentIndexChanged.connect(lambda index, c=choice: self._step_chosen(c, index))
        self.plain[choice.key] = combo
        self._says[choice.key] = says
        return box

    def _advanced_fields(self) -> QWidget:
        box = QWidget()
        form = QFormLayout(box)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(_secondary("The same settings as the command `cairn settings`."))
        self.fields: dict[str, Field] = {}
        for name, spec in SETTINGS.items():
            field: Field
            if spec.choices:
                field = QComboBox()
                field.addItems(spec.choices)
                field.currentTextChanged.connect(lambda _: self._follow_fields())
            else:
                field = QDoubleSpinBox()
                field.setRange(*spec.bounds)
                field.setDecimals(DECIMALS if not spec.whole else 0)
                field.setSingleStep(0.01 if not spec.whole else 1)
                field.valueChanged.connect(lambda _: self._follow_fields())
            label = name.replace("_", " ").capitalize()
            field.setToolTip(spec.help)
            field.setAccessibleName(label)
            form.addRow(label + ":", field)
            form.addRow("", _secondary(spec.help[0].upper() + spec.help[1:] + "."))
            self.fields[name] = field
        return box

    def _show_advanced(self, shown: bool) -> None:
        self.advanced.setVisible(shown)
        arrow = Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        self.advanced_button.setArrowType(arrow)

    # -- values -------------------------------------------------------------------------------

    def show_values(self, settings: dict[str, Any]) -> None:
        """Show the vault's settings in both halves."""
        for name, field in self.fields.items():
            if isinstance(field, QComboBox):
                field.setCurrentText(str(settings[name]))
            else:
                field.setValue(float(settings[name]))
        self._follow_fields()

    def values(self) -> dict[str, Any]:
        """Every setting as the Advanced fields hold it now."""
        return {
            name: field.currentText() if isinstance(field, QComboBox) else field.value()
            for name, field in self.fields.items()
        }

    def changes(self, loaded: dict[str, Any]) -> dict[str, Any]:
        """The settings that differ from ``loaded`` (the vault's, as last read)."""
        changed: dict[str, Any] = {}
        for name, value in self.values().items():
            if name not in loaded:
                continue
            if isinstance(value, str):
                if value != loaded[name]:
                    changed[name] = value
            elif value != round(float(loaded[name]), DECIMALS):
                changed[name] = value
        return changed

    def _step_chosen(self, choice: PlainChoice, index: int) -> None:
        if index >= len(choice.steps):  # "Custom": the numbers stay as they are
            return
        for name, value in choice.steps[index].values.items():
            field = self.fields[name]
            if isinstance(field, QComboBox):
                field.setCurrentText(str(value))
            else:
                field.setValue(float(value))
        self._follow_fields()

    def _follow_fields(self) -> None:
        """Each question shows the step its numbers match, or Custom."""
        values = self.values()
        for choice in PLAIN_CHOICES:
            combo = self.plain[choice.key]
            step = choice.step_for(values)
            combo.blockSignals(True)
            combo.setCurrentIndex(len(choice.steps) if step is None else step)
            combo.blockSignals(False)
            says = self._says[choice.key]
            says.setText(
                choice.steps[step].says
                if step is not None
                else "Set by the numbers under Advanced; pick a step to use it instead."
            )
