"""``cairn doctor``: is this computer ready to run Cairn, and is what it keeps private?

Each check gives a ``Finding``: ok, warn (works, but something is off) or fail (a part of Cairn
will not work, or something private is not), with what to do about it. Nothing here needs the
passphrase, opens a vault or writes a file, so it can run when nothing else does. It is quick
(about a second): the embedding model is checked by its sha256, as every start checks it,
without building an onnxruntime session; the Whisper model by hashing its files, not loading it.
"""

from __future__ import annotations

import configparser
import importlib.util
import os
import resource
import shutil
import stat
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from cairn.app import compose
from cairn.app.doctor.findings import FAIL, OK, WARN, Finding
from cairn.app.doctor.qt import check_qt_plugins
from cairn.app.embedding import model
from cairn.app.process import privacy as process_privacy
from cairn.ingest import ocr, whisper_model
from cairn.ingest.document import ExtractionError
from cairn.storage import diagnostics

__all__ = ["FAIL", "OK", "WARN", "Finding", "Situation", "run_checks"]

DISK_WARN_BYTES = 1 << 30  # 1 GiB: room for the Whisper model and a vault that grows
DISK_FAIL_BYTES = 100 << 20  # 100 MiB: a write (a backup, a vacuum) may fail half-way
REINSTALL = "Reinstall Cairn's dependencies with `make install`."
APT_TESSERACT = "sudo apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd"


@dataclass(frozen=True)
class Situation:
    """What the checks look at: the data dir, the vault file, the window's preferences and
    the diagnostic log."""

    data_dir: Path
    vault: Path
    preferences: Path
    vault_given: bool = False  # named by --vault or CAIRN_VAULT: its absence is a problem

    @classmethod
    def from_environment(cls, vault: Path | None = None) -> Situation:
        config = compose.Config.from_environment()
        named = vault or (
            Path(os.environ["CAIRN_VAULT"]) if os.environ.get("CAIRN_VAULT") else None
        )
        return cls(
            data_dir=config.data_dir,
            vault=(named or config.default_vault).expanduser(),
            preferences=compose.window_preferences_path(),
            vault_given=named is not None,
        )


def run_checks(situation: Situation) -> list[Finding]:
    """Every check, in the order a person would fix things."""
    checks: list[Callable[[Situation], Finding]] = [
        check_sqlcipher,
        check_embedder,
        check_tesseract,
        check_whisper,
        lambda _: check_qt_plugins(),
        check_disk,
        check_data_dir,
        check_preferences,
        check_vault_file,
        check_log,
        check_crash_dumps,
        check_swap,
    ]
    return [check(situation) for check in checks]


def as_dicts(findings: list[Finding]) -> list[dict[str, str]]:
    return [asdict(finding) for finding in findings]


# -- programs and models ----------------------------------------------------------------------


def check_sqlcipher(_: Situation) -> Finding:
    name = "sqlcipher"
    try:
        facts = diagnostics.cipher_facts()
    except (ImportError, RuntimeError) as exc:
        return Finding(name, FAIL, f"encryption does not work: {exc}", REINSTALL)
    settings = ", ".join(f"{key}={value}" for key, value in sorted(facts.settings.items()))
    detail = (
        f"SQLCipher {facts.version} on SQLite {facts.sqlite_version}, {facts.provider}; {settings}"
    )
    if not facts.fts5:
        return Finding(name, FAIL, detail + "; no full-text search (FTS5)", REINSTALL)
    unexpected = facts.unexpected_settings()
    if unexpected:
        found = ", ".join(f"{key}={value}" for key, value in unexpected.items())
        return Finding(
            name,
            WARN,
            f"{detail}; defaults differ from SQLCipher 4's ({found})",
            "Vaults open in Cairn, but their passphrase may not open them in other SQLCipher "
            f"tools. {REINSTALL}",
        )
    return Finding(name, OK, detail)


def check_embedder(_: Situation) -> Finding:
    name = "embedder"
    try:
        files = model.checked_files()
    except model.EmbedderError as exc:
        return Finding(name, FAIL, str(exc), REINSTALL)
    if importlib.util.find_spec("onnxruntime") is None:
        return Finding(name, FAIL, "onnxruntime, which runs the model, is missing", REINSTALL)
    return Finding(
        name, OK, f"{files.identity}: model {files.model} and tokenizer match their sha256"
    )


