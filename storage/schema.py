"""The vault's schema, as append-only numbered migrations.

Never edit a migration that has shipped: add the next one. ``PRAGMA user_version`` records how
many have been applied, in the same transaction that applies each (see ``migrate``).

Pack validation lives in triggers so that no write path, not even a raw ``INSERT``, can store a
node whose attributes break its type's schema or an edge its rules forbid. Trigger messages start
with ``cairn: `` so the storage layer can turn them into ``RowRejected`` with that sentence.
"""

from __future__ import annotations

from typing import Any

from cairn.storage.connection import Connection
from cairn.storage.errors import SchemaTooNew

# A node's attributes must be a JSON object whose keys the node's type declares, each of the
# declared kind, with every required attribute present. {when} is INSERT or UPDATE OF type, attrs.
_NODE_ATTRS_TRIGGER = """
CREATE TRIGGER nodes_attrs_valid_{name} BEFORE {when} ON nodes
BEGIN
    SELECT RAISE(ABORT, 'cairn: the attributes of a ' || NEW.type || ' must be a JSON object')
     WHERE NOT json_valid(NEW.attrs) OR json_type(NEW.attrs) <> 'object';
    SELECT RAISE(ABORT, 'cairn: unknown node type "' || NEW.type || '"')
     WHERE NOT EXISTS (SELECT 1 FROM node_types WHERE name = NEW.type);
    SELECT RAISE(ABORT, 'cairn: a ' || NEW.type || ' has no attribute "' || j.key || '"')
      FROM json_each(NEW.attrs) AS j
     WHERE NOT EXISTS (SELECT 1 FROM node_type_attrs AS a
                        WHERE a.node_type = NEW.type AND a.name = j.key);
    SELECT RAISE(ABORT, 'cairn: ' || NEW.type || '.' || a.name || ' must be a ' || a.kind
                        || CASE a.kind WHEN 'date' THEN ' (YYYY-MM-DD)'
                                       WHEN 'list' THEN ' of strings' ELSE '' END)
      FROM json_each(NEW.attrs) AS j
      JOIN node_type_attrs AS a ON a.node_type = NEW.type AND a.name = j.key
     WHERE NOT CASE a.kind
            WHEN 'string' THEN j.type = 'text' AND length(trim(j.value)) > 0
            WHEN 'number' THEN j.type IN ('integer', 'real')
            WHEN 'boolean' THEN j.type IN ('true', 'false')
            WHEN 'date' THEN j.type = 'text'
                 AND j.value GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'
                 AND date(substr(j.value, 1, 10)) IS substr(j.value, 1, 10)
                 AND (length(j.value) = 10 OR datetime(j.value) IS NOT NULL)
            WHEN 'list' THEN j.type = 'array'
                 AND NOT EXISTS (SELECT 1 FROM json_each(j.value) AS e WHERE e.type <> 'text')
            ELSE 0 END;
    SELECT RAISE(ABORT, 'cairn: a ' || NEW.type || ' needs the attribute "' || a.name || '"')
      FROM node_type_attrs AS a
     WHERE a.node_type = NEW.type AND a.required = 1
       AND json_type(NEW.attrs, '$.' || a.name) IS NULL;
END;
"""

# An edge must have a known type, the layer of that type, and join node types its rules allow;
# an undirected edge type's rules hold either way round. {when} is INSERT or UPDATE.
_EDGE_RULES_TRIGGER = """
CREATE TRIGGER edges_rules_{name} BEFORE {when} ON edges
BEGIN
    SELECT RAISE(ABORT, 'cairn: unknown edge type "' || NEW.type || '"')
     WHERE NOT EXISTS (SELECT 1 FROM edge_types WHERE name = NEW.type);
    SELECT RAISE(ABORT, 'cairn: a ' || NEW.type || ' edge belongs to the ' || t.layer
                        || ' layer, not ' || NEW.layer)
      FROM edge_types AS t WHERE t.name = NEW.type AND t.layer <> NEW.layer;
    SELECT RAISE(ABORT, 'cairn: a ' || NEW.type || ' edge may not join a ' || s.type
                        || ' to a ' || d.type)
      FROM nodes AS s, nodes AS d, edge_types AS t
     WHERE s.id = NEW.src AND d.id = NEW.dst AND t.name = NEW.type
       AND NOT EXISTS (
           SELECT 1 FROM edge_rules AS r
            WHERE r.edge_type = NEW.type
              AND ((r.src_type IN ('*', s.type) AND r.dst_type IN ('*', d.type))
                   OR (t.directed = 0 AND r.src_type IN ('*', d.type)
                       AND r.dst_type IN ('*', s.type))));
END;
"""

