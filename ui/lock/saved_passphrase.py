"""A vault's passphrase remembered in the system keyring (GNOME Keyring, KWallet, macOS
Keychain, Windows Credential Locker), when the person asks for it.

Stored under the service name "cairn" with the vault's absolute path as the user name, so each
vault has its own entry. Without a usable keyring (a headless machine, a minimal desktop) the
option is offered disabled with the reason, never silently ignored. The calls may wait on the
desktop's secret service, so callers run them in a worker.
"""

from __future__ import annotations

from pathlib import Path

import keyring
import keyring.errors
from keyring.backend import KeyringBackend

KEYRING_SERVICE = "cairn"
NO_KEYRING = (
    "No system keyring is available on this computer (such as GNOME Keyring, KWallet or the "
    "macOS Keychain), so the passphrase cannot be remembered. You will type it each time."
)


def _usable(backend: KeyringBackend) -> bool:
    # The fail and null backends are what keyring falls back to when nothing real is there;
    # a chainer is usable only if it chains at least one real backend.
    module = type(backend).__module__
    if module.startswith(("keyring.backends.fail", "keyring.backends.null")):
        return False
    chained = getattr(backend, "backends", None)
    if chained is not None:
        return any(_usable(inner) for inner in chained)
    return True


def unavailable_reason() -> str | None:
    """Why the keyring cannot be used here, or None if it can."""
    try:
        backend = keyring.get_keyring()
    except Exception:  # a broken keyring configuration is the same as none for us
        return NO_KEYRING
    return None if _usable(backend) else NO_KEYRING


def _account(vault: Path) -> str:
    return str(Path(vault).expanduser().resolve())


def recall(vault: Path) -> str | None:
    if unavailable_reason():
        return None
    try:
        return keyring.get_password(KEYRING_SERVICE, _account(vault))
    except keyring.errors.KeyringError:
        return None  # locked or refused keyring: the person types the passphrase instead


def remember(vault: Path, passphrase: str) -> None:
    try:
        keyring.set_password(KEYRING_SERVICE, _account(vault), passphrase)
    except keyring.errors.KeyringError as error:
        raise OSError(f"The system keyring refused to store the passphrase ({error}).") from error


def forget(vault: Path) -> None:
    if unavailable_reason():
        return
    try:
        keyring.delete_password(KEYRING_SERVICE, _account(vault))
    except keyring.errors.PasswordDeleteError:
        pass  # nothing was stored: nothing to forget
    except keyring.errors.KeyringError as error:
        raise OSError(f"The system keyring refused to forget the passphrase ({error}).") from error
