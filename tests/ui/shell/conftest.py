"""The real window on an open session, shared by the window's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cairn.ui.base.preferences import Preferences
from cairn.ui.base.session import Session
from cairn.ui.shell.main_window import MainWindow


@pytest.fixture
def window(qtbot, open_session: Session) -> Iterator[MainWindow]:
    main = MainWindow(open_session, Preferences())
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    yield main
    main.close()
