"""The graph server switch in the window: Settings › Graph server starts and stops a real
server over the open vault, tokens made on the page work against it, locking and closing stop
it, and the status bar says where it listens."""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from cairn.ui.base.preferences import GraphServerChoice, Preferences
from cairn.ui.base.session import Session
from cairn.ui.settings.server_page import GraphServerPage
from cairn.ui.settings.server_switch import GraphServerSwitch
from cairn.ui.shell.main_window import MainWindow
from tests.app.server.server_probe import HOST, free_port, get, refused
from tests.conftest import PASSPHRASE


def _server_threads() -> list[threading.Thread]:
    names = ("cairn-graph-", "cairn-serve")
    return [t for t in threading.enumerate() if t.name.startswith(names)]


@pytest.fixture
def preferences(tmp_path: Path) -> Preferences:
    return Preferences(tmp_path / "prefs.ini")


@pytest.fixture
def switch(open_session: Session, preferences: Preferences) -> Iterator[GraphServerSwitch]:
    made = GraphServerSwitch(open_session, preferences)
    yield made
    made.stop_now()


@pytest.fixture
def page(qtbot, switch: GraphServerSwitch) -> GraphServerPage:
    widget = GraphServerPage(switch)
    qtbot.addWidget(widget)
    qtbot.waitUntil(lambda: "personal" in widget.scope_boxes)  # the vault's scopes are in
    return widget


def _turn_on(page: GraphServerPage, port: int) -> int:
    page.port.setValue(port)
    page.enabled.click()
    shown = re.search(r"http://127\.0\.0\.1:(\d+)/v1/", page.state_label.text())
    assert shown is not None, page.state_label.text()
    return int(shown.group(1))


def _turn_off(qtbot, page: GraphServerPage) -> None:
    page.enabled.click()
    qtbot.waitUntil(lambda: not page.switch.stopping and not page.switch.state.running)


def test_the_switch_serves_and_stops(qtbot, page: GraphServerPage) -> None:
    port = _turn_on(page, free_port())
    assert page.enabled.isChecked() and not page.port.isEnabled()
    assert get(port, "/v1/health") == 200
    assert get(port, "/v1/search?q=tomatoes") == 401  # the box is not ticked
    assert page.switch.preferences.graph_server().on
    _turn_off(qtbot, page)
    assert refused(port)
    assert _server_threads() == []
    assert not page.enabled.isChecked() and page.port.isEnabled()
    assert page.state_label.text().startswith("Off")
    assert not page.switch.preferences.graph_server().on


def test_without_a_token_only_when_ticked(qtbot, page: GraphServerPage) -> None:
    page.allow_without_token.setChecked(True)
    port = _turn_on(page, free_port())
    assert "answers without a token" in page.state_label.text()
    assert get(port, "/v1/search?q=tomatoes") == 200
    # Remembered in the file, for the next time this vault is unlocked.
    kept = Preferences(page.switch.preferences.path).graph_server()
    assert (kept.on, kept.port, kept.allow_without_token) == (True, port, True)
    assert kept.vault == str(page.switch.session.path.resolve())


def test_locking_stops_the_server(page: GraphServerPage, open_session: Session) -> None:
    port = _turn_on(page, free_port())
    open_session.lock()
    assert refused(port)
    assert _server_threads() == []
    assert not page.enabled.isChecked()
    # As the person left it: on, so it comes back with this vault.
    assert page.switch.preferences.graph_server().on


def test_a_token_made_on_the_page_works_until_revoked(qtbot, page: GraphServerPage) -> None:
    port = _turn_on(page, free_port())
    page.token_name.setText("notes agent")
    page.scope_boxes["personal"].setChecked(True)
    qtbot.mouseClick(page.create_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: page.secret_box.isVisibleTo(page) and page.token_list.topLevelItemCount()
    )
    secret = page.secret.text()
    assert secret and "will not be shown again" in page.shown_once.text()
    assert get(port, "/v1/search?q=tomatoes&scopes=personal", token=secret) == 200
    assert get(port, "/v1/search?q=tomatoes&scopes=work", token=secret) == 403  # not its scope
    qtbot.mouseClick(page.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == secret
    row = page.token_list.topLevelItem(0)
    assert [row.text(i) for i in (0, 1, 3)] == ["notes agent", "personal", "live"]
    assert secret not in " ".join(row.text(i) for i in range(4))  # only shown once, above

    page.token_list.setCurrentItem(row)
    assert page.revoke_button.isEnabled()
    qtbot.mouseClick(page.revoke_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.token_list.topLevelItem(0).text(3).startswith("revoked"))
    assert get(port, "/v1/search?q=tomatoes", token=secret) == 401


def test_a_token_needs_a_scope(qtbot, page: GraphServerPage) -> None:
    qtbot.mouseClick(page.create_button, Qt.MouseButton.LeftButton)
    assert "Tick the scopes" in page.token_notice.text()
    assert page.token_list.topLevelItemCount() == 0


def test_a_busy_port_is_said_and_nothing_breaks(qtbot, page: GraphServerPage) -> None:
    with socket.socket() as other:
        other.bind((HOST, 0))
        other.listen()
        busy = other.getsockname()[1]
        page.port.setValue(busy)
        page.enabled.click()
        assert f"Port {busy} is in use" in page.server_notice.text()
        assert page.server_notice.isVisibleTo(page)
        assert not page.enabled.isChecked() and not page.switch.state.running
        assert not page.switch.preferences.graph_server().on
    port = _turn_on(page, free_port())  # another port works
    assert get(port, "/v1/health") == 200
    assert not page.server_notice.isVisibleTo(page)


def test_it_comes_back_only_for_the_vault_it_was_on_for(
    switch: GraphServerSwitch, preferences: Preferences
) -> None:
    port = free_port()
    preferences.set_graph_server(GraphServerChoice(True, port, False, "/elsewhere/other.cairn"))
    switch.resume()
    assert not switch.state.running and refused(port)
    preferences.set_graph_server(
        GraphServerChoice(True, port, False, str(switch.session.path.resolve()))
    )
    switch.resume()
    assert switch.state.port == port and get(port, "/v1/health") == 200


def test_the_status_bar_follows_the_server(qtbot, open_session: Session) -> None:
    window = MainWindow(open_session, Preferences())
    qtbot.addWidget(window)
    label = window.server_label
    assert label.text() == "graph server: off"
    dialog = window.open_server_settings()
    assert dialog is not None and dialog.current_page() is dialog.graph_server
    port = _turn_on(dialog.graph_server, free_port())
    assert label.text() == f"graph server: on · http://{HOST}:{port}"
    qtbot.waitUntil(lambda: "no live token yet" in label.toolTip())
    assert "Requests need a bearer token" in label.toolTip()

    window.lock()  # the dialog closes with the vault
    assert label.text() == "graph server: off" and refused(port)
    with qtbot.waitSignal(open_session.unlocked, timeout=30_000):
        open_session.open(open_session.path, PASSPHRASE)
    assert label.text() == f"graph server: on · http://{HOST}:{port}"  # as it was left
    assert get(port, "/v1/health") == 200

    window.close()
    assert refused(port) and _server_threads() == []
