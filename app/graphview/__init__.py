"""What the graph view draws: the overview and neighbourhood data (``data``), the layout, the
communities (Leiden in a child process), and the export. Imports the core; never ``cli``,
``server`` or ``doctor``."""
