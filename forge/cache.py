"""The cache root and the one way files are written into it.

Everything kernel-forge keeps between runs lives under one root: ``$FORGE_CACHE_DIR``,
else ``~/.cache/kernel-forge``. Its folders: ``certificates`` (manifests),
``nvrtc`` (compiled CUDA images), ``semantics`` (float semantics measured per adapter),
``tuning`` (tuning results). Files are written atomically (a temporary file in the
same folder, then a rename), so a reader sees the old file, no file, or the new one,
whatever runs beside it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = [
    "cache_root",
    "write_atomically",
    "replaced_atomically",
    "FOLDERS",
    "cache_usage",
    "clear_cache",
]

#: The cache root's folders and what each holds.
FOLDERS = {
    "certificates": "certification manifests",
    "nvrtc": "compiled CUDA images",
    "semantics": "float semantics measured per adapter and driver",
    "tuning": "tuning results and tuned schedules",
}


def cache_root(path: str | os.PathLike | None = None) -> Path:
    """``path``, else ``$FORGE_CACHE_DIR``, else ``~/.cache/kernel-forge``."""
    if path is not None:
        return Path(path)
    return Path(os.environ.get("FORGE_CACHE_DIR") or Path.home() / ".cache" / "kernel-forge")


@contextlib.contextmanager
def replaced_atomically(path: str | os.PathLike) -> Iterator[IO[bytes]]:
    """A binary file to write ``path``'s new contents into: a temporary file in the same
    folder, renamed over ``path`` when the block ends, removed if it raises (Ctrl-C
    included); nothing half-written is ever left at ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def write_atomically(path: str | os.PathLike, data: bytes | str) -> None:
    """Write ``data`` to ``path`` through ``replaced_atomically``."""
    with replaced_atomically(path) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)


def cache_usage(root: str | os.PathLike | None = None) -> dict[str, tuple[int, int]]:
    """Per folder of the cache root: (files, bytes)."""
    base = cache_root(root)
    usage = {}
    for folder in FOLDERS:
        root = base / folder
        files = [p for p in root.rglob("*") if p.is_file()] if root.exists() else []
        usage[folder] = (len(files), sum(p.stat().st_size for p in files))
    return usage


def clear_cache(root: str | os.PathLike | None = None, folders=None) -> list[str]:
    """Remove the cache root's folders (all, or ``folders``); returns those removed."""
    base = cache_root(root)
    removed = []
    for folder in folders or FOLDERS:
        path = base / folder
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            path.unlink()  # a file or link where the folder belongs (rmtree refuses both)
            removed.append(folder)
        elif path.exists():
            shutil.rmtree(path)
            removed.append(folder)
    return removed