# Changing a node's type must not leave one of its edges breaking the rules.
_NODE_RETYPE_TRIGGER = """
CREATE TRIGGER nodes_retype_keeps_edges_valid BEFORE UPDATE OF type ON nodes
BEGIN
    SELECT RAISE(ABORT, 'cairn: a ' || NEW.type || ' may not keep its ' || e.type || ' edge')
      FROM edges AS e
      JOIN edge_types AS t ON t.name = e.type
      JOIN nodes AS other ON other.id = CASE WHEN e.src = NEW.id THEN e.dst ELSE e.src END
     WHERE (e.src = NEW.id OR e.dst = NEW.id)
       AND NOT EXISTS (
           SELECT 1 FROM edge_rules AS r
            WHERE r.edge_type = e.type
              AND ((e.src = NEW.id AND r.src_type IN ('*', NEW.type)
                                   AND r.dst_type IN ('*', other.type))
                   OR (e.dst = NEW.id AND r.dst_type IN ('*', NEW.type)
                                      AND r.src_type IN ('*', other.type))
                   OR (t.directed = 0
                       AND ((r.src_type IN ('*', other.type) AND r.dst_type IN ('*', NEW.type))
                            OR (r.src_type IN ('*', NEW.type)
                                AND r.dst_type IN ('*', other.type))))));
END;
"""

