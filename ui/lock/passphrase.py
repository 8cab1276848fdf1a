"""Choosing a new passphrase: two fields, a strength estimate, and the reason a choice is
refused. Used when a vault is created and when its passphrase is changed.

The estimate is deliberately simple and documented, not a promise: it guesses how many tries an
attacker would need from the length and the kinds of characters used, and treats a handful of
notorious passwords (and anything under eight characters) as weak whatever they contain.

    bits = effective length × log2(size of the alphabet the characters come from)

The alphabet adds 26 for lower case, 26 for upper case, 10 for digits, 33 for punctuation and
other signs, and 1 for the space (it separates words; an attacker tries it first). The
effective length counts each distinct character at most twice, so "aaaaaaaaaaaa" is not long.
Below 50 bits is weak, below 75 fair, from 75 on strong: a phrase of three or four common
words is strong, two words are fair, a dictionary word with a digit is weak.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QWidget,
)

from cairn.ui.base.notify import NoticeLabel

DIFFER = "The two passphrases differ: type the same one twice."
MIN_LENGTH = 8
FAIR_BITS = 50
STRONG_BITS = 75
COMMON_PASSWORDS = frozenset(
    {
        "password",
        "password1",
        "passw0rd",
        "123456",
        "12345678",
        "123456789",
        "1234567890",
        "qwerty",
        "qwertyuiop",
        "letmein",
        "iloveyou",
        "welcome",
        "admin",
        "monkey",
        "dragon",
        "sunshine",
        "abc123",
        "111111",
        "trustno1",
        "football",
        "baseball",
        "superman",
        "princess",
    }
)


class Strength(Enum):
    NONE = 0
    WEAK = 1
    FAIR = 2
    STRONG = 3

    @property
    def word(self) -> str:
        return {0: "", 1: "weak", 2: "fair", 3: "strong"}[self.value]


@dataclass(frozen=True)
class Estimate:
    strength: Strength
    bits: float
    advice: str


def estimate(passphrase: str) -> Estimate:
    if not passphrase:
        return Estimate(Strength.NONE, 0.0, "")
    if passphrase.lower() in COMMON_PASSWORDS:
        return Estimate(Strength.WEAK, 0.0, "This is one of the first passwords anyone tries.")
    alphabet = 0
    if any(c.islower() for c in passphrase):
        alphabet += 26
    if any(c.isupper() for c in passphrase):
        alphabet += 26
    if any(c.isdigit() for c in passphrase):
        alphabet += 10
    if any(not c.isalnum() and c != " " for c in passphrase):
        alphabet += 33
    if " " in passphrase:
        alphabet += 1
    effective_length = min(len(passphrase), 2 * len(set(passphrase)))
    bits = effective_length * math.log2(max(alphabet, 2))
    if len(passphrase) < MIN_LENGTH or bits < FAIR_BITS:
        advice = "Make it longer: a few unrelated words are easy to remember and hard to guess."
        return Estimate(Strength.WEAK, bits, advice)
    if bits < STRONG_BITS:
        return Estimate(Strength.FAIR, bits, "Another word or two would make it strong.")
    return Estimate(Strength.STRONG, bits, "")


class NewPassphraseFields(QWidget):
    """A new passphrase typed twice, with live strength feedback.

    ``problem()`` says why the current choice cannot be used (empty, the two differ, weak and
    not confirmed), or returns None when it can; ``refused(notice)`` says it once, where the
    person pressed Create or Change.
    """

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.first = QLineEdit()
        self.first.setEchoMode(QLineEdit.EchoMode.Password)
        self.first.setPlaceholderText("A few unrelated words work well")
        self.first.setAccessibleName("New passphrase")
        self.second = QLineEdit()
        self.second.setEchoMode(QLineEdit.EchoMode.Password)
        self.second.setAccessibleName("Repeat the new passphrase")
        self.meter = QProgressBar()
        self.meter.setRange(0, 3)
        self.meter.setTextVisible(False)
        self.meter.setMaximumHeight(8)
        self.meter.setAccessibleName("Passphrase strength")
        self.strength_label = QLabel()
        self.strength_label.setWordWrap(True)
        self.accept_weak = QCheckBox("Use this weak passphrase anyway")
        self.accept_weak.setVisible(False)

        # Public so a screen can add its own rows (a location) with the same alignment.
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.addRow("&Passphrase:", self.first)
        self.form.addRow("&Repeat it:", self.second)
        self.form.addRow("Strength:", self.meter)
        self.form.addRow("", self.strength_label)
        self.form.addRow("", self.accept_weak)

        self.first.textChanged.connect(self._update)
        self.second.textChanged.connect(self._update)
        self.accept_weak.toggled.connect(lambda _: self.edited.emit())
        self._update()

    def passphrase(self) -> str:
        return self.first.text()

    def strength(self) -> Strength:
        return estimate(self.first.text()).strength

    def problem(self) -> str | None:
        first, second = self.first.text(), self.second.text()
        if not first:
            return "Type a passphrase."
        if first != second:
            return DIFFER
        if self.strength() is Strength.WEAK and not self.accept_weak.isChecked():
            return (
                "This passphrase is weak: anyone who gets the file could guess it. Make it "
                "longer, or tick “Use this weak passphrase anyway”."
            )
        return None

    def refused(self, notice: NoticeLabel) -> bool:
        """Whether the passphrase cannot be used; if so, say why once: in ``notice``, or, when
        the line under the fields says it already (the two differ), by putting the cursor in
        the repeat field, where the line and the field's description say it."""
        problem = self.problem()
        if problem is None:
            return False
        if problem == DIFFER and self.second.text():
            notice.clear()
            self.second.setFocus()
            self.second.selectAll()
        else:
            notice.show_error(problem)
        return True

    def clear(self) -> None:
        self.first.clear()
        self.second.clear()
        self.accept_weak.setChecked(False)

    def _update(self) -> None:
        result = estimate(self.first.text())
        self.meter.setValue(result.strength.value)
        text = result.strength.word.capitalize()
        if result.advice:
            text = f"{text}. {result.advice}"
        differ = bool(self.second.text()) and self.second.text() != self.first.text()
        if differ:
            text = f"{text}\n{DIFFER}"
        self.second.setAccessibleDescription(DIFFER if differ else "")
        self.strength_label.setText(text.strip())
        weak = result.strength is Strength.WEAK
        self.accept_weak.setVisible(weak)
        if not weak:
            self.accept_weak.setChecked(False)
        self.edited.emit()
