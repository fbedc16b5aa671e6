"""Errors a user can act on, shared by the library and the command line.

Why a module of its own: the command line turns each of these into one
`qascore: error: ...` line (exit 2) instead of a traceback, and the library
raises them from deep inside (a reader, a model loader) without importing the CLI.
"""

from __future__ import annotations


class UsageError(ValueError):
    """A wrong flag value or combination on the command line."""


class MissingDependency(ImportError):
    """An optional package or program a metric needs is absent; the message says how to install it."""

    def __init__(self, what: str, install: str) -> None:
        self.what, self.install = what, install
        super().__init__(f"{what} is not installed: {install}")
