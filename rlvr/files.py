"""Output paths and atomic writes: the one ``--out`` rule every command follows.

The rule: an existing folder, or a path ending in ``/``, is a folder, and the command names the
file inside it; anything else is the file itself. Nothing that exists is replaced unless
``overwrite`` is set (``--overwrite``), and a folder is never replaced by a file. Every write goes
to a hidden temporary file (or folder) next to its target and is moved into place with
:func:`os.replace`, so an interrupted or failed write leaves the target untouched and nothing
behind.
"""
from __future__ import annotations

import os
import secrets
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TextIO

#: the rule as the commands' ``--help`` states it
OUT_RULE = "an existing folder or a path ending in / is a folder and gets {name} inside it; anything else is the file"


def out_help(name: str, what: str = "output file") -> str:
    """The ``--help`` text of an ``--out`` option whose default file name in a folder is ``name``."""
    return f"{what}; {OUT_RULE.format(name=name)}; an existing file is replaced only with --overwrite"


def names_folder(out: str | os.PathLike[str]) -> bool:
    """True when ``out`` is a folder under the ``--out`` rule (an existing folder, or it ends in ``/``)."""
    text = os.fspath(out)
    return text.endswith(("/", os.sep)) or Path(text).expanduser().is_dir()


def resolve_out(
    out: str | os.PathLike[str],
    name: str,
    *,
    overwrite: bool = False,
    is_artifact_folder: Callable[[Path], bool] | None = None,
) -> Path:
    """The path ``out`` means under the ``--out`` rule; raises when it may not be written.

    ``name`` is the file made inside a folder. For outputs that are themselves folders (a saved
    ``datasets`` folder), ``is_artifact_folder`` tells such a folder from a user's folder: an
    existing folder it accepts is the output itself, not a place to put one.

    Raises :class:`FileExistsError` when the target exists and ``overwrite`` is false, and
    :class:`IsADirectoryError` when a folder would be replaced by a file (or by an artifact folder
    it does not recognise), whatever ``overwrite`` says.
    """
    text = os.fspath(out)
    if not text.strip():
        raise ValueError("--out is empty; give a file name or a folder")
    path = Path(text).expanduser()
    if path.is_dir() and is_artifact_folder is not None and is_artifact_folder(path):
        target = path
    elif names_folder(text):
        target = path / name
    else:
        target = path
    if target.exists() or target.is_symlink():
        if target.is_dir() and not (is_artifact_folder is not None and is_artifact_folder(target)):
            raise IsADirectoryError(f"{target} is a folder; choose another --out (a folder is never replaced)")
        if not overwrite:
            raise FileExistsError(f"{target} exists; pass --overwrite to replace it, or choose another --out")
    if target.parent.exists() and not target.parent.is_dir():
        raise NotADirectoryError(f"{target.parent} is a file, not a folder; choose another --out")
    return target


def _temp_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


@contextmanager
def atomic_path(target: str | os.PathLike[str], *, folder: bool = False) -> Iterator[Path]:
    """A temporary path next to ``target`` to write; on success it replaces ``target``.

    With ``folder`` the temporary path is an (empty, created) folder and an existing ``target``
    folder is swapped out and removed only after the new one is in place. On any error the
    temporary file or folder is removed and ``target`` is left as it was.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_name(target)
    if folder:
        tmp.mkdir()
    try:
        yield tmp
        if folder and target.is_dir():
            old = _temp_name(target)
            os.replace(target, old)
            try:
                os.replace(tmp, target)
            except BaseException:
                os.replace(old, target)
                raise
            _remove(old)
        else:
            os.replace(tmp, target)
    except BaseException:
        _remove(tmp)
        raise


@contextmanager
def atomic_open(target: str | os.PathLike[str], encoding: str = "utf-8") -> Iterator[TextIO]:
    """A text file handle whose content replaces ``target`` only once the block ends without error."""
    with atomic_path(target) as tmp:
        with open(tmp, "x", encoding=encoding) as fh:
            yield fh
