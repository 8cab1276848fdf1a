"""The PySide6 desktop application; the only package that imports Qt. Talks only to
``cairn.app``'s MemoryService."""
