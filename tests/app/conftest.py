"""Fixtures shared by the app tests."""

from tests.app.cli_runner import cli

__all__ = ["cli"]
