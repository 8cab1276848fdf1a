"""Settings: the dialog and its pages, the machine preferences, and the graph server's page."""
