"""The files a source's path names: a file, a directory (every file below it, hidden ``.``/``_``
files excepted) or a glob, on any fsspec filesystem. Shared by the file and Parquet sources
and by their split enumerators in the JobMaster.

:class:`SourceFiles` is one source's view of them, and the only way it reaches a file:
listing (each local file's real path inside the job's grants), telling its own files from
anything else a restored state names (``owns``), and opening (``open``: the file actually
opened must lie inside the grants; ``engine.runtime.grants``). A link inside a granted
directory to another user's file is thereby refused when the directory is listed and again
when the file is opened, whichever the file has become by then.
"""
from __future__ import annotations

import os
import posixpath
from typing import BinaryIO

import fsspec

from engine.checkpoint.storage import is_local
from engine.runtime.grants import Grants, OutsideGrants, open_for_reading
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


class SourceFiles:
    """The files one source node may read: listed, told from other paths, opened; every use checked."""

    def __init__(self, node: dict, path: str, grants: Grants | None):
        self.node = node
        self.path = path
        self.grants = grants
        fs, root = fsspec.core.url_to_fs(path)
        self._protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        self._local = is_local(fs)
        self._root = posixpath.normpath(root) if self._local else root.rstrip("/")
        if _GLOB_CHARACTERS & set(self._root):
            head = self._root
            for character in _GLOB_CHARACTERS:
                head = head.split(character, 1)[0]
            self._directory = posixpath.dirname(head)  # what a glob can match lies below its literal folder
        else:
            self._directory = self._root

    def list(self) -> list[str]:
        """Every file of the path (``files_of_node``); a local one whose real path lies outside the grants fails
        the node, naming the file as the path spells it."""
        files = files_of_node(self.node, self.path)
        if self._local and self.grants is not None:
            for file in files:
                if not self.grants.may_read(os.path.realpath(file)):
                    raise ConfigurationError(self.node, _outside(file))
        return files

    def owns(self, path) -> bool:
        """Whether ``path`` is this source's path or lies below its folder (a glob's: the part before its first
        wildcard), spelled plainly: what a split of it may name."""
        if not isinstance(path, str) or not path or "\0" in path:
            return False
        try:
            fs, stripped = fsspec.core.url_to_fs(path)
        except (ValueError, ImportError, OSError):
            return False
        protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        if protocol != self._protocol or ".." in stripped.split("/"):
            return False
        if self._local and posixpath.normpath(stripped) != stripped:
            return False
        return stripped == self._root or stripped.startswith(self._directory.rstrip("/") + "/")

    def open(self, path: str) -> BinaryIO:
        """``path`` open for binary reading, once the file actually opened was found inside the grants."""
        try:
            return open_for_reading(path, self.grants)
        except OutsideGrants:
            raise ConfigurationError(self.node, _outside(path)) from None


def _outside(path: str) -> str:
    return f"{path} is, or is reached through, a link to a file outside the locations granted to the run"