_FOUNDATION = (
    """
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL CHECK (json_valid(value))
) STRICT;

CREATE TABLE scopes (
    name       TEXT PRIMARY KEY
               CHECK (length(name) BETWEEN 1 AND 40 AND name GLOB '[a-z0-9]*'
                      AND name NOT GLOB '*[^a-z0-9_-]*'),
    created_at TEXT NOT NULL
) STRICT;

-- The type registry: filled from a pack (app/packs), read back by the engine.
CREATE TABLE node_types (
    name        TEXT PRIMARY KEY,
    family      TEXT NOT NULL CHECK (family IN ('entity', 'memory', 'document')),
    description TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE node_type_attrs (
    node_type   TEXT NOT NULL REFERENCES node_types(name),
    name        TEXT NOT NULL CHECK (name GLOB '[a-z]*' AND name NOT GLOB '*[^a-z0-9_]*'),
    kind        TEXT NOT NULL CHECK (kind IN ('string', 'date', 'number', 'boolean', 'list')),
    required    INTEGER NOT NULL DEFAULT 0 CHECK (required IN (0, 1)),
    description TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (node_type, name)
) STRICT, WITHOUT ROWID;

CREATE TABLE edge_types (
    name        TEXT PRIMARY KEY,
    layer       TEXT NOT NULL CHECK (layer IN ('entity', 'temporal', 'causal', 'semantic')),
    directed    INTEGER NOT NULL CHECK (directed IN (0, 1)),
    description TEXT NOT NULL DEFAULT ''
) STRICT;

-- Which node types an edge type may join; '*' stands for any type.
CREATE TABLE edge_rules (
    edge_type TEXT NOT NULL REFERENCES edge_types(name),
    src_type  TEXT NOT NULL,
    dst_type  TEXT NOT NULL,
    PRIMARY KEY (edge_type, src_type, dst_type)
) STRICT, WITHOUT ROWID;

CREATE TABLE nodes (
    seq             INTEGER PRIMARY KEY,   -- internal: full-text rowid and vector key
    id              TEXT NOT NULL UNIQUE,  -- ULID, the identity everyone else sees
    type            TEXT NOT NULL REFERENCES node_types(name),
    title           TEXT NOT NULL CHECK (length(trim(title)) > 0),
    body            TEXT NOT NULL DEFAULT '',
    attrs           TEXT NOT NULL DEFAULT '{}',
    status          TEXT NOT NULL DEFAULT 'active'
                    CHECK (status IN ('active', 'pending', 'superseded', 'archived', 'stub')),
    scope           TEXT NOT NULL REFERENCES scopes(name),
    source          TEXT,                  -- where it came from: a file path, 'cli', 'inbox'
    locator         TEXT CHECK (locator IS NULL OR json_valid(locator)),  -- page, time, lines
    valid_from      TEXT,                  -- bi-temporal: when it became true in the world
    valid_to        TEXT,
    recorded_at     TEXT NOT NULL,         -- ... and when Cairn learnt it
    updated_at      TEXT NOT NULL,
    importance      REAL NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1),
    stability       REAL NOT NULL DEFAULT 1.0 CHECK (stability > 0),
    last_access     TEXT,
    access_count    INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
    retention_label TEXT CHECK (retention_label IN ('ephemeral', 'normal', 'critical'))
) STRICT;
CREATE INDEX nodes_by_scope_status ON nodes(scope, status);
CREATE INDEX nodes_by_type ON nodes(type);

CREATE TABLE edges (
    seq        INTEGER PRIMARY KEY,
    src        TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    dst        TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    type       TEXT NOT NULL REFERENCES edge_types(name),
    layer      TEXT NOT NULL,
    rationale  TEXT,
    created_at TEXT NOT NULL,
    valid_from TEXT,
    valid_to   TEXT,
    CHECK (src <> dst),
    UNIQUE (src, dst, type)
) STRICT;
CREATE INDEX edges_by_dst ON edges(dst, type);

-- Full text over searchable_text(title, body, attrs); rowid = nodes.seq.
CREATE VIRTUAL TABLE search_index USING fts5(
    text, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER nodes_leave_search_index AFTER DELETE ON nodes
BEGIN
    DELETE FROM search_index WHERE rowid = OLD.seq;
END;

-- One embedding space per embedder identity; vectors of another space are never compared.
CREATE TABLE embedding_spaces (
    name       TEXT PRIMARY KEY,
    dim        INTEGER NOT NULL CHECK (dim > 0),
    state      TEXT NOT NULL CHECK (state IN ('building', 'ready')),
    created_at TEXT NOT NULL
) STRICT;

-- float32 little-endian, L2-normalised.
CREATE TABLE vectors (
    node_seq INTEGER NOT NULL REFERENCES nodes(seq) ON DELETE CASCADE,
    space    TEXT NOT NULL REFERENCES embedding_spaces(name) ON DELETE CASCADE,
    vector   BLOB NOT NULL,
    UNIQUE (space, node_seq)
) STRICT;

-- A content-free SHA-256 chain: kind, counts and time only.
CREATE TABLE receipts (
    seq       INTEGER PRIMARY KEY,
    at        TEXT NOT NULL,
    kind      TEXT NOT NULL,
    counts    TEXT NOT NULL CHECK (json_valid(counts)),
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL UNIQUE
) STRICT;

-- Quick captures waiting to become memories.
CREATE TABLE inbox (
    id          TEXT PRIMARY KEY,
    text        TEXT NOT NULL CHECK (length(trim(text)) > 0),
    scope       TEXT NOT NULL REFERENCES scopes(name),
    captured_at TEXT NOT NULL,
    state       TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'promoted', 'discarded')),
    node_id     TEXT REFERENCES nodes(id) ON DELETE SET NULL,
    decided_at  TEXT
) STRICT;
CREATE INDEX inbox_by_state ON inbox(state, captured_at);
"""
    + _NODE_ATTRS_TRIGGER.format(name="insert", when="INSERT")
    + _NODE_ATTRS_TRIGGER.format(name="update", when="UPDATE OF type, attrs")
    + _EDGE_RULES_TRIGGER.format(name="insert", when="INSERT")
    + _EDGE_RULES_TRIGGER.format(name="update", when="UPDATE OF src, dst, type, layer")
    + _NODE_RETYPE_TRIGGER
)

