"""The detail pane: one memory with its text, links and history, its actions, and where it came
from (opening the source at its page or time)."""
