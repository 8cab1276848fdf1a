"""What an endpoint of the graph server is: its path, the parameters it takes, the handler that
answers it and the reply. Its own module so that the route table (``routes``) and the document
that describes it (``openapi``) both read it without importing each other."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from cairn.app.service import MemoryService

Params = dict[str, list[str]]
JSON = "application/json; charset=utf-8"
# A memory's id in a path: what {id} matches.
ID_PATTERN = r"(?P<id>[0-9A-Za-z]{1,64})"


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    content_type: str = JSON
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, data: Any, status: int = HTTPStatus.OK) -> Reply:
        return cls(status, json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8"))

    @classmethod
    def error(cls, status: int, message: str) -> Reply:
        return cls.json({"error": HTTPStatus(status).phrase, "message": message}, status)


Handler = Callable[[MemoryService, "re.Match[str]", Params, list[str]], Reply]


@dataclass(frozen=True)
class Param:
    name: str
    where: str  # "query" or "path"
    schema: dict[str, Any]
    about: str
    required: bool = False
    repeat: bool = False  # may be given more than once (each value counts)


@dataclass(frozen=True)
class Route:
    path: str  # as the OpenAPI document names it
    handler: Handler
    public: bool  # answered without a token: says nothing about what the vault holds
    summary: str
    params: tuple[Param, ...] = ()
    answer: str = "json"  # what a 200 holds: a key of openapi.ANSWERS

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(re.escape(self.path).replace(r"\{id\}", ID_PATTERN))
