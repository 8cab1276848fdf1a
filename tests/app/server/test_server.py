"""The read-only graph server, started for real on 127.0.0.1 and spoken to over HTTP."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cairn.app.cli.main import main
from cairn.app.server.http_server import GraphServer, ServeOptions, ServerRefused
from cairn.app.service import MemoryService
from cairn.storage import vault as storage_vault
from tests.app.server.server_probe import running, serve_child
from tests.conftest import PASSPHRASE

GRAPHML_NS = "{http://graphml.graphdrawing.org/xmlns}"


@dataclass
class Vault:
    person: str
    note: str
    secret_work: str
    personal: str  # a token's secret: personal only
    work: str  # a token's secret: work only


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@pytest.fixture
def filled(service: MemoryService) -> Vault:
    service.add_scope("work")
    person = service.write("Person", "Olivia Marsh").node
    note = service.write("Note", "Garden plans", "Plant tomatoes by the south wall in May.").node
    work = service.write(
        "Note", "Yarrow budget", "The Yarrow budget is capped at forty thousand.", scope="work"
    ).node
    assert person and note and work
    service.link(note.id, person.id, "involves", scopes=["personal"])
    _, personal = service.create_token(["personal"], name="p")
    _, work_secret = service.create_token(["work"], name="w")
    return Vault(person.id, note.id, work.id, personal, work_secret)


@pytest.fixture
def server(service: MemoryService, filled: Vault) -> Iterator[GraphServer]:
    yield from running(service, ServeOptions(port=0))


def ask(
    server: GraphServer,
    path: str,
    *,
    token: str | None = None,
    method: str = "GET",
    host: str | None = None,
) -> Answer:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    headers = {"Host": f"127.0.0.1:{server.port}" if host is None else host}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, headers=headers)
        response = conn.getresponse()
        return Answer(response.status, dict(response.getheaders()), response.read())
    finally:
        conn.close()


# -- where it listens, and who may ask ---------------------------------------------------------


def test_refuses_a_non_loopback_address_without_a_token(service: MemoryService) -> None:
    with pytest.raises(ServerRefused, match="cairn token create"):
        GraphServer(service, ServeOptions(host="0.0.0.0", port=0))
    service.create_token(["personal"])
    with pytest.raises(ServerRefused, match=r"127\.0\.0\.1 only"):
        GraphServer(
            service,
            ServeOptions(host="0.0.0.0", port=0, allow_loopback_without_token=True),
        )


def test_cli_serve_refuses_with_a_message(
    service: MemoryService,
    vault_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    code = main(["serve", "--vault", str(vault_path), "--host", "0.0.0.0", "--port", "0"])
    assert code == 1 and "without a token" in capsys.readouterr().err


def test_cairn_serve_answers_and_stops_cleanly_on_ctrl_c(
    service: MemoryService, filled: Vault, vault_path: Path
) -> None:
    with serve_child(vault_path) as (child, port):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/v1/search?q=tomatoes", headers={"Authorization": "Bearer x"})
        assert conn.getresponse().status == 401
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request(
            "GET", "/v1/search?q=tomatoes", headers={"Authorization": f"Bearer {filled.personal}"}
        )
        assert filled.note in conn.getresponse().read().decode()
        conn.close()
        child.send_signal(signal.SIGINT)
        try:
            out, err = child.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGABRT)
            out, err = child.communicate(timeout=30)
            pytest.fail(f"cairn serve did not stop on Ctrl+C; its threads:\n{err}")
    assert child.returncode == 0, err
    assert "Stopped." in out
    assert "tomatoes" not in out + err  # request lines (memory text) are not logged


def test_a_token_file_limits_the_server_to_that_token(
    service: MemoryService, filled: Vault
) -> None:
    with pytest.raises(ServerRefused, match="not hold a live token"):
        GraphServer(service, ServeOptions(port=0, only_secret="not-a-secret"))
    with pytest.raises(ServerRefused, match="contradict"):
        GraphServer(
            service,
            ServeOptions(port=0, allow_loopback_without_token=True, only_secret=filled.personal),
        )
    for server in running(service, ServeOptions(port=0, only_secret=filled.personal)):
        assert ask(server, "/v1/stats", token=filled.personal).status == 200
        assert ask(server, "/v1/stats", token=filled.work).status == 401
        assert ask(server, "/v1/stats").status == 401


def test_cli_serve_checks_the_token_file(
    service: MemoryService,
    filled: Vault,
    vault_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CAIRN_PASSPHRASE", PASSPHRASE)
    token_file = tmp_path / "token"
    token_file.write_text(filled.personal + "\n")
    token_file.chmod(0o644)
    argv = ["serve", "--vault", str(vault_path), "--port", "0", "--token-file", str(token_file)]
    assert main(argv) == 1 and "chmod 600" in capsys.readouterr().err
    argv[-1] = str(tmp_path / "missing")
    assert main(argv) == 1 and "Cannot read the token file" in capsys.readouterr().err


def test_a_rebound_host_name_is_refused(server: GraphServer, filled: Vault) -> None:
    port = server.port
    for host in (f"evil.example:{port}", f"127.0.0.1:{port + 1}", "127.0.0.1", ""):
        answer = ask(server, "/v1/stats", token=filled.personal, host=host)
        assert answer.status == 421, host
        assert "Host header" in answer.json()["message"]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
        assert ask(server, "/v1/stats", token=filled.personal, host=host).status == 200


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
def test_only_get_and_head_are_answered(server: GraphServer, filled: Vault, method: str) -> None:
    answer = ask(server, "/v1/search?q=garden", token=filled.personal, method=method)
    assert answer.status == 405 and answer.headers["Allow"] == "GET, HEAD"
    assert "only reads" in answer.json()["message"]


def test_head_sends_headers_only_and_no_cors(server: GraphServer, filled: Vault) -> None:
    head = ask(server, "/v1/stats", token=filled.personal, method="HEAD")
    got = ask(server, "/v1/stats", token=filled.personal)
    assert head.status == got.status == 200 and head.body == b""
    assert head.headers["Content-Length"] == str(len(got.body))
    for answer in (head, got, ask(server, "/v1/stats")):
        assert not any(name.lower().startswith("access-control") for name in answer.headers)


def test_a_request_without_a_good_token_is_refused(
    server: GraphServer, filled: Vault, service: MemoryService
) -> None:
    answer = ask(server, "/v1/search?q=garden")
    assert answer.status == 401 and answer.headers["WWW-Authenticate"].startswith("Bearer")
    assert "cairn token create" in answer.json()["message"]
    assert ask(server, "/v1/search?q=garden", token="not-a-token").status == 401
    assert ask(server, "/v1/health").json() == {"status": "ok", "read_only": True}
    token = service.verify_token(filled.personal)
    assert token is not None
    assert ask(server, "/v1/stats", token=filled.personal).status == 200
    service.revoke_token(token.id)
    assert ask(server, "/v1/stats", token=filled.personal).status == 401


def test_loopback_without_token_only_when_asked(service: MemoryService, filled: Vault) -> None:
    options = ServeOptions(port=0, allow_loopback_without_token=True)
    for server in running(service, options):
        found = ask(server, "/v1/search?q=Yarrow+budget").json()
        assert filled.secret_work in [hit["id"] for hit in found["results"]]
        assert ask(server, "/v1/stats", token="wrong").status == 401


# -- what a token sees ---------------------------------------------------------------------


def test_a_token_sees_only_its_scopes(server: GraphServer, filled: Vault) -> None:
    path = f"/v1/nodes/{filled.secret_work}"
    assert ask(server, path, token=filled.personal).status == 404
    assert ask(server, path, token=filled.work).json()["title"] == "Yarrow budget"
    found = ask(server, "/v1/search?q=Yarrow+budget", token=filled.personal).json()
    assert filled.secret_work not in [hit["id"] for hit in found["results"]]
    refused = ask(server, "/v1/search?q=Yarrow&scopes=work", token=filled.personal)
    assert refused.status == 403 and "'work'" in refused.json()["message"]
    graph = ask(server, "/v1/graph", token=filled.personal).json()
    assert filled.secret_work not in {node["id"] for node in graph["nodes"]}
    stats = ask(server, "/v1/stats", token=filled.personal).json()
    assert set(stats["nodes_by_scope"]) == {"personal"}


def test_ask_answers_from_the_tokens_scopes_only(server: GraphServer, filled: Vault) -> None:
    asked = "/v1/ask?q=What+is+the+Yarrow+budget+capped+at%3F"
    answered = ask(server, asked, token=filled.work).json()
    assert not answered["abstained"]
    assert answered["cited"][0]["id"] == filled.secret_work
    assert "forty thousand" in answered["answer"]
    # The personal token's answer never quotes, nor shows as closest, what only work holds.
    hidden = ask(server, asked, token=filled.personal)
    assert hidden.status == 200 and b"forty thousand" not in hidden.body
    assert filled.secret_work.encode() not in hidden.body
    refused = ask(server, "/v1/ask?q=Yarrow&scopes=work", token=filled.personal)
    assert refused.status == 403
    assert ask(server, "/v1/ask?q=+", token=filled.work).status == 400


def test_search_has_the_service_envelope(
    server: GraphServer, filled: Vault, service: MemoryService
) -> None:
    answer = ask(server, "/v1/search?q=tomatoes%20garden&limit=5", token=filled.personal)
    expected = service.search("tomatoes garden", scopes=["personal"], limit=5).as_dict()
    assert answer.status == 200 and answer.json() == json.loads(json.dumps(expected))
    assert filled.note in [hit["id"] for hit in answer.json()["results"]]
    bad = ask(server, "/v1/search?q=x&limit=many", token=filled.personal)
    assert bad.status == 400 and "whole number" in bad.json()["message"]
    assert ask(server, "/v1/search", token=filled.personal).status == 400


def test_node_neighbours_and_stats(
    server: GraphServer, filled: Vault, service: MemoryService
) -> None:
    node = ask(server, f"/v1/nodes/{filled.note}", token=filled.personal).json()
    assert node["title"] == "Garden plans" and node["body"].startswith("Plant tomatoes")
    near = ask(server, f"/v1/nodes/{filled.note}/neighbours", token=filled.personal).json()
    assert near == service.traverse(filled.note, scopes=["personal"]).as_dict()
    assert filled.person in [n["id"] for n in near["nodes"]]
    deep = ask(server, f"/v1/nodes/{filled.note}/neighbours?depth=9", token=filled.personal)
    assert deep.status == 400 and "depth" in deep.json()["message"]
    stats = ask(server, "/v1/stats", token=filled.personal).json()
    assert stats == json.loads(json.dumps(service.stats(scopes=["personal"]).as_dict()))
    missing = ask(server, "/v1/nowhere", token=filled.personal)
    assert missing.status == 404 and "openapi" in missing.json()["message"]


def test_exports_parse_and_hold_the_nodes(
    server: GraphServer, filled: Vault, service: MemoryService, vault: storage_vault.Vault
) -> None:
    graph = ask(server, "/v1/graph", token=filled.personal).json()
    assert {node["id"] for node in graph["nodes"]} == {filled.person, filled.note}
    assert [(e["source"], e["target"]) for e in graph["links"]] == [(filled.note, filled.person)]
    answer = ask(server, "/v1/graph?format=graphml", token=filled.personal)
    assert answer.headers["Content-Type"].startswith("application/graphml+xml")
    root = ET.fromstring(answer.body)
    ids = {node.get("id") for node in root.iter(f"{GRAPHML_NS}node")}
    assert ids == {filled.person, filled.note}
    assert len(list(root.iter(f"{GRAPHML_NS}edge"))) == 1
    sub = ask(server, f"/v1/nodes/{filled.person}/subgraph?depth=1", token=filled.personal)
    assert {node["id"] for node in sub.json()["nodes"]} == {filled.person, filled.note}
    sub_xml = ask(server, f"/v1/nodes/{filled.person}/subgraph?format=graphml", token=filled.work)
    assert sub_xml.status == 404  # the person is not in the work token's scopes
    wrong = ask(server, "/v1/graph?format=csv", token=filled.personal)
    assert wrong.status == 400 and "graphml" in wrong.json()["message"]
    with vault.read() as conn:  # read only: no layout was made or cached
        assert conn.execute("SELECT count(*) FROM graph_layouts").fetchone()[0] == 0


def test_openapi_lists_the_endpoints(server: GraphServer) -> None:
    document = ask(server, "/v1/openapi.json").json()
    assert document["openapi"].startswith("3.")
    assert set(document["paths"]) == {
        "/v1/health",
        "/v1/openapi.json",
        "/v1/search",
        "/v1/ask",
        "/v1/nodes/{id}",
        "/v1/nodes/{id}/neighbours",
        "/v1/nodes/{id}/subgraph",
        "/v1/graph",
        "/v1/stats",
        "/v1/view",
        "/v1/view.js",
        "/v1/view.css",
    }


# -- reading while the vault is written ------------------------------------------------------


def test_reads_go_on_while_another_thread_writes(
    server: GraphServer, filled: Vault, service: MemoryService
) -> None:
    written: list[str] = []
    failure: list[BaseException] = []

    def write() -> None:
        try:
            for i in range(15):
                result = service.write(
                    "Note", f"Harvest log {i}", f"Picked {i} beans.", dedup=False
                )
                assert result.node is not None
                written.append(result.node.id)
        except BaseException as exc:  # reported by the main thread
            failure.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    statuses = []
    while writer.is_alive():
        statuses.append(ask(server, "/v1/search?q=harvest", token=filled.personal).status)
        statuses.append(ask(server, "/v1/graph", token=filled.personal).status)
    writer.join()
    assert not failure and len(written) == 15
    assert statuses and set(statuses) == {200}
    graph = ask(server, "/v1/graph", token=filled.personal).json()
    assert set(written) <= {node["id"] for node in graph["nodes"]}
