"""Checkpoint storage: where snapshots live, on any filesystem fsspec can reach.

Layout below the storage URL (a local directory by default; ``s3://``, ``hdfs://`` ...
work through their fsspec plugins)::

    <url>/chk-<id>/                           made as the checkpoint is triggered (``claim``)
    <url>/chk-<id>/_triggered                 (object stores, which have no empty directories)
    <url>/chk-<id>/<vertex>-<index>-<suffix>.state   one file per subtask with state
    <url>/chk-<id>/_metadata                  written last: its presence means "completed"
    <savepoint target or url/savepoints>/savepoint-<id>-<suffix>/...   same layout

A checkpoint's directory exists from its trigger on, and a job numbers its checkpoints after
every ``chk-<id>`` present when it starts (``highest_checkpoint_id``): a job that took over a
directory from a fenced one never uses an id the fenced one may still write to or delete
(``engine.checkpoint.coordinator``, "Fencing"). State files get a random suffix, so a write that
comes late never replaces a file another job wrote under the same checkpoint id.

A checkpoint directory is self-contained: ``_metadata`` names the state files relative to
its own directory, so a savepoint can be moved or copied and still be restored. A restore
reads nothing else: a state file's name is a plain file name of that directory, never a
path, and a local state file that is a symlink is refused (``read_state_file``). With a
:class:`~engine.checkpoint.signing.SnapshotSigner` the metadata is signed when written and
verified when loaded (``engine.checkpoint.signing``).
``_metadata`` is JSON (plain data, readable by people and by the studio) and is written
through a temporary name and a rename where the filesystem supports it, so a half-written
one is never mistaken for a completed checkpoint.

Threading model: stateless apart from fsspec's cached filesystem objects, which are
thread-safe for the operations used here; called from snapshot threads (state files) and
the coordinator (metadata, discards).
"""
from __future__ import annotations

import errno
import json
import os
import posixpath
import re
import shutil
import uuid
from typing import Any

import fsspec

from engine.checkpoint.signing import DIGEST, SnapshotRefused, SnapshotSigner, check_digest, digest

METADATA_FILE = "_metadata"
TRIGGERED_FILE = "_triggered"
"""Written by ``claim`` where directories exist only through their files (object stores)."""
_CHECKPOINT_DIR = re.compile(r"^chk-(\d+)$")


def _filesystem(url: str):
    fs, path = fsspec.core.url_to_fs(url)
    return fs, path


def join(url: str, *parts: str) -> str:
    """Join path parts onto a URL or local path with '/'."""
    result = url.rstrip("/")
    for part in parts:
        result = f"{result}/{part.strip('/')}"
    return result


class OutsideGrants(OSError):
    """A file or directory whose real path lies outside the locations granted to the job."""


def opened_real_path(descriptor: int, path: str) -> str:
    """The real path of the file open as ``descriptor`` (opened as ``path``): what was opened, links followed.

    Linux says it directly (``/proc/self/fd``); elsewhere the path is resolved and must still name the
    same file as the descriptor."""
    try:
        return os.readlink(f"/proc/self/fd/{descriptor}")
    except OSError:
        real = os.path.realpath(path)
        opened, named = os.fstat(descriptor), os.stat(real)
        if (opened.st_dev, opened.st_ino) != (named.st_dev, named.st_ino):
            raise OutsideGrants(f"{path} changed while it was opened")
        return real


def write_confined(directory: str, name: str, data: bytes, allowed, temporary: str | None = None) -> int:
    """Write ``data`` as the file ``name`` of local ``directory`` only inside what ``allowed`` accepts (a
    predicate over real paths), never through a link; :class:`OutsideGrants` otherwise, with nothing made.
    With ``temporary`` the data goes there first and is renamed to ``name``. Returns the size.

    The directory is reached from its nearest existing ancestor, opened and checked, creating each missing
    directory below it relative to the one before (no link is followed on the way down), and the file is
    created relative to the directory as opened: nothing swapped in meanwhile can redirect it."""
    descriptor = _open_directory_confined(directory, allowed)
    try:
        file = os.open(temporary or name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                       0o666, dir_fd=descriptor)
        with os.fdopen(file, "wb") as handle:
            handle.write(data)
        if temporary:
            os.rename(temporary, name, src_dir_fd=descriptor, dst_dir_fd=descriptor)
    finally:
        os.close(descriptor)
    return len(data)


def _open_directory_confined(directory: str, allowed) -> int:
    path, missing = os.path.abspath(directory), []
    while not os.path.isdir(path):
        path, part = os.path.split(path)
        missing.append(part)
    descriptor = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:  # what is made below the ancestor is made without links: its real path is known before it is made
        if not allowed(os.path.join(opened_real_path(descriptor, path), *reversed(missing))):
            raise OutsideGrants(f"{directory} is, or is reached through, a link to a directory outside the "
                                "locations granted to the run")
        for part in reversed(missing):
            try:
                os.mkdir(part, 0o777, dir_fd=descriptor)
            except FileExistsError:
                pass
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def write_file(directory: str, name: str, data: bytes) -> int:
    """Write ``data`` as ``directory/name`` (creating the directory); return its size."""
    fs, path = _filesystem(directory)
    fs.makedirs(path, exist_ok=True)
    with fs.open(join(path, name), "wb") as handle:
        handle.write(data)
    return len(data)


