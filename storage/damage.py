"""Telling a damaged vault file from a wrong passphrase, when SQLCipher refuses to open it.

SQLCipher says only "file is not a database" both when the key is wrong and when the first page
(the first 16 KiB, which every open reads) is damaged. Reporting both as a wrong passphrase
would have a person give up a vault that a backup restores, since a lost passphrase cannot be
recovered. So when opening fails we look at the pages ourselves:

SQLCipher 4 ends every page with a 16-byte IV and a 64-byte HMAC-SHA512 of the page's
ciphertext, its IV and its page number (4 bytes, little-endian); page 1 starts with the file's
16-byte salt, which is not covered. The HMAC key is PBKDF2-HMAC-SHA512 of the raw key, with the
salt XOR 0x3a as salt, 2 rounds, 32 bytes (SQLCipher's ``fast_kdf_iter`` and
``hmac_salt_mask``). The raw key was derived from the passphrase with the salt read from this
same file (``keys.VaultKey``), so no further slow derivation is needed.

- A page that authenticates proves the key, and so the passphrase, right: the file is damaged.
- No page authenticates: the passphrase is wrong, or the file is not a Cairn vault, or its salt
  is damaged (every page's key is made with it, so then none can authenticate). These cannot be
  told apart, and the message says so.
- A file of one page has no other page to ask: wrong passphrase, or that page is damaged.

Only a sample of pages is read (the first ones, then some spread over the file) so that a
wrong passphrase on a large vault is still refused at once; damage is nearly always local.
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

from cairn.storage.errors import VaultDamaged, VaultError, WrongPassphrase
from cairn.storage.keys import KDF_HASH, KEY_BYTES, SALT_BYTES, VaultKey

IV_BYTES = 16
HMAC_BYTES = 64  # HMAC-SHA512
RESERVED = IV_BYTES + HMAC_BYTES  # a multiple of the AES block, so no padding follows
HMAC_SALT_MASK = 0x3A
HMAC_KDF_ITERATIONS = 2
# Pages read to decide: the first ones (where the schema and small tables live), then up to as
# many again spread evenly over the rest. 64 pages of 16 KiB: about 1 MiB and a few ms.
FIRST_PAGES = 32
SPREAD_PAGES = 32


def open_failure(path: Path, key: VaultKey, page_size: int) -> VaultError:
    """The error for a file SQLCipher would not open with ``key``: ``VaultDamaged`` when one
    of its pages authenticates with that key, else ``WrongPassphrase``."""
    try:
        with path.open("rb") as handle:
            salt = handle.read(SALT_BYTES)
            count = (handle.seek(0, 2) + page_size - 1) // page_size
            if len(salt) < SALT_BYTES:
                return WrongPassphrase(path)
            hmac_key = _hmac_key(key.raw_bytes(), salt)
            for number in sample(count):
                handle.seek((number - 1) * page_size)
                if _authenticates(handle.read(page_size), number, hmac_key, page_size):
                    return VaultDamaged(path, _where(number, page_size))
    except OSError:
        return WrongPassphrase(path)  # as before this check: the open had failed already
    return WrongPassphrase(path, only_page=count <= 1)


def sample(count: int) -> list[int]:
    """The page numbers (from 1) to check in a file of ``count`` pages, in order."""
    first = list(range(1, min(count, FIRST_PAGES) + 1))
    rest = count - len(first)
    if rest <= SPREAD_PAGES:
        return first + list(range(len(first) + 1, count + 1))
    step = rest / SPREAD_PAGES
    return first + [len(first) + 1 + int(i * step) for i in range(SPREAD_PAGES)]


def _where(sound: int, page_size: int) -> str:
    # Pages are checked from the first, so a sound page past it means the first is not.
    if sound != 1:
        return (
            f"its first page (the first {page_size // 1024} KiB of the file) does not decrypt, "
            "while other pages do, so the passphrase is right"
        )
    return (
        "SQLCipher could not open it although its first page decrypts with this key, "
        "so the passphrase is right"
    )


def _hmac_key(raw_key: bytes, salt: bytes) -> bytes:
    masked = bytes(b ^ HMAC_SALT_MASK for b in salt)
    return hashlib.pbkdf2_hmac(KDF_HASH, raw_key, masked, HMAC_KDF_ITERATIONS, KEY_BYTES)


def _authenticates(page: bytes, number: int, hmac_key: bytes, page_size: int) -> bool:
    if len(page) != page_size:  # a torn last page
        return False
    start = SALT_BYTES if number == 1 else 0
    end = page_size - RESERVED + IV_BYTES  # the ciphertext and the IV are covered
    mac = hmac.new(hmac_key, page[start:end] + number.to_bytes(4, "little"), KDF_HASH)
    return hmac.compare_digest(mac.digest(), page[end:])
