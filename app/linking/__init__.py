"""What joins a memory to others: ``[[links]]`` and tags, the entities a text names, and the stubs
that ask to be described. Shared by the write path and ingest; the read path uses ``stubs``
only."""