# Issue 3: the dedup gate, the entity resolver, review and supersede history.
_CLEAN_MEMORY = """
-- The entity resolver's name index: each entity's normalised title and aliases, their
-- initials, and their words in sorted order ("smith john" finds "John Smith") ...
CREATE TABLE entity_names (
    norm     TEXT NOT NULL,
    node_seq INTEGER NOT NULL REFERENCES nodes(seq) ON DELETE CASCADE,
    kind     TEXT NOT NULL CHECK (kind IN ('title', 'alias', 'initials', 'words')),
    PRIMARY KEY (norm, node_seq, kind)
) STRICT, WITHOUT ROWID;
CREATE INDEX entity_names_by_node ON entity_names(node_seq);

-- ... and the fragments that find a misspelling by lookup, not by a scan: each name and
-- every form of it with one character left out. Two names share a fragment when one typing
-- slip (a letter left out, added, changed or two swapped) turns one into the other. The scope
-- is part of the key (a node never changes scope), so a lookup reads only its scopes.
CREATE TABLE name_variants (
    key      TEXT NOT NULL,
    scope    TEXT NOT NULL,
    node_seq INTEGER NOT NULL REFERENCES nodes(seq) ON DELETE CASCADE,
    PRIMARY KEY (key, scope, node_seq)
) STRICT, WITHOUT ROWID;
CREATE INDEX name_variants_by_node ON name_variants(node_seq);

-- The ids of memories folded into another by a merge: reading an old id finds what it became.
CREATE TABLE node_aliases (
    alias_id   TEXT PRIMARY KEY,
    node_id    TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL
) STRICT;
CREATE INDEX node_aliases_by_node ON node_aliases(node_id);

-- Text the dedup gate kept with a node instead of storing it twice: a restatement that was
-- absorbed, or the other side of a merge. Searchable as part of the node.
CREATE TABLE addenda (
    seq         INTEGER PRIMARY KEY,
    node_id     TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    text        TEXT NOT NULL CHECK (length(trim(text)) > 0),
    origin      TEXT NOT NULL CHECK (origin IN ('absorbed', 'merged')),
    source      TEXT,
    recorded_at TEXT NOT NULL
) STRICT;
CREATE INDEX addenda_by_node ON addenda(node_id);

-- Every decision of the dedup gate, with its numbers. Ids are kept as text (no foreign key):
-- the log outlives a merge.
CREATE TABLE dedup_log (
    seq          INTEGER PRIMARY KEY,
    at           TEXT NOT NULL,
    node_id      TEXT,
    candidate_id TEXT,
    outcome      TEXT NOT NULL,
    score        REAL,
    jaccard      REAL,
    reason       TEXT NOT NULL,
    flags        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(flags))
) STRICT;
CREATE INDEX dedup_log_by_node ON dedup_log(node_id);

-- Decisions that wait for the person: duplicates to keep apart or merge, label conflicts,
-- archived memories that a new one may revive. No foreign keys: a settled item outlives the
-- memory a merge folded away (lists join the nodes, so it is not shown once one is gone).
CREATE TABLE review_items (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL
               CHECK (kind IN ('duplicate', 'label_conflict', 'revive_candidate')),
    node_id    TEXT NOT NULL,
    other_id   TEXT NOT NULL,
    score      REAL,
    reason     TEXT NOT NULL,
    flags      TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(flags)),
    state      TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'resolved')),
    decision   TEXT,
    created_at TEXT NOT NULL,
    decided_at TEXT
) STRICT;
CREATE INDEX review_items_by_state ON review_items(state, created_at);
CREATE INDEX review_items_by_node ON review_items(node_id);
CREATE INDEX review_items_by_other ON review_items(other_id);

-- A type's status words from the pack: each canonical value maps to itself, synonyms to it.
CREATE TABLE status_words (
    node_type TEXT NOT NULL REFERENCES node_types(name),
    word      TEXT NOT NULL,
    canonical TEXT NOT NULL,
    PRIMARY KEY (node_type, word)
) STRICT, WITHOUT ROWID;
"""

# The full-text index stems English words (Porter), so "computers" finds "computer": on the
# Vaswani collection the text leg's nDCG@10 rose from 0.34 to 0.39 with it, which is what
# lets hybrid search beat either leg alone. The stored texts are copied over, not recomputed.
# The trigger is dropped and made again around the rename: a rename re-checks every trigger
# that names a table, and this one would name a table that is briefly not there.
_STEMMED_SEARCH = """
DROP TRIGGER nodes_leave_search_index;
CREATE VIRTUAL TABLE search_index_stemmed USING fts5(
    text, tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO search_index_stemmed(rowid, text) SELECT rowid, text FROM search_index;
DROP TABLE search_index;
ALTER TABLE search_index_stemmed RENAME TO search_index;
CREATE TRIGGER nodes_leave_search_index AFTER DELETE ON nodes
BEGIN
    DELETE FROM search_index WHERE rowid = OLD.seq;
END;
"""

