"""The memory as a folder of Markdown notes a person can open in Obsidian or any editor.

One ``.md`` file per memory, named by its title (``file_names``), with YAML front matter (title,
id, type, status, scope, aliases, tags, attributes, dates, retention label, source, merged ids),
then its text, then:

- ``## Passages`` in a Document (not a note read from a file, whose text is its body): each
  passage under its title, with where it sits in the file
  (page, time, lines, headings) and the links it states. Passages have no file of their own.
- ``## Links``: a ``### <link type>`` heading per kind of link, each target as a
  ``[[file name]]`` (a link to a passage leads to its Document, to an old version to the
  newest). A directed link is written where it starts (Obsidian shows backlinks itself); an
  undirected one on both ends.
- ``## Also noted``: what the memory absorbed (a restatement) or had merged into it.
- ``## History``: the versions this one superseded, newest first, with their dates. They have
  no file of their own, so the notes-folder ingest never takes an old version for a live note.

Two passes over a read snapshot: the first reads names and the history and document links to
give every memory its file name, the second writes the files a page at a time. Neither holds
more than ids, names and one page of text in memory.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml

from cairn.app.portability.destination import private_file
from cairn.app.portability.file_names import Names
from cairn.storage import dedup_rows, export_rows
from cairn.storage.connection import Connection
from cairn.storage.rows import AddendumRow

PAGE = 200
ID_CHUNK = 400  # ids per query: well under SQLite's limit on bound values
HISTORY = "supersedes"
PART_OF = "part_of"
Progress = Callable[[int], None]  # memories written so far


@dataclass
class Plan:
    """What the first pass learns: each file's name, and where the rest are shown."""

    stems: dict[str, str] = field(default_factory=dict)  # file owner id -> file name stem
    newer: dict[str, str] = field(default_factory=dict)  # superseded id -> its successor
    older: dict[str, list[str]] = field(default_factory=dict)  # id -> the ids it superseded
    document: dict[str, str] = field(default_factory=dict)  # passage id -> its Document
    passages: dict[str, int] = field(default_factory=dict)  # document id -> passage count

    def owner(self, node_id: str) -> str | None:
        """The id of the file a memory is shown in (itself, its Document, its newest
        version), or None when that is outside the export."""
        seen: set[str] = set()
        while node_id not in self.stems:
            if node_id in seen:
                return None
            seen.add(node_id)
            step = self.document.get(node_id) or self.newer.get(node_id)
            if step is None:
                return None
            node_id = step
        return node_id

    def link(self, node_id: str) -> str | None:
        owner = self.owner(node_id)
        return None if owner is None else f"[[{self.stems[owner]}]]"


def plan(conn: Connection, scopes: Sequence[str]) -> Plan:
    found = Plan()
    documents: set[str] = set()
    for newer, older in export_rows.pairs(conn, scopes, HISTORY):
        found.newer.setdefault(older, newer)
        found.older.setdefault(newer, []).append(older)
    passages = dict(export_rows.pairs(conn, scopes, PART_OF, src_type="Passage"))
    names = Names()
    for node_id, node_type, title, status in export_rows.heads(conn, scopes):
        if node_type == "Document":
            documents.add(node_id)
        if status == "superseded" and node_id in found.newer:
            continue
        if node_type == "Passage" and node_id in passages:
            continue
        found.stems[node_id] = names.claim(title)
    for passage, document in passages.items():
        if document in documents:  # the pack lets a Passage be part of a Document only
            found.document[passage] = document
            found.passages[document] = found.passages.get(document, 0) + 1
    return found


