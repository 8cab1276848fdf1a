"""A real Secret Service (GNOME Keyring) for one test, private to it: its own D-Bus session bus
and its own keyring files in a temp folder, so the person's keyring is never read or written.

The bus is given a configuration without service directories, so nothing on it is started
on demand: the only processes are the two started here, and both are stopped on the way out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

import keyring
import secretstorage
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection
from keyring.backends import SecretService

PROGRAMS = ("dbus-daemon", "gnome-keyring-daemon")
READY_TIMEOUT_S = 10.0
SECRET_SERVICE = "org.freedesktop.secrets"
# What unlocks the test's login keyring; the daemon reads it on stdin, as at a desktop login.
KEYRING_PASSWORD = "test keyring password"

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={socket_dir}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


ATTEMPTS = 5  # searches tried when items vanish under one


@dataclass(frozen=True)
class StoredSecret:
    label: str
    attributes: dict[str, str]
    secret: str


@dataclass(frozen=True)
class SystemKeyring:
    bus_address: str

    def stored(self, **attributes: str) -> list[StoredSecret]:
        """The items matching ``attributes`` in every collection, asked of the Secret Service
        itself rather than through the keyring library under test."""
        # An item deleted while the search walks the collection (a test polling a forget)
        # fails the walk itself, not only the read: the search is then asked again.
        for _ in range(ATTEMPTS - 1):
            try:
                return self._stored(attributes)
            except secretstorage.ItemNotFoundException:
                continue
        return self._stored(attributes)

    def _stored(self, attributes: dict[str, str]) -> list[StoredSecret]:
        found = []
        with closing(open_dbus_connection(self.bus_address)) as connection:
            for item in secretstorage.search_items(connection, attributes):
                try:
                    secret = item.get_secret().decode()
                    found.append(StoredSecret(item.get_label(), item.get_attributes(), secret))
                except secretstorage.ItemNotFoundException:
                    pass  # deleted between the search and the read
        return found


def missing_programs() -> list[str]:
    return [name for name in PROGRAMS if shutil.which(name) is None]


@contextmanager
def installed(folder: Path) -> Iterator[SystemKeyring]:
    """Start a session bus and an unlocked GNOME Keyring on it, with all their files under
    ``folder``; make the keyring library use it; undo all of that afterwards."""
    runtime, data, home = folder / "run", folder / "data", folder / "home"
    for path in (runtime, data, home):
        path.mkdir(mode=0o700)
    config = folder / "bus.conf"
    config.write_text(BUS_CONFIG.format(socket_dir=runtime))
    log = folder / "daemons.log"  # their complaints, kept out of the test's output
    processes: list[subprocess.Popen[bytes]] = []
    previous_address = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    previous_backend = keyring.get_keyring()
    try:
        with log.open("wb") as log_file:
            bus = subprocess.Popen(
                ["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
                stdout=subprocess.PIPE,
                stderr=log_file,
            )
            processes.append(bus)
            assert bus.stdout is not None
            address = bus.stdout.readline().decode().strip()
            bus.stdout.close()
            if not address:
                raise RuntimeError(f"dbus-daemon did not start: {_read(log)}")
            daemon = subprocess.Popen(
                ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                stdin=subprocess.PIPE,
                stdout=log_file,
                stderr=log_file,
                # Only what the daemon needs, all inside folder: never the person's own dirs.
                env={
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "HOME": str(home),
                    "XDG_DATA_HOME": str(data),
                    "XDG_RUNTIME_DIR": str(runtime),
                    "DBUS_SESSION_BUS_ADDRESS": address,
                },
            )
            processes.insert(0, daemon)  # stopped first: it talks on the bus
        assert daemon.stdin is not None
        daemon.stdin.write(KEYRING_PASSWORD.encode())
        daemon.stdin.close()
        _wait_until_unlocked(address, daemon, log)
        os.environ["DBUS_SESSION_BUS_ADDRESS"] = address
        keyring.set_keyring(SecretService.Keyring())
        yield SystemKeyring(address)
    finally:
        keyring.set_keyring(previous_backend)
        if previous_address is None:
            os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)
        else:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = previous_address
        for process in processes:
            _stop(process)


def _wait_until_unlocked(address: str, daemon: subprocess.Popen[bytes], log: Path) -> None:
    """Until the daemon owns its name on the bus and its login keyring (created on first
    start from the password on stdin) is the default collection, unlocked."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline and daemon.poll() is None:
        with closing(open_dbus_connection(address)) as connection:
            # Asked with a timeout first: the Secret Service calls below would wait forever.
            owned = message_bus.NameHasOwner(SECRET_SERVICE)
            if connection.send_and_get_reply(owned, timeout=1).body[0]:
                try:
                    if not secretstorage.Collection(connection).is_locked():
                        return
                except secretstorage.ItemNotFoundException:
                    pass  # the login keyring is not made yet
        time.sleep(0.02)
    raise RuntimeError(
        f"gnome-keyring-daemon did not offer an unlocked keyring "
        f"(exit status {daemon.poll()}): {_read(log)}"
    )


def _read(log: Path) -> str:
    return log.read_text(errors="replace").strip()


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
