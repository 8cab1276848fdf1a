"""The form for a new memory of any kind a person writes by hand (File › New › Fact, Person,
Place, Project, Task…), and for editing one: built from the vault's pack when it opens, not
written per type. A title (a name, for a person or a place), a text, and one field per
attribute of the kind chosen (``attribute_fields``); the kind can be switched while writing and
the fields follow, keeping what was typed into a field both kinds have.

Save writes through ``MemoryService.write`` in a worker (a capture from the inbox through
``inbox_promote``, which also marks it sorted) and says what the write came to in words
(``write_outcome``): stored, added to a memory already kept, linked, awaiting review... with a
button to open the memory. From then on the form edits that memory: each later Save with
changes makes one new version (``MemoryService.revise``), so the old values stay as history.
An error is said in a sentence and the text stays. Closing with unsaved changes asks first;
locking the vault clears the form and closes it, leaving no memory text on screen.
"""

from __future__ import annotations

from functools import cache
from itertools import pairwise
from typing import Any

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import CairnError, Node, NodeType, Pack
from cairn.ui.base.keys import EDITOR_SAVE
from cairn.ui.base.notify import NoticeLabel
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.screen_fit import fit_to_screen
from cairn.ui.base.session import Session
from cairn.ui.writing.attribute_fields import AttributeField, FieldProblem, field_for
from cairn.ui.writing.form_store import DEFAULT_SCOPE, Request, Stored, store, versioned_types
from cairn.ui.writing.kinds import form_types, kind_label, taken_letters, with_mnemonic
from cairn.ui.writing.unsaved import ask_to_save

BODY_MIN_HEIGHT = 90  # a few lines; the text grows with the window
FORM_SIZE = QSize(620, 540)  # cut down to a small screen, where the fields scroll


