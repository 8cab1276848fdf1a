"""What ``cairn doctor`` asks of the SQLite driver: which SQLCipher this is and how it encrypts.

A throwaway in-memory database is keyed and written to, so the check proves the encryption
works without opening (or needing the passphrase of) any vault.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass

import sqlcipher3

from cairn.storage.keys import KDF_HASH, KDF_ITERATIONS

# Cairn derives raw keys itself with these settings (keys.py); a SQLCipher that defaults to
# others would still open Cairn's vaults, but not with the passphrase in other SQLCipher tools.
EXPECTED_SETTINGS = {
    "kdf_iter": str(KDF_ITERATIONS),
    "cipher_kdf_algorithm": f"PBKDF2_HMAC_{KDF_HASH.upper()}",
    "cipher_use_hmac": "1",
}


@dataclass(frozen=True)
class CipherFacts:
    version: str  # e.g. "4.19.0 community"
    sqlite_version: str
    provider: str  # the crypto library, e.g. "OpenSSL 3.6.0 1 Oct 2025"
    settings: dict[str, str]  # PRAGMA cipher_settings, name -> value
    fts5: bool  # full-text search, which the vault's schema needs

    def unexpected_settings(self) -> dict[str, str]:
        """Settings that differ from what Cairn's key derivation assumes: name -> found."""
        return {
            name: self.settings.get(name, "?")
            for name, value in EXPECTED_SETTINGS.items()
            if self.settings.get(name) != value
        }


def cipher_facts() -> CipherFacts:
    """Key an in-memory database, write and read a row, and report the driver's facts.

    Raises ``RuntimeError`` with the driver's words when the driver is not SQLCipher or the
    encryption does not work.
    """
    conn = sqlcipher3.connect(":memory:")
    try:
        conn.execute("PRAGMA cipher_log_level = NONE")
        conn.execute(f"PRAGMA key = \"x'{secrets.token_hex(32)}'\"")
        version = _first(conn, "PRAGMA cipher_version")
        if not version:
            raise RuntimeError("the SQLite library in use has no SQLCipher encryption")
        conn.execute("CREATE TABLE probe (x)")
        conn.execute("INSERT INTO probe VALUES (1)")
        if _first(conn, "SELECT x FROM probe") != "1":
            raise RuntimeError("a row written to a keyed database did not read back")
        settings = {}
        for (line,) in conn.execute("PRAGMA cipher_settings"):
            # "PRAGMA kdf_iter = 256000;"
            name, _, value = str(line).removeprefix("PRAGMA ").rstrip(";").partition(" = ")
            settings[name.strip()] = value.strip()
        options = {str(row[0]) for row in conn.execute("PRAGMA compile_options")}
        return CipherFacts(
            version=version,
            sqlite_version=_first(conn, "SELECT sqlite_version()"),
            provider=_first(conn, "PRAGMA cipher_provider_version"),
            settings=settings,
            fts5="ENABLE_FTS5" in options,
        )
    except sqlcipher3.Error as exc:
        raise RuntimeError(str(exc)) from None
    finally:
        with contextlib.suppress(sqlcipher3.Error):
            conn.close()


def _first(conn: sqlcipher3.Connection, sql: str) -> str:
    row = conn.execute(sql).fetchone()
    return "" if row is None or row[0] is None else str(row[0])
