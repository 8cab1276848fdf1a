"""Ingest: a folder or file planned against the ``sources`` table (``plan``), extracted in a child
process within a time and memory budget (``extraction``, ``process``), written document by
document (``pipeline``, ``store``), with a notes folder's links and the entities passages name
(``links``, ``mentions``) and the run's report. Imports the core and ``cairn.ingest``; never
``cli``, ``server`` or ``doctor``."""