# Issue 4: the files a person added, so a second ingest skips what did not change, replaces what
# did and reports what went away. The path is the file's absolute path; like everything else in
# the vault it is encrypted. A failed file keeps its reason here until a later run reads it.
_SOURCES = """
CREATE TABLE sources (
    path        TEXT PRIMARY KEY,
    scope       TEXT NOT NULL REFERENCES scopes(name),
    state       TEXT NOT NULL
                CHECK (state IN ('ingested', 'failed', 'duplicate', 'missing')),
    sha256      TEXT,
    size        INTEGER,
    mtime_ns    INTEGER,
    media_type  TEXT,
    document_id TEXT REFERENCES nodes(id) ON DELETE SET NULL,
    passages    INTEGER NOT NULL DEFAULT 0,
    warnings    TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(warnings)),
    error       TEXT,
    first_seen  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
) STRICT;
CREATE INDEX sources_by_state ON sources(state, path);
CREATE INDEX sources_by_hash ON sources(sha256);
CREATE INDEX sources_by_document ON sources(document_id);
"""

# The graph view's cached layouts: positions and community numbers only (no text), so reopening
# a view skips the layout, and laying it out again after a small change starts from where its
# nodes were. Rows cascade with their
# node, and an ego layout with its root node, so a forgotten memory's id does not stay here.
_GRAPH_LAYOUTS = """
CREATE TABLE graph_layouts (
    key        TEXT PRIMARY KEY,      -- the view: 'overview:<filters>' or 'ego:<root id>'
    root_id    TEXT REFERENCES nodes(id) ON DELETE CASCADE,
    signature  TEXT NOT NULL,         -- hash of the node and edge set it was computed for
    algorithm  INTEGER NOT NULL,      -- the layout version: a new algorithm lays out afresh
    updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX graph_layouts_by_root ON graph_layouts(root_id);

CREATE TABLE graph_positions (
    layout_key TEXT NOT NULL REFERENCES graph_layouts(key) ON DELETE CASCADE,
    node_id    TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    x          REAL NOT NULL,
    y          REAL NOT NULL,
    community  INTEGER,               -- the overview's colour group; NULL in an ego view
    PRIMARY KEY (layout_key, node_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX graph_positions_by_node ON graph_positions(node_id);
"""

# Issue 6: the sentinel every vault holds (storage/sentinel.py, which says why) is never changed
# or deleted, whatever the write path. Its id is spelled out: a shipped migration never changes.
_SENTINEL_GUARD = """
CREATE TRIGGER sentinel_never_changes BEFORE UPDATE ON nodes
WHEN OLD.id = '00000000000000000000000000'
BEGIN
    SELECT RAISE(ABORT, 'cairn: the vault''s sentinel belongs to Cairn and cannot be changed');
END;
CREATE TRIGGER sentinel_never_deleted BEFORE DELETE ON nodes
WHEN OLD.id = '00000000000000000000000000'
BEGIN
    SELECT RAISE(ABORT, 'cairn: the vault''s sentinel belongs to Cairn and cannot be forgotten');
END;
"""

# Issue 6: bearer tokens of the read-only graph server. Only the SHA-256 of a secret is kept:
# a copy of the vault (or of a backup) never hands out a working token. A revoked token keeps
# its row, so `cairn token list` still shows what was granted and when it was taken back.
_API_TOKENS = """
CREATE TABLE api_tokens (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    secret_sha256 TEXT NOT NULL UNIQUE,
    created_at    TEXT NOT NULL,
    scopes        TEXT NOT NULL CHECK (json_valid(scopes) AND json_type(scopes) = 'array'),
    revoked_at    TEXT
) STRICT;
"""