def read_file(directory: str, name: str) -> bytes:
    fs, path = _filesystem(join(directory, name))
    with fs.open(path, "rb") as handle:
        return handle.read()


def read_state_file(directory: str, handle: dict) -> bytes:
    """The bytes of the state file ``handle`` names in snapshot ``directory``, as they were written.

    The name must be a plain name of a file in the directory, a local one no symlink, and
    its bytes must have the digest the handle holds; :class:`SnapshotRefused` otherwise."""
    name = handle.get("path")
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or "\0" in name \
            or name in (".", "..") or name.startswith("."):
        raise SnapshotRefused(directory, f"its metadata names the state file {name!r}, which is not a file of "
                                         "the snapshot's own directory")
    fs, path = _filesystem(join(directory, name))
    try:
        if is_local(fs):
            descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            with os.fdopen(descriptor, "rb") as file:
                data = file.read()
        else:
            with fs.open(path, "rb") as file:
                data = file.read()
    except OSError as error:
        reason = "is a symlink" if error.errno == errno.ELOOP else f"cannot be read: {error.strerror or error}"
        raise SnapshotRefused(directory, f"its state file {name!r} {reason}") from None
    check_digest(directory, handle, data)
    return data


def is_local(fs) -> bool:
    """Whether an fsspec filesystem is this machine's (where symlinks exist)."""
    protocols = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    return bool({"file", "local"} & set(protocols))


def write_metadata(directory: str, metadata: dict[str, Any], signer: SnapshotSigner | None = None,
                   allowed=None) -> str:
    """Write ``_metadata`` into ``directory`` atomically where possible (signed by ``signer``, in place, when
    given; for a local directory with ``allowed``, only through the directory as opened, see
    ``write_confined``); return its URL."""
    if signer is not None:
        signer.sign(metadata)
    if allowed is not None and "://" not in directory:
        data = json.dumps(metadata, sort_keys=True, separators=(",", ":")).encode("utf-8")
        write_confined(directory, METADATA_FILE, data, allowed, temporary=f".{METADATA_FILE}.{uuid.uuid4().hex[:8]}")
        return join(directory, METADATA_FILE)
    fs, path = _filesystem(directory)
    fs.makedirs(path, exist_ok=True)
    # compact: json's C encoder (any indent takes the pure-Python one, 8x slower: 100 ms a
    # checkpoint at 1,000 subtasks; tests/bench/bench_scale.py)
    data = json.dumps(metadata, sort_keys=True, separators=(",", ":")).encode("utf-8")
    target = join(path, METADATA_FILE)
    temporary = join(path, f".{METADATA_FILE}.{uuid.uuid4().hex[:8]}")
    with fs.open(temporary, "wb") as handle:
        handle.write(data)
    try:
        fs.mv(temporary, target)
    except (NotImplementedError, OSError):
        with fs.open(target, "wb") as handle:
            handle.write(data)
        fs.rm(temporary)
    return join(directory, METADATA_FILE)


def load_metadata(path_or_url: str, signer: SnapshotSigner | None = None) -> dict[str, Any]:
    """Read a completed checkpoint's metadata from its directory or its ``_metadata`` file; with ``signer``,
    only metadata it signed (:class:`SnapshotRefused` otherwise).

    The returned dict gets ``"location"``: the checkpoint directory, against which the
    state handles' relative paths resolve.
    """
    location = path_or_url.rstrip("/")
    if location.endswith("/" + METADATA_FILE) or location == METADATA_FILE:
        location = location[: -len(METADATA_FILE)].rstrip("/")
    fs, path = _filesystem(join(location, METADATA_FILE))
    if not fs.exists(path):
        raise FileNotFoundError(f"no completed checkpoint at {path_or_url} (no {METADATA_FILE})")
    with fs.open(path, "rb") as handle:
        try:
            metadata = json.loads(handle.read().decode("utf-8"))
        except ValueError as error:
            raise SnapshotRefused(location, f"its {METADATA_FILE} is not JSON: {error}") from None
    if not isinstance(metadata, dict):
        raise SnapshotRefused(location, f"its {METADATA_FILE} is not a JSON object")
    metadata["location"] = location
    if signer is not None:
        signer.verify(metadata, location)
    return metadata


def sign_snapshot_files(path_or_url: str, signer: SnapshotSigner) -> dict[str, Any]:
    """Sign an existing snapshot as it is now: the digest of each state file it lists (read as a restore reads
    it: a plain name of its directory, no symlink) goes into its handle, then ``signer`` signs the metadata,
    which is written back. For snapshots written before signing, by whoever vouches for them."""
    metadata = load_metadata(path_or_url)
    location = metadata.pop("location")
    for handle in (metadata.get("tasks") or {}).values():
        if isinstance(handle, dict):
            handle.pop(DIGEST, None)
            handle[DIGEST] = digest(read_state_file(location, handle))
    write_metadata(location, metadata, signer)
    metadata["location"] = location
    return metadata


