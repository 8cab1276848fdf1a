"""The inbox: quick captures that wait, unsorted, until the person promotes or discards them.

Discarding keeps the capture (state 'discarded'), so nothing typed into Cairn is lost by a
misclick, and ``restore`` puts it back in the inbox as it was (the window's Undo of a discard);
only an explicit forget deletes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cairn.app.clock import new_id, now_iso
from cairn.app.errors import InboxItemNotFound, InvalidRequest, UnknownScope
from cairn.app.models import InboxItem, WriteResult
from cairn.app.upkeep import receipts
from cairn.app.writing.writer import MAX_BODY, NewMemory, Writer
from cairn.storage import records
from cairn.storage.connection import Connection
from cairn.storage.rows import InboxRow
from cairn.storage.vault import Vault

TITLE_CHARS = 80


class Inbox:
    def __init__(self, vault: Vault, writer: Writer) -> None:
        self._vault = vault
        self._writer = writer

    def capture(self, text: str, scope: str) -> InboxItem:
        if not text.strip():
            raise InvalidRequest("There is nothing to capture: the text is empty.")
        if len(text) > MAX_BODY:
            raise InvalidRequest(f"A capture may be at most {MAX_BODY:,} characters.")
        item_id = new_id()
        with self._vault.write() as conn:
            known = records.scope_names(conn)
            if scope not in known:
                raise UnknownScope(scope, known)
            records.add_inbox_item(conn, id_=item_id, text=text, scope=scope, captured_at=now_iso())
            receipts.append(conn, "inbox", {"captured": 1})
            return _item(records.inbox_item(conn, item_id, [scope]))

    def list(self, scopes: Sequence[str], *, include_decided: bool = False) -> list[InboxItem]:
        states = ("open", "promoted", "discarded") if include_decided else ("open",)
        with self._vault.read() as conn:
            return [_item(row) for row in records.inbox_items(conn, list(scopes), states)]

    def promote(
        self,
        item_id: str,
        scopes: Sequence[str],
        *,
        type_name: str = "Note",
        title: str | None = None,
        body: str | None = None,
        attrs: Mapping[str, Any] | None = None,
    ) -> WriteResult:
        """Turn a capture into a memory (a Note unless told otherwise), in one transaction.
        ``body`` is the capture's text as the person edited it before sorting it (default: the
        text as captured); ``attrs`` what they filled in of its kind's attributes."""
        with self._vault.write() as conn:
            item = self._open_item(conn, item_id, scopes)
            result = self._writer.add(
                NewMemory(
                    type=type_name,
                    title=title or default_title(body or item.text),
                    body=body if body and body.strip() else item.text,
                    attrs=attrs,
                    scope=item.scope,
                    source="inbox",
                )
            )
            if result.node is None:  # the resolver's block mode held a likely duplicate back
                names = ", ".join(repr(other.title) for other in result.did_you_mean)
                raise InvalidRequest(
                    f"Not promoted: it looks like {names}, which you already have. Promote it "
                    "under another title, or write it with force_new."
                )
            records.decide_inbox_item(
                conn, item_id, state="promoted", node_id=result.node.id, decided_at=now_iso()
            )
        return result

    def discard(self, item_id: str, scopes: Sequence[str]) -> InboxItem:
        with self._vault.write() as conn:
            self._open_item(conn, item_id, scopes)
            records.decide_inbox_item(
                conn, item_id, state="discarded", node_id=None, decided_at=now_iso()
            )
            receipts.append(conn, "inbox", {"discarded": 1})
            return _item(records.inbox_item(conn, item_id, list(scopes)))

    def restore(self, item_id: str, scopes: Sequence[str]) -> InboxItem:
        """Put a discarded capture back in the inbox, open as it was before the discard."""
        with self._vault.write() as conn:
            row = records.inbox_item(conn, item_id, list(scopes))
            if row is None:
                raise InboxItemNotFound(item_id)
            if row["state"] != "discarded":
                raise InvalidRequest(
                    f"Inbox item {item_id} is {row['state']}, not discarded: nothing to restore."
                )
            records.reopen_inbox_item(conn, item_id)
            receipts.append(conn, "inbox", {"restored": 1})
            return _item(records.inbox_item(conn, item_id, list(scopes)))

    def _open_item(self, conn: Connection, item_id: str, scopes: Sequence[str]) -> InboxItem:
        row = records.inbox_item(conn, item_id, list(scopes))
        if row is None:
            raise InboxItemNotFound(item_id)
        item = _item(row)
        if item.state != "open":
            raise InvalidRequest(f"Inbox item {item_id} was already {item.state}.")
        return item


def default_title(text: str) -> str:
    """The first line, cut at a word boundary: what a person would call the note."""
    first = text.strip().splitlines()[0].strip()
    if len(first) <= TITLE_CHARS:
        return first
    return first[:TITLE_CHARS].rsplit(" ", 1)[0] + "…"


def _item(row: InboxRow | None) -> InboxItem:
    assert row is not None
    return InboxItem(**row)
