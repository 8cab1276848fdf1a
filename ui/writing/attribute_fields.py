"""One field per attribute the pack declares, by its kind: a line of text (string), a date that
may be empty with a calendar to pick it from (date), a number, a check box (boolean), values
separated by commas (list), and, for a type with status words, a list of the pack's words that
also takes words of the person's own (the engine keeps those in ``status_note``).

Each field is one widget (so a form label's Alt key reaches it) holding its editor and, under
it, a line saying how the value was read: the date in words, the values of a list, what a
status word means. The pack's description of the attribute is its tooltip and accessible
description. A field answers with what a save should change (``changes``): for a new memory
its value when it has one; for an edit only what the person changed, ``None`` for a field
they emptied (``MemoryService.revise`` removes it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from PySide6.QtCore import QDate, QLocale, Qt, Signal
from PySide6.QtWidgets import (
    QCalendarWidget,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
    QWidgetAction,
)

from cairn.app.api import AttrSpec, NodeType

STATUS, STATUS_NOTE = "status", "status_note"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


class FieldProblem(ValueError):
    """A value that cannot be read as its kind: the sentence says how to write it."""


def attribute_label(name: str) -> str:
    """``status_note`` -> "Status note"."""
    words = name.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


class AttributeField(QWidget):
    """The editor of one attribute, with a line under it that says how it was read."""

    edited = Signal()

    def __init__(self, spec: AttrSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.label = attribute_label(spec.name)
        self._loaded: Any = None  # the value it was opened with (an edit), None if it had none
        self._loaded_text = ""  # what it showed then
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setVisible(False)
        self._row = QHBoxLayout()
        self._row.setContentsMargins(0, 0, 0, 0)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addLayout(self._row)
        column.addWidget(self.hint)

    def _use(self, editor: QWidget) -> None:
        """Make ``editor`` the field's: named and described for a screen reader, and the
        widget a label's Alt key and a click on the label give the focus to."""
        editor.setAccessibleName(self.label)
        described = self.spec.description
        if self.spec.required:
            described = f"Required. {described}".strip()
        editor.setAccessibleDescription(described)
        editor.setToolTip(described)
        self.setFocusProxy(editor)
        self._row.addWidget(editor, 1)

    def focus_chain(self) -> list[QWidget]:
        """The widgets Tab visits in this field, in order."""
        proxy = self.focusProxy()
        return [proxy] if proxy is not None else []

    def _say(self, text: str) -> None:
        self.hint.setText(text)
        self.hint.setVisible(bool(text))

    # -- what a form asks ---------------------------------------------------------------------

    def value(self) -> Any:
        """The value as the pack's kind (None when empty); ``FieldProblem`` if unreadable."""
        raise NotImplementedError

    def set_value(self, value: Any) -> None:
        raise NotImplementedError

    def text(self) -> str:
        """What the field shows, to tell whether the person changed anything."""
        raise NotImplementedError

    def set_text(self, text: str) -> None:
        """Show ``text`` as typed (what another kind's field of this name held)."""
        raise NotImplementedError

    def load(self, attrs: dict[str, Any]) -> None:
        """Show a memory's value of this attribute (or nothing), as what an edit starts from."""
        self.set_value(attrs.get(self.spec.name))
        self._loaded_text = self.text()
        self._loaded = attrs.get(self.spec.name)

    def is_empty(self) -> bool:
        return not self.text().strip()

    def changes(self, editing: bool) -> dict[str, Any]:
        """What a save writes of this field: a new memory's value, or an edit's change."""
        value = self.value()
        if not editing:
            return {} if value is None else {self.spec.name: value}
        if self.text() == self._loaded_text:
            return {}
        return {self.spec.name: value}


