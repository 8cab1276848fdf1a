"""Small dialogs that pick a memory by searching for it: the target of a link, or the memory
that supersedes another.

A picker searches as you type, like the main search (debounced, in a worker, stale results
dropped), and lists only the memories the action can take: a supersede needs a memory of a
kind the pack lets replace this one; a link needs an edge type the pack allows between the two.
``allowed_links`` is that rule as a pure function of the pack, each link said in a few plain
words with its direction once ("this note — involves → Ada Brook"), and ``likely_link`` the one
a person most likely means between two kinds, chosen first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListView,
    QVBoxLayout,
    QWidget,
)

from cairn.app.api import Pack, SearchResponse
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session
from cairn.ui.rows.result_delegate import ResultDelegate
from cairn.ui.rows.results_model import ResultRow, ResultsModel, rows_from_hits

DEBOUNCE_MS = 150
PICKER_LIMIT = 25
SUPERSEDES = "supersedes"  # has its own action, with history semantics: not offered as a link


# How a link reads in words, where the pack's name alone does not make a phrase.
RELATION_WORDS = {
    "part_of": "is part of",
    "located_in": "is located in",
    "derived_from": "is derived from",
    "same_topic": "is on the same topic as",
}
# The links a person most likely means by hand, in this order, when the pack allows them for
# the two kinds: a person at a firm, in a place, who knows another; a memory about someone or
# something; else one memory citing another, or the two simply related.
LIKELY = ("works_at", "located_in", "knows", "involves", "references", "relates_to")
ABOUT_ENTITY = "involves"  # said of a person, place, project, organisation or topic only
TITLE_CHARS = 32  # the other memory's title is cut about here in the list of relations


@dataclass(frozen=True)
class LinkOption:
    edge_type: str
    outgoing: bool  # True: this memory -> the other; False: the other -> this memory
    label: str  # short, the direction said once: "this note — involves → Ada Brook"
    sentence: str = ""  # the same with both titles whole, for the tooltip


def relation_words(edge_type: str) -> str:
    """The pack's name of a link as plain words: ``part_of`` -> "is part of"."""
    return RELATION_WORDS.get(edge_type, edge_type.replace("_", " "))


def this_memory(type_name: str) -> str:
    """How the memory a dialog starts from is named in it: "this note"."""
    return f"this {type_name.lower()}"


def allowed_links(
    pack: Pack, this_type: str, this_title: str, other_type: str, other_title: str
) -> list[LinkOption]:
    """The edges the pack lets join these two memories, each way it allows."""
    options: list[LinkOption] = []
    this, other = this_memory(this_type), _cut(other_title)
    for name, spec in pack.edge_types.items():
        if name == SUPERSEDES:
            continue
        words = relation_words(name)
        forward = pack.edge_for(this_type, other_type, (name,)) is not None
        backward = pack.edge_for(other_type, this_type, (name,)) is not None
        if forward:
            arrow = "→" if spec.directed else "—"
            label = f"{this} — {words} {arrow} {other}"
            whole = f"{this_title} — {words} {arrow} {other_title}"
            options.append(LinkOption(name, True, label, whole))
        if backward and spec.directed:
            label = f"{other} — {words} → {this}"
            whole = f"{other_title} — {words} → {this_title}"
            options.append(LinkOption(name, False, label, whole))
    return options


def likely_link(pack: Pack, options: list[LinkOption], this_type: str, other_type: str) -> int:
    """The index in ``options`` of the link a person most likely means between these kinds
    (``LIKELY``; "involves" only towards a person, place, project, organisation or topic),
    else the first the pack allows."""
    for name in LIKELY:
        for index, option in enumerate(options):
            target = other_type if option.outgoing else this_type
            if option.edge_type != name:
                continue
            if name == ABOUT_ENTITY and not _is_entity(pack, target):
                continue
            return index
    return 0


def _is_entity(pack: Pack, type_name: str) -> bool:
    spec = pack.node_types.get(type_name)
    return spec is not None and spec.family == "entity"


def _cut(title: str) -> str:
    """``title`` short enough for a choice in a list, cut between words where it can be."""
    if len(title) <= TITLE_CHARS:
        return title
    cut = title[: TITLE_CHARS - 1]
    mid_word = title[len(cut)] != " "
    words = cut.rsplit(" ", 1)[0] if mid_word and " " in cut else cut
    return words.rstrip(" ,;:-") + "…"


