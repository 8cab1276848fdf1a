"""The OpenAPI 3.1 document of the graph server, built from its routes table.

Each parameter has the type and bounds the server enforces, and each answer its media type and
schema, so a client generator (or a fuzzer) can tell a request the server must accept from one
it must refuse with a 400, and check what comes back. Edge types are the vault's pack's, so the
document is built per request; it holds no memory content (it is public).
"""

from __future__ import annotations

from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

from cairn.app.retrieval.search import PROFILES
from cairn.app.server.endpoint import Param, Route

JSON = "application/json"
_STRING = {"type": "string"}
_TEXT_OR_NULL = {"type": ["string", "null"]}
_COUNTS = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}


def _object(required: Sequence[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(required), "properties": properties}


def _array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


_ERROR = {
    "type": "object",
    "required": ["error", "message"],
    "properties": {"error": _STRING, "message": {"type": "string", "minLength": 1}},
    "additionalProperties": False,
}
_HIT = _object(
    [
        "id",
        "type",
        "title",
        "snippet",
        "score",
        "scope",
        "status",
        "recorded_at",
        "awaiting_review",
    ],
    id=_STRING,
    type=_STRING,
    title=_STRING,
    snippet=_STRING,
    highlights=_array(_array({"type": "integer", "minimum": 0})),
    score={"type": "number"},
    scope=_STRING,
    status=_STRING,
    source=_TEXT_OR_NULL,
    recorded_at=_STRING,
    ranks={"type": "object", "additionalProperties": {"type": ["integer", "null"]}},
    collapsed={"type": "array"},
    diagnostics={"type": ["object", "null"]},
    awaiting_review={"type": "boolean"},  # kept, but may repeat another memory: see /v1/nodes
)
_SEARCH = _object(
    ["query", "results", "vector_search", "notes", "profile", "as_of"],
    query=_STRING,
    results=_array(_HIT),
    vector_search={"type": "boolean"},
    notes=_array(_STRING),
    profile={"type": "string", "enum": list(PROFILES)},
    as_of=_TEXT_OR_NULL,
)
_CITATION = _object(
    ["id", "type", "title", "locator", "quote", "before", "after", "said_by"],
    id=_STRING,
    type=_STRING,
    title=_STRING,
    locator=_STRING,
    quote={"type": "string", "minLength": 1},
    before=_STRING,
    after=_STRING,
    said_by=_TEXT_OR_NULL,
)
_ASK = _object(
    ["question", "answer", "cited", "confidence", "abstained", "note", "closest", "when", "notes"],
    question=_STRING,
    answer=_STRING,
    cited=_array(_CITATION),
    confidence={"type": "number", "minimum": 0},
    abstained={"type": "boolean"},
    note=_STRING,
    closest={"oneOf": [{"type": "null"}, _CITATION]},
    when=_TEXT_OR_NULL,
    notes=_array(_STRING),
)
_EDGE_SUMMARY = _object(
    ["type", "layer", "direction", "other_id", "other_type", "other_title"],
    type=_STRING,
    layer=_STRING,
    direction={"type": "string", "enum": ["in", "out"]},
    other_id=_STRING,
    other_type=_STRING,
    other_title=_STRING,
    rationale=_TEXT_OR_NULL,
)
# A possible duplicate the person has not settled yet: the review item, the memory it may
# repeat and why; null when nothing waits.
_AWAITING_REVIEW = {
    "type": ["object", "null"],
    "required": ["item", "other_id", "other_title", "reason"],
    "properties": {"item": _STRING, "other_id": _STRING, "other_title": _STRING, "reason": _STRING},
}
_NODE = _object(
    [
        "id",
        "type",
        "title",
        "body",
        "status",
        "scope",
        "recorded_at",
        "edges",
        "edge_counts",
        "awaiting_review",
    ],
    id=_STRING,
    type=_STRING,
    title=_STRING,
    body=_STRING,
    attrs={"type": "object"},
    status=_STRING,
    scope=_STRING,
    source=_TEXT_OR_NULL,
    recorded_at=_STRING,
    updated_at=_STRING,
    edges=_array(_EDGE_SUMMARY),
    edges_truncated={"type": "boolean"},
    edge_counts=_COUNTS,
    merged_ids=_array(_STRING),
    awaiting_review=_AWAITING_REVIEW,
)
_TRAVERSE = _object(
    ["start", "nodes", "edges", "truncated"],
    start=_STRING,
    nodes=_array(
        _object(
            ["id", "type", "title", "status", "depth"],
            id=_STRING,
            type=_STRING,
            title=_STRING,
            status=_STRING,
            depth={"type": "integer", "minimum": 1},
        )
    ),
    edges=_array(_object(["src", "dst", "type"], src=_STRING, dst=_STRING, type=_STRING)),
    truncated={"type": "boolean"},
)
_NODE_LINK = _object(
    ["directed", "multigraph", "graph", "nodes", "links"],
    directed={"type": "boolean"},
    multigraph={"type": "boolean"},
    graph={"type": "object"},
    nodes=_array(_object(["id", "type", "title"], id=_STRING, type=_STRING, title=_STRING)),
    links=_array(_object(["source", "target"], source=_STRING, target=_STRING)),
)
_STATS = _object(
    ["nodes_by_type", "nodes_by_status", "nodes_by_scope", "edges", "receipts"],
    nodes_by_type=_COUNTS,
    nodes_by_status=_COUNTS,
    nodes_by_scope=_COUNTS,
    edges={"type": "integer", "minimum": 0},
    receipts={"type": "integer", "minimum": 0},
    vector_search={"type": "boolean"},
)

# What a 200 holds, by Route.answer: media type -> schema.
ANSWERS: dict[str, dict[str, dict[str, Any]]] = {
    "health": {
        JSON: _object(
            ["status", "read_only"],
            status={"const": "ok"},
            read_only={"const": True},
        )
    },
    "openapi": {JSON: _object(["openapi", "info", "paths"], openapi=_STRING, paths={})},
    "html": {"text/html": _STRING},
    "script": {"text/javascript": _STRING},
    "style": {"text/css": _STRING},
    "search": {JSON: _SEARCH},
    "ask": {JSON: _ASK},
    "node": {JSON: _NODE},
    "traverse": {JSON: _TRAVERSE},
    "graph": {JSON: _NODE_LINK, "application/graphml+xml": _STRING},
    "stats": {JSON: _STATS},
}


def _refusals(route: Route) -> list[int]:
    codes = [400, 405, 421]
    if not route.public:
        codes += [401, 403, 503]  # 503: the vault could not be read just now
    if "{id}" in route.path:
        codes.append(404)
    return sorted(codes)


def _parameter(param: Param, edge_types: Sequence[str]) -> dict[str, Any]:
    schema = dict(param.schema)
    if param.name == "edge_type":  # the pack's, so a valid request names a known one
        schema["items"] = {"type": "string", "enum": list(edge_types)}
    out: dict[str, Any] = {
        "name": param.name,
        "in": param.where,
        "required": param.required,
        "schema": schema,
        "description": param.about,
    }
    if param.repeat:
        out |= {"style": "form", "explode": True}
    return out


def _operation(route: Route, edge_types: Sequence[str]) -> dict[str, Any]:
    error = {JSON: {"schema": {"$ref": "#/components/schemas/Error"}}}
    responses: dict[str, Any] = {
        "200": {
            "description": "OK",
            "content": {kind: {"schema": schema} for kind, schema in ANSWERS[route.answer].items()},
        }
    }
    for code in _refusals(route):
        responses[str(code)] = {"description": HTTPStatus(code).phrase, "content": error}
    operation: dict[str, Any] = {
        "summary": route.summary,
        "parameters": [_parameter(param, edge_types) for param in route.params],
        "responses": responses,
    }
    if route.public:
        operation["security"] = []
    return {"get": operation}


def document(routes: Sequence[Route], edge_types: Sequence[str]) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Cairn graph server",
            "version": "1",
            "description": "Read-only access to a Cairn vault, limited to a token's scopes. "
            "Unknown query parameters are refused (400), not ignored.",
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Error": _ERROR},
        },
        "security": [{"bearer": []}],
        "paths": {route.path: _operation(route, edge_types) for route in routes},
    }
