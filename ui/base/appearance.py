"""How the window looks: the theme (as the system, light or dark) and the size of its text.

Both are applied to the whole application at once. Light and dark use Qt's Fusion style with a
palette, because Fusion draws every widget from the palette on every platform (a native style
may ignore it); they also tell Qt the colour scheme asked for, so that a platform which draws
window frames follows. "As the system" puts back the style, palette and font the application
had before Cairn changed any of them. Chosen in Settings › Appearance, kept in the machine
preferences, applied by ``ui/main.py`` at start.

Nothing in the window hard-codes a colour of its own: what the palette says is what is drawn.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

THEMES = {"system": "As the system", "light": "Light", "dark": "Dark"}
# A factor of the system's text size: named steps rather than points, so "Large" means the same
# on a desktop whose text is 9 points as on one whose text is 11.
FONT_SIZES = {
    "small": ("Small", 0.9),
    "system": ("As the system", 1.0),
    "large": ("Large", 1.15),
    "larger": ("Larger", 1.3),
    "largest": ("Largest", 1.5),
}
DEFAULT_THEME = "system"
DEFAULT_FONT_SIZE = "system"
FUSION = "Fusion"

Role = QPalette.ColorRole
Group = QPalette.ColorGroup
# A dark palette in the spirit of the desktops' own: grey surfaces, near-white text, a blue
# that stays readable behind white text. Disabled text is dimmed, not hidden.
DARK = {
    Role.Window: "#2b2b2b",
    Role.WindowText: "#e6e6e6",
    Role.Base: "#1f1f1f",
    Role.AlternateBase: "#2a2a2a",
    Role.ToolTipBase: "#3a3a3a",
    Role.ToolTipText: "#e6e6e6",
    Role.PlaceholderText: "#8c8c8c",
    Role.Text: "#e6e6e6",
    Role.Button: "#353535",
    Role.ButtonText: "#e6e6e6",
    Role.BrightText: "#ff6b6b",
    Role.Light: "#4a4a4a",
    Role.Midlight: "#3f3f3f",
    Role.Mid: "#2f2f2f",
    Role.Dark: "#1a1a1a",
    Role.Shadow: "#000000",
    Role.Highlight: "#2f6fb3",
    Role.HighlightedText: "#ffffff",
    Role.Link: "#6fb1ff",
    Role.LinkVisited: "#b694ff",
}
DARK_DISABLED = {
    Role.WindowText: "#7a7a7a",
    Role.Text: "#7a7a7a",
    Role.ButtonText: "#7a7a7a",
    Role.Highlight: "#3d3d3d",
    Role.HighlightedText: "#9a9a9a",
}


@dataclass(frozen=True)
class _SystemLook:
    style: str
    palette: QPalette
    font: QFont


@functools.cache
def _system_look(app: QApplication) -> _SystemLook:
    """The look the application had before Cairn first changed it (kept once per process)."""
    return _SystemLook(app.style().name(), QPalette(app.palette()), QFont(app.font()))


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in DARK.items():
        palette.setColor(role, QColor(colour))
    for role, colour in DARK_DISABLED.items():
        palette.setColor(Group.Disabled, role, QColor(colour))
    return palette


def apply_theme(app: QApplication, theme: str) -> None:
    """Apply ``theme`` (a key of ``THEMES``; anything else counts as the system's)."""
    system = _system_look(app)
    hints = QGuiApplication.styleHints()
    if theme == "dark":
        app.setStyle(QStyleFactory.create(FUSION))
        app.setPalette(dark_palette())
        hints.setColorScheme(Qt.ColorScheme.Dark)
    elif theme == "light":
        style = QStyleFactory.create(FUSION)
        app.setStyle(style)
        app.setPalette(style.standardPalette())
        hints.setColorScheme(Qt.ColorScheme.Light)
    else:
        app.setStyle(QStyleFactory.create(system.style))
        app.setPalette(system.palette)
        hints.unsetColorScheme()


def apply_font_size(app: QApplication, size: str) -> None:
    """Scale the application's text to ``size`` (a key of ``FONT_SIZES``)."""
    system = _system_look(app)
    _, factor = FONT_SIZES.get(size, FONT_SIZES[DEFAULT_FONT_SIZE])
    font = QFont(system.font)
    font.setPointSizeF(system.font.pointSizeF() * factor)
    app.setFont(font)


def apply_look(app: QApplication, theme: str, font_size: str) -> None:
    """Both at once: what ``ui/main.py`` does at start with the saved preferences."""
    if theme != DEFAULT_THEME:
        apply_theme(app, theme)
    if font_size != DEFAULT_FONT_SIZE:
        apply_font_size(app, font_size)


def is_dark(palette: QPalette) -> bool:
    """Whether ``palette`` draws light text on dark surfaces."""
    window = palette.color(Role.Window).lightness()
    text = palette.color(Role.WindowText).lightness()
    return window < text
