"""Read a vault's pages the way SQLCipher wrote them, decrypted with the vault's raw key: every
page of the file and of its write-ahead log, free pages and slack included. What a test finds
here is what someone holding the key could recover from the disk, not only from live rows.

SQLCipher 4 page layout (raw key, so the key is the AES key itself): each page is AES-256-CBC
ciphertext followed by a reserved tail of 80 bytes (a 16-byte IV, then a 64-byte HMAC); the
first page begins with the 16-byte salt instead of ciphertext.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cairn.storage.connection import CIPHER_PAGE_SIZE
from cairn.storage.keys import SALT_BYTES

RESERVED = 80  # IV (16) + HMAC-SHA512 (64)
IV_BYTES = 16
WAL_HEADER = 32
WAL_FRAME_HEADER = 24


def decrypted_pages(path: Path, raw_key: bytes) -> Iterator[bytes]:
    """The plaintext of every page of the vault file and of its -wal file."""
    data = path.read_bytes()
    for number, start in enumerate(range(0, len(data), CIPHER_PAGE_SIZE)):
        yield _decrypt(data[start : start + CIPHER_PAGE_SIZE], raw_key, first=number == 0)
    wal = path.with_name(path.name + "-wal")
    if wal.exists():
        log = wal.read_bytes()
        frame = WAL_FRAME_HEADER + CIPHER_PAGE_SIZE
        for start in range(WAL_HEADER, len(log) - frame + 1, frame):
            page = log[start + WAL_FRAME_HEADER : start + frame]
            # A frame of page 1 starts with the salt as well; try both readings.
            yield _decrypt(page, raw_key, first=False)
            yield _decrypt(page, raw_key, first=True)


def _decrypt(page: bytes, raw_key: bytes, *, first: bool) -> bytes:
    body_end = len(page) - RESERVED
    iv = page[body_end : body_end + IV_BYTES]
    body = page[SALT_BYTES if first else 0 : body_end]
    decryptor = Cipher(algorithms.AES(raw_key), modes.CBC(iv)).decryptor()
    return decryptor.update(body) + decryptor.finalize()
