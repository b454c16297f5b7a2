"""Grants: where a job's connectors may read, write and connect, checked at the moment of use.

A client that runs jobs for several users (the studio) checks a definition's locations
against what its user was granted before the job starts. That check cannot see what
happens afterwards: a file inside a granted directory replaced by a link to someone
else's, a sink directory swapped for a link, a server answering with a redirect. So the
client also hands the job the grants themselves (:class:`Grants`, plain data in every
slot's configuration under ``"grants"``), and each connector checks what it is about to
use against them, every time:

- a source opens each local file through :func:`open_for_reading`, which checks the file
  it actually opened (links followed by the kernel, then the real path of the open
  descriptor read back), not a path resolved beforehand: nothing can be swapped in
  between the check and the read;
- a sink writes only below a directory it opened once and checked (``file_transactions``);
- an HTTP lookup checks every address it is about to reach, each redirect's ``Location``
  included (:meth:`Grants.allows_url`);
- a subtask writes its state file into a savepoint target only through the directory it
  opened and found inside the grants (``engine.checkpoint.storage.write_confined``), the
  JobMaster writes ``_metadata`` the same way and takes a savepoint only into a granted target.

Without grants (the engine run alone, ``engine run``) nothing is restricted here. Paths of
other filesystems (``s3://`` ...) have no links; the client checked their prefix.
Costs, per file and never per record: one ``open``, one ``readlink`` of ``/proc/self/fd``
(a few microseconds); per HTTP request: one URL parse and a comparison per granted prefix.
"""
from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from typing import BinaryIO
from urllib.parse import urlsplit

from engine.checkpoint.storage import OutsideGrants, is_local, opened_real_path

GRANTS = "grants"
"""The key of the grants in a slot's configuration."""
DEFAULT_PORTS = {"http": 80, "https": 443}


def inside(path: str, root: str) -> bool:
    """Whether normalised absolute ``path`` is ``root`` or below it."""
    root = root.rstrip("/") or "/"
    return path == root or path.startswith(root if root == "/" else root + "/")


@dataclass(frozen=True)
class Grants:
    """What a job may reach: local directories to read (``read``) and to write (``write``, readable too), given
    as real paths, and HTTP(S) address prefixes (``scheme://host[:port][/path]``)."""

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()

    def __post_init__(self):
        for name in ("read", "write", "urls"):
            object.__setattr__(self, name, tuple(str(value) for value in getattr(self, name)))
        object.__setattr__(self, "_readable", tuple(posixpath.normpath(root) for root in self.read + self.write))
        object.__setattr__(self, "_writable", tuple(posixpath.normpath(root) for root in self.write))
        object.__setattr__(self, "_addresses", tuple(address for address in map(_address_or_none, self.urls) if address))

    def to_config(self) -> dict:
        return {"read": list(self.read), "write": list(self.write), "urls": list(self.urls)}

    @classmethod
    def of(cls, config: dict | None) -> "Grants | None":
        """The grants in a slot's configuration, or None when the job has none."""
        data = (config or {}).get(GRANTS)
        if data is None:
            return None
        return cls(tuple(data.get("read", ())), tuple(data.get("write", ())), tuple(data.get("urls", ())))

    # -- paths ---------------------------------------------------------------------------------
    def may_read(self, real_path: str) -> bool:
        return any(inside(real_path, root) for root in self._readable)

    def may_write(self, real_path: str) -> bool:
        return any(inside(real_path, root) for root in self._writable)

    # -- addresses -----------------------------------------------------------------------------
    def allows_url(self, url: str) -> bool:
        """Whether ``url`` lies below a granted address: the same scheme, host and port, and a path at or
        below the granted path (whole segments; no ``..`` or encoded dot anywhere in it)."""
        parts = _address_or_none(url)
        return parts is not None and any(parts[:3] == granted[:3] and _below(parts[3], granted[3])
                                         for granted in self._addresses)


def _address(url: str) -> tuple[str, str, int, str]:
    """``(scheme, host, port, path)`` of an HTTP(S) address; ValueError when it is not a plain one."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.username is not None or parts.password is not None:
        raise ValueError(f"not a plain http(s) address: {url!r}")
    path = parts.path or "/"
    if ".." in path.split("/") or "%2e" in path.lower() or "\\" in path:
        raise ValueError(f"the address climbs out of its path: {url!r}")
    return scheme, parts.hostname.lower(), parts.port or DEFAULT_PORTS[scheme], path


def _address_or_none(url: str) -> tuple[str, str, int, str] | None:
    try:
        return _address(url)
    except ValueError:
        return None


def _below(path: str, granted: str) -> bool:
    granted = granted.rstrip("/")
    return not granted or path == granted or path.startswith(granted + "/")


def same_origin(url: str, other: str) -> bool:
    """Whether two HTTP(S) addresses have the same scheme, host and port."""
    try:
        return _address(url)[:3] == _address(other)[:3]
    except ValueError:
        return False


# --- files --------------------------------------------------------------------------------------


def snapshot_directories(grants: Grants, checkpoint_storage: str):
    """Where a job with ``grants`` may write snapshot files: its own checkpoint storage (the client's), or a
    granted location (a savepoint target); a predicate over real paths."""
    own = os.path.realpath(checkpoint_storage) if "://" not in checkpoint_storage else None
    return lambda real: (own is not None and inside(real, own)) or grants.may_write(real)


def open_for_reading(path: str, grants: Grants | None, buffering: int = -1) -> BinaryIO:
    """``path`` (a local path or any fsspec URL) open for binary reading; a local file only when the file
    actually opened lies inside ``grants`` (:class:`OutsideGrants` otherwise, naming ``path`` only)."""
    local = path
    if "://" in path:  # a URL: its filesystem says where it is (a plain path is this machine's: no lookup)
        import fsspec

        fs, local = fsspec.core.url_to_fs(path)
        if not is_local(fs):
            return fs.open(local, "rb")
    descriptor = os.open(local, os.O_RDONLY | os.O_CLOEXEC)
    try:
        if grants is not None and not grants.may_read(opened_real_path(descriptor, local)):
            raise OutsideGrants(f"{path} is, or is reached through, a link to a file outside the locations "
                                "granted to the run")
        return os.fdopen(descriptor, "rb", buffering=buffering)
    except BaseException:
        os.close(descriptor)
        raise
