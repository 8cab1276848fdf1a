"""The write gate: how alike two memories are (``likeness``, ``statements``, ``anchors``), what a
write becomes (``gate``), the entity resolver and the feedback a write gives (links, stubs,
tags). Imported by the writer; imports the core's models and storage, never a face."""