# Issue 6: the retention supervisor's log. Every decision about a memory's keeping (its label at
# birth, a proposal to archive it, an archive or a keep) is a row with its reason. Reasons are
# rule names and numbers, never the memory's text. A forgotten memory takes its rows with it.
# The index serves the supervisor's pass, which reads only active memories of one label.
_RETENTION_LOG = """
CREATE TABLE retention_log (
    seq      INTEGER PRIMARY KEY,
    at       TEXT NOT NULL,
    node_id  TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    action   TEXT NOT NULL CHECK (action IN ('labelled', 'proposed', 'archived', 'kept')),
    label    TEXT CHECK (label IN ('ephemeral', 'normal', 'critical')),
    actor    TEXT NOT NULL,        -- who decided: 'rules', an advisor's name, 'supervisor', 'you'
    reason   TEXT NOT NULL
) STRICT;
CREATE INDEX retention_log_by_node ON retention_log(node_id, seq);
CREATE INDEX nodes_by_retention ON nodes(retention_label, status);
"""

# Issue 15: a file name that is not valid UTF-8 is kept as its bytes; ``path`` holds its readable
# form (each undecodable byte as \xNN), which is shown and keyed. NULL when the two are the same.
_SOURCE_NAME_BYTES = """
ALTER TABLE sources ADD COLUMN path_bytes BLOB;
"""

# Issue 16: nothing a person writes is invisible. A possible duplicate used to wait for review
# as 'pending', out of every default read; it is now kept active at once and marked by its open
# review item, which stays open here. Every pending memory becomes active, with or without an
# item, so none stays hidden. Status lives only in nodes: the full-text leg filters on it and
# the vector index reads it at open, so neither needs more. 'pending' stays legal (CHECK).
_PENDING_VISIBLE = """
UPDATE nodes SET status = 'active' WHERE status = 'pending';
"""

# Issue 19: vectors are kept as int8 codes with a scale each (storage/vector_codes.py), a quarter
# of float32's room. A space records how its rows are encoded; the spaces of an older vault are
# float32 until their rows are converted, once, at open (vectors.compact_rows).
_COMPACT_VECTORS = """
ALTER TABLE embedding_spaces ADD COLUMN encoding TEXT NOT NULL DEFAULT 'float32'
    CHECK (encoding IN ('float32', 'int8'));
"""

# A merge can be undone (app/writing/unmerge.py): what it changed is kept here until then, as
# JSON in the vault like every other row (the folded memory's row, its addenda, edges, names'
# sources and the kept memory's attributes before). No foreign keys: the folded memory's row is
# gone while the merge stands, and the kept one may be folded in turn; a forget removes the rows
# that name what it deletes (storage/forget_rows.py), so no text outlives its memory here.
_MERGE_UNDO = """
CREATE TABLE merges (
    item_id   TEXT PRIMARY KEY,       -- the review item the merge settled
    folded_id TEXT NOT NULL,          -- the memory folded away (an alias while the merge stands)
    kept_id   TEXT NOT NULL,          -- the memory it was folded into
    at        TEXT NOT NULL,
    snapshot  TEXT NOT NULL CHECK (json_valid(snapshot))
) STRICT;
CREATE INDEX merges_by_kept ON merges(kept_id);
CREATE INDEX merges_by_folded ON merges(folded_id);
"""

# Index i holds the SQL that brings a vault from schema i to i + 1.
MIGRATIONS: tuple[str, ...] = (
    _FOUNDATION,
    _CLEAN_MEMORY,
    _STEMMED_SEARCH,
    _SOURCES,
    _GRAPH_LAYOUTS,
    _SENTINEL_GUARD,
    _API_TOKENS,
    _RETENTION_LOG,
    _SOURCE_NAME_BYTES,
    _PENDING_VISIBLE,
    _COMPACT_VECTORS,
    _MERGE_UNDO,
)
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(conn: Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def check_not_newer(conn: Connection, path: Any) -> int:
    """The file's schema version; refuses a file written by a newer program."""
    found = schema_version(conn)
    if found > SCHEMA_VERSION:
        raise SchemaTooNew(path, found, SCHEMA_VERSION)
    return found


def migrate(conn: Connection, path: Any) -> int:
    """Apply every migration the file lacks, each atomically with its version stamp."""
    current = check_not_newer(conn, path)
    for version in range(current, SCHEMA_VERSION):
        # One script: the migration and its user_version stamp commit together or not at all.
        script = f"BEGIN IMMEDIATE;\n{MIGRATIONS[version]}\nPRAGMA user_version = {version + 1};\n"
        try:
            conn.executescript(script)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return SCHEMA_VERSION
