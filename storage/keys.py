"""Turning a passphrase into the vault's raw key, once.

SQLCipher derives its key with PBKDF2-HMAC-SHA512 (256,000 rounds) from the passphrase and the
16-byte salt stored in the file's first bytes. That costs ~0.25 s, so doing it per connection
would make every reader slow to open. We derive the same key once here and hand SQLCipher the raw
key (``x'...'``) for every connection; the passphrase itself is never kept. Because the
derivation matches SQLCipher 4's defaults, the file still opens with the passphrase in any
SQLCipher 4 tool.
"""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

# SQLCipher 4 defaults (PRAGMA cipher_settings): changing them would make the passphrase useless
# outside Cairn and a raw key derived here would not open a file keyed with the passphrase.
KDF_ITERATIONS = 256_000
KDF_HASH = "sha512"
KEY_BYTES = 32
SALT_BYTES = 16


class VaultKey:
    """The raw key of one vault, held only in memory; its bytes are zeroed on close.

    The hex text handed to SQLCipher in each PRAGMA is an immutable Python string that cannot
    be zeroed; it lives until the garbage collector frees it.
    """

    def __init__(self, raw: bytes, salt: bytes) -> None:
        self._raw = bytearray(raw)
        self.salt = salt

    @classmethod
    def derive(cls, passphrase: str, salt: bytes) -> VaultKey:
        raw = hashlib.pbkdf2_hmac(KDF_HASH, passphrase.encode("utf-8"), salt, KDF_ITERATIONS)
        return cls(raw[:KEY_BYTES], salt)

    @classmethod
    def for_new_vault(cls, passphrase: str) -> VaultKey:
        return cls.derive(passphrase, secrets.token_bytes(SALT_BYTES))

    @property
    def wiped(self) -> bool:
        return not any(self._raw)

    def raw_bytes(self) -> bytes:
        return bytes(self._raw)

    def pragma_literal(self, *, with_salt: bool) -> str:
        """The blob literal for ``PRAGMA key``/``rekey``; the salt is given only at creation."""
        hex_key = bytes(self._raw).hex()
        if with_salt:
            hex_key += self.salt.hex()
        return f"\"x'{hex_key}'\""

    def wipe(self) -> None:
        for i in range(len(self._raw)):
            self._raw[i] = 0


def read_salt(path: Path) -> bytes:
    """The salt SQLCipher stored in the first bytes of an encrypted file."""
    with path.open("rb") as handle:
        return handle.read(SALT_BYTES)


SQLITE_PLAINTEXT_HEADER = b"SQLite format 3\x00"
