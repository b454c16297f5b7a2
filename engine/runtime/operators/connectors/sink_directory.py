"""The directory a file sink writes into: opened once, every file created and renamed inside it.

A path is looked up again at every use, and a directory can be swapped for a link to
someone else's while a job writes. So on this machine's filesystem a sink opens its
directory once, when it starts (checking that what it opened lies inside the locations
granted to the job, ``engine.runtime.grants``), and creates, renames, lists and removes
its files relative to that open directory (``openat``-style calls with ``dir_fd``): a swap
cannot redirect a single write. Before each new file and each commit it also compares the
directory's path with what it holds open; when the path names another directory now (a
link, a new directory, nothing) the sink fails naming the node and the directory, and
writes nothing more. That is one ``stat`` per file or rename, never per record.

Names are what the sink says they are: a file of the directory itself or of one partition
directory below it (``field=value``, one level), never a path with ``/`` or ``..`` and
never through a link (``O_NOFOLLOW``; links are not listed). :meth:`SinkDirectory.relative`
turns a path into that form or refuses it, which is how the sink tells its own files from
anything else a restored state names.

Other filesystems (``s3://`` ...) have no links: the same calls go through fsspec there.
"""
from __future__ import annotations

import os
import posixpath
from typing import BinaryIO, Iterator

import fsspec

from engine.checkpoint.storage import is_local
from engine.runtime.grants import Grants, opened_real_path
from engine.runtime.operators.base import ConfigurationError

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class SinkDirectory:
    """One sink subtask's open directory. Used by the subtask's mailbox thread only."""

    def __init__(self, node: dict, url: str, grants: Grants | None):
        self.node = node
        self.fs, root = fsspec.core.url_to_fs(url)
        self.local = is_local(self.fs)
        self.root = posixpath.normpath(os.path.abspath(root)) if self.local else root.rstrip("/")
        self.grants = grants
        self._descriptor: int | None = None
        self._identity: tuple[int, int] | None = None
        self._partitions: dict[str, int] = {}  # partition directory name -> its open descriptor

    # -- opening and identity ------------------------------------------------------------------
    def open(self) -> None:
        """Create the directory if needed and open it; refuse one outside the granted locations."""
        self.fs.makedirs(self.root, exist_ok=True)
        if not self.local:
            return
        descriptor = os.open(self.root, _DIRECTORY_FLAGS)
        try:
            real = opened_real_path(descriptor, self.root)
            if self.grants is not None and not self.grants.may_write(real):
                raise ConfigurationError(self.node, f"its directory {self.root} is, or is reached through, a link "
                                                    "to a directory outside the locations granted to the run")
        except (OSError, ConfigurationError):
            os.close(descriptor)
            raise
        self._descriptor = descriptor
        status = os.fstat(descriptor)
        self._identity = (status.st_dev, status.st_ino)

    def check_identity(self) -> None:
        """Fail, naming the node and the directory, when its path no longer names the directory the sink opened."""
        if self._descriptor is None:
            return
        try:
            status = os.stat(self.root)
            now = (status.st_dev, status.st_ino)
        except OSError:
            now = None
        if now != self._identity:
            raise ConfigurationError(self.node, f"its directory {self.root} changed during the run (it was moved, "
                                                "replaced or swapped for a link): nothing more is written there")

    def close(self) -> None:
        for descriptor in [*self._partitions.values(), self._descriptor]:
            if descriptor is not None:
                os.close(descriptor)
        self._partitions.clear()
        self._descriptor = None

    # -- names -----------------------------------------------------------------------------------
    def path(self, name: str, partition: str | None = None) -> str:
        """The path of ``name`` (in ``partition``), as committables and messages spell it."""
        return posixpath.join(self.root, partition, name) if partition else posixpath.join(self.root, name)

    def relative(self, path) -> tuple[str | None, str] | None:
        """``(partition or None, name)`` when ``path`` is a file of this directory or of one partition
        directory directly below it; None for anything else."""
        if not isinstance(path, str):
            return None
        prefix = self.root + "/"
        if not path.startswith(prefix):
            return None
        parts = path[len(prefix):].split("/")
        if len(parts) > 2 or any(not _plain(part) for part in parts):
            return None
        return (parts[0], parts[1]) if len(parts) == 2 else (None, parts[0])

    # -- files -------------------------------------------------------------------------------------
    def create(self, name: str, partition: str | None = None) -> BinaryIO:
        """A new file ``name`` (in ``partition``, created if needed), open for binary writing."""
        self.check_identity()
        if not self.local:
            if partition:
                self.fs.makedirs(self.path("", partition).rstrip("/"), exist_ok=True)
            return self.fs.open(self.path(name, partition), "wb")
        descriptor = os.open(name, _NEW_FILE_FLAGS, 0o666, dir_fd=self._directory(partition, create=True))
        return os.fdopen(descriptor, "wb")

    def rename(self, source: str, target: str, partition: str | None = None) -> None:
        self.check_identity()
        if not self.local:
            self.fs.mv(self.path(source, partition), self.path(target, partition))
            return
        directory = self._directory(partition)
        os.rename(source, target, src_dir_fd=directory, dst_dir_fd=directory)

    def exists(self, name: str, partition: str | None = None) -> bool:
        if not self.local:
            return self.fs.exists(self.path(name, partition))
        try:
            os.stat(name, dir_fd=self._directory(partition), follow_symlinks=False)
            return True
        except FileNotFoundError:
            return False

    def remove(self, name: str, partition: str | None = None) -> None:
        """Remove a file (a link is removed itself, never what it points to); missing is fine."""
        try:
            if not self.local:
                self.fs.rm(self.path(name, partition))
            else:
                os.unlink(name, dir_fd=self._directory(partition))
        except FileNotFoundError:
            pass

    def files(self) -> Iterator[tuple[str | None, str]]:
        """``(partition or None, name)`` of every file of the directory and of its partition directories;
        links are not followed, nor listed."""
        if not self.local:
            for path in self.fs.find(self.root):
                found = self.relative(path)
                if found is not None:
                    yield found
            return
        with os.scandir(self._descriptor) as entries:
            listed = list(entries)
        for entry in listed:
            if entry.is_file(follow_symlinks=False):
                yield None, entry.name
            elif entry.is_dir(follow_symlinks=False) and _plain(entry.name):
                try:
                    directory = self._directory(entry.name)
                except OSError:
                    continue
                with os.scandir(directory) as inner:
                    yield from ((entry.name, item.name) for item in list(inner) if item.is_file(follow_symlinks=False))

    def _directory(self, partition: str | None, create: bool = False) -> int:
        if partition is None:
            return self._descriptor
        descriptor = self._partitions.get(partition)
        if descriptor is None:
            if not _plain(partition):
                raise ValueError(f"not a partition directory name: {partition!r}")
            if create:
                try:
                    os.mkdir(partition, 0o777, dir_fd=self._descriptor)
                except FileExistsError:
                    pass
            descriptor = os.open(partition, _DIRECTORY_FLAGS | os.O_NOFOLLOW, dir_fd=self._descriptor)
            self._partitions[partition] = descriptor
        return descriptor


def _plain(name: str) -> bool:
    """A name of one directory entry: no separator, not empty, not ``.`` or ``..``, no NUL."""
    return bool(name) and name not in (".", "..") and "/" not in name and "\0" not in name
