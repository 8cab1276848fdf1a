"""The window around the panels: the main window and workspace, quick capture, export, the
retention schedule, what other programs write shown as it comes, and the window as it was
after an unlock.
"""
