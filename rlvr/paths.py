"""Where rlvr caches derived data (reaction corpus, molecule pools, converted models)."""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir(*parts: str) -> Path:
    """``$RLVR_CACHE`` (default ``~/.cache/rlvr``) joined with ``parts``; created on demand."""
    root = Path(os.environ.get("RLVR_CACHE") or Path.home() / ".cache" / "rlvr")
    path = root.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
