"""Settings › Memory in the real window: plain questions with named steps set the vault's
thresholds (read back from the service), the numbers stay under Advanced, and numbers that
match no step say "Custom"."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtWidgets import QComboBox

from cairn.app.memory_settings import SETTINGS, bands_problem
from cairn.ui.settings.dialog import SettingsDialog
from cairn.ui.settings.plain_choices import CUSTOM, PLAIN_CHOICES
from cairn.ui.shell.main_window import MainWindow
from tests.ui.mnemonics import literal_ampersands

DEFAULTS = {name: spec.default for name, spec in SETTINGS.items()}


def _settings(qtbot, window: MainWindow) -> SettingsDialog:
    dialog = window.open_settings()
    assert dialog is not None
    qtbot.waitUntil(dialog.memory_page.isEnabled)
    return dialog


def _apply(qtbot, dialog: SettingsDialog) -> None:
    with qtbot.waitSignal(dialog.applied, timeout=10_000):
        dialog.apply(close=False)


def test_the_recommended_step_of_each_question_is_the_engines_default() -> None:
    for choice in PLAIN_CHOICES:
        recommended = [s for s in choice.steps if "(recommended)" in s.name]
        assert len(recommended) == 1, choice.question
        assert choice.step_for(DEFAULTS) == choice.steps.index(recommended[0])


def test_any_steps_together_keep_the_bands_in_order() -> None:
    for steps in itertools.product(*(choice.steps for choice in PLAIN_CHOICES)):
        values = dict(DEFAULTS)
        for step in steps:
            values.update(step.values)
        assert bands_problem(values) is None, [step.name for step in steps]


def test_the_page_asks_plain_questions_before_the_numbers(qtbot, window: MainWindow) -> None:
    dialog = _settings(qtbot, window)
    page = dialog.memory_page
    sameness = page.plain["sameness"]
    assert sameness.accessibleName() == "How alike must two notes be to be treated as the same?"
    assert sameness.currentText() == "Very alike (recommended)"
    assert not page.advanced.isVisibleTo(page)  # the numbers wait under Advanced
    page.advanced_button.click()
    assert page.advanced.isVisibleTo(page)
    assert literal_ampersands(dialog) == []


def test_a_plain_step_sets_the_right_thresholds_in_the_vault(qtbot, window: MainWindow) -> None:
    dialog = _settings(qtbot, window)
    page = dialog.memory_page
    page.plain["sameness"].setCurrentText("Nearly word for word")
    page.plain["asking"].setCurrentText("Often: whenever two notes look related")
    page.plain["tags"].setCurrentText("Link it")
    assert dialog.memory_fields["dedup_high"].value() == pytest.approx(0.97)
    _apply(qtbot, dialog)
    stored = window.session.service.settings()
    assert stored["dedup_high"] == pytest.approx(0.97)
    assert stored["dedup_jaccard"] == pytest.approx(0.9)
    assert stored["dedup_low"] == pytest.approx(0.72)
    assert stored["dedup_anchored_low"] == pytest.approx(0.68)
    assert stored["tag_anchoring"] == "auto"
    assert stored["entity_mode"] == "warn"  # a question not touched stays as it was
    assert dialog.memory_changes() == {}


def test_numbers_that_match_no_step_show_custom_and_are_kept(qtbot, window: MainWindow) -> None:
    dialog = _settings(qtbot, window)
    page = dialog.memory_page
    dialog.memory_fields["dedup_jaccard"].setValue(0.75)
    sameness: QComboBox = page.plain["sameness"]
    assert sameness.currentText() == CUSTOM
    _apply(qtbot, dialog)
    assert window.session.service.settings()["dedup_jaccard"] == pytest.approx(0.75)
    sameness.setCurrentText("Very alike (recommended)")  # a step puts both numbers back
    assert dialog.memory_fields["dedup_jaccard"].value() == pytest.approx(0.8)
    assert dialog.memory_changes() == {"dedup_jaccard": pytest.approx(0.8)}
