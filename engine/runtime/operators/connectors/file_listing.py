"""The files a source's path names: a file, a directory (every file below it, hidden ``.``/``_``
files excepted) or a glob, on any fsspec filesystem. Shared by the file and Parquet sources
and by their split enumerators in the JobMaster."""
from __future__ import annotations

import fsspec

from engine.runtime.operators.base import ConfigurationError

_GLOB_CHARACTERS = set("*?[")


def files_of_node(node: dict, path: str) -> list[str]:
    """``list_files``, but a path that matches nothing (or cannot be read) fails naming the node:
    a source over a wrong path must not look like an empty input."""
    try:
        files = list_files(path)
    except (OSError, ValueError, ImportError) as error:
        raise ConfigurationError(node, f"cannot list {path}: {error}") from None
    if not files:
        raise ConfigurationError(node, f"no file matches {path}")
    return files


def list_files(path: str) -> list[str]:
    """The files a path names, sorted, as URLs/paths usable with ``fsspec.open``."""
    fs, root = fsspec.core.url_to_fs(path)
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    if _GLOB_CHARACTERS & set(root):
        found = fs.glob(root)
    elif fs.isdir(root):
        found = fs.find(root)
    else:
        found = [root] if fs.exists(root) else []
    found = [f for f in found if not f.rsplit("/", 1)[-1].startswith((".", "_")) and not fs.isdir(f)]
    prefix = "" if protocol in ("file", "local") else f"{protocol}://"
    return sorted(prefix + f if prefix and not f.startswith(prefix) else f for f in found)
