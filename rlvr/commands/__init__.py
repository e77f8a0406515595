"""Subcommands of the ``rlvr`` CLI (one module each, exposing ``register(subparsers)``)."""
