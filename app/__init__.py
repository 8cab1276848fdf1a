"""The engine and the one service contract (``MemoryService``), the CLI and the composition
root."""
