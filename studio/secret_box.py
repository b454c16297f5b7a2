"""Values at rest, encrypted with Fernet (``cryptography``): a connection profile's password, a user's
secret. A copy of the database alone does not give them away.

The key is ``STUDIO_SECRETS_KEY`` (from the environment) when it is set, else derived from the studio's
``SECRET_KEY``; each use has a ``purpose`` of its own, so a value sealed for one purpose does not open as
another's. New values are always sealed under that key.

Rotating the key (``manage.py rotate_secrets``, docs/deployment.md): set the new key as
``STUDIO_SECRETS_KEY`` and the key (or keys) it replaces in ``STUDIO_SECRETS_OLD_KEYS`` (comma-separated;
the old ``SECRET_KEY`` if no secrets key was set); values sealed under an old key still open while the
command re-seals every one of them under the new key, and once it reports none left under an old key,
``STUDIO_SECRETS_OLD_KEYS`` is removed.
"""
from __future__ import annotations

import base64
import hashlib

from django.conf import settings

CONNECTIONS = "studio.connections"


def _fernet_of(root: str, purpose: str):
    from cryptography.fernet import Fernet

    key = hashlib.sha256(f"{purpose}:".encode() + root.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(key))


def current_root() -> str:
    return getattr(settings, "SECRETS_KEY", "") or settings.SECRET_KEY


def old_roots() -> list[str]:
    """The keys a value may still be sealed under while a rotation is under way (never the current one)."""
    current = current_root()
    return [root for root in getattr(settings, "SECRETS_OLD_KEYS", ()) if root and root != current]


def _fernet(purpose: str):
    return _fernet_of(current_root(), purpose)


def _readers(purpose: str):
    """The current key's Fernet first, then each old key's: what opens a value (``MultiFernet``)."""
    from cryptography.fernet import MultiFernet

    return MultiFernet([_fernet(purpose)] + [_fernet_of(root, purpose) for root in old_roots()])


def seal(value: str, purpose: str = CONNECTIONS) -> str:
    return _fernet(purpose).encrypt(value.encode()).decode() if value else ""


def unseal(sealed: str, purpose: str = CONNECTIONS) -> str:
    """The value, or "" when there is none or it was sealed under another key (not an old one) or purpose."""
    from cryptography.fernet import InvalidToken

    if not sealed:
        return ""
    try:
        return _readers(purpose).decrypt(sealed.encode()).decode()
    except InvalidToken:
        return ""


class Unreadable(Exception):
    """A sealed value opens under neither the current key nor an old one."""


def resealed(sealed: str, purpose: str = CONNECTIONS) -> str | None:
    """``sealed`` sealed again under the current key, or None when it is under the current key already.
    Raises :class:`Unreadable` when no key opens it."""
    from cryptography.fernet import InvalidToken

    try:
        _fernet(purpose).decrypt(sealed.encode())
        return None
    except InvalidToken:
        pass
    try:
        return _readers(purpose).rotate(sealed.encode()).decode()
    except InvalidToken:
        raise Unreadable("opens under no key: neither STUDIO_SECRETS_KEY nor one of STUDIO_SECRETS_OLD_KEYS") from None


_sealed_fields: list[tuple] = []


def register_sealed_field(model, field: str, purpose: str, describe) -> None:
    """A feature keeps values sealed in ``model.field`` under ``purpose``: ``manage.py rotate_secrets`` re-seals
    them. ``describe(row)`` names a row in its report (never its value). Called from the app's ``ready``."""
    _sealed_fields.append((model, field, purpose, describe))


def sealed_fields() -> list[tuple]:
    """(model, field, purpose, what a row is called) of every value kept sealed."""
    return list(_sealed_fields)
