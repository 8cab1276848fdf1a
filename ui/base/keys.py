"""The keys that work inside a panel or a dialog rather than through a menu: one table, which
the panels bind their keys from where they can (the graph's zoom, the editors' Save, the
welcome's Alt keys) and Help › Keyboard Shortcuts lists beside the menus' keys (a menu's keys
are read from its actions, so they need no entry here).

A key may be one of the platform's standard keys (Save is Ctrl+S here, Cmd+S on a Mac): it is
listed as the platform writes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QKeySequence

Keys = str | QKeySequence.StandardKey
NATIVE = QKeySequence.SequenceFormat.NativeText
STANDARD = QKeySequence.StandardKey


@dataclass(frozen=True)
class PanelKeys:
    where: str  # the panel or dialog they work in
    what: str  # what they do there
    keys: tuple[Keys, ...]

    def sequences(self) -> list[QKeySequence]:
        """Every key sequence, a standard key as the platform's bindings of it."""
        found: list[QKeySequence] = []
        for keys in self.keys:
            if isinstance(keys, QKeySequence.StandardKey):
                found += QKeySequence.keyBindings(keys)
            else:
                found.append(QKeySequence(keys))
        return found

    @property
    def shown(self) -> str:
        """The keys as the platform writes them ("Ctrl++, Ctrl+="), without the keys of
        special keyboards a standard key also has (a key labelled Save)."""
        names: list[str] = []
        for keys in self.keys:
            if isinstance(keys, QKeySequence.StandardKey):
                bound = (k.toString(NATIVE) for k in QKeySequence.keyBindings(keys))
                names += [name for name in bound if "+" in name]
            else:
                names.append(QKeySequence(keys).toString(NATIVE))
        return ", ".join(dict.fromkeys(names))


SEARCH_CLEAR = PanelKeys("Search field", "Clear it (when empty: go to the results)", ("Esc",))
SEARCH_RESULTS = PanelKeys("Search field", "Go down to the results", ("Down",))
EDITOR_SAVE = PanelKeys("Note editor and forms", "Save", (STANDARD.Save,))
CAPTURE = PanelKeys("Quick capture", "Capture to the inbox", ("Ctrl+Enter",))
INBOX_NOTE = PanelKeys("An inbox capture", "Make a note of it", ("Ctrl+Enter",))
GRAPH_ZOOM_IN = PanelKeys("Graph", "Zoom in", (STANDARD.ZoomIn, "Ctrl+="))
GRAPH_ZOOM_OUT = PanelKeys("Graph", "Zoom out", (STANDARD.ZoomOut,))
GRAPH_FIT = PanelKeys("Graph", "Fit the whole picture", ("Ctrl+0",))
WELCOME_SAMPLE = PanelKeys("Welcome", "Try the sample vault", ("Alt+T",))
WELCOME_REMOVE = PanelKeys("Welcome", "Remove the sample", ("Alt+R",))
PALETTE_RUN = PanelKeys("Command palette", "Run the command chosen", ("Enter",))
PALETTE_CLOSE = PanelKeys("Command palette", "Close it", ("Esc",))

PANEL_KEYS = (
    SEARCH_CLEAR,
    SEARCH_RESULTS,
    EDITOR_SAVE,
    CAPTURE,
    INBOX_NOTE,
    GRAPH_ZOOM_IN,
    GRAPH_ZOOM_OUT,
    GRAPH_FIT,
    WELCOME_SAMPLE,
    WELCOME_REMOVE,
    PALETTE_RUN,
    PALETTE_CLOSE,
)
