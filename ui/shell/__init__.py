"""The window around the panels: the main window and workspace, quick capture, export and the
retention schedule.
"""
