"""The sample vault: a small invented world (``sample_data``) written into the open vault through
the write path, to show what search, the graph and review do before a person has memories of
their own; and removed again in one step.

Every memory of the sample has the source ``sample``, and the vault keeps a list of what the
sample wrote (the setting ``sample``: each id with a print of its kind, title, text and
attributes as written). Removing the sample forgets those memories and nothing else: the
person's own memories stay, and a link from one of theirs to a sample memory goes with the
sample memory. What the person put into the sample stays theirs:

- an edit of a sample memory is a new version, not on the list: it stays, with its source
  cleared (the sample version it replaced goes);
- a sample memory something of the person's was folded into (a write the gate or the resolver
  found to repeat it, a merge, a name the person described, attributes they added) no longer
  matches its print, or holds an addendum of another source: it stays as theirs, source cleared.

The sample is written in one transaction (all of it or nothing), apart from the second account
of the site visit, which goes through the dedup gate once the rest is committed (the gate sees
only committed vectors), so the review panel has a real possible duplicate to show; should the
gate fold it into one of the person's memories instead, it is left out.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import date

from cairn.app.embedding.space import EmbeddingSpace
from cairn.app.errors import InvalidRequest
from cairn.app.models import WriteResult
from cairn.app.packs import Pack
from cairn.app.retention import forgetting
from cairn.app.upkeep import sample_data
from cairn.app.upkeep.sample_data import SampleMemory
from cairn.app.writing.history import HistoryKeeper
from cairn.app.writing.writer import NewMemory, Writer
from cairn.storage import dedup_rows, graph_rows, records
from cairn.storage.connection import Connection
from cairn.storage.rows import NodeRow
from cairn.storage.vault import Vault

SOURCE = "sample"
SETTING = "sample"  # {node id: print} of what the sample wrote
OWN_NODE = ("inserted", "pending", "merge_linked")  # outcomes that store the write as its own
# A write's outcomes, in the dedup log, that fold it into the memory the log names.
FOLDED_IN = ("absorbed", "enriched")


@dataclass(frozen=True)
class SampleAdded:
    """What ``add`` wrote: each memory as (type, title), each link the texts do not state as
    (from title, edge type, to title), the project a face opens first, and whether the gate
    held the second site visit for review."""

    written: tuple[tuple[str, str], ...]
    linked: tuple[tuple[str, str, str], ...]
    project_id: str
    held_for_review: bool

    def sentence(self) -> str:
        return (
            f"Added the sample: {len(self.written)} invented memories about a footbridge "
            "survey. Remove it in one step when you are done looking."
        )


@dataclass(frozen=True)
class SampleRemoved:
    """What ``remove`` did: how many sample memories it forgot, how many it left as the
    person's (edited or added to), when the file is compacted if not at once, and the ids
    forgotten (a face stops showing them)."""

    forgotten: int
    kept: int
    note: str | None = None
    ids: tuple[str, ...] = ()

    def sentence(self) -> str:
        said = f"Removed the sample: {self.forgotten} memories forgotten. Your own memories stay."
        if self.kept:
            what = "memory" if self.kept == 1 else "memories"
            said += f" What you wrote into the sample stays as yours ({self.kept} {what})."
        return f"{said} {self.note}" if self.note else said


class _LeftOut(Exception):
    """The gate did not keep the sample's second site visit as a memory of its own."""


