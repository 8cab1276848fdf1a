"""Cairn's performance benchmark: embedding throughput, write latency and search/open at scale.

Run it with ``make bench`` (``python -m bench.run``); see :mod:`bench.run` for the options. It
prints a table and writes ``bench/results/latest.json``. It is not a test: nothing fails, the
numbers are printed next to their targets.
"""
