"""The vault itself rather than what it remembers: backups and their checks, the receipt chain,
the sentinel, the graph server's tokens, and the privacy of the process holding it open."""
