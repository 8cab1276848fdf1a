"""What the ingest panel says, as pure functions of what the run told: a file's state while it
is read ("Reading page 12 of 80", "Transcribing 03:10 of 41:00"), the line over the bar, the
time left, and the summary of a run. Each says only what happened: a file stopped before it
was read is "not read", never "failed"; a time left is said only when the run could tell it.
"""

from __future__ import annotations

from pathlib import Path

from cairn.app.api import IngestProgress, IngestReport

# The line over the bar at the stages that name no file.
STAGE_WORDS = {
    "scanning": "Looking through the files",
    "reading": "Reading",
    "linking": "Linking notes to each other",
    "done": "Finishing",
}


def reading_words(event: IngestProgress) -> str:
    """A file's state while its reader works: the page or the time it is at, when told."""
    done, total = event.done_units, event.total_units
    if event.unit == "second":
        if total > 0:
            return f"Transcribing {clock(done)} of {clock(total)}"
        return "Transcribing…"
    if event.unit == "page" and total > 0:
        return f"Reading page {min(int(done) + 1, int(total))} of {int(total)}"
    return "Reading…"


def passages_words(verb: str, event: IngestProgress) -> str:
    """A file's state while it is prepared or saved ("Saving: 256 of 1,024 passages")."""
    return f"{verb}{_passages(event)}" if event.unit == "passage" else f"{verb}…"


def stage_line(event: IngestProgress) -> str:
    """The line over the bar: what the run does now, and to which file."""
    name = Path(event.current).name if event.current else ""
    stage = event.stage
    if stage in ("reading", "file_progress") and name:
        verb, _, where = reading_words(event).rstrip("…").partition(" ")
        return f"{verb} {name}: {where}" if where else f"{verb} {name}"
    if stage == "embedding" and name:
        return f"Preparing {name} for search{_passages(event)}"
    if stage == "writing":
        return f"Saving {name}{_passages(event)}" if name else "Saving to the vault"
    return f"{STAGE_WORDS.get(stage, stage)} {name}".strip()


def _passages(event: IngestProgress) -> str:
    """ ": 256 of 1,024 passages" of a long document, or "" when not told."""
    if event.unit != "passage" or event.total_units <= 0:
        return ""
    return f": {int(event.done_units):,} of {int(event.total_units):,} passages"


def time_left(seconds: float | None) -> str:
    """ "about 4 minutes left", or "" while the run cannot tell."""
    if seconds is None:
        return ""
    if seconds < 60:
        return "less than a minute left"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {count(minutes, 'minute')} left"
    hours, minutes = divmod(minutes, 60)
    return f"about {hours} h {minutes:02d} min left"


def clock(seconds: float) -> str:
    """03:10, or 1:02:03 past the hour: a position in a recording."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


STOPPED = "Stopped as you asked: "


def summarize(report: IngestReport, *, resumable: bool = True) -> str:
    """What a run did, in one paragraph. A stopped run says what is left, and how it will be
    added: by Resume, or (``resumable`` False: a watched folder's run) by the watcher."""
    added = report.count("ingested") + report.count("replaced")
    parts = [f"{count(added, 'file')} added"]
    if report.count("replaced"):
        parts[0] += f" ({report.count('replaced')} of them a new version of a file already kept)"
    kept = report.count("unchanged") + report.count("duplicate")
    if kept:
        parts.append(f"{kept} already kept and unchanged")
    failed = report.count("failed") + len(report.not_found)
    if failed:
        parts.append(f"{failed} could not be read (the reasons are in the list)")
    if report.count("skipped"):
        parts.append(f"{report.count('skipped')} skipped (kinds of file Cairn does not read)")
    text = "; ".join(parts) + "."
    if report.pending_review:
        copies = count(report.pending_review, "near-copy", "near-copies")
        text += f" {copies} of files already kept wait for you in Review."
    if report.count("moved"):
        text += f" {count(report.count('moved'), 'file')} moved or renamed; each keeps its memory."
    if report.removed:
        gone = count(len(report.removed), "file")
        text += f" {gone} no longer in the folder; their memories are kept."
    if report.cancelled:
        left = report.count("cancelled")
        them = "it" if left == 1 else "them"
        how = (
            f"Resume adds {them}"
            if resumable
            else f"the watcher adds {them} when the vault is next unlocked"
        )
        text = f"{STOPPED}{text} {count(left, 'file')} left to add; {how}."
    return text


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KB", "MB"):
        if value < 1024:
            return f"{size} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number} {singular if number == 1 else plural or singular + 's'}"
