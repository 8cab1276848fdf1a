"""A finding of ``cairn doctor``; its own module so the checks in several modules share it."""

from __future__ import annotations

from dataclasses import dataclass

OK = "ok"
WARN = "warn"  # works, but something is off
FAIL = "fail"  # a part of Cairn will not work, or something private is not


@dataclass(frozen=True)
class Finding:
    name: str
    status: str  # OK, WARN or FAIL
    detail: str  # what was found, with the numbers
    advice: str = ""  # what to do; empty when there is nothing to do
