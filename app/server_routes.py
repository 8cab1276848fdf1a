"""The graph server's endpoints under /v1/, each a call of a read method of ``MemoryService``,
and the OpenAPI document that describes them. No route writes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from cairn.app import graph_export
from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.service import MemoryService

Params = dict[str, list[str]]
JSON = "application/json; charset=utf-8"
GRAPHML = "application/graphml+xml; charset=utf-8"


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    content_type: str = JSON

    @classmethod
    def json(cls, data: Any, status: int = HTTPStatus.OK) -> Reply:
        return cls(status, json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8"))

    @classmethod
    def error(cls, status: int, message: str) -> Reply:
        return cls.json({"error": HTTPStatus(status).phrase, "message": message}, status)


Handler = Callable[[MemoryService, "re.Match[str]", Params, list[str]], Reply]


@dataclass(frozen=True)
class Route:
    pattern: re.Pattern[str]
    handler: Handler
    public: bool  # answered without a token: says nothing about what the vault holds


@dataclass(frozen=True)
class Found:
    route: Route
    match: re.Match[str]

    @property
    def public(self) -> bool:
        return self.route.public

    def call(
        self, service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
    ) -> Reply:
        return self.route.handler(service, match, params, scopes)


def find(path: str) -> Found | None:
    for route in _ROUTES:
        match = route.pattern.fullmatch(path)
        if match is not None:
            return Found(route, match)
    return None


# -- parameters -------------------------------------------------------------------------------


def _one(params: Params, name: str, default: str | None = None) -> str | None:
    values = params.get(name)
    return values[-1] if values else default


def _int(params: Params, name: str, default: int) -> int:
    value = _one(params, name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise InvalidRequest(f"{name} is a whole number, got {value!r}.") from None


def _format(params: Params) -> str:
    chosen = _one(params, "format", "json") or "json"
    if chosen not in ("json", "graphml"):
        raise InvalidRequest(f"format is json or graphml, got {chosen!r}.")
    return chosen


def _graph_reply(graph: Any, chosen: str) -> Reply:
    if chosen == "graphml":
        return Reply(HTTPStatus.OK, graph_export.graphml(graph).encode("utf-8"), GRAPHML)
    return Reply.json(graph_export.node_link(graph))


# -- endpoints --------------------------------------------------------------------------------


def _health(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    return Reply.json({"status": "ok", "read_only": True})


def _openapi(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    return Reply.json(OPENAPI)


def _search(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    query = _one(params, "q")
    if not query or not query.strip():
        raise InvalidRequest("search needs a query: /v1/search?q=words.")
    response = service.search(
        query,
        scopes=scopes,
        limit=_int(params, "limit", 10),
        profile=_one(params, "profile", "balanced") or "balanced",
        as_of=_one(params, "as_of"),
    )
    return Reply.json(response.as_dict())


def _node(service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]) -> Reply:
    found = service.get([match["id"]], scopes=scopes)
    if not found.nodes:
        raise NodeNotFound(match["id"])
    return Reply.json(found.nodes[0].as_dict())


def _neighbours(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    reach = service.traverse(
        match["id"],
        scopes=scopes,
        depth=_int(params, "depth", 1),
        direction=_one(params, "direction", "both") or "both",
        edge_types=params.get("edge_type") or None,
    )
    return Reply.json(reach.as_dict())


def _subgraph(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    chosen = _format(params)
    reach = service.traverse(match["id"], scopes=scopes, depth=_int(params, "depth", 2))
    return _graph_reply(graph_export.from_traverse(reach), chosen)


def _graph(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    chosen = _format(params)
    return _graph_reply(service.graph_export(scopes=scopes), chosen)


def _stats(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    return Reply.json(service.stats(scopes=scopes))


_ID = r"(?P<id>[0-9A-Za-z]{1,64})"
_ROUTES: Sequence[Route] = (
    Route(re.compile(r"/v1/health"), _health, public=True),
    Route(re.compile(r"/v1/openapi\.json"), _openapi, public=True),
    Route(re.compile(r"/v1/search"), _search, public=False),
    Route(re.compile(rf"/v1/nodes/{_ID}"), _node, public=False),
    Route(re.compile(rf"/v1/nodes/{_ID}/neighbours"), _neighbours, public=False),
    Route(re.compile(rf"/v1/nodes/{_ID}/subgraph"), _subgraph, public=False),
    Route(re.compile(r"/v1/graph"), _graph, public=False),
    Route(re.compile(r"/v1/stats"), _stats, public=False),
)


# -- OpenAPI ----------------------------------------------------------------------------------


def _param(name: str, where: str, kind: str, about: str, *, required: bool = False) -> Any:
    return {
        "name": name,
        "in": where,
        "required": required,
        "schema": {"type": kind},
        "description": about,
    }


_SCOPES = _param("scopes", "query", "string", "comma-separated scopes (default: the token's)")
_NODE_ID = _param("id", "path", "string", "the memory's id", required=True)
_FORMAT = {**_param("format", "query", "string", "json (node-link) or graphml")}
_FORMAT["schema"] = {"type": "string", "enum": ["json", "graphml"], "default": "json"}
_ERRORS = {
    str(code): {"description": HTTPStatus(code).phrase} for code in (400, 401, 403, 404, 405, 421)
}


def _get(summary: str, parameters: list[Any], *, public: bool = False) -> Any:
    operation: dict[str, Any] = {
        "summary": summary,
        "parameters": parameters,
        "responses": {"200": {"description": "OK"}, **_ERRORS},
    }
    if public:
        operation["security"] = []
    return {"get": operation}


OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {
        "title": "Cairn graph server",
        "version": "1",
        "description": "Read-only access to a Cairn vault, limited to a token's scopes.",
    },
    "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    "security": [{"bearer": []}],
    "paths": {
        "/v1/health": _get("the server is up", [], public=True),
        "/v1/openapi.json": _get("this document", [], public=True),
        "/v1/search": _get(
            "hybrid search; the same envelope as `cairn search --json`",
            [
                _param("q", "query", "string", "what to look for", required=True),
                _param("limit", "query", "integer", "at most 25 (default 10)"),
                _param("profile", "query", "string", "fast or balanced"),
                _param("as_of", "query", "string", "what was true at this date"),
                _SCOPES,
            ],
        ),
        "/v1/nodes/{id}": _get("one memory with its edges", [_NODE_ID, _SCOPES]),
        "/v1/nodes/{id}/neighbours": _get(
            "what a memory reaches (traverse)",
            [
                _NODE_ID,
                _param("depth", "query", "integer", "1 to 4 (default 1)"),
                _param("direction", "query", "string", "out, in or both"),
                _param("edge_type", "query", "string", "only these edge types (repeat)"),
                _SCOPES,
            ],
        ),
        "/v1/nodes/{id}/subgraph": _get(
            "the graph around a memory, as node-link JSON or GraphML",
            [_NODE_ID, _param("depth", "query", "integer", "1 to 4 (default 2)"), _FORMAT, _SCOPES],
        ),
        "/v1/graph": _get("every visible memory and edge", [_FORMAT, _SCOPES]),
        "/v1/stats": _get("counts and sizes", [_SCOPES]),
    },
}
