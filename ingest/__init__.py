"""Local extractors and chunking: plain extracted documents in, never the database."""
