"""One bad file never sinks a folder: every per-file problem an adversarial run found (no
permission, a name that is not UTF-8, a symbolic link loop, a file that vanished, a folder that
cannot be listed, random bytes under a text name) is a failure of that file or folder alone,
recorded with its reason in ``cairn sources --failed``, while the rest of the batch is kept.
Permission tests run with file permissions binding the process (see ``hostile_files``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.ingestion.report import IngestProgress
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.app import hostile_files as hostile
from tests.app import ingest_files as files
from tests.conftest import PASSPHRASE

ALL = ["personal"]
TIMEOUT_S = 300


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        hostile.without_root_override(hostile.cairn(*args)),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
        check=False,
    )


def _failed(vault_env: dict[str, str]) -> dict[str, str]:
    listed = _run("sources", "--failed", "--json", env=vault_env)
    assert listed.returncode == 0, listed.stderr
    return {row["path"]: row["error"] for row in json.loads(listed.stdout)}


@pytest.fixture
def vault_env(vault_path: Path, embedder: MiniLMEmbedder) -> dict[str, str]:
    compose.create_vault(vault_path, PASSPHRASE, embedder=embedder).close()
    return {**os.environ, "CAIRN_VAULT": str(vault_path), "CAIRN_PASSPHRASE": PASSPHRASE}


@pytest.mark.crash
def test_a_hostile_folder_keeps_its_good_files_and_names_each_bad_one(
    tmp_path: Path, vault_env: dict[str, str]
) -> None:
    folder = hostile.build(tmp_path / "d")
    try:
        done = _run("ingest", str(folder.root), env=vault_env)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode == 1, done.stdout + done.stderr  # some files failed
        failed = _failed(vault_env)
        expected = {
            folder.locked_file: ("locked.txt", "permission denied", "chmod u+r"),
            folder.locked_folder: ("locked-folder", "permission denied", "chmod u+rx"),
            folder.loop: ("loop", "symbolic link", "loop"),
            folder.dangling: (
                "dangling.md",
                "symbolic link to something that is not there",
            ),
            folder.noise: ("noise.md", "binary file"),
        }
        assert set(failed) == {str(path) for path in expected}, failed
        for path, words in expected.items():
            for word in words:
                assert word in failed[str(path)], (path, failed[str(path)])
        kept = _run("sources", "--state", "ingested", "--json", env=vault_env)
        rows = {row["path"]: row for row in json.loads(kept.stdout)}
        shown = str(folder.root) + "/caf\\xe9 cr\\xe8me.txt"
        assert set(rows) == {
            str(folder.root / "good/kayak.md"),
            str(folder.root / "good/recipe.txt"),
            str(folder.utf16),
            shown,
        }
        assert bytes.fromhex(rows[shown]["path_bytes"]) == os.fsencode(folder.latin1_file)
        found = _run("search", "crème brûlée recipe", "--json", env=vault_env)
        assert shown in {hit["source"] for hit in json.loads(found.stdout)["results"]}

        # Given their permissions back, the locked file and folder are read on the next run,
        # and the folder's failure is over.
        hostile.unlock(folder)
        again = _run("ingest", str(folder.root), env=vault_env)
        assert "Traceback" not in again.stderr, again.stderr
        failed = _failed(vault_env)
        assert set(failed) == {str(folder.loop), str(folder.dangling), str(folder.noise)}
        kept = _run("sources", "--state", "ingested", "--json", env=vault_env)
        paths = {row["path"] for row in json.loads(kept.stdout)}
        assert {str(folder.locked_file), str(folder.locked_folder / "inside.md")} <= paths
    finally:
        hostile.unlock(folder)


# An exception's class name, as Python prints one ("RecursionError", "KeyError: ...").
EXCEPTION_NAME = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b")


@pytest.mark.crash
def test_files_nested_deeper_than_any_program_writes_fail_alone_with_a_sentence(
    tmp_path: Path, vault_env: dict[str, str]
) -> None:
    """A Telegram export nested 200,000 deep, a mail of 3,000 multiparts, and the like for
    every reader that walks a nested structure: each fails alone (or keeps what it can, with a
    warning) with a sentence that says how deep it goes, never an exception's name."""
    root = hostile.build_nested(tmp_path / "nested")
    done = _run("ingest", "--json", str(root), env=vault_env)
    assert done.returncode == 1, done.stdout + done.stderr  # some files failed
    assert "Traceback" not in done.stderr, done.stderr
    assert not EXCEPTION_NAME.search(done.stdout + done.stderr), done.stdout + done.stderr
    report = json.loads(done.stdout)["files"]
    outcomes = {str(Path(f["path"]).relative_to(root)): f for f in report}
    failed = _failed(vault_env)
    for name, (state, words) in hostile.NESTED.items():
        outcome = outcomes[name]
        assert outcome["state"] == state, outcome
        said = outcome.get("error") or " ".join(outcome.get("warnings", []))
        for word in words:
            assert word in said, (name, said)
        if state == "failed":
            assert failed[str(root / name)] == outcome["error"]
    assert set(failed) == {
        str(root / n) for n, (state, _) in hostile.NESTED.items() if state == "failed"
    }
    assert {outcomes["good/kayak.md"]["state"], outcomes["good/recipe.txt"]["state"]} == {
        "ingested"
    }
    found = _run("search", "lighthouse log of storms", "--json", env=vault_env)
    assert str(root / "deep.html") in {hit["source"] for hit in json.loads(found.stdout)["results"]}


