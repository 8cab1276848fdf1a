"""The window around the panels: the main window and workspace, the open vault's session,
workers off the UI thread, notices, quick capture, export and the retention schedule."""