def check_tesseract(situation: Situation) -> Finding:
    name = "tesseract"
    try:
        version, languages = ocr.installed()
    except ExtractionError as exc:
        return Finding(name, FAIL, str(exc), APT_TESSERACT)
    wanted = ["eng", *_window_ocr_languages(situation.preferences)]
    missing = [code for code in dict.fromkeys(wanted) if code not in languages]
    detail = f"tesseract {version}, languages: {', '.join(sorted(languages)) or 'none'}"
    if missing:
        packages = " ".join(_tesseract_package(code) for code in missing)
        return Finding(
            name,
            FAIL,
            f"{detail}; missing: {', '.join(missing)}",
            f"sudo apt-get install {packages} (or remove them from the OCR languages in the "
            "window's settings)",
        )
    if "osd" not in languages:
        return Finding(
            name,
            WARN,
            f"{detail}; no orientation data (osd): a turned page may read as nonsense",
            "sudo apt-get install tesseract-ocr-osd",
        )
    return Finding(name, OK, detail)


def _tesseract_package(code: str) -> str:
    return "tesseract-ocr-" + code.lower().replace("_", "-").replace("/", "-")


def check_whisper(situation: Situation) -> Finding:
    name = "whisper"
    if importlib.util.find_spec("faster_whisper") is None:
        return Finding(name, FAIL, "faster-whisper, which transcribes, is missing", REINSTALL)
    chosen = _window_preference(situation.preferences, "ingest", "whisper_model_dir")
    try:
        if chosen:
            whisper_model.check_model_dir(Path(chosen))
            return Finding(name, OK, f"the model folder chosen in the settings, {chosen}")
        state = whisper_model.bundled_model_state(situation.data_dir)
    except whisper_model.TranscriptionUnavailable as exc:
        advice = (
            "Choose another model folder in the window's settings, or clear it to use the "
            "bundled model."
            if chosen
            else whisper_model.INSTALL_HINT
        )
        return Finding(name, FAIL, str(exc), advice)
    folder = situation.data_dir.joinpath(*whisper_model.MODEL_FOLDER)
    if state == "joined":
        return Finding(name, OK, f"Whisper base in {folder}, sha256 verified")
    return Finding(
        name,
        OK,
        f"Whisper base installed and verified; the first transcription joins it into {folder}",
    )


# -- disk and permissions ---------------------------------------------------------------------


def check_disk(situation: Situation) -> Finding:
    name = "disk"
    where = _nearest_existing(situation.data_dir)
    try:
        usage = shutil.disk_usage(where)
    except OSError as exc:
        return Finding(name, WARN, f"free space of {where} unknown ({exc.strerror})")
    detail = f"{_size(usage.free)} free of {_size(usage.total)} on the disk of {where}"
    if usage.free < DISK_FAIL_BYTES:
        advice = f"Free at least {_size(DISK_WARN_BYTES)}: writes to the vault may fail."
        return Finding(name, FAIL, detail, advice)
    if usage.free < DISK_WARN_BYTES:
        advice = f"Free some space: below {_size(DISK_FAIL_BYTES)} writes to the vault may fail."
        return Finding(name, WARN, detail, advice)
    return Finding(name, OK, detail)


def check_data_dir(situation: Situation) -> Finding:
    path = situation.data_dir
    if not path.exists():
        return Finding("data dir", OK, f"{path} does not exist yet; cairn init makes it 0700")
    return _private("data dir", path, 0o700, folder=True)


def check_preferences(situation: Situation) -> Finding:
    name = "window settings"
    path = situation.preferences
    if not path.parent.exists():
        return Finding(name, OK, f"{path.parent} does not exist yet; the window makes it 0700")
    folder = _private(name, path.parent, 0o700, folder=True)
    if folder.status != OK or not path.exists():
        return folder
    return _private(name, path, 0o600, folder=False)


def check_vault_file(situation: Situation) -> Finding:
    name = "vault file"
    path = situation.vault
    if not path.exists():
        if situation.vault_given:
            return Finding(
                name, FAIL, f"no file at {path}", "Check the path (--vault, CAIRN_VAULT)."
            )
        return Finding(name, OK, f"no vault at {path} yet; cairn init makes one 0600")
    return _private(name, path, 0o600, folder=False)