class MemoryForm(QDialog):
    saved = Signal(str)  # the id of the memory the save came to
    open_requested = Signal(str)  # the person asked to see that memory

    def __init__(
        self,
        session: Session,
        parent: QWidget | None = None,
        *,
        node: Node | None = None,
        type_name: str | None = None,
        title: str = "",
        body: str = "",
        capture: str | None = None,
    ) -> None:
        """A new memory of ``type_name`` (prefilled with ``title`` and ``body``; ``capture``
        is the inbox capture it is made of), or, with ``node``, an edit of that memory."""
        super().__init__(parent)
        self.session = session
        service = session.service
        self._node_types = dict(service.node_types()) if service is not None else {}
        self._can_version = versioned_types(service)
        self.node_id: str | None = None
        self._capture = capture
        self._saving = False
        self._force_new = False
        self.close_question: QMessageBox | None = None
        self.fields: dict[str, AttributeField] = {}
        self._saved_state: tuple[Any, ...] = ()
        fit_to_screen(self, FORM_SIZE)
        self._build(node.type if node else type_name)
        self._saved_state = self._state()  # nothing typed yet: nothing to lose
        if node is not None:
            self._load(node)
        else:
            self.title.setText(title)
            self.body.setPlainText(body)
        self._load_scopes()
        session.locked.connect(self._locked)
        self._update()
        (self.body if node else self.title).setFocus()

    # -- building -----------------------------------------------------------------------------

    def _build(self, type_name: str | None) -> None:
        kinds = form_types(self._node_types)
        if type_name and type_name not in kinds and type_name in self._node_types:
            kinds.append(type_name)  # a memory of another kind, opened for an edit
        self.kind = QComboBox()
        self.kind.setAccessibleName("Kind of memory")
        for name in kinds:
            self.kind.addItem(kind_label(name), name)
        if type_name in kinds:
            self.kind.setCurrentIndex(kinds.index(type_name))
        self.kind_hint = QLabel()
        self.kind_hint.setWordWrap(True)
        self.title = QLineEdit()
        self.body = QPlainTextEdit()
        self.body.setTabChangesFocus(True)  # Tab goes on to the fields, as in the rest
        self.body.setMinimumHeight(BODY_MIN_HEIGHT)
        self.scope = QComboBox()
        self.scope.setAccessibleName("Scope")
        self.scope.addItem(DEFAULT_SCOPE)
        self.notice = NoticeLabel()

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setText("&Save")
        self.save_button.setToolTip(EDITOR_SAVE.shown)
        self.save_button.setAccessibleName("Save")
        self.save_button.setDefault(True)  # Enter in a field saves, as in any form
        self.save_button.clicked.connect(self.save)
        close_button = self.buttons.button(QDialogButtonBox.StandardButton.Close)
        close_button.setText("&Close")
        close_button.setAccessibleName("Close")
        self.buttons.rejected.connect(self.reject)
        self.open_button = QPushButton("&Open it")
        self.open_button.setAccessibleName("Open the memory saved")
        self.open_button.clicked.connect(self._open_saved)
        self.anyway_button = QPushButton("Save &anyway")
        self.anyway_button.setAccessibleName("Save as a new memory anyway")
        self.anyway_button.clicked.connect(self._save_anyway)
        for button in (self.open_button, self.anyway_button):
            self.buttons.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
            button.setVisible(False)
        for keys in EDITOR_SAVE.sequences():
            QShortcut(keys, self).activated.connect(self.save)

        # One form for the fixed rows and the attributes' rows, so their labels line up.
        self._form = QFormLayout()
        self._form.addRow("&Kind:", self.kind)
        self._form.addRow("", self.kind_hint)
        self._form.addRow("&Title:", self.title)
        self._form.addRow("Te&xt:", self.body)
        self._form.addRow("Sco&pe:", self.scope)
        self._form.setRowVisible(self.scope, False)  # shown once a second scope exists
        # The fields scroll; what Save said and the buttons stay in sight below them.
        fields = QWidget()
        fields.setLayout(self._form)
        self.fields_area = QScrollArea()
        self.fields_area.setWidgetResizable(True)
        self.fields_area.setFrameShape(QFrame.Shape.NoFrame)
        self.fields_area.setWidget(fields)
        # A field reached by its Alt key or a click, not only by Tab, scrolls into sight.
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._keep_in_sight)
        column = QVBoxLayout(self)
        column.addWidget(self.fields_area, 1)
        column.addWidget(self.notice)
        column.addWidget(self.buttons)

        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.title.textChanged.connect(self._update)
        self.body.textChanged.connect(self._update)
        self._show_kind({})

    def _keep_in_sight(self, _old: QWidget | None, now: QWidget | None) -> None:
        fields = self.fields_area.widget()
        if now is not None and fields is not None and fields.isAncestorOf(now):
            self.fields_area.ensureWidgetVisible(now)

    @property
    def type_name(self) -> str:
        return str(self.kind.currentData() or "")

    def _node_type(self) -> NodeType | None:
        return self._node_types.get(self.type_name)

    def _show_kind(self, kept: dict[str, tuple[str, str]]) -> None:
        """The fields of the kind chosen; ``kept`` (name -> kind, text) refills those of the
        same name and kind, so switching kinds loses nothing both have."""
        for made in self.fields.values():
            self._form.removeRow(made)  # the field and its label are deleted
        self.fields = {}
        spec = self._node_type()
        entity = spec is not None and spec.family == "entity"
        self._relabel(self.title, "&Name:" if entity else "&Title:")
        self._relabel(self.body, "&Description:" if entity else "Te&xt:")
        self.title.setAccessibleName("Name" if entity else "Title")
        self.body.setAccessibleName("Description" if entity else "Text")
        self.kind_hint.setText(spec.description if spec else "")
        if spec is None:
            return
        taken = taken_letters(
            ["&Kind", self._label_text(self.title), self._label_text(self.body), "Sco&pe"]
            + [b.text() for b in self.buttons.buttons()]
        )
        order = self._status_order(spec.name)
        for name, attr in spec.attrs.items():
            attr_field = field_for(attr, spec, order)
            if attr_field is None:
                continue
            if name in kept and kept[name][0] == attr.kind:
                attr_field.set_text(kept[name][1])
            label = with_mnemonic(attr_field.label, taken) + (
                " (required)" if attr.required else ""
            )
            self._form.addRow(f"{label}:", attr_field)
            self._form.labelForField(attr_field).setToolTip(attr.description)
            attr_field.edited.connect(self._update)
            self.fields[name] = attr_field
        self._order_tabs()
        self._update()

    def _order_tabs(self) -> None:
        """Tab goes down the form as it reads: the text, then each field, then the buttons
        (fields made after the buttons would otherwise come last)."""
        chain: list[QWidget] = [self.kind, self.title, self.body, self.scope]
        for attr_field in self.fields.values():
            chain += attr_field.focus_chain()
        chain += self.buttons.buttons()
        for first, second in pairwise(chain):
            QWidget.setTabOrder(first, second)

    def _status_order(self, type_name: str) -> list[str]:
        """The status words of ``type_name`` in the order of the pack's file, when the vault's
        pack is one Cairn ships (a vault stores them without an order)."""
        service = self.session.service
        pack = _shipped_pack(service.pack_rules().name) if service is not None else None
        shipped = pack.node_types.get(type_name) if pack is not None else None
        # A pack of the person's own: its words come in the order of the alphabet.
        return [w for w, meant in shipped.statuses.items() if w == meant] if shipped else []

    def _relabel(self, widget: QWidget, text: str) -> None:
        label = self._form.labelForField(widget)
        if isinstance(label, QLabel):
            label.setText(text)

    def _label_text(self, widget: QWidget) -> str:
        label = self._form.labelForField(widget)
        return label.text() if isinstance(label, QLabel) else ""

    def _kind_changed(self) -> None:
        kept = {name: (made.spec.kind, made.text()) for name, made in self.fields.items()}
        self._show_kind(kept)

    # -- state --------------------------------------------------------------------------------

    def _state(self) -> tuple[Any, ...]:
        fields = tuple((name, made.text()) for name, made in self.fields.items())
        return (self.type_name, self.title.text().strip(), self.body.toPlainText(), fields)

    @property
    def dirty(self) -> bool:
        return self._state() != self._saved_state

    @property
    def editing(self) -> bool:
        return self.node_id is not None

    def _update(self) -> None:
        allowed = not self.editing or self.type_name in self._can_version
        ready = bool(self.title.text().strip()) and self.dirty and not self._saving
        self.save_button.setEnabled(ready and allowed and self.session.is_open)
        self.kind.setEnabled(not self.editing and not self._saving)
        label = kind_label(self.type_name).lower()
        named = self.title.text().strip() or (f"Edit {label}" if self.editing else f"New {label}")
        self.setWindowTitle(("• " if self.dirty else "") + named)

    def _load(self, node: Node) -> None:
        """Show ``node`` as the memory this form now edits."""
        self.node_id = node.id
        self._capture = None
        if self.kind.findData(node.type) < 0:  # absorbed into a memory of a kin kind
            self.kind.addItem(kind_label(node.type), node.type)
        self.kind.setCurrentIndex(self.kind.findData(node.type))
        self.title.setText(node.title)
        self.body.setPlainText(node.body)
        for made in self.fields.values():
            made.load(node.attrs)
        self._saved_state = self._state()
        self._update()
        if node.type not in self._can_version:
            self.notice.show_info(
                f"The pack keeps no versions of a {kind_label(node.type).lower()}, so it is "
                "not edited here."
            )

    # -- saving -------------------------------------------------------------------------------

    def request(self) -> Request | None:
        """What Save would write, or None after saying what must be filled in or fixed."""
        title = self.title.text().strip()
        if not title:
            self._refuse(f"Give it a {self._label_text(self.title).strip('&:').lower()}.")
            return None
        attrs: dict[str, Any] = {}
        for made in self.fields.values():
            if made.spec.required and made.is_empty():
                kind = kind_label(self.type_name).lower()
                self._refuse(f"Fill in {made.label.lower()}: a {kind} needs it.", made)
                return None
            try:
                attrs.update(made.changes(self.editing))
            except FieldProblem as problem:
                self._refuse(str(problem), made)
                return None
        return Request(
            self.type_name,
            title,
            self.body.toPlainText(),
            attrs,
            self.scope.currentText(),
            self.node_id,
            self._capture,
            self._force_new,
        )

    def _refuse(self, sentence: str, where: QWidget | None = None) -> None:
        self.notice.show_error(sentence)
        (where or self.title).setFocus()

    def save(self) -> None:
        """Store what the form says: a new memory, or one new version of the one it edits."""
        service = self.session.service
        if service is None or self._saving or not self.dirty:
            return
        if self.editing and self.type_name not in self._can_version:
            return
        request = self.request()
        if request is None:
            return
        spec = self._node_type()
        self._saving = True
        self._update()
        state = self._state()
        call_in_worker(
            self,
            store,
            service,
            request,
            spec.family if spec else "",
            on_done=lambda stored: self._stored(stored, state),
            on_failed=self._failed,
        )

    def _save_anyway(self) -> None:
        self._force_new = True
        self.save()

    def _stored(self, stored: Stored, state: tuple[Any, ...]) -> None:
        self._saving = False
        self._force_new = False
        if stored.node is None:  # held back as a likely duplicate: nothing was written
            self.notice.show_error(stored.sentence)
            self.anyway_button.setVisible(True)
            self._update()
            return
        self.anyway_button.setVisible(False)
        self._load(stored.node)
        self.notice.show_info(stored.sentence)
        self.open_button.setVisible(True)
        self.saved.emit(stored.node.id)
        self.session.changed.emit()

    def _failed(self, sentence: str) -> None:
        self._saving = False
        self.notice.show_error(f"{sentence} Your text is still here; try Save again.")
        self._update()

    def _open_saved(self) -> None:
        if self.node_id is not None:
            self.open_requested.emit(self.node_id)
            self.close()

    # -- closing ------------------------------------------------------------------------------

    def reject(self) -> None:
        """Close (the Close button, Esc, the title bar), asking first about unsaved changes."""
        if self.session.is_open and self.dirty and self.title.text().strip():
            self._ask_before_closing()
            return
        super().reject()

    def _ask_before_closing(self) -> None:
        def save_then_close() -> None:
            # Closes once it is stored; a failure keeps the text here with its message.
            self.saved.connect(lambda _: super(MemoryForm, self).reject())
            self.save()

        what = kind_label(self.type_name).lower()
        self.close_question = ask_to_save(
            self,
            f"Save the {what}?",
            f"This {what} has changes that are not saved.",
            save=save_then_close,
            discard=lambda: super(MemoryForm, self).reject(),
        )
        self.close_question.finished.connect(self._question_closed)

    def _question_closed(self) -> None:
        self.close_question = None

    def _locked(self) -> None:
        # The vault is closed: no memory text stays on screen, not even in a sentence.
        if self.close_question is not None:
            self.close_question.close()
        self.title.clear()
        self.body.clear()
        for made in self.fields.values():
            made.set_value(None)
        self.notice.clear()
        self._saved_state = self._state()
        super().reject()

    def _load_scopes(self) -> None:
        service = self.session.service
        if service is None or self.editing or self._capture is not None:
            return

        def listed(names: list[str]) -> None:
            if names:
                current = self.scope.currentText()
                self.scope.clear()
                self.scope.addItems(names)
                self.scope.setCurrentText(current if current in names else names[0])
                self._form.setRowVisible(self.scope, len(names) > 1)

        # Without the list the memory goes to the default scope: nothing to tell the person.
        call_in_worker(self, service.scopes, on_done=listed, on_failed=lambda _sentence: None)


@cache
def _shipped_pack(name: str) -> Pack | None:
    """The pack Cairn ships under ``name`` (read once), or None for a pack of one's own."""
    try:
        return Pack.bundled(name)
    except (FileNotFoundError, CairnError):
        return None
