"""The window around the panels: the main window and workspace, quick capture, export, the
retention schedule, and what other programs write shown as it comes.
"""