def test_a_reader_that_breaks_on_a_file_says_so_and_leaves_a_developer_its_trace(
    tmp_path: Path, vault_env: dict[str, str]
) -> None:
    """A PDF whose catalog lost its page tree makes pypdf raise an AttributeError, which no
    reader foresees: the file fails with a sentence that names Cairn's log, and the error's
    kind and where it happened (pypdf's frames, not its message) go to that log, written by
    the extraction worker, for whoever reports it."""
    pdf = tmp_path / "no-pages.pdf"
    pdf.write_bytes(hostile.pdf_without_page_tree())
    done = _run("ingest", str(pdf), env=vault_env)
    assert done.returncode == 1, done.stdout + done.stderr
    reason = _failed(vault_env)[str(pdf)]
    assert reason.startswith(
        "no-pages.pdf could not be read: Cairn's PDF reader stopped on something in it that it "
        "did not expect."
    ), reason
    log = compose.Config.from_environment().log_file
    assert f"please report it, with Cairn's log {log}" in reason
    assert not EXCEPTION_NAME.search(reason + done.stdout), reason + done.stdout
    written = log.read_text(encoding="utf-8")
    assert "extraction worker started: Cairn" in written, written
    assert "unexpected AttributeError" in written and "pypdf" in written, written
    assert "Traceback" not in done.stderr and "AttributeError" not in done.stderr, done.stderr


def test_a_symlink_loop_named_on_its_own_is_a_failure_not_a_traceback(
    tmp_path: Path, vault_env: dict[str, str]
) -> None:
    loop = tmp_path / "LOOP"
    loop.symlink_to("LOOP")
    done = _run("ingest", str(loop), env=vault_env)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "RuntimeError" not in done.stderr, done.stderr
    assert "leads back to itself" in done.stdout
    assert "leads back to itself" in _failed(vault_env)[str(loop)]


def test_a_name_that_is_not_utf8_keeps_its_bytes_and_stays_itself_on_the_next_run(
    tmp_path: Path, service: MemoryService
) -> None:
    folder = tmp_path / "archive"
    files.write(folder, {"plain.md": "# Plain\n\nA plain note about the canal.\n"})
    odd = Path(os.fsdecode(os.fsencode(folder) + b"/" + hostile.LATIN1_NAME))
    odd.write_text("The old archive kept the crème brûlée recipe.\n", encoding="utf-8")
    first = service.ingest(IngestRequest.of([folder], scope="personal"))
    shown = str(folder) + "/caf\\xe9 cr\\xe8me.txt"
    assert {f.path: f.state for f in first.files} == {
        str(folder / "plain.md"): "ingested",
        shown: "ingested",
    }
    (row,) = [r for r in service.sources() if r.path == shown]
    assert bytes.fromhex(row.path_bytes) == os.fsencode(odd)
    top = service.search("crème brûlée recipe", scopes=ALL).results[0]
    assert top.source == shown
    # The same bytes on disk: unchanged, and not taken for a file that went away.
    second = service.ingest(IngestRequest.of([folder], scope="personal"))
    assert {f.state for f in second.files} == {"unchanged"}
    assert second.removed == []
    # Gone from disk: reported and marked missing, its memories kept.
    odd.unlink()
    third = service.ingest(IngestRequest.of([folder], scope="personal"))
    assert third.removed == [shown]
    assert service.search("crème brûlée", scopes=ALL).results


def test_a_file_that_vanishes_while_the_folder_is_read_fails_alone(
    tmp_path: Path, service: MemoryService
) -> None:
    folder = files.write(
        tmp_path / "notes",
        {
            "a.md": "# A\n\nThe first note, about the orchard gate.\n",
            "b.md": "# B\n\nThe second note, removed while it is hashed.\n",
            "c.md": "# C\n\nThe third note, removed before it is read.\n",
            "d.md": "# D\n\nThe fourth note, about the boat shed.\n",
        },
    )

    def meddle(progress: IngestProgress) -> None:
        if progress.stage == "scanning" and progress.current == str(folder / "a.md"):
            (folder / "b.md").unlink(missing_ok=True)
        if progress.stage == "reading" and progress.current == str(folder / "a.md"):
            (folder / "c.md").unlink(missing_ok=True)

    report = service.ingest(IngestRequest.of([folder], scope="personal"), progress=meddle)
    states = {Path(f.path).name: f.state for f in report.files}
    assert states == {"a.md": "ingested", "b.md": "failed", "c.md": "failed", "d.md": "ingested"}
    errors = {Path(row.path).name: row.error for row in service.sources(states=["failed"])}
    assert "no longer there" in errors["b.md"]
    assert "no longer there" in errors["c.md"]


