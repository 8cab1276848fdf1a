"""Per-vault settings that shape how memory is kept: the dedup bands, the resolver's mode, tag
anchoring, retention, and the bounds on one ingested document. They live in the vault (so a
vault behaves the same on every machine) and are read on every write, so a change takes effect
at the next write without reopening anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cairn.app.errors import InvalidRequest
from cairn.storage import records
from cairn.storage.connection import Connection

PREFIX = "memory."


@dataclass(frozen=True)
class Setting:
    default: Any
    help: str
    choices: tuple[str, ...] = ()  # for a word setting
    bounds: tuple[float, float] = (0.0, 1.0)  # for a number setting
    whole: bool = False  # a count or a number of seconds: stored as an integer


SETTINGS: dict[str, Setting] = {
    "dedup_high": Setting(
        0.95, "cosine at or above which a new memory is the same topic as an old one"
    ),
    "dedup_low": Setting(
        0.78, "cosine at or above which a new memory waits for review as a possible duplicate"
    ),
    "dedup_anchored_low": Setting(
        0.74,
        "the lower band for a memory naming the same people, places and figures as an old one",
    ),
    "dedup_jaccard": Setting(
        0.8, "word overlap at or above which a same-topic memory adds nothing new (absorbed)"
    ),
    "resonance_floor": Setting(
        0.55, "cosine at or above which an older memory is listed as related to a new one"
    ),
    "entity_mode": Setting(
        "warn",
        "a possible duplicate entity: warn and store it, or block it until forced",
        ("warn", "block"),
    ),
    "tag_anchoring": Setting(
        "suggest",
        "a tag naming a person, project, place... is ignored, suggested as a link, or linked",
        ("off", "suggest", "auto"),
    ),
    "retention_mode": Setting(
        "propose",
        "faded ephemeral memories are proposed for archiving, or archived by the supervisor",
        ("propose", "auto"),
    ),
    "retention_fade_below": Setting(
        0.1, "retrievability below which an ephemeral memory has faded (see retention)"
    ),
    # A 400-page book is about 2,000 passages; past 10,000 a "document" is almost always a
    # generated or damaged file (one text stream on 99,000 pages), which would embed for hours.
    "ingest_max_passages": Setting(
        10_000,
        "passages kept from one ingested document; the rest is left out, with a warning",
        bounds=(1, 1_000_000),
        whole=True,
    ),
    # Embedding runs at about 30-60 passages a second on two cores: 10,000 passages take 3-6
    # minutes, so 20 minutes stops only a document that is stuck or on a very slow machine.
    "ingest_max_write_seconds": Setting(
        1200,
        "seconds one document may spend being embedded and written; the rest is left out",
        bounds=(1, 86_400),
        whole=True,
    ),
}


@dataclass(frozen=True)
class MemorySettings:
    dedup_high: float
    dedup_low: float
    dedup_anchored_low: float
    dedup_jaccard: float
    resonance_floor: float
    entity_mode: str
    tag_anchoring: str
    retention_mode: str
    retention_fade_below: float
    ingest_max_passages: int
    ingest_max_write_seconds: int


def read(conn: Connection) -> MemorySettings:
    stored = records.settings_with_prefix(conn, PREFIX)
    return MemorySettings(**{name: stored.get(name, s.default) for name, s in SETTINGS.items()})


def as_dict(conn: Connection) -> dict[str, Any]:
    return dict(vars(read(conn)))


def write(conn: Connection, name: str, value: Any) -> Any:
    """Check and store one setting; returns the stored value."""
    value = checked(name, value)
    problem = bands_problem(vars(read(conn)) | {name: value})
    if problem is not None:
        raise InvalidRequest(problem)
    records.set_setting(conn, PREFIX + name, value)
    return value


def checked(name: str, value: Any) -> Any:
    """``value`` as setting ``name`` stores it (a word of its choices, or a number within its
    bounds, whole where it counts); refused with what it may be."""
    spec = SETTINGS.get(name)
    if spec is None:
        raise InvalidRequest(f"There is no setting {name!r}; there are {', '.join(SETTINGS)}.")
    if spec.choices:
        if value not in spec.choices:
            raise InvalidRequest(f"{name} is one of {', '.join(spec.choices)}, not {value!r}.")
        return value
    low, high = spec.bounds
    kind = "a whole number" if spec.whole else "a number"
    expected = f"{name} is {kind} between {low:g} and {high:g}"
    try:
        value = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidRequest(f"{expected}, not {value!r}.") from None
    if not low <= value <= high or (spec.whole and not value.is_integer()):
        raise InvalidRequest(f"{expected}, not {value:g}.")
    return int(value) if spec.whole else value


def bands_problem(values: dict[str, Any]) -> str | None:
    """What is wrong with the dedup bands of ``values`` (every setting by name), or None: the
    review bands lie below the same-topic band."""
    if max(values["dedup_low"], values["dedup_anchored_low"]) > values["dedup_high"]:
        return (
            f"The low bands (dedup_low {values['dedup_low']}, dedup_anchored_low "
            f"{values['dedup_anchored_low']}) may not be above dedup_high "
            f"({values['dedup_high']})."
        )
    return None
