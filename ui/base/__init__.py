"""What every panel uses: the open vault's session, workers off the UI thread and the calls a
widget owns, notices, icons, and garbage collection on the UI thread.
"""