class TextField(AttributeField):
    """A string attribute: one line of text."""

    def __init__(self, spec: AttrSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.editor = QLineEdit()
        self.editor.textChanged.connect(self.edited)
        self._use(self.editor)

    def value(self) -> Any:
        return self.editor.text().strip() or None

    def set_value(self, value: Any) -> None:
        self.editor.setText("" if value is None else str(value))

    def text(self) -> str:
        return self.editor.text()

    def set_text(self, text: str) -> None:
        self.editor.setText(text)


class NumberField(TextField):
    """A number attribute: typed, read with a point or a comma before the decimals."""

    def __init__(self, spec: AttrSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.editor.setPlaceholderText("a number, such as 3 or 0.8")
        self.editor.textChanged.connect(self._read_back)

    def value(self) -> Any:
        typed = self.editor.text().strip()
        if not typed:
            return None
        plain = typed.replace(",", ".") if "." not in typed else typed.replace(",", "")
        try:
            number = float(plain)
        except ValueError:
            raise FieldProblem(f"{self.label} is a number: “{typed}” is not one.") from None
        if not math.isfinite(number):
            raise FieldProblem(f"{self.label} is a number: “{typed}” is not one.")
        return int(number) if number.is_integer() and "." not in plain else number

    def _read_back(self) -> None:
        try:
            number = self.value()
        except FieldProblem:
            self._say("Not a number yet.")
            return
        typed = self.editor.text().strip()
        self._say("" if number is None or str(number) == typed else f"Read as {number}.")


class DateField(AttributeField):
    """A date attribute that may be empty: typed as 2024-03-01 or picked from a calendar, and
    said back in words. (Qt's date edit always holds some date, so it cannot say "none".)"""

    def __init__(self, spec: AttrSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.editor = QLineEdit()
        self.editor.setPlaceholderText("YYYY-MM-DD, or none")
        self.editor.textChanged.connect(self.edited)
        self.editor.textChanged.connect(self._read_back)
        self._use(self.editor)
        self.calendar = QCalendarWidget()
        self.calendar.setAccessibleName(f"Calendar for {self.label.lower()}")
        self.calendar.clicked.connect(self.pick)
        self.calendar.activated.connect(self.pick)
        self._menu = QMenu(self)
        holder = QWidgetAction(self._menu)
        holder.setDefaultWidget(self.calendar)
        self._menu.addAction(holder)
        self._menu.aboutToShow.connect(self._show_typed_date)
        self.pick_button = QToolButton()
        self.pick_button.setText("Pick…")
        self.pick_button.setAccessibleName(f"Pick the {self.label.lower()} from a calendar")
        self.pick_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.pick_button.setMenu(self._menu)
        self._row.addWidget(self.pick_button)

    def focus_chain(self) -> list[QWidget]:
        return [self.editor, self.pick_button]

    def pick(self, day: QDate) -> None:
        """The calendar's choice becomes the field's date."""
        self.editor.setText(day.toString(Qt.DateFormat.ISODate))
        self._menu.close()
        self.editor.setFocus()

    def _show_typed_date(self) -> None:
        typed = _read_date(self.editor.text().strip())
        start = QDate(typed.year, typed.month, typed.day) if typed else QDate.currentDate()
        self.calendar.setSelectedDate(start)
        self.calendar.setFocus()

    def value(self) -> Any:
        typed = self.editor.text().strip()
        if not typed:
            return None
        if _read_date(typed) is None:
            raise FieldProblem(
                f"{self.label} is a date: write it as 2024-03-01, or pick it from the calendar."
            )
        return typed

    def set_value(self, value: Any) -> None:
        self.editor.setText("" if value is None else str(value))

    def text(self) -> str:
        return self.editor.text()

    def set_text(self, text: str) -> None:
        self.editor.setText(text)

    def _read_back(self) -> None:
        typed = self.editor.text().strip()
        day = _read_date(typed)
        if not typed:
            self._say("")
        elif day is None:
            self._say("Not a date yet: YYYY-MM-DD.")
        else:
            shown = QDate(day.year, day.month, day.day)
            self._say(QLocale().toString(shown, QLocale.FormatType.LongFormat))


def _read_date(typed: str) -> date | None:
    """The day ``typed`` names: ``YYYY-MM-DD``, or an ISO time starting with one."""
    if not _DATE.match(typed):
        return None
    try:
        if len(typed) == len("YYYY-MM-DD"):
            return date.fromisoformat(typed)
        return datetime.fromisoformat(typed).date()
    except ValueError:
        return None


class FlagField(AttributeField):
    """A yes-or-no attribute: a check box. Left unticked on a new memory, it is not stated."""

    def __init__(self, spec: AttrSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.editor = QCheckBox()
        self.editor.toggled.connect(self.edited)
        self._use(self.editor)
        self._row.addStretch(1)

    def value(self) -> Any:
        if self.editor.isChecked():
            return True
        return False if self._loaded is not None else None

    def set_value(self, value: Any) -> None:
        self.editor.setChecked(value is True)

    def text(self) -> str:
        return "yes" if self.editor.isChecked() else ""

    def set_text(self, text: str) -> None:
        self.editor.setChecked(text == "yes")

    def is_empty(self) -> bool:
        return False  # unticked is an answer too: no


class ListField(TextField):
    """A list attribute: values separated by commas, each shown back as it will be kept."""

    def __init__(self, spec: AttrSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.editor.setPlaceholderText("separated by commas")
        self.editor.textChanged.connect(self._read_back)

    def value(self) -> Any:
        return parse_list(self.editor.text()) or None

    def set_value(self, value: Any) -> None:
        items = value if isinstance(value, list) else []
        self.editor.setText(", ".join(str(item) for item in items))

    def _read_back(self) -> None:
        items = parse_list(self.editor.text())
        count = f"{len(items)} values" if len(items) != 1 else "1 value"
        self._say((f"{count}: " + " · ".join(items)) if items else "")


def parse_list(text: str) -> list[str]:
    """``"Ada, Ady ,, A. L., Ada"`` -> ``["Ada", "Ady", "A. L."]`` (each once, in order)."""
    items: list[str] = []
    for part in text.split(","):
        item = part.strip()
        if item and item not in items:
            items.append(item)
    return items


class StatusField(AttributeField):
    """The status of a type that has status words: the pack's words to choose from, or a word
    of the person's own, which the engine keeps as the status note. Both attributes are this
    one field's, so an own word replaces an earlier note rather than standing beside it."""

    def __init__(
        self,
        spec: AttrSpec,
        node_type: NodeType,
        order: Sequence[str] = (),
        parent: QWidget | None = None,
    ) -> None:
        """``order``: the pack's words in the order its file gives them (a project is planned,
        then active...); a vault keeps them without an order."""
        super().__init__(spec, parent)
        self.words = node_type.statuses  # word -> canonical, casefolded
        self.editor = QComboBox()
        self.editor.setEditable(True)
        self.editor.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        canonical = [word for word, meant in self.words.items() if word == meant]
        rank = {word: at for at, word in enumerate(order)}
        self.editor.addItems(sorted(canonical, key=lambda word: (rank.get(word, len(rank)), word)))
        self.editor.setCurrentIndex(-1)
        self.editor.currentTextChanged.connect(self.edited)
        self.editor.currentTextChanged.connect(self._read_back)
        line = self.editor.lineEdit()
        assert line is not None  # an editable combo box has its line
        line.setPlaceholderText("choose, or write your own")
        self._use(self.editor)

    def value(self) -> Any:
        return self.editor.currentText().strip() or None

    def set_value(self, value: Any) -> None:
        self.editor.setCurrentText("" if value is None else str(value))

    def text(self) -> str:
        return self.editor.currentText()

    def set_text(self, text: str) -> None:
        self.editor.setCurrentText(text)

    def load(self, attrs: dict[str, Any]) -> None:
        # An own word is kept in status_note while status stays unset: show it as the status.
        shown = attrs.get(STATUS) or attrs.get(STATUS_NOTE)
        super().load({STATUS: shown} if shown is not None else {})

    def changes(self, editing: bool) -> dict[str, Any]:
        word = self.value()
        if not editing:
            return {} if word is None else {STATUS: word}
        if self.text() == self._loaded_text:
            return {}
        # A new status, in the pack's words or the person's: the engine sorts it into status
        # or status_note, and the old note goes (it said the status this one replaces).
        return {STATUS: word, STATUS_NOTE: None}

    def meaning(self) -> str:
        word = " ".join(self.editor.currentText().casefold().split())
        canonical = self.words.get(word)
        if not word or canonical == word:
            return ""
        if canonical is not None:
            return f"Means “{canonical}”."
        return "Your own words: kept as the status note; the pack's words are in the list."

    def _read_back(self) -> None:
        self._say(self.meaning())


def field_for(
    spec: AttrSpec, node_type: NodeType, status_order: Sequence[str] = ()
) -> AttributeField | None:
    """The field of one attribute, by its kind; None for the status note of a type with status
    words (its status field holds it, listing them in ``status_order``)."""
    if node_type.statuses and spec.name == STATUS_NOTE:
        return None
    if node_type.statuses and spec.name == STATUS:
        return StatusField(spec, node_type, status_order)
    kinds: dict[str, type[AttributeField]] = {
        "string": TextField,
        "date": DateField,
        "number": NumberField,
        "boolean": FlagField,
        "list": ListField,
    }
    return kinds.get(spec.kind, TextField)(spec)
