"""The encrypted vault: connections, schema and migrations, row access, full text, vectors.

The only package that imports the SQLite driver (``sqlcipher3``).
"""
