"""The graph server's page: served public and static under a strict Content-Security-Policy,
with no memory in it; what it needs from the JSON endpoints needs the token. Its script is run
for real in Node against a real server, over a small stand-in for the browser's DOM."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.app.server import graph_page
from cairn.app.server.http_server import GraphServer, ServeOptions
from cairn.app.service import MemoryService
from tests.app.dedup.test_review_queue import KEY, KEY_REWORDED
from tests.app.server import server_probe
from tests.app.server.test_server import Vault, ask

HARNESS = Path(__file__).with_name("page_harness.js")
PAGE = ("/v1/view", "/v1/view.js", "/v1/view.css")


@pytest.fixture
def vault(service: MemoryService) -> Vault:
    service.add_scope("work")
    person = service.write("Person", "Olivia Marsh").node
    note = service.write("Note", "Garden plans", "Plant tomatoes by the south wall in May.").node
    work = service.write("Note", "Yarrow budget", "Capped at forty thousand.", scope="work").node
    assert person and note and work
    service.link(note.id, person.id, "involves", scopes=["personal"])
    _, personal = service.create_token(["personal"], name="p")
    _, work_secret = service.create_token(["work"], name="w")
    return Vault(person.id, note.id, work.id, personal, work_secret)


@pytest.fixture
def running(service: MemoryService, vault: Vault) -> Iterator[GraphServer]:
    yield from server_probe.running(service, ServeOptions(port=0))


def test_the_page_is_public_static_and_locked_down(running: GraphServer, vault: Vault) -> None:
    for path, kind in zip(PAGE, ("text/html", "text/javascript", "text/css"), strict=True):
        answer = ask(running, path)  # no token: the page holds nothing of the vault
        assert answer.status == 200 and answer.headers["Content-Type"].startswith(kind)
        policy = answer.headers["Content-Security-Policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy
        assert "connect-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert "unsafe" not in policy
        assert answer.headers["Referrer-Policy"] == "no-referrer"
        text = answer.body.decode()
        for memory in ("Olivia", "Garden", "tomatoes", "Yarrow", vault.note, vault.person):
            assert memory not in text
        # Nothing from elsewhere: the only URL is the SVG namespace, which is never fetched.
        assert set(re.findall(r"https?://[^\s\"'<>]+", text)) <= {"http://www.w3.org/2000/svg"}
        assert ask(running, path, method="HEAD").body == b""
    html = ask(running, "/v1/view").body.decode()
    assert re.findall(r"<script[^>]*>", html) == ['<script src="/v1/view.js" defer>']
    assert "style=" not in html and "<style" not in html  # the policy would block them anyway
    script = ask(running, "/v1/view.js").body.decode()
    for unsafe in ("innerHTML", "outerHTML", "insertAdjacentHTML", "eval(", "document.write"):
        assert unsafe not in script  # labels are memory text: set as text, never as markup
    for storage in ("localStorage", "sessionStorage", "document.cookie"):
        assert storage not in script  # the token stays in the tab's memory
    json_answer = ask(running, "/v1/stats", token=vault.personal)
    assert "Content-Security-Policy" not in json_answer.headers


def test_what_the_page_reads_needs_the_token(running: GraphServer, vault: Vault) -> None:
    assert ask(running, "/v1/search?q=garden").status == 401
    found = ask(running, "/v1/search?q=garden+tomatoes", token=vault.personal).json()
    assert found["results"][0]["id"] == vault.note
    path = f"/v1/nodes/{vault.note}/subgraph?depth=2"
    assert ask(running, path).status == 401
    graph = ask(running, path, token=vault.personal).json()
    # The start is named too (the walk alone lists only what it reached), so it can be drawn.
    nodes = {node["id"]: node for node in graph["nodes"]}
    assert graph["graph"]["root"] == vault.note
    assert nodes[vault.note]["title"] == "Garden plans" and nodes[vault.note]["depth"] == 0
    assert nodes[vault.person]["title"] == "Olivia Marsh"


def test_a_bad_parameter_is_a_400_with_a_sentence(running: GraphServer, vault: Vault) -> None:
    cases = {
        "/v1/search?q=garden&limt=5": "takes q, limit",
        "/v1/search?q=garden&limit=2&limit=3": "give it once",
        "/v1/search?q=garden&limit=%D9%A3": "whole number from 1 to 25",
        "/v1/search?q=garden&limit=26": "whole number from 1 to 25",
        "/v1/search?q=garden&profile=": "fast or balanced",
        "/v1/search?q=garden&as_of=": "as_of is a date",
        "/v1/search?q=%20%0A": "needs a query",
        f"/v1/nodes/{vault.note}/neighbours?direction=sideways": "out, in or both",
        f"/v1/nodes/{vault.note}/neighbours?edge_type=nope": "Unknown edge type",
        f"/v1/nodes/{vault.note}/subgraph?depth=0": "from 1 to 4",
        "/v1/graph?format=": "json or graphml",
        "/v1/stats?x=1": "takes scopes",
    }
    for path, sentence in cases.items():
        answer = ask(running, path, token=vault.personal)
        assert answer.status == 400, path
        message = answer.json()["message"]
        assert sentence in message and message.endswith("."), (path, message)
    assert "no parameters" in ask(running, "/v1/health?verbose=1").json()["message"]
    twice = f"/v1/nodes/{vault.note}/neighbours?edge_type=involves&edge_type=relates_to"
    assert ask(running, twice, token=vault.personal).status == 200  # edge_type repeats


def test_any_other_method_is_405_not_a_server_error(running: GraphServer) -> None:
    for method in ("QUERY", "PROPFIND", "BREW"):
        answer = ask(running, "/v1/health", method=method)
        assert answer.status == 405 and answer.headers["Allow"] == "GET, HEAD"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node runs the page's script")
def test_the_script_draws_the_graph_around_the_top_hit(
    running: GraphServer, vault: Vault, service: MemoryService
) -> None:
    odd = service.write("Note", '<img src=x onerror="alert(1)"> & co', "Garden tools list.")
    assert odd.node is not None
    service.link(odd.node.id, vault.note, "relates_to", scopes=["personal"])
    drawn = _draw(running, vault.personal, "garden plans tomatoes", depth=1)
    assert drawn["error"] is None, drawn
    assert drawn["hits"] and drawn["hits"][0] == "Garden plans"
    labels = {label["text"] for label in drawn["labels"]}
    assert {"Garden plans", "Olivia Marsh"} <= labels
    # Markup in a title is a label's text, shown as written, never an element.
    assert any(text.startswith("<img src=x") for text in labels)
    assert drawn["circles"] == len(drawn["labels"]) and drawn["root_circles"] == 1
    assert drawn["lines"] >= 2 and set(drawn["tags"]) <= {"g", "line", "text", "circle", "title"}
    assert re.fullmatch(rf"#node={vault.note}&depth=1", drawn["hash"])
    assert "memories" in drawn["status"]
    refused = _draw(running, "not-a-token", "garden", depth=2)
    assert refused["error"] is None and refused["status"].startswith("401 ")
    assert refused["circles"] == 0


def test_a_memory_awaiting_review_is_marked_in_the_exports_and_on_the_page(
    running: GraphServer, vault: Vault, service: MemoryService
) -> None:
    first = service.write("Note", *KEY).node
    second = service.write("Note", *KEY_REWORDED)
    assert first is not None and second.node is not None and second.outcome == "pending"
    for node in (first, second.node):
        service.link(node.id, vault.person, "involves", scopes=["personal"])
    sub = ask(running, f"/v1/nodes/{vault.person}/subgraph?depth=1", token=vault.personal)
    marks = {node["id"]: node["awaiting_review"] for node in sub.json()["nodes"]}
    assert marks[second.node.id] is True and marks[first.id] is False
    assert marks[vault.person] is False
    whole = ask(running, "/v1/graph", token=vault.personal).json()
    assert {n["id"] for n in whole["nodes"] if n["awaiting_review"]} == {second.node.id}
    drawn = _draw(running, vault.personal, "Olivia Marsh", depth=1)
    assert drawn["error"] is None, drawn
    waiting = [label["text"] for label in drawn["labels"] if "awaiting review" in label["text"]]
    assert waiting == [f"{KEY_REWORDED[0]} \u2026 awaiting review"]
    service.resolve_duplicate(second.verdict, "distinct", scopes=["personal"])
    sub = ask(running, f"/v1/nodes/{vault.person}/subgraph?depth=1", token=vault.personal)
    assert not any(node["awaiting_review"] for node in sub.json()["nodes"])


@pytest.mark.skipif(shutil.which("node") is None, reason="Node runs the page's script")
def test_the_page_writes_the_titles_that_fit_and_more_as_it_zooms_in(
    running: GraphServer, vault: Vault, service: MemoryService
) -> None:
    """Depth 2 around a busy person: a few hundred titles, once a black pile; now only those
    that fit, the person's first, none over another, more at each zoom step."""
    scopes = ["personal"]
    hubs = [service.write("Topic", name).node for name in ("Beekeeping", "Choir", "Allotment")]
    for number in range(150):
        title, body = f"Visit number {number} with Olivia", f"What we did on visit {number}."
        note = service.write("Note", title, body, dedup=False).node
        assert note is not None
        service.link(note.id, vault.person, "involves", scopes=scopes)
        hub = hubs[number % 3]
        assert hub is not None
        service.link(note.id, hub.id, "relates_to" if number % 2 else "mentions", scopes=scopes)
    for hub in hubs:
        assert hub is not None
        service.link(vault.note, hub.id, "references", scopes=scopes)
    drawn = _draw(running, vault.personal, vault.person, depth=2, zooms=6)
    assert drawn["error"] is None, drawn
    frames: list[list[dict[str, object]]] = drawn["frames"]  # type: ignore[assignment]
    char_px = float(str(drawn["char_px"]))
    fitted, *closer, refitted = frames
    assert len(fitted) > 150
    written = [[label for label in frame if label["shown"]] for frame in frames]
    assert 3 <= len(written[0]) < len(fitted) / 2
    assert "Olivia Marsh" in {label["text"] for label in written[0]}  # the centre, first
    for labels in written:
        _assert_apart(labels, char_px)
    counts = [len(labels) for labels in written[: len(closer) + 1]]
    assert counts == sorted(counts) and counts[-1] > 2 * counts[0]
    for before, after in itertools.pairwise(written[: len(closer) + 1]):
        assert {label["text"] for label in before} <= {label["text"] for label in after}
    assert [label["shown"] for label in refitted] == [label["shown"] for label in fitted]
    legend = str(drawn["legend"])
    assert "line: involves" in legend and "line: relates to" in legend
    assert "(blue)" in legend or "(orange)" in legend
    assert not re.search(r"#[0-9a-fA-F]{6}", legend)


def _assert_apart(labels: list[dict[str, object]], char_px: float) -> None:
    """No two written titles share a pixel: each is its letters' width (as the page measured
    them) from its start, and a line high above its baseline."""
    boxes = []
    for label in labels:
        x, y = float(str(label["x"])), float(str(label["y"]))
        boxes.append((x, y - 12, x + char_px * len(str(label["text"])), y + 4))
    for number, first in enumerate(boxes):
        for second in boxes[number + 1 :]:
            apart = (
                first[2] <= second[0]
                or second[2] <= first[0]
                or first[3] <= second[1]
                or second[3] <= first[1]
            )
            assert apart, f"{first} and {second} overlap"


def _draw(
    server: GraphServer, token: str, query: str, *, depth: int, zooms: int = 0
) -> dict[str, object]:
    base = f"http://127.0.0.1:{server.port}"
    script = graph_page.asset("/v1/view.js").body.decode()
    run = subprocess.run(
        ["node", str(HARNESS), base, token, query, str(depth), str(zooms)],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    result: dict[str, object] = json.loads(run.stdout)
    return result
