"""Ingest: a folder or file planned against the ``sources`` table (``plan``), extracted in a child
process within a time and memory budget (``extraction``, ``process``), written document by
document (``pipeline``, ``store``, ``outcomes``), with a notes folder's links (``links``) and
the run's report. Imports the core and ``cairn.ingest``; never
``cli``, ``server`` or ``doctor``."""
