"""An ingest run's request: built once from what a caller has at hand, frozen, and whole after
the pipe to a run apart (it is pickled there)."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from cairn.app.errors import InvalidRequest
from cairn.app.ingestion.request import IngestRequest
from cairn.app.service import MemoryService


def test_a_request_is_plain_values_from_what_the_caller_has(tmp_path: Path) -> None:
    request = IngestRequest.of(
        [tmp_path / "notes", "report.pdf"],
        scope="work",
        dry_run=True,
        ocr_languages=["eng", "deu"],
        whisper_model_dir=tmp_path / "whisper-small",
        changed=[tmp_path / "notes" / "a.md"],
    )
    assert request == IngestRequest(
        (str(tmp_path / "notes"), "report.pdf"),
        "work",
        True,
        ("eng", "deu"),
        str(tmp_path / "whisper-small"),
        (str(tmp_path / "notes" / "a.md"),),
    )
    assert request.files() == [tmp_path / "notes", Path("report.pdf")]


def test_no_choice_of_languages_or_model_means_the_defaults() -> None:
    request = IngestRequest.of(["a.txt"], ocr_languages=[], whisper_model_dir="")
    assert request.ocr_languages is None
    assert request.whisper_model_dir is None
    assert request.changed is None  # the folders whole, not an empty batch
    assert IngestRequest.of(["a.txt"], changed=[]).changed == ()


def test_a_request_crosses_the_pipe_whole() -> None:
    request = IngestRequest.of(["a.txt"], scope="work", ocr_languages=["eng"], changed=["a.txt"])
    assert pickle.loads(pickle.dumps(request)) == request
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.scope = "personal"  # type: ignore[misc]


def test_a_request_names_at_least_one_path(service: MemoryService) -> None:
    with pytest.raises(InvalidRequest, match="at least one file or folder"):
        service.ingest(IngestRequest.of([]))