def check_log(situation: Situation) -> Finding:
    """Where the diagnostic log is (to send with a report of a fault), and that it is the
    person's alone like the vault (it holds no memory, but says when Cairn ran)."""
    name = "log"
    path = compose.Config(situation.data_dir).log_file
    if not path.exists():
        return Finding(name, OK, f"{path} (not written yet; faults and timings go there, 0600)")
    found = _private(name, path, 0o600, folder=False)
    if found.status != OK:
        return found
    size = path.stat().st_size
    return Finding(name, OK, f"{path} ({_size_of(size)}; faults and timings, never a memory)")


def check_crash_dumps(_: Situation) -> Finding:
    """What a crash of a Cairn process would leave: every process calls
    ``process_privacy.protect`` first, as this one did."""
    name = "crash dumps"
    held = process_privacy.protect()
    if not held.complete:
        limit = "unlimited" if held.core_limit == resource.RLIM_INFINITY else held.core_limit
        return Finding(
            name,
            FAIL,
            f"a crash could write memory to a core file (core size limit {limit}, "
            f"dumpable {held.dumpable})",
            "Run Cairn where it may lower its own core size limit (ulimit -c 0).",
        )
    how = "core size limit 0" + (
        ", not dumpable" if held.dumpable is False else " (this system has no dumpable flag)"
    )
    return Finding(name, OK, f"off for every Cairn process ({how})")


def check_swap(_: Situation) -> Finding:
    name = "swap"
    found = process_privacy.swap()
    if found is None:
        return Finding(name, OK, "this system does not say (no /proc/swaps)")
    if not found.areas:
        return Finding(name, OK, "no swap: memory never goes to the disk")
    if found.unencrypted:
        return Finding(
            name,
            WARN,
            f"swap on {', '.join(found.unencrypted)} is not encrypted: what the system swaps "
            "out of an open vault's memory may reach that disk in plaintext",
            "Use encrypted swap (or zram), or turn swap off (sudo swapoff -a).",
        )
    return Finding(name, OK, f"swap on {', '.join(found.areas)} is encrypted")


def _private(name: str, path: Path, wanted: int, *, folder: bool) -> Finding:
    """A finding on ``path``'s owner and mode: fail if others may write to it or it is not the
    user's, warn if they may read it, ok if its mode is ``wanted`` or tighter."""
    try:
        info = path.stat()
    except OSError as exc:
        return Finding(name, FAIL, f"{path} cannot be examined ({exc.strerror})")
    kind = "folder" if folder else "file"
    if folder != stat.S_ISDIR(info.st_mode):
        return Finding(
            name, FAIL, f"{path} is not a {kind}", f"Move it aside: Cairn needs a {kind}."
        )
    mode = stat.S_IMODE(info.st_mode)
    detail = f"{path} is mode {mode:04o}"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return Finding(
            name,
            FAIL,
            f"{detail}, owned by user id {info.st_uid}, not you",
            f"sudo chown $USER {path}",
        )
    fix = f"chmod {wanted:o} {path}"
    if mode & 0o022:
        return Finding(name, FAIL, f"{detail}: other users may change what is in it", fix)
    if mode & 0o055:
        return Finding(name, WARN, f"{detail}: other users may look in it", fix)
    return Finding(name, OK, f"{detail}, yours alone")


# -- helpers ----------------------------------------------------------------------------------


def _window_preference(path: Path, section: str, key: str) -> str:
    """One value of the window's INI file (QSettings' format), or "" if it has none."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
        value = parser.get(section, key, fallback="")
    except (OSError, configparser.Error, UnicodeDecodeError):
        return ""
    return value.strip().strip('"')


def _window_ocr_languages(path: Path) -> Iterator[str]:
    value = _window_preference(path, "ingest", "ocr_languages")
    return (code.strip() for code in value.split("+") if code.strip())


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _size_of(count: int) -> str:
    """A small file's size: bytes, KiB or MiB."""
    if count < 1 << 10:
        return f"{count} bytes"
    if count < 1 << 20:
        return f"{count / (1 << 10):.0f} KiB"
    return _size(count)


def _size(count: int) -> str:
    if count >= 1 << 30:
        return f"{count / (1 << 30):.1f} GiB"
    return f"{count / (1 << 20):.0f} MiB"
