"""Receiving an upload: the request body streamed into a hidden file beside its target, then renamed.

The body is read in chunks and written as it comes, never held whole; past the limit the
upload stops (413) and the partial file goes. The file is written as ``.upload-<random>``
in the target directory (names starting with ``.`` are not data to a file source, so a
pipeline reading the directory meanwhile never sees half a file), synced, then renamed onto
its name (a link of that name is replaced, never followed). Without ``overwrite`` an
existing name is a conflict.
"""
from __future__ import annotations

import os
import secrets

from studio.uploads.places import Place, PlaceRefused, opened_directory

CHUNK = 1 << 20


class UploadTooLarge(Exception):
    pass


class UploadExists(Exception):
    pass


def receive(stream, place: Place, directory: str, name: str, limit: int, *, overwrite: bool = False) -> int:
    """Write ``stream`` (``.read(n)``) as ``name`` in ``directory`` below ``place``, creating the directories;
    the bytes written. :class:`UploadTooLarge` past ``limit``, :class:`UploadExists` when the name is taken
    and ``overwrite`` is off, :class:`PlaceRefused` for a directory it may not write."""
    if not place.writable:
        raise PlaceRefused(f"location {place.name!r} is granted to you for reading only", status=403)
    with opened_directory(place, directory, create=True) as directory_fd:
        if not overwrite and _exists(name, directory_fd):
            raise UploadExists(f"{name} exists in {directory or 'the location'}; upload with overwrite to replace it")
        temporary = f".upload-{secrets.token_hex(8)}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o640, dir_fd=directory_fd)
        written = 0
        try:
            with os.fdopen(fd, "wb") as out:
                while chunk := stream.read(CHUNK):
                    written += len(chunk)
                    if written > limit:
                        raise UploadTooLarge(f"the upload is over the limit of {limit:,} bytes")
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            if overwrite:
                os.rename(temporary, name, src_dir_fd=directory_fd, dst_dir_fd=directory_fd)
            else:
                try:
                    os.link(temporary, name, src_dir_fd=directory_fd, dst_dir_fd=directory_fd, follow_symlinks=False)
                except FileExistsError:
                    raise UploadExists(f"{name} was created meanwhile in {directory or 'the location'}")
                os.unlink(temporary, dir_fd=directory_fd)
        except BaseException:
            try:
                os.unlink(temporary, dir_fd=directory_fd)
            except FileNotFoundError:
                pass
            raise
        return written


def _exists(name: str, directory_fd: int) -> bool:
    try:
        os.stat(name, dir_fd=directory_fd, follow_symlinks=False)
        return True
    except FileNotFoundError:
        return False