def write(
    conn: Connection,
    folder: Path,
    scopes: Sequence[str],
    undirected: frozenset[str],
    progress: Progress | None = None,
) -> dict[str, int]:
    """Write the notes of ``scopes`` into ``folder``; returns what was written.
    ``undirected``: the pack's link types that have no direction (written on both ends)."""
    found = plan(conn, scopes)
    counts = {"files": 0, "memories": 0, "passages": 0, "versions": 0, "links": 0}
    for page in _owner_pages(conn, scopes, found):
        ids = [row["id"] for row in page]
        edges = _edges_by_node(conn, ids, scopes)
        merged = export_rows.merged_ids(conn, ids)
        addenda: dict[str, list[AddendumRow]] = {}
        for addendum in dedup_rows.addenda_of(conn, ids):
            addenda.setdefault(addendum["node_id"], []).append(addendum)
        for row in page:
            with private_file(folder / f"{found.stems[row['id']]}.md") as out:
                note = _Note(conn, out, found, scopes, undirected, counts)
                note.write(
                    row,
                    edges.get(row["id"], []),
                    merged.get(row["id"], []),
                    addenda.get(row["id"], []),
                )
            counts["files"] += 1
            counts["memories"] += 1
        if progress is not None:
            progress(counts["files"])
    return counts


def _owner_pages(
    conn: Connection, scopes: Sequence[str], found: Plan
) -> Iterator[list[dict[str, Any]]]:
    page: list[dict[str, Any]] = []
    for row in export_rows.rows(conn, "node", scopes, whole=False):
        if row["id"] in found.stems:
            page.append(row)
        if len(page) >= PAGE:
            yield page
            page = []
    if page:
        yield page


