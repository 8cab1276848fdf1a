"""A filter list that stays open while several boxes are ticked: the graph's Types and Links.

A menu of checkable actions closes at every click, so unticking three types meant opening it
three times. Here the boxes are real check boxes in a widget of their own, shown in a menu
through a ``QWidgetAction``: a click on a box ticks it and the menu stays, and it goes as any
menu goes (a click outside it, Escape). "All" and "None" tick or untick every box at once. The
menu pops up with ``popup()``, which returns at once: no nested event loop waits on it. The
keyboard works as in a list: Space ticks, the arrow keys and Tab go from box to box (a menu
would otherwise take Tab for itself and leave its boxes behind).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QIcon, QKeyEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
    QWidgetAction,
)

STEPS = {Qt.Key.Key_Tab: 1, Qt.Key.Key_Down: 1, Qt.Key.Key_Backtab: -1, Qt.Key.Key_Up: -1}


class CheckList(QWidget):
    """A column of check boxes with All and None; ``changed`` after every tick."""

    changed = Signal()

    def __init__(self, what: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.what = what  # what the boxes choose, for accessible names ("types")
        self.boxes: dict[str, QCheckBox] = {}
        self._column = QVBoxLayout()
        self._column.setSpacing(2)
        self.all_button = QPushButton("All")
        self.none_button = QPushButton("None")
        self.all_button.setAccessibleName(f"Show every one of the {what}")
        self.none_button.setAccessibleName(f"Show none of the {what}")
        self.all_button.clicked.connect(lambda: self.set_all(True))
        self.none_button.clicked.connect(lambda: self.set_all(False))
        buttons = QHBoxLayout()
        buttons.addWidget(self.all_button)
        buttons.addWidget(self.none_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addLayout(self._column)
        layout.addLayout(buttons)
        for button in (self.all_button, self.none_button):
            button.installEventFilter(self)

    def set_items(
        self,
        names: Sequence[str],
        texts: Sequence[str] | None = None,
        icons: Sequence[QIcon] | None = None,
        tips: Sequence[str] | None = None,
    ) -> None:
        """One ticked box per name, showing ``texts`` (the names if None)."""
        for box in self.boxes.values():
            self._column.removeWidget(box)
            box.deleteLater()
        self.boxes = {}
        for number, name in enumerate(names):
            text = texts[number] if texts is not None else name
            box = QCheckBox(text.replace("&", "&&"))
            box.setAccessibleName(f"Show {text}")
            if icons is not None:
                box.setIcon(icons[number])
            if tips is not None:
                box.setToolTip(tips[number])
            box.setChecked(True)
            box.toggled.connect(lambda _=False: self.changed.emit())
            box.installEventFilter(self)
            self._column.addWidget(box)
            self.boxes[name] = box

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Tab, Shift+Tab and the arrow keys move between the boxes and buttons."""
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        step = STEPS.get(Qt.Key(event.key()))
        stops: list[QWidget] = [*self.boxes.values(), self.all_button, self.none_button]
        if step is None or watched not in stops:
            return False
        stops[(stops.index(watched) + step) % len(stops)].setFocus(Qt.FocusReason.TabFocusReason)
        return True

    def checked(self) -> list[str]:
        return [name for name, box in self.boxes.items() if box.isChecked()]

    def all_checked(self) -> bool:
        return all(box.isChecked() for box in self.boxes.values())

    def set_all(self, checked: bool) -> None:
        """Tick or untick every box, saying ``changed`` once."""
        if all(box.isChecked() == checked for box in self.boxes.values()):
            return
        for box in self.boxes.values():
            box.blockSignals(True)
            box.setChecked(checked)
            box.blockSignals(False)
        self.changed.emit()


class FilterButton(QToolButton):
    """A tool button that pops up a ``CheckList`` which stays open while boxes are ticked;
    its text says how many of them are shown ("Types: 3 of 12")."""

    def __init__(self, title: str, what: str, tip: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.setToolTip(tip)
        self.setAccessibleName(f"{title}: choose which {what} to show")
        self.checklist = CheckList(what)
        self.menu_ = QMenu(self)
        action = QWidgetAction(self.menu_)
        action.setDefaultWidget(self.checklist)
        self.menu_.addAction(action)
        self.clicked.connect(self.open_list)
        self.checklist.changed.connect(self._say_count)
        self._say_count()

    def open_list(self) -> None:
        """Show the list below the button (it returns at once; the list stays until a click
        outside it or Escape)."""
        self.menu_.popup(self.mapToGlobal(QPoint(0, self.height())))
        first = next(iter(self.checklist.boxes.values()), None)
        if first is not None:
            first.setFocus()

    def _say_count(self) -> None:
        boxes = self.checklist.boxes
        shown = len(self.checklist.checked())
        if not boxes or shown == len(boxes):
            self.setText(f"{self.title} ▾")
        else:
            self.setText(f"{self.title}: {shown} of {len(boxes)} ▾")
