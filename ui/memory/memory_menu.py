"""The context menu of a memory, one for every place that lists memories: the detail pane's
links and versions, and (to attach) the search results and the graph's nodes.

    menu = memory_menu(session, node_id, parent)
    menu.open_requested.connect(self.open_requested)  # the panel's own "show this memory"
    menu.popup(global_position)

It offers Open, Open File (when the memory came from a file), Copy Link (the ``[[Title]]``
wikilink a notes app understands), Copy ID, Link To…, Archive or Unarchive, and Forget… behind
the same confirmation as the detail pane's. The menu of an entry of a memory's Links list also
offers Remove Link, for that link only (``offer_remove_link``). The menu shows at once; the
memory is read in a worker, and the entries that need it (all but Open, Copy ID and Remove
Link) are enabled when it is in (``loaded``). Its acts run in workers owned by ``parent``, are
recorded for Edit › Undo (``session.undo_history``), and announce ``session.changed``; a
failure is said in a message box. Every dialog opens without blocking (``open``), so nothing
waits in a nested loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMenu, QMessageBox, QWidget

from cairn.app.api import LinkResult, MemoryService, NodeDetail
from cairn.ui.base.memory_drag import wikilink
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session
from cairn.ui.memory.forget_question import confirm_forget
from cairn.ui.memory.open_at import is_file_source, open_source
from cairn.ui.memory.pickers import LinkDialog


class MemoryMenu(QMenu):
    open_requested = Signal(str)  # Open: the id to show
    loaded = Signal()  # the memory was read; its entries are enabled

    def __init__(self, session: Session, node_id: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setAccessibleName("Memory actions")
        self._session = session
        self._owner = parent
        self.node_id = node_id
        self.detail: NodeDetail | None = None
        self.link_dialog: LinkDialog | None = None
        self.remove_link_action: QAction | None = None
        self.forget_box: QMessageBox | None = None
        self.open_action = self._add("&Open", lambda: self.open_requested.emit(node_id))
        self.open_file_action = self._add("Open &File", self._open_file)
        self.addSeparator()
        self.copy_link_action = self._add("Copy &Link", self._copy_link)
        self.copy_id_action = self._add("Copy &ID", lambda: _copy(node_id))
        self.addSeparator()
        self.link_action = self._add("Link &To…", self.link_to)
        self.archive_action = self._add("&Archive", self._archive_or_unarchive)
        self.addSeparator()
        self.forget_action = self._add("&Forget…", self.forget)
        self._needs_memory = (
            self.open_file_action,
            self.copy_link_action,
            self.link_action,
            self.archive_action,
            self.forget_action,
        )
        for action in self._needs_memory:
            action.setEnabled(False)
        self._load()

    def _add(self, text: str, slot: Callable[[], object]) -> QAction:
        action = self.addAction(text)
        action.triggered.connect(lambda _=False: slot())
        return action

    # -- reading the memory -------------------------------------------------------------------

    def _load(self) -> None:
        service = self._session.service
        if service is None:
            return
        call_in_worker(self, _read, service, self.node_id, on_done=self._show, on_failed=self._gone)

    def _show(self, detail: NodeDetail | None) -> None:
        if detail is None:
            self._gone("This memory is no longer in the vault.")
            return
        self.detail = detail
        node = detail.node
        self.open_file_action.setVisible(bool(node.source) and is_file_source(str(node.source)))
        self.archive_action.setText("Un&archive" if node.status == "archived" else "&Archive")
        for action in self._needs_memory:
            action.setEnabled(True)
        self.loaded.emit()

    def _gone(self, text: str) -> None:
        self.open_file_action.setVisible(False)
        self.setToolTip(text)

    # -- the acts -----------------------------------------------------------------------------

    def _open_file(self) -> None:
        if self.detail is None or not self.detail.node.source:
            return
        node = self.detail.node
        opened = open_source(str(node.source), node.locator)
        if not opened.ok:
            _tell(self._owner, opened.message)

    def _copy_link(self) -> None:
        if self.detail is not None:
            _copy(wikilink(self.detail.node.title))

    def link_to(self) -> LinkDialog | None:
        """Link To…: pick the other memory and how the two are related (a dialog that does
        not block); the link is made once it is accepted."""
        service, detail = self._session.service, self.detail
        if service is None or detail is None:
            return None
        session, owner, node = self._session, self._owner, detail.node
        dialog = LinkDialog(session, service.pack_rules(), node.id, node.type, node.title)
        dialog.setParent(owner, dialog.windowFlags())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def accepted() -> None:
            chosen = dialog.chosen_link()
            if chosen is not None:
                row, option = chosen
                ends = (node.id, str(row.node_id))
                src, dst = ends if option.outgoing else ends[::-1]
                link(session, owner, src, dst, option.edge_type, row.title)

        dialog.accepted.connect(accepted)
        dialog.open()
        self.link_dialog = dialog
        return dialog

    def offer_remove_link(self, src: str, dst: str, edge_type: str, other_title: str) -> QAction:
        """Add Remove Link, for the link ``src -edge_type-> dst`` this menu's entry stands
        for (``other_title``: the memory at its other end); it needs nothing read first."""
        action = QAction("&Remove Link", self)
        action.triggered.connect(
            lambda _=False: unlink(self._session, self._owner, src, dst, edge_type, other_title)
        )
        self.insertAction(self.archive_action, action)
        self.remove_link_action = action
        return action

    def _archive_or_unarchive(self) -> None:
        if self.detail is not None:
            archive(
                self._session,
                self._owner,
                self.detail.node.id,
                self.detail.node.title,
                archived=self.detail.node.status != "archived",
            )

    def forget(self) -> QMessageBox | None:
        """Forget…: the same confirmation as the detail pane's; nothing goes until the
        person presses its destructive button."""
        if self.detail is None:
            return None
        session, owner, node_id = self._session, self._owner, self.detail.node.id
        box = confirm_forget(owner, self.detail)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def answered(button: Any) -> None:
            if box.buttonRole(button) == QMessageBox.ButtonRole.DestructiveRole:
                act(session, owner, lambda s: s.forget(node_id, scopes=s.scopes()))

        box.buttonClicked.connect(answered)
        box.open()
        self.forget_box = box
        return box


# -- the acts, apart from the menu: a menu is gone once it closes, its acts go on -------------


def link(
    session: Session, owner: QWidget, src: str, dst: str, edge_type: str, other_title: str
) -> None:
    """Make the link ``src -edge_type-> dst`` and record it for Undo (when it is new)."""

    def linked(result: LinkResult) -> None:
        history = session.undo_history
        if result.created and history is not None:
            history.record_link(result.src, result.dst, result.type, other_title)

    act(session, owner, lambda s: s.link(src, dst, edge_type, scopes=s.scopes()), linked)


def unlink(
    session: Session, owner: QWidget, src: str, dst: str, edge_type: str, other_title: str
) -> None:
    """Remove exactly the link ``src -edge_type-> dst`` and record it for Undo."""

    def removed(gone: bool) -> None:
        history = session.undo_history
        if not gone:
            _tell(owner, "That link was already gone: nothing was removed.")
        elif history is not None:
            history.record_unlink(src, dst, edge_type, other_title)

    act(session, owner, lambda s: s.unlink(src, dst, edge_type, scopes=s.scopes()), removed)


def archive(session: Session, owner: QWidget, node_id: str, title: str, *, archived: bool) -> None:
    """Archive (``archived``) or unarchive ``node_id`` and record it for Undo."""

    def recorded(_: Any) -> None:
        if session.undo_history is not None:
            session.undo_history.record_archive(node_id, title, archived=archived)

    if archived:
        act(session, owner, lambda s: s.archive(node_id, scopes=s.scopes()), recorded)
    else:
        act(session, owner, lambda s: s.unarchive(node_id, scopes=s.scopes()), recorded)


def act(
    session: Session,
    owner: QWidget,
    fn: Callable[[MemoryService], Any],
    after: Callable[[Any], None] | None = None,
) -> None:
    """Run a write in a worker owned by ``owner``; then ``after`` and ``session.changed``, or
    the failure's sentence in a message box."""
    service = session.service
    if service is None:
        return

    def done(result: Any) -> None:
        if session.service is not service:
            return  # locked meanwhile
        if after is not None:
            after(result)
        session.changed.emit()

    call_in_worker(owner, fn, service, on_done=done, on_failed=lambda text: _tell(owner, text))


def memory_menu(session: Session, node_id: str, parent: QWidget) -> MemoryMenu:
    """The context menu of the memory ``node_id``, owned by ``parent`` (a panel); connect its
    ``open_requested`` and ``popup`` it."""
    menu = MemoryMenu(session, node_id, parent)
    menu.aboutToHide.connect(lambda: _delete_when_done(menu))
    return menu


def _read(service: MemoryService, node_id: str) -> NodeDetail | None:
    found = service.get([node_id], scopes=service.scopes(), use=False).nodes
    return found[0] if found else None


def _copy(text: str) -> None:
    clipboard = QGuiApplication.clipboard()
    if clipboard is not None:
        clipboard.setText(text)


def _tell(parent: QWidget, text: str) -> None:
    box = QMessageBox(
        QMessageBox.Icon.Warning, "Cairn", text, QMessageBox.StandardButton.Ok, parent
    )
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()


def _delete_when_done(menu: MemoryMenu) -> None:
    """A closed menu goes once its triggered entry has run (its acts do not need it)."""
    menu.deleteLater()
