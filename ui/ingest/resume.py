"""The line that offers to finish adding files a run left unfinished: it was stopped, the vault
was locked while it ran, or the window closed. The vault keeps such runs until they finish
(``MemoryService.unfinished_ingests``), so the offer is there after an unlock or a restart too.
Resume runs one again: the files already added are unchanged and skipped, and a long document
goes on from its first missing passage. Don't resume lets the offer go; nothing added is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from cairn.app.api import IngestRequest
from cairn.ui.base.owned_calls import call_in_worker
from cairn.ui.base.session import Session

NAMES_SHOWN = 2  # the folders or files named; the rest are counted


class ResumeBar(QWidget):
    """Hidden unless a run was left unfinished, and never shown while a run goes (``busy``)."""

    resume_requested = Signal(object)  # the IngestRequest to run again
    needs_attention = Signal()  # an unfinished run is offered, or why none could be read

    def __init__(
        self, session: Session, busy: Callable[[], bool], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._busy = busy
        self._requests: list[IngestRequest] = []
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.resume_button = QPushButton("Resume")
        self.resume_button.setAccessibleName("Resume adding files")
        self.resume_button.setToolTip("Adds what the run left; files already added are skipped.")
        self.resume_button.clicked.connect(self._resume)
        self.dismiss_button = QPushButton("Don't resume")
        self.dismiss_button.setAccessibleName("Don't resume adding files")
        self.dismiss_button.setToolTip("Keeps what was added; the rest is not added.")
        self.dismiss_button.clicked.connect(self.dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.resume_button)
        layout.addWidget(self.dismiss_button)
        self.setVisible(False)

    def refresh(self) -> None:
        """Ask the vault which runs it keeps as unfinished, and offer the first."""
        service = self._session.service
        if service is not None:
            call_in_worker(
                self,
                service.unfinished_ingests,
                on_done=self._answered(self.show_requests),
                on_failed=self._answered(self.show_problem),
            )

    def dismiss(self) -> None:
        """The person lets the unfinished runs go: what they added stays."""
        service = self._session.service
        if service is None:
            return
        self.clear()
        call_in_worker(
            self,
            service.forget_unfinished_ingests,
            on_done=lambda _: None,
            on_failed=self._answered(self.show_problem),
        )

    def _answered(self, show: Callable[[Any], None]) -> Callable[[Any], None]:
        """``show`` of an answer that is still wanted: the vault open, no run going."""

        def still_wanted(answer: Any) -> None:
            if self._session.service is not None and not self._busy():
                show(answer)

        return still_wanted

    def show_requests(self, requests: list[IngestRequest]) -> None:
        """Offer the first unfinished run (a run goes per scope; the next is offered after)."""
        self._requests = list(requests)
        if not requests:
            self.clear()
            return
        self.label.setText(offer_text(requests[0], len(requests) - 1))
        self.resume_button.setEnabled(True)
        self.dismiss_button.setEnabled(True)
        self.setVisible(True)
        self.needs_attention.emit()

    def show_problem(self, message: str) -> None:
        """The unfinished runs could not be read: say so, offer nothing."""
        self._requests = []
        self.label.setText(
            f"Cairn could not tell whether adding files was left unfinished: {message}"
        )
        self.resume_button.setEnabled(False)
        self.dismiss_button.setEnabled(False)
        self.setVisible(True)
        self.needs_attention.emit()

    def clear(self) -> None:
        self._requests = []
        self.label.clear()
        self.setVisible(False)

    @property
    def offered(self) -> IngestRequest | None:
        return self._requests[0] if self._requests else None

    def _resume(self) -> None:
        if self._requests:
            self.resume_requested.emit(self._requests[0])


def offer_text(request: IngestRequest, others: int) -> str:
    """What the line says of an unfinished run: what it was adding, and what Resume does."""
    names = [f"“{Path(path).name or path}”" for path in request.paths]
    shown = ", ".join(names[:NAMES_SHOWN])
    if len(names) > NAMES_SHOWN:
        shown += f" and {len(names) - NAMES_SHOWN} more"
    scope = "" if request.scope == "personal" else f" (scope {request.scope})"
    more = (
        f" {others} more unfinished {'run waits' if others == 1 else 'runs wait'} after it."
        if others
        else ""
    )
    return (
        f"Adding {shown}{scope} was stopped before it finished. Resume adds what is left; "
        f"files already added are skipped.{more}"
    )
