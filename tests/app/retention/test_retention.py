"""The retention supervisor on a real vault: labels with reasons, use that reinforces, the
pass that proposes or archives faded ephemeral memories (never deleting), and its log."""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cairn.app.retention.labels import BANDS, Candidate, Verdict
from cairn.app.retention.supervisor import GROWTH, S_MAX, reinforced, retrievability
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from tests.conftest import PASSPHRASE

ALL = ["personal"]


def _later(days: float) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat(timespec="microseconds")


def _node(service: MemoryService, node_id: str) -> dict[str, object]:
    return service.get([node_id], scopes=ALL, use=False).nodes[0].node.as_dict()


def _write(service: MemoryService, type_name: str, title: str, body: str = "") -> str:
    node = service.write(type_name, title, body).node
    assert node is not None
    return node.id


@pytest.fixture
def three(service: MemoryService) -> dict[str, str]:
    """One memory of each label."""
    return {
        "ephemeral": _write(service, "Note", "Parked on level 3 today"),
        "normal": _write(service, "Note", "Mira's thesis is on river ecology in the Alps"),
        "critical": _write(service, "Fact", "Sam is allergic to penicillin"),
    }


def test_the_formula_decays_with_time_and_use_grows_stability() -> None:
    now = datetime.now(UTC)
    stamp = (now - timedelta(days=3)).isoformat()
    assert retrievability(3.0, stamp, now) == pytest.approx(math.exp(-1))
    assert retrievability(3.0, now.isoformat(), now) == pytest.approx(1.0)
    # A re-read at once adds nothing; a re-read of a faded memory triples its stability at most.
    assert reinforced(3.0, 1.0) == 3.0
    assert reinforced(3.0, 0.0) == pytest.approx(3.0 * (1 + GROWTH))
    assert reinforced(S_MAX, 0.0) == S_MAX


def test_new_memories_are_labelled_with_a_reason_and_clamped(
    service: MemoryService, three: dict[str, str]
) -> None:
    person = _write(service, "Person", "Mira Okafor")
    for label, node_id in [*three.items(), ("normal", person)]:
        node = _node(service, node_id)
        band = BANDS[label]
        assert node["retention_label"] == label
        assert band.importance[0] <= float(node["importance"]) <= band.importance[1]  # type: ignore[arg-type]
        assert band.stability[0] <= float(node["stability"]) <= band.stability[1]  # type: ignore[arg-type]
    log = service.retention_log(scopes=ALL)
    reasons = {entry["node_id"]: entry for entry in log if entry["action"] == "labelled"}
    assert reasons[three["critical"]]["reason"] == "mentions 'allergic'"
    assert reasons[three["ephemeral"]]["reason"] == "a short note about 'today'"
    assert reasons[person]["actor"] == "rules"


class _Advisor:
    name = "test-advisor"

    def __init__(self, label: str, importance: float | None = None) -> None:
        self.label = label
        self.importance = importance
        self.seen: list[Candidate] = []

    def advise(self, candidate: Candidate) -> Verdict | None:
        self.seen.append(candidate)
        if self.label == "fail":
            raise RuntimeError("the advisor broke")
        return Verdict(self.label, "the advisor's view", importance=self.importance)


def test_an_advisor_is_heard_but_cannot_let_a_critical_memory_fade(
    service: MemoryService,
) -> None:
    service._retention.plug_advisor(_Advisor("ephemeral", importance=0.99))
    critical = _write(service, "Fact", "The passport number is kept in the blue folder")
    normal = _write(service, "Note", "The orchard has twelve apple trees and a pear")
    assert _node(service, critical)["retention_label"] == "critical"
    assert _node(service, normal)["retention_label"] == "ephemeral"
    assert _node(service, normal)["importance"] == BANDS["ephemeral"].importance[1]  # clamped
    log = {e["node_id"]: e for e in service.retention_log(scopes=ALL) if e["action"] == "labelled"}
    assert "advisor said ephemeral, not taken" in log[critical]["reason"]
    assert log[normal]["actor"] == "test-advisor"
    service._retention.plug_advisor(_Advisor("fail"))
    failed = _write(service, "Note", "Bees visit the lavender more than the roses")
    assert _node(service, failed)["retention_label"] == "normal"
    assert service.retention_log(scopes=ALL, node_id=failed)[0]["reason"].endswith(
        "advisor failed (RuntimeError)"
    )
    service._retention.plug_advisor(None)
    assert _node(service, _write(service, "Note", "Buy coffee tomorrow"))["retention_label"] == (
        "ephemeral"
    )


def test_a_dry_run_proposes_only_faded_ephemeral_memories_and_changes_nothing(
    service: MemoryService, three: dict[str, str]
) -> None:
    assert service.run_retention(dry_run=True).proposals == []  # nothing has faded yet
    before = service.retention_log(scopes=ALL)
    report = service.run_retention(dry_run=True, now=_later(30))
    assert [p.id for p in report.proposals] == [three["ephemeral"]]
    assert report.proposals[0].reason.startswith("ephemeral, unused for 30 days")
    assert service.retention_log(scopes=ALL) == before
    assert _node(service, three["ephemeral"])["status"] == "active"
    # Even a century later the normal and critical memories are not proposed.
    assert [p.id for p in service.run_retention(dry_run=True, now=_later(36_500)).proposals] == [
        three["ephemeral"]
    ]


