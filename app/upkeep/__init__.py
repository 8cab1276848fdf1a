"""The vault itself rather than what it remembers: its scopes, settings and checks, backups,
the receipt chain, the sentinel, and the graph server's tokens.
"""
