"""Which checkpoint and savepoint locations a request may name.

Restore paths and savepoint target directories come from users; the driver and the web
process open them through fsspec, which would also fetch ``http://`` URLs. Only the
filesystems in ``settings.STUDIO_STORAGE_PROTOCOLS`` are accepted (local paths and
object stores by default), so a request cannot make the studio fetch arbitrary URLs.
"""
from __future__ import annotations

from django.conf import settings


class StorageUrlError(ValueError):
    """A location the studio will not open; the message says why."""


def check_storage_url(url: str) -> str:
    """Return ``url`` stripped, or raise :class:`StorageUrlError`."""
    url = (url or "").strip()
    if not url:
        raise StorageUrlError("the location is empty")
    if "\x00" in url:
        raise StorageUrlError("the location contains a NUL character")
    protocol = url.split("://", 1)[0].lower() if "://" in url else "file"
    allowed = settings.STUDIO_STORAGE_PROTOCOLS
    if protocol not in allowed:
        raise StorageUrlError(f"locations with protocol {protocol!r} are not allowed; "
                              f"allowed: {', '.join(sorted(allowed))}")
    if protocol == "file" and not url.split("://", 1)[-1].startswith("/"):
        raise StorageUrlError("a local location must be an absolute path")
    return url
