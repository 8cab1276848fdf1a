"""Pack validation is enforced by the vault itself: raw SQL on the writer connection, which no
Python check stands in front of, must be refused by the schema's triggers and constraints.

Most tests share one vault per module and run inside a transaction that the ``conn`` fixture
rolls back, so each test starts from the same empty vault and leaves nothing behind.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlcipher3

from cairn.app.errors import PackError
from cairn.app.packs import Pack
from cairn.app.service import MemoryService
from cairn.storage import graph_rows
from cairn.storage.errors import RowRejected
from tests.conftest import Opened, create_service

PREFIX = "cairn: "
NOW = "2024-05-01T10:00:00.000000+00:00"


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Opened]:
    path = tmp_path_factory.mktemp("packs") / "packs.cairn"
    with create_service(path, None) as opened:
        yield opened


class _RollBack(Exception):
    pass


@pytest.fixture
def conn(shared: Opened) -> Iterator[Any]:
    """The writer connection inside a transaction that is always rolled back."""
    with shared.vault.read() as reader:
        assert graph_rows.node_count(reader) == 0  # the engine's sentinel aside
    try:
        with shared.vault.write() as writer:
            yield writer
            raise _RollBack
    except _RollBack:
        pass


_counter = 0


def insert_node(
    conn: Any, type_: str, title: str = "A title", attrs: Any = "{}", **extra: Any
) -> str:
    """A raw INSERT; ``attrs`` is stored as given when a str, else as its JSON."""
    global _counter
    _counter += 1
    node_id = f"01TESTNODE{_counter:016d}"
    row = {
        "id": node_id,
        "type": type_,
        "title": title,
        "attrs": attrs if isinstance(attrs, str) else json.dumps(attrs),
        "scope": "personal",
        "recorded_at": NOW,
        "updated_at": NOW,
        **extra,
    }
    columns = ", ".join(row)
    marks = ", ".join("?" * len(row))
    conn.execute(f"INSERT INTO nodes({columns}) VALUES ({marks})", tuple(row.values()))
    return node_id


def insert_edge(conn: Any, src: str, dst: str, type_: str, layer: str = "entity") -> None:
    conn.execute(
        "INSERT INTO edges(src, dst, type, layer, created_at) VALUES (?, ?, ?, ?, ?)",
        (src, dst, type_, layer, NOW),
    )


def node_count(conn: Any) -> int:
    return graph_rows.node_count(conn)


def edge_count(conn: Any) -> int:
    return int(conn.execute("SELECT count(*) FROM edges").fetchone()[0])


def refused_by_trigger(excinfo: pytest.ExceptionInfo[BaseException], *words: str) -> None:
    assert excinfo.type is sqlcipher3.IntegrityError
    message = str(excinfo.value)
    assert message.startswith(PREFIX), message
    for word in words:
        assert word in message, message


# -- nodes ----------------------------------------------------------------------------------------


BAD_ATTRS = [
    pytest.param("Person", {"shoe_size": 42}, ['no attribute "shoe_size"'], id="unknown-attr"),
    pytest.param("Fact", {"confidence": "0.9"}, ["Fact.confidence must be a number"], id="str-num"),
    pytest.param("Person", {"occupation": 7}, ["Person.occupation must be a string"], id="num-str"),
    pytest.param("Person", {"occupation": "   "}, ["must be a string"], id="blank-string"),
    pytest.param("Person", {"occupation": None}, ["must be a string"], id="null-string"),
    pytest.param("Person", {"birthday": "2024-13-01"}, ["must be a date"], id="month-13"),
    pytest.param("Person", {"birthday": "2023-02-30"}, ["must be a date"], id="feb-30"),
    pytest.param("Person", {"birthday": "2023-02-29"}, ["must be a date"], id="not-leap-year"),
    pytest.param("Person", {"birthday": "1/2/2024"}, ["must be a date"], id="us-date"),
    pytest.param("Person", {"birthday": 20240101}, ["must be a date"], id="number-date"),
    pytest.param("Person", {"tags": ["a", 1]}, ["Person.tags must be a list of strings"], id="num"),
    pytest.param("Person", {"tags": "a"}, ["must be a list of strings"], id="list-as-str"),
    pytest.param("Person", {"tags": [["a"]]}, ["must be a list of strings"], id="nested-list"),
    pytest.param("Person", {"tags": {"a": "b"}}, ["must be a list"], id="object-for-list"),
    pytest.param("Person", {"occupation": {"a": "b"}}, ["must be a string"], id="nested-object"),
    pytest.param("Commitment", {"done": 1}, ["Commitment.done must be a boolean"], id="1-for-bool"),
    pytest.param("Commitment", {"done": "true"}, ["must be a boolean"], id="str-for-bool"),
    pytest.param("Person", "not json", ["must be a JSON object"], id="not-json"),
    pytest.param("Person", '{"tags": ["a"]', ["must be a JSON object"], id="truncated-json"),
    pytest.param("Person", '["a", "b"]', ["must be a JSON object"], id="json-array"),
    pytest.param("Person", '"text"', ["must be a JSON object"], id="json-string"),
    pytest.param("Person", "{tags: ['a']}", ["must be a JSON object"], id="json5"),
    pytest.param("Robot", {}, ['unknown node type "Robot"'], id="unknown-type"),
]


@pytest.mark.parametrize(("type_", "attrs", "words"), BAD_ATTRS)
def test_a_raw_insert_breaking_the_pack_is_refused(
    conn: Any, type_: str, attrs: Any, words: list[str]
) -> None:
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        insert_node(conn, type_, attrs=attrs)
    refused_by_trigger(caught, *words)
    assert node_count(conn) == 0


@pytest.mark.parametrize(
    ("column", "value", "constraint"),
    [
        ("title", "", "CHECK constraint failed"),
        ("title", "   ", "CHECK constraint failed"),
        ("status", "deleted", "CHECK constraint failed"),
        ("importance", 1.5, "CHECK constraint failed"),
        ("scope", "nowhere", "FOREIGN KEY constraint failed"),
        ("locator", "{page: 1", "CHECK constraint failed"),
    ],
)
def test_a_raw_insert_breaking_a_constraint_is_refused(
    conn: Any, column: str, value: Any, constraint: str
) -> None:
    with pytest.raises(sqlcipher3.IntegrityError, match=constraint):
        insert_node(conn, "Note", **{column: value})
    assert node_count(conn) == 0


def test_a_valid_raw_insert_is_stored(conn: Any) -> None:
    attrs = {"owner": "Ann", "due": "2024-02-29", "done": True, "tags": ["work", "urgent"]}
    node_id = insert_node(conn, "Commitment", "Send the report", attrs=attrs)
    fact = insert_node(conn, "Fact", "Pi", attrs={"confidence": 0.99, "value": "3.14"})
    insert_node(conn, "Note", "Empty attrs", attrs={})
    insert_node(conn, "Person", "Empty list", attrs={"tags": [], "birthday": "1990-01-31"})
    insert_node(conn, "Event", "Timed", attrs={"date": "2024-05-01T09:30:00"})
    assert node_count(conn) == 5
    stored = conn.execute("SELECT attrs FROM nodes WHERE id = ?", (node_id,)).fetchone()[0]
    assert json.loads(stored) == attrs
    assert conn.execute("SELECT type FROM nodes WHERE id = ?", (fact,)).fetchone()[0] == "Fact"


def test_an_update_to_malformed_attrs_is_refused(conn: Any) -> None:
    node_id = insert_node(conn, "Person", "Ann", attrs={"occupation": "nurse"})
    for attrs in ({"occupation": 3}, {"height": 170}, "[]", "{"):
        text = attrs if isinstance(attrs, str) else json.dumps(attrs)
        with pytest.raises(sqlcipher3.IntegrityError) as caught:
            conn.execute("UPDATE nodes SET attrs = ? WHERE id = ?", (text, node_id))
        refused_by_trigger(caught)
    stored = conn.execute("SELECT attrs FROM nodes WHERE id = ?", (node_id,)).fetchone()[0]
    assert json.loads(stored) == {"occupation": "nurse"}
    conn.execute(
        "UPDATE nodes SET attrs = ? WHERE id = ?", ('{"occupation": "doctor"}', node_id)
    )  # a valid update goes through


def test_retyping_to_a_type_without_the_attributes_is_refused(conn: Any) -> None:
    node_id = insert_node(conn, "Person", "Ann", attrs={"occupation": "nurse"})
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        conn.execute("UPDATE nodes SET type = 'Note' WHERE id = ?", (node_id,))
    refused_by_trigger(caught, 'a Note has no attribute "occupation"')
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        conn.execute("UPDATE nodes SET type = 'Robot' WHERE id = ?", (node_id,))
    refused_by_trigger(caught, "unknown node type")
    assert conn.execute("SELECT type FROM nodes WHERE id = ?", (node_id,)).fetchone()[0] == "Person"


def test_a_required_attribute_must_be_present(conn: Any) -> None:
    """The personal pack has no required attribute: declare one in the registry."""
    conn.execute("INSERT INTO node_types(name, family) VALUES ('Widget', 'entity')")
    conn.execute(
        "INSERT INTO node_type_attrs(node_type, name, kind, required) "
        "VALUES ('Widget', 'serial', 'string', 1)"
    )
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        insert_node(conn, "Widget", attrs={})
    refused_by_trigger(caught, 'a Widget needs the attribute "serial"')
    with pytest.raises(sqlcipher3.IntegrityError):
        insert_node(conn, "Widget", attrs={"serial": 12})
    insert_node(conn, "Widget", attrs={"serial": "W-12"})
    assert node_count(conn) == 1


# -- edges ----------------------------------------------------------------------------------------


@pytest.fixture
def nodes(conn: Any) -> dict[str, str]:
    return {
        "note": insert_node(conn, "Note", "A note"),
        "ann": insert_node(conn, "Person", "Ann"),
        "bob": insert_node(conn, "Person", "Bob"),
        "acme": insert_node(conn, "Organization", "Acme"),
        "party": insert_node(conn, "Event", "Party"),
    }


def test_an_edge_its_rules_forbid_is_refused(conn: Any, nodes: dict[str, str]) -> None:
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        insert_edge(conn, nodes["note"], nodes["ann"], "works_at")
    refused_by_trigger(caught, "a works_at edge may not join a Note to a Person")
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        insert_edge(conn, nodes["acme"], nodes["ann"], "works_at")  # directed: not backwards
    refused_by_trigger(caught, "may not join a Organization to a Person")
    assert edge_count(conn) == 0


def test_an_edge_in_the_wrong_layer_is_refused(conn: Any, nodes: dict[str, str]) -> None:
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        insert_edge(conn, nodes["ann"], nodes["acme"], "works_at", layer="semantic")
    refused_by_trigger(caught, "belongs to the entity layer, not semantic")
    assert edge_count(conn) == 0


def test_an_edge_of_an_unknown_type_is_refused(conn: Any, nodes: dict[str, str]) -> None:
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        insert_edge(conn, nodes["ann"], nodes["bob"], "admires")
    refused_by_trigger(caught, 'unknown edge type "admires"')
    assert edge_count(conn) == 0


def test_a_self_loop_is_refused(conn: Any, nodes: dict[str, str]) -> None:
    with pytest.raises(sqlcipher3.IntegrityError, match="CHECK constraint failed"):
        insert_edge(conn, nodes["ann"], nodes["ann"], "knows")
    with pytest.raises(sqlcipher3.IntegrityError, match="CHECK constraint failed"):
        insert_edge(conn, nodes["note"], nodes["note"], "references", layer="semantic")
    assert edge_count(conn) == 0


def test_an_edge_to_a_missing_node_is_refused(conn: Any, nodes: dict[str, str]) -> None:
    with pytest.raises(sqlcipher3.IntegrityError, match="FOREIGN KEY constraint failed"):
        insert_edge(conn, nodes["ann"], "01NOSUCHNODE0000000000000", "knows")
    assert edge_count(conn) == 0


def test_allowed_edges_are_stored(conn: Any, nodes: dict[str, str]) -> None:
    insert_edge(conn, nodes["ann"], nodes["acme"], "works_at")
    insert_edge(conn, nodes["note"], nodes["ann"], "mentions")
    insert_edge(conn, nodes["party"], nodes["bob"], "involves")
    insert_edge(conn, nodes["acme"], nodes["note"], "references", layer="semantic")
    assert edge_count(conn) == 4


def test_an_undirected_edge_is_accepted_either_way(conn: Any, nodes: dict[str, str]) -> None:
    insert_edge(conn, nodes["ann"], nodes["bob"], "knows")
    insert_edge(conn, nodes["bob"], nodes["ann"], "knows")
    assert edge_count(conn) == 2
    # knows joins Person to Person, which reads the same both ways; an undirected type whose
    # rule is lopsided shows that the reverse direction really is checked against the rule.
    conn.execute("INSERT INTO edge_types(name, layer, directed) VALUES ('attends', 'entity', 0)")
    conn.execute("INSERT INTO edge_types(name, layer, directed) VALUES ('hosts', 'entity', 1)")
    conn.execute("INSERT INTO edge_rules VALUES ('attends', 'Person', 'Event')")
    conn.execute("INSERT INTO edge_rules VALUES ('hosts', 'Person', 'Event')")
    insert_edge(conn, nodes["ann"], nodes["party"], "attends")
    insert_edge(conn, nodes["party"], nodes["bob"], "attends")
    insert_edge(conn, nodes["ann"], nodes["party"], "hosts")
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        insert_edge(conn, nodes["party"], nodes["bob"], "hosts")
    refused_by_trigger(caught, "may not join a Event to a Person")
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        insert_edge(conn, nodes["acme"], nodes["party"], "attends")  # neither way round
    refused_by_trigger(caught, "may not join a Organization to a Event")
    assert edge_count(conn) == 5


def test_an_edge_update_breaking_its_rules_is_refused(conn: Any, nodes: dict[str, str]) -> None:
    insert_edge(conn, nodes["ann"], nodes["acme"], "works_at")
    for sql, args in (
        ("UPDATE edges SET dst = ?", (nodes["bob"],)),
        ("UPDATE edges SET type = 'knows'", ()),
        ("UPDATE edges SET layer = 'causal'", ()),
        ("UPDATE edges SET type = 'likes'", ()),
    ):
        with pytest.raises(sqlcipher3.IntegrityError) as caught:
            conn.execute(sql, args)
        refused_by_trigger(caught)
    row = conn.execute("SELECT src, dst, type, layer FROM edges").fetchone()
    assert tuple(row) == (nodes["ann"], nodes["acme"], "works_at", "entity")


def test_retyping_a_node_that_would_break_its_edge_is_refused(
    conn: Any, nodes: dict[str, str]
) -> None:
    insert_edge(conn, nodes["ann"], nodes["acme"], "works_at")
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        conn.execute("UPDATE nodes SET type = 'Place' WHERE id = ?", (nodes["ann"],))
    refused_by_trigger(caught, "a Place may not keep its works_at edge")
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        conn.execute("UPDATE nodes SET type = 'Topic' WHERE id = ?", (nodes["acme"],))
    refused_by_trigger(caught, "a Topic may not keep its works_at edge")
    types = dict(
        conn.execute(
            "SELECT id, type FROM nodes WHERE id IN (?, ?)", (nodes["ann"], nodes["acme"])
        ).fetchall()
    )
    assert types == {nodes["ann"]: "Person", nodes["acme"]: "Organization"}


def test_retyping_a_node_whose_edges_stay_valid_is_allowed(
    conn: Any, nodes: dict[str, str]
) -> None:
    insert_edge(conn, nodes["note"], nodes["ann"], "references", layer="semantic")
    insert_edge(conn, nodes["note"], nodes["acme"], "mentions")
    conn.execute("UPDATE nodes SET type = 'Document' WHERE id = ?", (nodes["note"],))
    assert conn.execute("SELECT type FROM nodes WHERE id = ?", (nodes["note"],)).fetchone()[0] == (
        "Document"
    )


def test_retyping_a_node_breaking_its_undirected_edge_is_refused(
    conn: Any, nodes: dict[str, str]
) -> None:
    insert_edge(conn, nodes["ann"], nodes["bob"], "knows")
    with pytest.raises(sqlcipher3.IntegrityError) as caught:
        conn.execute("UPDATE nodes SET type = 'Organization' WHERE id = ?", (nodes["ann"],))
    refused_by_trigger(caught, "may not keep its knows edge")


# -- through the service --------------------------------------------------------------------------


def test_the_service_reports_a_rejected_row_readably(shared: Opened) -> None:
    with pytest.raises(RowRejected) as caught:
        shared.service.write("Note", "Shopping", attrs={"foo": 1})
    assert str(caught.value) == 'a Note has no attribute "foo"'
    assert caught.value.reason == str(caught.value)
    assert caught.value.path == shared.vault.path
    assert isinstance(caught.value.__cause__, sqlcipher3.IntegrityError)

    with pytest.raises(RowRejected, match=r"^Person\.birthday must be a date \(YYYY-MM-DD\)$"):
        shared.service.write("Person", "Ann", attrs={"birthday": "yesterday"})
    with pytest.raises(RowRejected, match=r"^Person\.tags must be a list of strings$"):
        shared.service.write("Person", "Ann", attrs={"tags": ["a", 2]})
    with shared.vault.read() as reader:
        assert graph_rows.node_count(reader) == 0  # the engine's sentinel aside
        assert reader.execute("SELECT count(*) FROM search_index").fetchone()[0] == 0


def test_the_service_reports_a_rejected_link_readably(service: MemoryService) -> None:
    note = service.write("Note", "Lunch").node.id
    ann = service.write("Person", "Ann").node.id
    with pytest.raises(RowRejected, match=r"^a works_at edge may not join a Note to a Person$"):
        service.link(note, ann, "works_at", scopes=["personal"])
    assert service.get([note], scopes=["personal"]).nodes[0].edges == []


# -- the pack loader ------------------------------------------------------------------------------

GOOD_HEAD = '[pack]\nname = "test"\nversion = 1\n'
GOOD_TYPES = '[types.Person]\nfamily = "entity"\n[types.Note]\nfamily = "memory"\n'


def test_a_well_formed_pack_loads() -> None:
    pack = Pack.from_toml(
        GOOD_HEAD
        + GOOD_TYPES
        + 'attrs.tags = { kind = "list" }\n'
        + '[edges.mentions]\nlayer = "entity"\nrules = [["Note", "Person"]]\n',
        "test.toml",
    )
    assert set(pack.node_types) == {"Person", "Note"}
    assert pack.node_types["Note"].attrs["tags"].kind == "list"
    assert pack.edge_types["mentions"].directed
    assert pack.edge_types["mentions"].rules == (("Note", "Person"),)
    bundled = Pack.bundled()
    assert bundled.name == "personal" and "knows" in bundled.edge_types


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param("[pack\nname=", "", id="bad-toml"),
        pytest.param(GOOD_TYPES, "needs a name", id="no-pack-table"),
        pytest.param('[pack]\nname = "x"\nversion = "1"\n' + GOOD_TYPES, "integer", id="version"),
        pytest.param(GOOD_HEAD, "no node types", id="no-types"),
        pytest.param(GOOD_HEAD + "[types.Person]\n", "needs a family", id="missing-family"),
        pytest.param(
            GOOD_HEAD + '[types.Person]\nfamily = "animal"\n', "needs a family", id="bad-family"
        ),
        pytest.param(GOOD_HEAD + '[types.person]\nfamily = "entity"\n', "CamelCase", id="name"),
        pytest.param(
            GOOD_HEAD + '[types.Person]\nfamily = "entity"\nattrs.age = { kind = "integer" }\n',
            "needs a kind",
            id="bad-attr-kind",
        ),
        pytest.param(
            GOOD_HEAD + '[types.Person]\nfamily = "entity"\nattrs.Age = { kind = "number" }\n',
            "lower_snake_case",
            id="bad-attr-name",
        ),
        pytest.param(
            GOOD_HEAD
            + GOOD_TYPES
            + '[edges.owns]\nlayer = "entity"\nrules = [["Person", "Car"]]\n',
            "unknown node type 'Car'",
            id="rule-unknown-type",
        ),
        pytest.param(
            GOOD_HEAD + GOOD_TYPES + '[edges.owns]\nlayer = "entity"\nrules = []\n',
            "no rules",
            id="no-rules",
        ),
        pytest.param(
            GOOD_HEAD + GOOD_TYPES + '[edges.owns]\nlayer = "social"\nrules = [["*", "*"]]\n',
            "needs a layer",
            id="bad-layer",
        ),
        pytest.param(
            GOOD_HEAD + GOOD_TYPES + '[edges.owns]\nlayer = "entity"\nrules = [["Person"]]\n',
            "each rule",
            id="one-ended-rule",
        ),
        pytest.param(
            GOOD_HEAD + GOOD_TYPES + '[edges.Owns]\nlayer = "entity"\nrules = [["*", "*"]]\n',
            "lower_snake_case",
            id="edge-name",
        ),
    ],
)
def test_a_malformed_pack_is_refused(text: str, problem: str) -> None:
    with pytest.raises(PackError) as caught:
        Pack.from_toml(text, "broken.toml")
    message = str(caught.value)
    assert message.startswith("The pack broken.toml is malformed: ")
    assert problem in message


def test_a_malformed_pack_file_names_its_path(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(GOOD_HEAD + "[types.Person]\n", encoding="utf-8")
    with pytest.raises(PackError, match=r"mine\.toml") as caught:
        Pack.from_file(path)
    assert caught.value.source == str(path)


def test_a_date_attribute_with_trailing_words_is_refused(service) -> None:
    with pytest.raises(RowRejected, match="must be a date"):
        service.write("Person", "Dee", attrs={"birthday": "2024-01-01 is when I guess?"})
    person = service.write("Person", "Dee", attrs={"birthday": "2024-01-01T10:30:00"})
    assert person.node.attrs["birthday"] == "2024-01-01T10:30:00"