def discard(directory: str) -> None:
    """Delete a checkpoint directory and everything in it (missing is fine).

    A local one directly (``shutil.rmtree``, which follows no link, as fsspec's ``rm`` ends up doing):
    fsspec first lists the tree and asks for each entry's details, and a JobMaster discards a
    checkpoint each time one completes (a session of a hundred runs, a hundred a second)."""
    if "://" not in directory:
        try:
            if os.path.islink(directory):  # the link goes, not what it names
                os.remove(directory)
                return
            shutil.rmtree(directory)
        except NotADirectoryError:
            os.remove(directory)
        except FileNotFoundError:
            pass
        return
    fs, path = _filesystem(directory)
    try:
        if fs.exists(path):
            fs.rm(path, recursive=True)
    except FileNotFoundError:
        pass


def claim(directory: str, allowed=None) -> None:
    """Make checkpoint ``directory`` exist, empty, as its checkpoint is triggered (see the module's docstring).

    A local one is made (only inside what ``allowed`` accepts, when given, as ``write_confined`` does);
    elsewhere a ``_triggered`` file is written too: an object store has no empty directories."""
    if "://" not in directory:
        if allowed is not None:
            os.close(_open_directory_confined(directory, allowed))
        else:
            os.makedirs(directory, exist_ok=True)
        return
    fs, path = _filesystem(directory)
    fs.makedirs(path, exist_ok=True)
    fs.pipe_file(join(path, TRIGGERED_FILE), b"")


def is_completed(directory: str) -> bool:
    """Whether a completed checkpoint is at ``directory`` (its ``_metadata`` is there)."""
    fs, path = _filesystem(join(directory, METADATA_FILE))
    return fs.exists(path)


class CheckpointStorage:
    """The checkpoint directories of one job below ``url``."""

    def __init__(self, url: str, savepoint_url: str | None = None, signer: SnapshotSigner | None = None,
                 allowed=None):
        self.url = url.rstrip("/") or "/"
        self.savepoint_url = (savepoint_url or join(self.url, "savepoints")).rstrip("/")
        self.signer = signer
        self.allowed = allowed
        """Where (real paths) local metadata may be written, or None: anywhere (``write_confined``)."""

    def checkpoint_directory(self, checkpoint_id: int) -> str:
        return join(self.url, f"chk-{checkpoint_id}")

    def savepoint_directory(self, checkpoint_id: int, target: str | None = None) -> str:
        return join(target or self.savepoint_url, f"savepoint-{checkpoint_id}-{uuid.uuid4().hex[:8]}")

    def location_for(self, checkpoint_id: int, kind: str, target: str | None = None) -> str:
        if kind == "savepoint":
            return self.savepoint_directory(checkpoint_id, target)
        return self.checkpoint_directory(checkpoint_id)

    def write_metadata(self, location: str, metadata: dict[str, Any]) -> str:
        return write_metadata(location, metadata, self.signer, self.allowed)

    def discard(self, location: str) -> None:
        discard(location)

    def claim(self, location: str) -> None:
        claim(location, self.allowed)

    def highest_checkpoint_id(self) -> int:
        """The highest id of a ``chk-<id>`` below the URL, completed or not; 0 when there is none.

        One listing: locally without fsspec (a JobMaster asks as it is made, a session starts
        many)."""
        if "://" not in self.url:
            try:
                names = os.listdir(self.url)
            except (FileNotFoundError, NotADirectoryError):
                return 0
        else:
            fs, path = _filesystem(self.url)
            try:
                names = [posixpath.basename(entry.rstrip("/")) for entry in fs.ls(path, detail=False)]
            except FileNotFoundError:
                return 0
        return max((int(match.group(1)) for match in map(_CHECKPOINT_DIR.match, names) if match), default=0)

    def completed_checkpoints(self) -> list[tuple[int, str]]:
        """``(id, directory)`` of every completed checkpoint below the URL, oldest first."""
        fs, path = _filesystem(self.url)
        if not fs.exists(path):
            return []
        found = []
        for entry in fs.ls(path, detail=False):
            name = posixpath.basename(entry.rstrip("/"))
            match = _CHECKPOINT_DIR.match(name)
            if match and fs.exists(join(entry, METADATA_FILE)):
                found.append((int(match.group(1)), join(self.url, name)))
        return sorted(found)

    def latest_completed(self) -> dict[str, Any] | None:
        """The metadata of the newest completed checkpoint below the URL, or None."""
        completed = self.completed_checkpoints()
        return load_metadata(completed[-1][1], self.signer) if completed else None

    def load_metadata(self, path_or_url: str) -> dict[str, Any]:
        return load_metadata(path_or_url, self.signer)
