"""Qt tests run offscreen; a Qt warning fails the test (pytest-qt's qt_log_level_fail)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.app import compose
from cairn.app.embedding.model import MiniLMEmbedder
from cairn.app.service import MemoryService
from cairn.storage.vault import Vault
from cairn.ui.base import ui_thread_gc
from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session
from cairn.ui.shell.main_window import MainWindow
from tests.conftest import PASSPHRASE


@pytest.fixture(autouse=True)
def _collect_on_the_ui_thread(qapp: object) -> None:
    """As the window does (see cairn.ui.base.ui_thread_gc): a collection on a worker thread can
    meet a widget being destroyed and crash Qt."""
    ui_thread_gc.install(qapp)  # type: ignore[arg-type]


@pytest.fixture
def session_vault(tmp_path: Path) -> Iterator[Vault]:
    """The storage vault under ``open_session``'s service, for a test that changes rows
    beneath the window or closes the file from under it."""
    made = compose.new_vault(tmp_path / "vault.cairn", PASSPHRASE)
    yield made
    made.close()


@pytest.fixture
def open_session(
    qtbot: object, tmp_path: Path, embedder: MiniLMEmbedder, session_vault: Vault
) -> Iterator[Session]:
    """A session on a new vault in tmp_path, unlocked (the real vault and embedder)."""
    session = Session()
    service: MemoryService = compose.service_for(session_vault, embedder)
    session.service, session.path = service, tmp_path / "vault.cairn"
    yield session
    session.lock()


@pytest.fixture
def new_window(qtbot: Any, open_session: Session) -> Iterator[MainWindow]:
    """The real window on ``open_session``, shown as it opens: on an empty vault, the welcome
    in place of the columns once it has looked."""
    main = MainWindow(open_session, Preferences())
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    welcome = main.welcome
    # The look that decides the welcome runs in a worker; until it has answered, the panel
    # may still come up in front of whatever a test is doing.
    qtbot.waitUntil(
        lambda: welcome.try_action.isEnabled() or welcome.remove_action.isEnabled(),
        timeout=30_000,
    )
    yield main
    main.close()


@pytest.fixture
def window(new_window: MainWindow) -> MainWindow:
    """The real window on ``open_session``, past the welcome (closed, as a person does who
    goes on to the columns), so what a test writes beneath it is seen there."""
    new_window.welcome.dismiss()
    return new_window
