"""The read path: hybrid search and its fusion, reading nodes with their edges and reach, the
briefing, and whether other programs wrote. It never imports the write path
(``tests/test_architecture.py`` pins it)."""