class MemoryPicker(QDialog):
    """Find a memory by search and pick it. ``accepts(type)`` says which types may be picked;
    ``exclude`` holds ids that may not (the memory the action starts from)."""

    def __init__(
        self,
        session: Session,
        title: str,
        prompt: str,
        accepts: Callable[[str], bool] | None = None,
        exclude: frozenset[str] = frozenset(),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self._session = session
        self._accepts = accepts or (lambda _type: True)
        self._exclude = exclude
        self._generation = 0

        self.prompt = QLabel(prompt)
        self.prompt.setWordWrap(True)
        self.search_field = QLineEdit()
        self.search_field.setPlaceholderText("Type words from its title or text")
        self.search_field.setClearButtonEnabled(True)
        self.search_field.setAccessibleName("Find the memory")
        self.model = ResultsModel(self)
        self.results_view = QListView()
        self.results_view.setModel(self.model)
        self.results_view.setItemDelegate(ResultDelegate(self.results_view))
        self.results_view.setUniformItemSizes(True)
        self.results_view.setAccessibleName("Memories found")
        self.hint = QLabel("Type to find it.")
        self.hint.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        self.body = QVBoxLayout(self)
        self.body.addWidget(self.prompt)
        self.body.addWidget(self.search_field)
        self.body.addWidget(self.results_view, 1)
        self.body.addWidget(self.hint)
        self.body.addWidget(self.buttons)
        self.resize(520, 480)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.search_now)
        self.search_field.textChanged.connect(self._debounce.start)
        self.results_view.selectionModel().currentChanged.connect(self._current_changed)
        self.results_view.activated.connect(self._activated)
        session.locked.connect(self.reject)  # nothing of the vault stays open after a lock
        self._update_ok()

    def chosen(self) -> ResultRow | None:
        return self.model.row_at(self.results_view.currentIndex())

    def search_now(self) -> None:
        self._debounce.stop()
        service = self._session.service
        query = self.search_field.text().strip()
        if service is None or not query:
            self.model.clear()
            self.hint.setText("Type to find it.")
            self._update_ok()
            return
        self._generation += 1
        generation = self._generation
        call_in_worker(
            self,
            lambda: service.search(query, scopes=service.scopes(), limit=PICKER_LIMIT),
            on_done=lambda response: self._show(generation, response),
            on_failed=lambda text: self._failed(generation, text),
        )

    def _show(self, generation: int, response: SearchResponse) -> None:
        if generation != self._generation:
            return
        # A note or document once, not a row per section: a link goes to the whole memory.
        rows = [
            row
            for row in rows_from_hits(response.results)
            if row.node_id not in self._exclude and self._accepts(row.type)
        ]
        self.model.set_rows(rows)
        self.hint.setText("" if rows else "Nothing that fits matches these words.")
        self._update_ok()

    def _failed(self, generation: int, text: str) -> None:
        if generation == self._generation:
            self.model.clear()
            self.hint.setText(f"The search did not work: {text}")
            self._update_ok()

    def _current_changed(self, _current: QModelIndex, _previous: QModelIndex) -> None:
        self._update_ok()

    def _activated(self, _index: QModelIndex) -> None:
        if self.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled():
            self.accept()

    def _update_ok(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(
            self.chosen() is not None
        )


class LinkDialog(MemoryPicker):
    """Pick a memory to link to, and how the two are related: short choices, the direction
    said once, the most likely one chosen first."""

    def __init__(
        self,
        session: Session,
        pack: Pack,
        this_id: str,
        this_type: str,
        this_title: str,
        parent: QWidget | None = None,
    ) -> None:
        self._pack = pack
        self._this_type, self._this_title = this_type, this_title
        self.relation = QComboBox()
        self.relation.setAccessibleName("How they are related")
        self.relation.currentIndexChanged.connect(self._relation_chosen)
        super().__init__(
            session,
            "Link to another memory",
            f"Find the memory to link “{this_title}” to, then say how they are related.",
            accepts=lambda other: bool(allowed_links(pack, this_type, "", other, "")),
            exclude=frozenset({this_id}),
            parent=parent,
        )
        relation_label = QLabel("&How they are related:")
        relation_label.setBuddy(self.relation)
        # Above the choice, not beside it: the choice has the dialog's whole width.
        at = self.body.indexOf(self.hint)
        self.body.insertWidget(at, relation_label)
        self.body.insertWidget(at + 1, self.relation)

    def chosen_link(self) -> tuple[ResultRow, LinkOption] | None:
        row = self.chosen()
        option = self.relation.currentData()
        if row is None or not isinstance(option, LinkOption):
            return None
        return row, option

    def _update_ok(self) -> None:
        row = self.chosen()
        self.relation.clear()
        if row is not None:
            options = allowed_links(
                self._pack, self._this_type, self._this_title, row.type, row.title
            )
            for option in options:
                self.relation.addItem(option.label, option)
            if options:
                self.relation.setCurrentIndex(
                    likely_link(self._pack, options, self._this_type, row.type)
                )
        self.relation.setEnabled(self.relation.count() > 0)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(
            self.relation.count() > 0
        )

    def _relation_chosen(self, _index: int) -> None:
        option = self.relation.currentData()
        self.relation.setToolTip(option.sentence if isinstance(option, LinkOption) else "")