def test_a_pass_logs_a_proposal_once_and_archives_nothing_by_default(
    service: MemoryService, three: dict[str, str]
) -> None:
    for _ in range(2):
        report = service.run_retention(now=_later(30))
        assert [p.id for p in report.proposals] == [three["ephemeral"]]
        assert report.archived == [] and report.mode == "propose"
    proposed = [e for e in service.retention_log(scopes=ALL) if e["action"] == "proposed"]
    assert len(proposed) == 1 and proposed[0]["actor"] == "supervisor"
    assert _node(service, three["ephemeral"])["status"] == "active"


def test_auto_mode_archives_reversibly_and_deletes_nothing(
    service: MemoryService, three: dict[str, str]
) -> None:
    service.change_setting("retention_mode", "auto")
    count = service.stats(scopes=ALL).nodes_by_status
    report = service.run_retention(now=_later(30))
    assert report.archived == [three["ephemeral"]]
    assert _node(service, three["ephemeral"])["status"] == "archived"
    assert sum(service.stats(scopes=ALL).nodes_by_status.values()) == sum(count.values())
    hits = service.search("parked level 3", scopes=ALL).results
    assert three["ephemeral"] not in [hit.id for hit in hits]
    hits = service.search("parked level 3", scopes=ALL, include_archived=True).results
    assert three["ephemeral"] in [hit.id for hit in hits]
    assert service.retention_log(scopes=ALL, node_id=three["ephemeral"])[0]["action"] == "archived"
    service.unarchive(three["ephemeral"], scopes=ALL)
    assert _node(service, three["ephemeral"])["status"] == "active"


def test_the_person_decides_a_proposal(service: MemoryService, three: dict[str, str]) -> None:
    other = _write(service, "Note", "Lunch at the noodle bar today")
    service.run_retention(now=_later(30))
    service.keep(three["ephemeral"], scopes=ALL)
    service.archive_proposal(other, scopes=ALL)
    assert _node(service, three["ephemeral"])["retention_label"] == "normal"
    assert _node(service, other)["status"] == "archived"
    assert service.retention_proposals(scopes=ALL, now=_later(60)) == []
    actions = [(e["action"], e["actor"]) for e in service.retention_log(scopes=ALL)[:2]]
    assert actions == [("archived", "you"), ("kept", "you")]


def test_opening_and_linking_count_as_use_and_postpone_fading(
    service: MemoryService, vault: Vault, three: dict[str, str]
) -> None:
    ephemeral = three["ephemeral"]
    assert _node(service, ephemeral)["access_count"] == 0
    service.get([ephemeral], scopes=ALL)
    opened = _node(service, ephemeral)
    assert opened["access_count"] == 1 and opened["last_access"] is not None
    service.link(ephemeral, three["normal"], "relates_to", scopes=ALL)
    assert _node(service, ephemeral)["access_count"] == 2
    assert _node(service, three["normal"])["access_count"] == 1
    # Without use it has faded by day 8; a use on day 6 keeps it.
    assert [p.id for p in service.retention_proposals(scopes=ALL, now=_later(8))] == [ephemeral]
    with vault.write() as conn:
        service._retention.reinforce(conn, [ephemeral], _later(6))
    assert float(_node(service, ephemeral)["stability"]) > BANDS["ephemeral"].default_stability  # type: ignore[arg-type]
    assert service.retention_proposals(scopes=ALL, now=_later(8)) == []


@pytest.mark.serial
def test_reading_never_waits_for_another_writer(
    service: MemoryService, three: dict[str, str], vault_path: Path
) -> None:
    other = Vault.open(vault_path, PASSPHRASE)
    try:
        with other.write():  # another program holds the write lock
            started = time.monotonic()
            assert service.get([three["normal"]], scopes=ALL).nodes
            assert time.monotonic() - started < 1.0  # the busy timeout is 5 s
        assert _node(service, three["normal"])["access_count"] == 0  # kept for later
        service.get([three["critical"]], scopes=ALL)  # the next use saves both
    finally:
        other.close()
    assert _node(service, three["normal"])["access_count"] == 1
    assert _node(service, three["critical"])["access_count"] == 1


def test_the_graph_servers_reads_are_not_uses(
    service: MemoryService, three: dict[str, str]
) -> None:
    service.get([three["normal"]], scopes=ALL, use=False)
    assert _node(service, three["normal"])["access_count"] == 0


def test_memories_from_before_the_supervisor_get_labelled_by_the_pass(
    service: MemoryService, vault: Vault, three: dict[str, str]
) -> None:
    with vault.write() as conn:
        conn.execute("UPDATE nodes SET retention_label = NULL WHERE scope = 'personal'")
        conn.execute("DELETE FROM retention_log")
    assert service.run_retention(dry_run=True).labelled == 0
    report = service.run_retention()
    assert report.labelled == 4  # the three, and the stub of the Alps that one of them names
    assert {e["label"] for e in service.retention_log(scopes=ALL)} == {
        "ephemeral",
        "normal",
        "critical",
    }
    assert service.run_retention().labelled == 0


def test_forget_takes_the_log_with_it(service: MemoryService, three: dict[str, str]) -> None:
    service.run_retention(now=_later(30))
    assert service.retention_log(scopes=ALL, node_id=three["ephemeral"])
    service.forget(three["ephemeral"], scopes=ALL)
    assert all(e["node_id"] != three["ephemeral"] for e in service.retention_log(scopes=ALL))


def test_settings_check_the_mode_and_the_floor(service: MemoryService) -> None:
    from cairn.app.errors import InvalidRequest

    with pytest.raises(InvalidRequest, match="propose, auto"):
        service.change_setting("retention_mode", "sometimes")
    with pytest.raises(InvalidRequest, match="between 0 and 1"):
        service.change_setting("retention_fade_below", 2)
    assert service.settings()["retention_fade_below"] == 0.1
