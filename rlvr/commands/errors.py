"""The command line's own mistake type; how every entry point reports an error is :mod:`rlvr.errors`."""
from __future__ import annotations


class UsageError(ValueError):
    """A mistake in how a command was called: the message says what is wrong and how to fix it."""
