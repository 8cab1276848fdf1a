"""The graph server's endpoints under /v1/, each a call of a read method of ``MemoryService``,
with the parameters each one takes; ``openapi`` describes them from this same table, so
the document cannot drift from what is served. No route writes."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from cairn.app.clock import utc_stamp
from cairn.app.errors import InvalidRequest, NodeNotFound
from cairn.app.graphview import export
from cairn.app.retrieval.graph_reads import DIRECTIONS, MAX_DEPTH
from cairn.app.retrieval.search import MAX_LIMIT, PROFILES
from cairn.app.server import graph_page, openapi
from cairn.app.server.endpoint import Param, Params, Reply, Route
from cairn.app.service import MemoryService

GRAPHML = "application/graphml+xml; charset=utf-8"
FORMATS = ("json", "graphml")
# The whitespace a query may not consist of only, spelled out so the OpenAPI pattern means
# the same in every regex dialect (Python, Rust and JavaScript disagree on Unicode spaces).
BLANK = " \t\n\r\f\v"


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
        _check_names(self.route, params)
        return self.route.handler(service, match, params, scopes)


def find(path: str) -> Found | None:
    for route in ROUTES:
        match = _PATTERNS[route.path].fullmatch(path)
        if match is not None:
            return Found(route, match)
    return None


# -- parameters -------------------------------------------------------------------------------


def _check_names(route: Route, params: Params) -> None:
    """A misspelt parameter is refused, never ignored: `limt=5` must not quietly mean 10."""
    known = {param.name: param for param in route.params if param.where == "query"}
    for name, values in params.items():
        param = known.get(name)
        if param is None:
            takes = ", ".join(known) if known else "no parameters"
            raise InvalidRequest(f"{route.path} takes {takes}; not {name!r}.")
        if len(values) > 1 and not param.repeat:
            raise InvalidRequest(f"{name} is given {len(values)} times; give it once.")


def _one(params: Params, name: str) -> str | None:
    values = params.get(name)
    return values[-1] if values else None


def _int(params: Params, name: str, default: int, low: int, high: int) -> int:
    value = _one(params, name)
    if value is None:
        return default
    # ASCII digits only: int() would also take "٣", "1_0" or " 3", which no client means.
    if not re.fullmatch(r"-?[0-9]{1,12}", value):
        raise InvalidRequest(f"{name} is a whole number from {low} to {high}, got {value!r}.")
    number = int(value)
    if not low <= number <= high:
        raise InvalidRequest(f"{name} is a whole number from {low} to {high}, got {number}.")
    return number


def _choice(params: Params, name: str, choices: Sequence[str], default: str) -> str:
    value = _one(params, name)
    if value is None:
        return default
    if value not in choices:
        either = f"{', '.join(choices[:-1])} or {choices[-1]}"
        raise InvalidRequest(f"{name} is {either}, got {value!r}.")
    return value


def _as_of(params: Params) -> str | None:
    value = _one(params, "as_of")
    if value is not None and utc_stamp(value) is None:  # "" too: the search would ignore it
        raise InvalidRequest(f"as_of is a date (YYYY-MM-DD) or an ISO time, not {value!r}.")
    return value


def _graph_reply(graph: Any, chosen: str) -> Reply:
    if chosen == "graphml":
        return Reply(HTTPStatus.OK, export.graphml(graph).encode("utf-8"), GRAPHML)
    return Reply.json(export.node_link(graph))


# -- endpoints --------------------------------------------------------------------------------


def _health(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    return Reply.json({"status": "ok", "read_only": True})


def _openapi(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    return Reply.json(openapi.document(ROUTES, service.edge_types()))


def _page(service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]) -> Reply:
    asset = graph_page.asset(match.string)
    return Reply(HTTPStatus.OK, asset.body, asset.content_type, graph_page.HEADERS)


def _search(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    query = _one(params, "q")
    if query is None or not query.strip(BLANK):
        raise InvalidRequest("search needs a query: /v1/search?q=words.")
    response = service.search(
        query,
        scopes=scopes,
        limit=_int(params, "limit", 10, 1, MAX_LIMIT),
        profile=_choice(params, "profile", PROFILES, "balanced"),
        as_of=_as_of(params),
    )
    return Reply.json(response.as_dict())


def _ask(service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]) -> Reply:
    question = _one(params, "q")
    if question is None or not question.strip(BLANK):
        raise InvalidRequest("ask needs a question: /v1/ask?q=When+did+I+….")
    return Reply.json(service.ask(question, scopes=scopes, as_of=_as_of(params)).as_dict())


def _node(service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]) -> Reply:
    found = service.get([match["id"]], scopes=scopes, use=False)
    if not found.nodes:
        raise NodeNotFound(match["id"])
    return Reply.json(found.nodes[0].as_dict())


def _neighbours(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    reach = service.traverse(
        match["id"],
        scopes=scopes,
        depth=_int(params, "depth", 1, 1, MAX_DEPTH),
        direction=_choice(params, "direction", DIRECTIONS, "both"),
        edge_types=params.get("edge_type") or None,
    )
    return Reply.json(reach.as_dict())


def _subgraph(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    chosen = _choice(params, "format", FORMATS, "json")
    depth = _int(params, "depth", 2, 1, MAX_DEPTH)
    return _graph_reply(service.subgraph_export(match["id"], scopes=scopes, depth=depth), chosen)


def _graph(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    chosen = _choice(params, "format", FORMATS, "json")
    return _graph_reply(service.graph_export(scopes=scopes), chosen)


def _stats(
    service: MemoryService, match: re.Match[str], params: Params, scopes: list[str]
) -> Reply:
    return Reply.json(service.stats(scopes=scopes).as_dict())


# -- the table --------------------------------------------------------------------------------

_SCOPES = Param("scopes", "query", {"type": "string"}, "comma-separated (default: the token's)")
_AS_OF = Param(
    "as_of",
    "query",
    {"type": "string", "format": "date"},
    "what was true at this date (YYYY-MM-DD; an ISO 8601 time works too)",
)
_NODE_ID = Param(
    "id", "path", {"type": "string", "pattern": "^[0-9A-Za-z]{1,64}$"}, "the memory's id", True
)
_FORMAT = Param(
    "format",
    "query",
    {"type": "string", "enum": list(FORMATS), "default": "json"},
    "json (node-link) or graphml",
)


def _depth(default: int) -> Param:
    schema = {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH, "default": default}
    return Param("depth", "query", schema, f"how many links away (default {default})")


ROUTES: Sequence[Route] = (
    Route("/v1/health", _health, True, "the server is up", answer="health"),
    Route("/v1/openapi.json", _openapi, True, "this document", answer="openapi"),
    Route("/v1/view", _page, True, "a page that draws the graph around a memory", answer="html"),
    Route("/v1/view.js", _page, True, "the page's script", answer="script"),
    Route("/v1/view.css", _page, True, "the page's style sheet", answer="style"),
    Route(
        "/v1/search",
        _search,
        False,
        "hybrid search; the same envelope as `cairn search --json`",
        (
            Param(
                "q",
                "query",
                {"type": "string", "minLength": 1, "pattern": f"[^{re.escape(BLANK)}]"},
                "what to look for",
                required=True,
            ),
            Param(
                "limit",
                "query",
                {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 10},
                f"how many results, at most {MAX_LIMIT}",
            ),
            Param(
                "profile",
                "query",
                {"type": "string", "enum": list(PROFILES), "default": "balanced"},
                "fast (two legs) or balanced (plus graph neighbours)",
            ),
            _AS_OF,
            _SCOPES,
        ),
        answer="search",
    ),
    Route(
        "/v1/ask",
        _ask,
        False,
        "a question answered by cited sentences of the memories, or an abstention with the "
        "closest; the same as `cairn ask --json`",
        (
            Param(
                "q",
                "query",
                {"type": "string", "minLength": 1, "pattern": f"[^{re.escape(BLANK)}]"},
                "the question",
                required=True,
            ),
            _AS_OF,
            _SCOPES,
        ),
        answer="ask",
    ),
    Route("/v1/nodes/{id}", _node, False, "one memory with its edges", (_NODE_ID, _SCOPES), "node"),
    Route(
        "/v1/nodes/{id}/neighbours",
        _neighbours,
        False,
        "what a memory reaches (traverse)",
        (
            _NODE_ID,
            _depth(1),
            Param(
                "direction",
                "query",
                {"type": "string", "enum": list(DIRECTIONS), "default": "both"},
                "follow links out, in or both ways",
            ),
            Param(
                "edge_type",
                "query",
                {"type": "array", "items": {"type": "string"}},
                "only these edge types (repeat the parameter)",
                repeat=True,
            ),
            _SCOPES,
        ),
        "traverse",
    ),
    Route(
        "/v1/nodes/{id}/subgraph",
        _subgraph,
        False,
        "the graph around a memory, as node-link JSON or GraphML",
        (_NODE_ID, _depth(2), _FORMAT, _SCOPES),
        "graph",
    ),
    Route("/v1/graph", _graph, False, "every visible memory and edge", (_FORMAT, _SCOPES), "graph"),
    Route("/v1/stats", _stats, False, "counts and sizes", (_SCOPES,), "stats"),
)
_PATTERNS = {route.path: route.pattern for route in ROUTES}
