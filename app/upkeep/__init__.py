"""The vault itself rather than what it remembers: its scopes, settings and checks, backups,
the receipt chain, the sentinel, the graph server's tokens, and the sample a new vault may try.
"""
