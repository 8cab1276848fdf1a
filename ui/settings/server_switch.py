"""The window's graph server switch, and the status bar's word about it.

The window owns one ``GraphServerSwitch``; the settings page turns it on and off, the status
bar shows it. It serves the open vault through ``ServerControl`` (a thread of its own, never the
UI thread) and follows the session: it stops before the vault locks, since the server reads
through the service that closes, and it comes back on when the vault it was turned on for is
unlocked again, as the person left it (remembered in ``Preferences``).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QLabel, QWidget

from cairn.app.api import CairnError, MemoryService, ServerControl, ServerState, Token
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.preferences import GraphServerChoice, Preferences
from cairn.ui.base.session import Session


class GraphServerSwitch(QObject):
    changed = Signal()  # started, stopped, stopping, or failed to start: read the properties
    tokens_changed = Signal()  # a token was created or revoked

    def __init__(
        self, session: Session, preferences: Preferences, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.preferences = preferences
        self.control = ServerControl()
        self.problem: str | None = None  # why the last start failed
        self.stopping = False
        session.about_to_lock.connect(self.stop_now)
        session.unlocked.connect(lambda _service: self.resume())
        # A switch that goes away takes its server with it: no thread outlives its owner.
        self.destroyed.connect(self.control.stop)

    @property
    def state(self) -> ServerState:
        return self.control.state

    def choice(self) -> GraphServerChoice:
        return self.preferences.graph_server()

    def turn_on(self, port: int, *, allow_without_token: bool) -> bool:
        """Serve the open vault on 127.0.0.1:``port``; False (and ``problem`` says why) if it
        cannot. Binding is quick, so this runs on the UI thread and the answer is immediate."""
        service = self.session.service
        if service is None:
            return False
        try:
            self.control.start(service, port, allow_without_token=allow_without_token)
        except CairnError as refused:
            self.problem = str(refused)
            self.changed.emit()
            return False
        self.problem = None
        vault = _named(self.session.path)
        self.preferences.set_graph_server(GraphServerChoice(True, port, allow_without_token, vault))
        self.changed.emit()
        return True

    def turn_off(self) -> None:
        """Stop serving, in a worker: requests in flight may take a moment to finish."""
        choice = self.choice()
        self.preferences.set_graph_server(
            GraphServerChoice(False, choice.port, choice.allow_without_token, choice.vault)
        )
        self.problem = None
        if not self.control.running:
            self.changed.emit()
            return
        self.stopping = True
        self.changed.emit()
        call_in_worker(self, self.control.stop, on_done=self._stopped, on_failed=self._stop_failed)

    def stop_now(self) -> None:
        """Stop before the vault closes (locking, closing the window): the choice is kept, so
        the server comes back with the vault. Quick when idle (about a tenth of a second)."""
        was_running = self.control.running
        self.control.stop()
        self.stopping = False
        if was_running:
            self.changed.emit()

    def resume(self) -> None:
        """After an unlock: serve again if it was on for this very vault."""
        choice = self.choice()
        vault = _named(self.session.path)
        if choice.on and vault is not None and choice.vault == vault:
            self.turn_on(choice.port, allow_without_token=choice.allow_without_token)

    def _stopped(self, _all_ended: object) -> None:
        self.stopping = False
        self.changed.emit()

    def _stop_failed(self, sentence: str) -> None:
        self.stopping = False
        self.problem = sentence
        self.changed.emit()


def _named(path: Path | None) -> str | None:
    """The vault's file by one name, however it was reached (a link, a relative path)."""
    return str(path.resolve()) if path is not None else None


def _live_tokens(service: MemoryService) -> list[Token]:
    return [token for token in service.list_tokens() if not token.revoked]


class ServerStatusLabel(QLabel):
    """``graph server: on · http://127.0.0.1:PORT`` or ``off``; the tooltip says who may read.
    A click opens the settings page (``clicked``)."""

    clicked = Signal()

    def __init__(self, switch: GraphServerSwitch, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.switch = switch
        switch.changed.connect(self.refresh)
        switch.tokens_changed.connect(self.refresh)
        self.refresh()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self.clicked.emit()
        super().mouseReleaseEvent(event)

    def refresh(self) -> None:
        state = self.switch.state
        if self.switch.stopping:
            self.setText("graph server: stopping…")
        elif state.running:
            self.setText(f"graph server: on · {state.url}")
        elif self.switch.problem:
            self.setText("graph server: off (could not start)")
        else:
            self.setText("graph server: off")
        self.setToolTip(self._explained(state, None))
        service = self.switch.session.service
        if state.running and not state.allow_without_token and service is not None:
            call_in_worker(
                self,
                _live_tokens,
                service,
                on_done=lambda tokens: self._tokens_known(state, tokens),
                on_failed=lambda _sentence: None,  # the tooltip keeps its general sentence
            )

    def _tokens_known(self, state: ServerState, tokens: list[Token]) -> None:
        if self.switch.state == state:
            self.setToolTip(self._explained(state, tokens))

    def _explained(self, state: ServerState, tokens: list[Token] | None) -> str:
        settings = "Click for Settings › Graph server."
        if not state.running:
            if self.switch.problem:
                return f"{self.switch.problem}\n{settings}"
            return f"Local programs cannot read the graph. {settings}"
        lines = [f"Read-only, at {state.url}/v1/, for programs on this computer only."]
        if state.allow_without_token:
            lines.append("Requests without a token are answered: every scope can be read.")
        else:
            lines.append("Requests need a bearer token.")
            if tokens is not None and not tokens:
                lines.append("There is no live token yet: create one in the settings.")
            for token in tokens or []:
                lines.append(f"Token {token.name or token.id[:8]}: {', '.join(token.scopes)}")
        lines.append(settings)
        return "\n".join(lines)
