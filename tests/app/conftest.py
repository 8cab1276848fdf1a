"""Fixtures shared by the app tests."""

from tests.app.cli_runner import cli, cli_from_init

__all__ = ["cli", "cli_from_init"]
