"""A service factory with a bug, for the ingest child (``ingestion.process``): the child
imports it by reference, as it does ``compose.service_for``, and meets the bug there."""

from __future__ import annotations

from typing import Any

MARKER = "WOMBATLANTERN"


def open_broken_service(vault: Any, embedder: Any, extraction: Any) -> Any:
    vault.close()
    raise ValueError(f"a bug whose message quotes a memory: {MARKER}")
