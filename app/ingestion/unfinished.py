"""The runs that did not finish, kept until they do, so that adding files can be resumed.

A run that is stopped (Stop, the vault locked) or that ends with its process keeps its paths
in the vault's settings (encrypted, like the watched folders: the paths are the person's), by
scope. A run that finishes takes the paths it covered off that list. So the window can offer to
resume after a Stop, after a lock and unlock, or after a restart: a resumed run plans the same
paths again, where what was stored is unchanged and skipped, and a long document stopped half
way goes on from its first missing passage (``store``).

A watched folder's run is never kept (its watcher looks again when it starts); a dry run reads
nothing. The list is the state of this vault file, not part of a person's memory: an export
leaves it out.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from cairn.app.ingestion.request import IngestRequest
from cairn.storage import records
from cairn.storage.connection import Connection

KEY = "ingest.unfinished"


def kept(request: IngestRequest) -> bool:
    """Whether a run of ``request`` is kept until it finishes."""
    return not request.dry_run and request.changed is None


def record(conn: Connection, request: IngestRequest) -> None:
    """``request``'s paths wait to be finished, with those of its scope already waiting."""
    waiting = _read(conn)
    paths = waiting.setdefault(request.scope, [])
    paths += [path for path in _absolute(request.paths) if path not in paths]
    _write(conn, waiting)


def finish(conn: Connection, request: IngestRequest) -> None:
    """A run of ``request`` finished: its paths no longer wait."""
    waiting = _read(conn)
    if request.scope not in waiting:
        return
    done = set(_absolute(request.paths))
    left = [path for path in waiting[request.scope] if path not in done]
    if left:
        waiting[request.scope] = left
    else:
        del waiting[request.scope]
    _write(conn, waiting)


def read(conn: Connection) -> list[IngestRequest]:
    """The runs waiting to be finished: a request per scope, in the order their paths came."""
    return [IngestRequest.of(paths, scope=scope) for scope, paths in sorted(_read(conn).items())]


def forget(conn: Connection) -> None:
    """The person does not want them finished: nothing waits any more."""
    _write(conn, {})


def _read(conn: Connection) -> dict[str, list[str]]:
    stored = records.get_setting(conn, KEY, {})
    return {str(scope): [str(p) for p in paths] for scope, paths in stored.items()}


def _write(conn: Connection, waiting: dict[str, list[str]]) -> None:
    records.set_setting(conn, KEY, waiting)


def _absolute(paths: Iterable[str]) -> list[str]:
    """As the plan will find them again from any working folder (``cairn ingest notes/``)."""
    return [str(Path(path).expanduser().absolute()) for path in paths]
