"""The review panel: the decisions the write path left to the person, two memories side by side."""
