"""Writing in the window: a note in a Markdown editor, and the inbox worked capture by capture."""