def _edges_by_node(
    conn: Connection, ids: Sequence[str], scopes: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    by_node: dict[str, list[dict[str, Any]]] = {}
    for start in range(0, len(ids), ID_CHUNK):
        for edge in export_rows.edges_within(conn, ids[start : start + ID_CHUNK], scopes):
            for end in {edge["src"], edge["dst"]}:
                by_node.setdefault(end, []).append(edge)
    return by_node


class _Note:
    """One memory's file."""

    def __init__(
        self,
        conn: Connection,
        out: IO[str],
        found: Plan,
        scopes: Sequence[str],
        undirected: frozenset[str],
        counts: dict[str, int],
    ) -> None:
        self.conn = conn
        self.out = out
        self.found = found
        self.scopes = scopes
        self.undirected = undirected
        self.counts = counts

    def write(
        self,
        row: dict[str, Any],
        edges: list[dict[str, Any]],
        merged: list[str],
        addenda: list[AddendumRow],
    ) -> None:
        self.out.write(front_matter(row, merged))
        body = row["body"].strip("\n")
        if body:
            self.out.write(f"\n{body}\n")
        self._addenda(addenda)
        # A note read from a file keeps its text whole as its body: its sections would only
        # say it again, cut up. Other files' words are in their sections alone.
        if row["id"] in self.found.passages and not body:
            self._passages(row["id"])
        self._links(row["id"], edges)
        self._history(row["id"])

    def _addenda(self, addenda: list[AddendumRow]) -> None:
        """What the memory absorbed (a restatement) or had merged into it, with when."""
        if not addenda:
            return
        self.out.write("\n## Also noted\n")
        for addendum in addenda:
            self.out.write(f"\n*{addendum['origin']} {addendum['recorded_at']}*\n\n")
            self.out.write(f"{addendum['text'].strip(chr(10))}\n")

    def _targets(self, node_id: str, edges: list[dict[str, Any]]) -> dict[str, list[str]]:
        """Link type -> the [[targets]] of ``node_id``'s links, each once."""
        grouped: dict[str, dict[str, None]] = {}
        here = self.found.owner(node_id)
        for edge in edges:
            if edge["type"] == HISTORY or (edge["type"] == PART_OF and edge["src"] == node_id
                                           and node_id in self.found.document):  # fmt: skip
                continue
            outgoing = edge["src"] == node_id
            if not outgoing and edge["type"] not in self.undirected:
                continue  # the other end's note states it
            other = edge["dst"] if outgoing else edge["src"]
            target = self.found.link(other)
            if target is None or self.found.owner(other) == here:
                continue
            grouped.setdefault(edge["type"], {})[target] = None
        return {kind: list(targets) for kind, targets in grouped.items()}

    def _links(self, node_id: str, edges: list[dict[str, Any]]) -> None:
        grouped = self._targets(node_id, edges)
        if not grouped:
            return
        self.out.write("\n## Links\n")
        for kind in sorted(grouped):
            self.out.write(f"\n### {kind}\n\n")
            for target in grouped[kind]:
                self.out.write(f"- {target}\n")
                self.counts["links"] += 1

    def _passages(self, document_id: str) -> None:
        self.out.write("\n## Passages\n")
        batch: list[dict[str, Any]] = []
        for passage in export_rows.parts_of(self.conn, document_id):
            batch.append(passage)
            if len(batch) >= ID_CHUNK:
                self._passage_batch(batch)
                batch = []
        self._passage_batch(batch)

    def _passage_batch(self, batch: list[dict[str, Any]]) -> None:
        if not batch:
            return
        edges = _edges_by_node(self.conn, [p["id"] for p in batch], self.scopes)
        for passage in batch:
            self.out.write(f"\n### {_one_line(passage['title'])}\n\n")
            where = locator_line(passage["locator"])
            if where:
                self.out.write(f"*{where}*\n\n")
            text = passage["body"].strip("\n")
            if text:
                self.out.write(f"{text}\n")
            grouped = self._targets(passage["id"], edges.get(passage["id"], []))
            for kind in sorted(grouped):
                self.out.write(f"\n{kind}: {', '.join(grouped[kind])}\n")
                self.counts["links"] += len(grouped[kind])
            self.counts["passages"] += 1

    def _history(self, node_id: str) -> None:
        versions: list[str] = []
        waiting = list(self.found.older.get(node_id, []))
        while waiting and len(versions) < 10_000:
            version = waiting.pop(0)
            if version in versions or version == node_id:
                continue
            versions.append(version)
            waiting += self.found.older.get(version, [])
        if not versions:
            return
        self.out.write("\n## History\n")
        for start in range(0, len(versions), ID_CHUNK):
            chunk = versions[start : start + ID_CHUNK]
            rows = export_rows.nodes_by_ids(self.conn, chunk)
            for version in chunk:
                row = rows.get(version)
                if row is None:
                    continue
                until = row["valid_to"] or row["updated_at"]
                self.out.write(f"\n### {_one_line(row['title'])} (until {until})\n\n")
                self.out.write(
                    f"*{row['status']} version {row['id']}, recorded {row['recorded_at']}*\n"
                )
                body = row["body"].strip("\n")
                if body:
                    self.out.write(f"\n{body}\n")
                self.counts["versions"] += 1


def front_matter(row: dict[str, Any], merged: list[str]) -> str:
    attrs = json.loads(row["attrs"])
    data: dict[str, Any] = {"title": row["title"], "id": row["id"], "type": row["type"]}
    data |= {"status": row["status"], "scope": row["scope"]}
    for key in ("aliases", "tags"):
        if isinstance(attrs.get(key), list) and attrs[key]:
            data[key] = attrs[key]
    if attrs:
        data["attributes"] = attrs
    data["recorded"] = row["recorded_at"]
    data["updated"] = row["updated_at"]
    for key in ("valid_from", "valid_to"):
        if row[key]:
            data[key] = row[key]
    if row["retention_label"]:
        data["retention"] = row["retention_label"]
    if row["source"]:
        data["source"] = row["source"]
    if row["locator"]:
        data["locator"] = json.loads(row["locator"])
    if merged:
        data["merged_ids"] = merged
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=1_000_000)
    return f"---\n{text}---\n"


def locator_line(locator: str | None) -> str:
    """Where a passage sits, in words: "page 3 · 1:02–1:30 · lines 4–9 · Intro › Terms"."""
    if not locator:
        return ""
    where = json.loads(locator)
    parts = []
    if where.get("page") is not None:
        parts.append(f"page {where['page']}")
    if where.get("message") is not None:
        parts.append(f"message {where['message']}")
    if where.get("start_s") is not None:
        end = f"–{_clock(where['end_s'])}" if where.get("end_s") is not None else ""
        parts.append(f"{_clock(where['start_s'])}{end}")
    if where.get("line_start") is not None:
        end = where.get("line_end")
        parts.append(f"lines {where['line_start']}–{end}" if end else f"line {where['line_start']}")
    if where.get("heading"):
        parts.append(" › ".join(str(h) for h in where["heading"]))
    return " · ".join(parts)


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _one_line(text: str) -> str:
    return " ".join(text.split())