class SampleVault:
    def __init__(
        self,
        vault: Vault,
        pack: Pack,
        space: EmbeddingSpace,
        writer: Writer,
        history: HistoryKeeper,
    ) -> None:
        self._vault = vault
        self._pack = pack
        self._space = space
        self._writer = writer
        self._history = history

    def present(self) -> bool:
        """Whether a memory the sample wrote is still in the vault."""
        with self._vault.read() as conn:
            return bool(_still_there(conn, _recorded(conn)))

    # -- adding -------------------------------------------------------------------------------

    def add(self, scope: str) -> SampleAdded:
        """Write the sample into ``scope`` (checked by the caller)."""
        missing = [name for name in sample_data.TYPES if name not in self._pack.node_types]
        if missing:
            raise InvalidRequest(
                f"The sample needs kinds of memory this vault's pack does not have: "
                f"{', '.join(missing)}."
            )
        planned = sample_data.memories(date.today())
        twin = next(m for m in planned if m.key == sample_data.TWIN)
        ids: dict[str, str] = {}
        made: list[str] = []  # every node written, stubs included
        written: list[tuple[str, str]] = []
        with self._vault.write() as conn:
            if _still_there(conn, _recorded(conn)):
                raise InvalidRequest(
                    "The sample is already in this vault. Remove it first to add it afresh."
                )
            for memory in planned:
                if memory is not twin:
                    stored = self._write(memory, scope)
                    ids[memory.key] = stored[0]
                    made += stored
                    written.append((memory.type, memory.title))
            linked = self._link(planned, ids, scope)
            old, new = ids[sample_data.OLD_LIMIT], ids[sample_data.NEW_LIMIT]
            self._history.supersede_in(conn, old, new, [scope])
            _record(conn, {}, made)
        held = self._add_twin(twin, scope)
        if held is not None:
            written.append((twin.type, twin.title))
        return SampleAdded(
            tuple(written),
            linked,
            ids[sample_data.PROJECT],
            held is not None and held.outcome == "pending",
        )

    def _write(self, memory: SampleMemory, scope: str) -> list[str]:
        """Store one memory; its id, then those of the stubs its links made."""
        result = self._writer.add_ungated(_new_memory(memory, scope))
        assert result.node is not None  # an ungated write always stores its memory
        return [result.node.id, *(stub.id for stub in result.stubs_created)]

    def _link(
        self, planned: list[SampleMemory], ids: dict[str, str], scope: str
    ) -> tuple[tuple[str, str, str], ...]:
        """The links the texts do not state, as (from title, edge type, to title)."""
        titles = {m.key: m.title for m in planned}
        linked = []
        for src, dst, kind in sample_data.LINKS:
            self._writer.link(ids[src], ids[dst], kind, [scope])
            linked.append((titles[src], kind, titles[dst]))
        return tuple(linked)

    def _add_twin(self, twin: SampleMemory, scope: str) -> WriteResult | None:
        """The second account of the site visit, through the gate; None if it was left out."""
        try:
            with self._vault.write() as conn:
                known = _recorded(conn)
                result = self._writer.add(_new_memory(twin, scope))
                node = result.node
                if node is None or result.outcome not in OWN_NODE or node.id in known:
                    raise _LeftOut
                _record(conn, known, [node.id])
        except _LeftOut:
            return None  # rolled back: nothing of it was kept
        return result

    # -- removing -----------------------------------------------------------------------------

    def remove(self) -> SampleRemoved:
        """Forget the sample's memories; leave the person's (see the module's docstring)."""
        with self._vault.write() as conn:
            recorded = _recorded(conn)
            rows = _still_there(conn, recorded)
            if not rows:
                raise InvalidRequest("This vault holds no sample to remove.")
            doomed = _as_written(conn, rows, recorded)
            theirs = _hand_over(conn, rows, {row["id"] for row in doomed})
            if doomed:
                forgetting.erase(conn, self._space, doomed)
            records.delete_setting(conn, SETTING)
        note = forgetting.compact(self._vault) if doomed else None
        return SampleRemoved(len(doomed), theirs, note, tuple(row["id"] for row in doomed))


def _as_written(conn: Connection, rows: list[NodeRow], recorded: dict[str, str]) -> list[NodeRow]:
    """The sample memories nothing of the person's went into: each still says what the
    sample wrote (its print), holds no addendum of another source, and no later write was
    found to repeat it (the sample's own writes never are: see ``_add_twin``)."""
    ids = [row["id"] for row in rows]
    touched = {a["node_id"] for a in dedup_rows.addenda_of(conn, ids) if a["source"] != SOURCE}
    touched |= dedup_rows.decided_on(conn, ids, FOLDED_IN)
    return [r for r in rows if r["id"] not in touched and _print(r) == recorded[r["id"]]]


def _hand_over(conn: Connection, rows: list[NodeRow], doomed: set[str]) -> int:
    """Clear the sample's source from what stays: the sample memories the person added to,
    and the person's edits of sample memories. Returns how many."""
    ids = [row["id"] for row in rows]
    kept = [row for row in rows if row["id"] not in doomed]
    kept += graph_rows.nodes_by_ids(conn, _later_versions(conn, ids), records.scope_names(conn))
    theirs = [row["id"] for row in kept if row["source"] == SOURCE]
    for row_id in theirs:
        graph_rows.update_node(conn, row_id, {"source": None})
    return len(theirs)


def _new_memory(memory: SampleMemory, scope: str) -> NewMemory:
    return NewMemory(
        memory.type,
        memory.title,
        memory.body,
        memory.attrs,
        scope,
        SOURCE,
        valid_from=memory.valid_from,
        status=memory.status,
    )


def _print(row: NodeRow) -> str:
    """What a memory says, as a digest: a change of kind, title, text or attributes (or a
    stub described) changes it; a change of status (archived, superseded) does not."""
    attrs = json.loads(row["attrs"])
    said = [row["type"], row["title"], row["body"], attrs, row["status"] == "stub"]
    return hashlib.sha256(json.dumps(said, sort_keys=True).encode("utf-8")).hexdigest()


def _recorded(conn: Connection) -> dict[str, str]:
    value = records.get_setting(conn, SETTING, {})
    return dict(value) if isinstance(value, dict) else {}


def _record(conn: Connection, recorded: dict[str, str], ids: list[str]) -> None:
    """List ``ids`` as the sample's beside those ``recorded``, each with its print as it
    stands now."""
    rows = graph_rows.nodes_by_ids(conn, ids, records.scope_names(conn))
    records.set_setting(conn, SETTING, recorded | {row["id"]: _print(row) for row in rows})


def _later_versions(conn: Connection, ids: list[str]) -> list[str]:
    """The versions that replaced the sample's memories and are not the sample's: the
    person's edits (and edits of those), which keep the source of what they replaced."""
    listed: set[str] = set(ids)
    found: list[str] = []
    todo = list(ids)
    while todo:
        current = todo.pop()
        for edge in graph_rows.edges_of(conn, current, "supersedes"):
            newer = edge["src"]
            if edge["dst"] == current and newer not in listed and newer not in found:
                found.append(newer)
                todo.append(newer)
    return found


def _still_there(conn: Connection, recorded: dict[str, str]) -> list[NodeRow]:
    if not recorded:
        return []
    return graph_rows.nodes_by_ids(conn, list(recorded), records.scope_names(conn))
