"""Adding files: the ingest panel and its rows, drops onto the window, and watched folders."""
