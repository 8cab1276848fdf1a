"""The command line (``cairn``): one module per group of verbs, and ``main``, which parses and
dispatches. The top room of ``app``: it may import the core, ``doctor`` and ``server`` (it hosts
``cairn doctor`` and ``cairn serve``); nothing in ``app`` imports it."""