# -- a document's whole life is bounded ----------------------------------------------------------


def _passages(vault: Vault, document_id: str) -> list[int]:
    with vault.read() as conn:
        return sorted(
            ordinal
            for (ordinal,) in conn.execute(
                "SELECT json_extract(p.attrs, '$.ordinal') FROM edges AS e "
                "JOIN nodes AS p ON p.id = e.src WHERE e.dst = ? AND e.type = 'part_of'",
                (document_id,),
            )
        )


def test_a_document_keeps_at_most_the_passage_limit_and_says_so(
    tmp_path: Path, service: MemoryService, vault: Vault
) -> None:
    pdf = tmp_path / "pages.pdf"
    pdf.write_bytes(hostile.shared_stream_pdf(400))
    service.change_setting("ingest_max_passages", 40)
    (outcome,) = service.ingest(IngestRequest.of([pdf], scope="personal")).files
    assert (outcome.state, outcome.passages) == ("ingested", 40)
    assert outcome.document_id is not None
    assert _passages(vault, outcome.document_id) == list(range(40))
    (warning,) = [w for w in outcome.warnings if "ingest_max_passages" in w]
    assert "first 40 of 400 passages" in warning


def test_a_long_document_is_written_in_parts_and_a_stopped_one_is_finished_by_a_rerun(
    tmp_path: Path, service: MemoryService, vault: Vault
) -> None:
    note = tmp_path / "journal.md"
    note.write_text(files.sectioned_markdown("journal", 700), encoding="utf-8")
    from cairn.app.ingestion.report import CancelToken

    cancel = CancelToken()
    writes = []

    def stop_after_first_part(progress: IngestProgress) -> None:
        if progress.stage == "writing" and progress.current == str(note):
            writes.append(progress)
            if len(writes) == 2:  # the second part is about to be written
                cancel.cancel()

    first = service.ingest(
        IngestRequest.of([note], scope="personal"), progress=stop_after_first_part, cancel=cancel
    )
    assert first.cancelled
    (row,) = service.sources()
    assert row.state == "failed" and "add it again to finish it" in row.error
    unfinished = row.document_id
    assert 0 < len(_passages(vault, unfinished)) < 701

    second = service.ingest(IngestRequest.of([note], scope="personal"))
    (outcome,) = second.files
    assert (outcome.state, outcome.document_id, outcome.passages) == ("ingested", unfinished, 701)
    assert _passages(vault, unfinished) == list(range(701))  # each once
    with vault.read() as conn:
        documents = conn.execute("SELECT count(*) FROM nodes WHERE type = 'Document'").fetchone()
    assert documents[0] == 1


def test_a_document_that_takes_too_long_to_write_keeps_what_was_written_in_time(
    tmp_path: Path, service: MemoryService, vault: Vault
) -> None:
    note = tmp_path / "journal.md"
    note.write_text(files.sectioned_markdown("slow", 900), encoding="utf-8")
    service.change_setting("ingest_max_write_seconds", 1)
    (outcome,) = service.ingest(IngestRequest.of([note], scope="personal")).files
    assert outcome.state == "ingested"
    assert 0 < outcome.passages < 901 and outcome.passages % 256 == 0, outcome.passages
    assert outcome.document_id is not None
    assert _passages(vault, outcome.document_id) == list(range(outcome.passages))
    assert any("ingest_max_write_seconds" in w for w in outcome.warnings), outcome.warnings


def test_cairn_add_is_never_refused_as_busy_while_a_long_document_is_ingested(
    tmp_path: Path, vault_env: dict[str, str]
) -> None:
    note = tmp_path / "long.md"
    note.write_text(files.sectioned_markdown("long", 1500), encoding="utf-8")
    ingest = subprocess.Popen(
        hostile.cairn("ingest", str(note)),
        env=vault_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    results: list[Any] = []
    try:
        assert ingest.stderr is not None
        ingest.stderr.readline()  # "[1/1] long.md": it is being read
        while ingest.poll() is None and len(results) < 20:
            results.append(
                subprocess.run(
                    hostile.cairn("add", "--type", "Note", "--title", f"Call {len(results)}"),
                    env=vault_env,
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT_S,
                    check=False,
                )
            )
        out, err = ingest.communicate(timeout=TIMEOUT_S)
    finally:
        if ingest.poll() is None:
            ingest.kill()
            ingest.communicate()
    assert ingest.returncode == 0, out + err
    assert len(results) >= 3, "the ingest ended before the adds could overlap it"
    for added in results:
        assert added.returncode == 0, added.stderr
