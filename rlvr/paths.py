"""Where rlvr caches derived data (reaction corpus, molecule pools, converted models).

Some cache files ship with the package (``rlvr/data/cache``, same layout as the cache): the builds
every first use needs (the embedded and classic reaction corpora, the molecule pool and its value
frequencies, the default split pools). Their names carry a hash of every build input (RDKit version,
molecule files, templates, parameters), so a shipped file is used only where a fresh build would
give the same result; anywhere else the file is built as before.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

#: cache files shipped with the package, laid out as under :func:`cache_dir`
SHIPPED_CACHE = Path(__file__).resolve().parent / "data" / "cache"


def cache_dir(*parts: str) -> Path:
    """``$RLVR_CACHE`` (default ``~/.cache/rlvr``) joined with ``parts``; created on demand."""
    root = Path(os.environ.get("RLVR_CACHE") or Path.home() / ".cache" / "rlvr")
    path = root.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_file(*parts: str) -> Path:
    """The cache path ``cache_dir(*parts[:-1]) / parts[-1]``, seeded from the shipped copy when absent.

    Callers read and write the returned path as before; when the cache lacks the file and the
    package ships one of that name, it is copied in first (atomically, so concurrent processes agree).
    """
    path = cache_dir(*parts[:-1]) / parts[-1]
    shipped = SHIPPED_CACHE.joinpath(*parts)
    if not path.exists() and shipped.is_file():
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            shutil.copyfile(shipped, tmp)
            os.replace(tmp, path)
        except OSError:  # a read-only cache: the caller builds the file as it would without one
            tmp.unlink(missing_ok=True)
    return path
