"""Where a user may browse and upload: the local directories of their path grants, opened safely.

Every directory is reached from its location's root one name at a time, each opened with
``O_NOFOLLOW`` relative to the one before (``openat``), so no link and no ``..`` leads out of
a location, whatever was put inside it and whenever; files are opened the same way. What
the browser lists about a link is that it is one, never what it leads to.
"""
from __future__ import annotations

import os
import re
import stat
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from studio.location_policy import PATH
from studio.locations import granted_locations

MAX_ENTRIES = 2000
NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9._ =+@-]")
DIRECTORY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ =+@-]{0,199}$")


class PlaceRefused(Exception):
    """A location, directory or file the user may not reach (``status`` 403, 404 or 400); the message says why."""

    def __init__(self, message: str, status: int = 400, field: str = ""):
        super().__init__(message)
        self.status = status
        self.field = field


@dataclass(frozen=True)
class Place:
    """A local directory granted to a user: ``root`` as configured ({user} filled in), ``writable`` for them."""

    name: str
    root: str
    writable: bool
    description: str = ""

    @property
    def real_root(self) -> str:
        return os.path.realpath(self.root)


def places_of(user) -> list[Place]:
    """The local directories granted to ``user`` (locations of other filesystems are not browsed here)."""
    from studio.models import StorageLocation

    descriptions = dict(StorageLocation.objects.values_list("name", "description"))
    return sorted((Place(location.name, location.prefix, location.write, descriptions.get(location.name, ""))
                   for location in granted_locations(user) if location.kind == PATH and "://" not in location.prefix
                   and location.prefix.startswith("/")), key=lambda place: place.name)


def place_of(user, name: str) -> Place:
    for place in places_of(user):
        if place.name == name:
            return place
    raise PlaceRefused(f"no location {name!r} is granted to you", status=404)


def parts_of(relative: str) -> list[str]:
    """The names of a path relative to a location's root; ``..``, ``.``, NUL, backslashes and empty names refused."""
    text = (relative or "").strip().strip("/")
    if not text:
        return []
    if "\x00" in text or "\\" in text:
        raise PlaceRefused("a path may not contain NUL or backslashes")
    parts = text.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise PlaceRefused(f"{relative!r}: '.', '..' and empty names are not allowed in a path")
    return parts


@contextmanager
def opened_directory(place: Place, relative: str, *, create: bool = False) -> Iterator[int]:
    """A descriptor of directory ``relative`` below ``place``'s root, every name opened without following a
    link; ``create`` makes the missing ones (and the root), with names a directory may have."""
    parts = parts_of(relative)
    if create:
        os.makedirs(place.real_root, exist_ok=True)
        for part in parts:
            if not DIRECTORY_NAME.fullmatch(part):
                raise PlaceRefused(f"{part!r}: a new directory's name is letters, digits, spaces and ._=+@- "
                                   "starting with a letter or digit")
    try:
        fd = os.open(place.real_root, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        raise PlaceRefused(f"location {place.name!r} has no directory yet: upload a file to create it", status=404)
    try:
        for index, part in enumerate(parts):
            if create:
                try:
                    os.mkdir(part, 0o750, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                raise PlaceRefused(f"{'/'.join(parts[:index + 1])} is not in location {place.name!r}", status=404)
            except (NotADirectoryError, OSError) as error:
                raise PlaceRefused(f"{'/'.join(parts[:index + 1])} is a link or not a directory ({error.strerror}); "
                                   "the browser goes only into directories")
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def entries(place: Place, relative: str) -> tuple[list[dict], bool]:
    """The entries of a directory (directories first, then by name) and whether there were more than
    ``MAX_ENTRIES``: name, kind (``directory`` | ``file`` | ``link`` | ``other``), size and modification
    time (files), whether a file source would read it (``data``: names starting with . or _ are not)."""
    found = []
    with opened_directory(place, relative) as fd:
        with os.scandir(fd) as scan:
            for entry in scan:
                found.append(_describe(entry))
                if len(found) > MAX_ENTRIES:
                    break
    found.sort(key=lambda item: (item["kind"] != "directory", item["name"].lower()))
    return found[:MAX_ENTRIES], len(found) > MAX_ENTRIES


def _describe(entry: os.DirEntry) -> dict:
    info = entry.stat(follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        kind = "link"
    elif stat.S_ISDIR(info.st_mode):
        kind = "directory"
    elif stat.S_ISREG(info.st_mode):
        kind = "file"
    else:
        kind = "other"
    return {"name": entry.name, "kind": kind, "size": info.st_size if kind == "file" else None,
            "modified": int(info.st_mtime * 1000), "data": not entry.name.startswith((".", "_"))}


def absolute_path(place: Place, relative: str) -> str:
    """The path a node names for ``relative`` below ``place`` (the root's real path: what grants compare)."""
    parts = parts_of(relative)
    return os.path.join(place.real_root, *parts) if parts else place.real_root


def sanitised_name(name: str) -> str:
    """A file name a file source reads and every filesystem takes: the last part of what the browser sent,
    other characters as ``_``, no leading ``.``, ``_`` or space (a file source skips such names)."""
    base = unicodedata.normalize("NFKC", (name or "").replace("\\", "/").rsplit("/", 1)[-1])
    cleaned = NAME_CHARACTERS.sub("_", base).strip().lstrip("._ -").strip()
    cleaned = cleaned[:200].rstrip(". ")
    if not cleaned:
        raise PlaceRefused(f"{name!r} leaves no usable file name; name the file with letters or digits", field="name")
    return cleaned
