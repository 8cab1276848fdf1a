"""A vault file that SQLCipher will not open, on the real SQLCipher: damage is named as damage
(the passphrase is right, a backup restores it), a wrong passphrase is still a wrong passphrase,
and what cannot be told apart is said to be either."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cairn.storage import damage, vault_copies
from cairn.storage.connection import CIPHER_PAGE_SIZE
from cairn.storage.errors import VaultCorrupt, VaultDamaged, WrongPassphrase
from cairn.storage.keys import VaultKey
from cairn.storage.vault import Vault
from tests.conftest import PASSPHRASE

OTHER_PASSPHRASE = "a different passphrase entirely"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A closed vault of several pages, made once; each test damages its own copy."""
    path = tmp_path_factory.mktemp("template") / "template.cairn"
    with Vault.create(path, PASSPHRASE) as vault, vault.write() as conn:
        for i in range(300):
            conn.execute(
                "INSERT INTO settings(key, value) VALUES (?, json_quote(?))",
                (f"k{i}", f"value number {i} " * 20),
            )
    assert path.stat().st_size > 20 * CIPHER_PAGE_SIZE
    return path


@pytest.fixture
def copy(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "vault.cairn"
    shutil.copyfile(template, path)
    return path


def _flip(path: Path, start: int, end: int) -> bytes:
    data = bytearray(path.read_bytes())
    data[start:end] = bytes(b ^ 0xFF for b in data[start:end])
    path.write_bytes(bytes(data))
    return bytes(data)


def _refusal(path: Path, passphrase: str) -> Exception:
    with pytest.raises((WrongPassphrase, VaultCorrupt)) as caught:
        Vault.open(path, passphrase).close()
    return caught.value


# The first 16 KiB are page 1 (CIPHER_PAGE_SIZE): its ciphertext at the start and near the end,
# its IV, and its HMAC, the last 64 bytes of the page.
FIRST_PAGE_SPANS = [(100, 200), (16_000, 16_001), (16_310, 16_311), (16_383, 16_384)]


@pytest.mark.parametrize(("start", "end"), FIRST_PAGE_SPANS)
def test_a_damaged_first_page_is_damage_when_the_passphrase_is_right(
    copy: Path, start: int, end: int
) -> None:
    assert end <= CIPHER_PAGE_SIZE
    damaged = _flip(copy, start, end)
    error = _refusal(copy, PASSPHRASE)
    assert type(error) is VaultDamaged and isinstance(error, VaultCorrupt)
    message = str(error)
    assert message.startswith(f"{copy} is damaged: its first page")
    assert "the passphrase is right" in message
    assert f"`cairn restore BACKUP {copy} --force`" in message
    assert "\n" not in message
    # With another passphrase no page opens: still a wrong passphrase, never damage.
    wrong = _refusal(copy, OTHER_PASSPHRASE)
    assert type(wrong) is WrongPassphrase and not wrong.only_page
    assert str(wrong).startswith(f"Wrong passphrase for {copy}: no page of the file opens")
    assert "passphrase is right" not in str(wrong)
    assert copy.read_bytes() == damaged  # telling them apart only reads


def test_damage_past_the_first_page_is_damage_too(copy: Path) -> None:
    # The last page holds settings rows (written after the schema): opening does not read it,
    # reading the rows does.
    size = copy.stat().st_size
    _flip(copy, size - CIPHER_PAGE_SIZE + 500, size - CIPHER_PAGE_SIZE + 501)
    with Vault.open(copy, PASSPHRASE) as vault:
        with pytest.raises(VaultCorrupt) as caught, vault.read() as conn:
            conn.execute("SELECT sum(length(value)) FROM settings").fetchone()
        assert str(caught.value).startswith(f"{copy} is damaged")
        assert "cairn restore" in str(caught.value)
    assert type(_refusal(copy, OTHER_PASSPHRASE)) is WrongPassphrase


def test_a_damaged_salt_cannot_be_told_from_a_wrong_passphrase_and_says_so(copy: Path) -> None:
    # Every page's key is made with the salt, so with it damaged no page authenticates.
    _flip(copy, 5, 6)
    error = _refusal(copy, PASSPHRASE)
    assert type(error) is WrongPassphrase
    assert "first 16 bytes" in str(error) and "are damaged" in str(error)
    assert "cairn restore" in str(error)


def test_a_file_of_one_page_is_said_to_be_either(copy: Path) -> None:
    with copy.open("r+b") as handle:
        handle.truncate(CIPHER_PAGE_SIZE)
    _flip(copy, 100, 200)
    for passphrase in (PASSPHRASE, OTHER_PASSPHRASE):
        error = _refusal(copy, passphrase)
        assert type(error) is WrongPassphrase and error.only_page
        assert str(error).startswith(f"Wrong passphrase for {copy}, or the file is damaged")
        assert "single page" in str(error)


def test_a_damaged_backup_copy_is_damage_too(template: Path, tmp_path: Path) -> None:
    dest = tmp_path / "copy.cairn"
    with (
        Vault.open(template, PASSPHRASE) as vault,
        vault_copies.staged(dest, overwrite=False) as stage,
    ):
        vault_copies.copy_vault(vault, stage)
    _flip(dest, 100, 200)
    key = vault_copies.key_for(dest, PASSPHRASE)
    with (
        pytest.raises(VaultDamaged, match="passphrase is right"),
        vault_copies.open_copy(dest, key),
    ):
        pass
    wrong = vault_copies.key_for(dest, OTHER_PASSPHRASE)
    with pytest.raises(WrongPassphrase), vault_copies.open_copy(dest, wrong):
        pass


def test_the_check_authenticates_pages_with_the_key_sqlcipher_uses(template: Path) -> None:
    """On a sound file every sampled page authenticates with the vault's key (so the first
    one does), and none with another passphrase's key."""
    right = vault_copies.key_for(template, PASSPHRASE)
    verdict = damage.open_failure(template, right, CIPHER_PAGE_SIZE)
    assert type(verdict) is VaultDamaged and "its first page decrypts" in str(verdict)
    other = VaultKey.derive(OTHER_PASSPHRASE, right.salt)
    assert type(damage.open_failure(template, other, CIPHER_PAGE_SIZE)) is WrongPassphrase


def test_a_large_file_is_sampled_not_read_whole() -> None:
    assert damage.sample(1) == [1]
    assert damage.sample(40) == list(range(1, 41))
    pages = damage.sample(100_000)
    assert len(pages) == damage.FIRST_PAGES + damage.SPREAD_PAGES
    assert pages[: damage.FIRST_PAGES] == list(range(1, damage.FIRST_PAGES + 1))
    assert pages == sorted(set(pages)) and pages[-1] > 95_000 and pages[-1] <= 100_000
