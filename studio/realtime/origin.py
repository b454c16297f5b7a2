"""Who may open the studio's sockets: pages of the studio's own origin, and scripts with an API token.

A browser sends ``Origin`` with every WebSocket handshake, and the user's session cookie
with it whichever site's page opened the socket. So a handshake with an ``Origin`` is
accepted only when that origin is the studio's own: scheme, host and port equal to the
handshake's (its ``Host``, one of ``ALLOWED_HOSTS``; ``ws`` is ``http``, ``wss`` is
``https``), or one of ``CSRF_TRUSTED_ORIGINS`` (a studio behind a proxy that terminates TLS),
the rule Django's CSRF check applies to forms. A page on another port or scheme of the same
host is another origin.

A handshake without ``Origin`` comes from no browser: a script, which authenticates with
an API token as the README tells it to (``Authorization: Token`` or ``?token=``). Its cookies
are not used, so only a token can authenticate it.

Refused handshakes get 403, before any consumer runs.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443}
SCHEME_OF_SOCKET = {"ws": "http", "wss": "https", "http": "http", "https": "https"}


def _origin(scheme: str, netloc: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of ``scheme://netloc``, ports made explicit; None when it is not one."""
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        port = parts.port or DEFAULT_PORTS.get(scheme)
    except ValueError:
        return None
    if not parts.hostname or port is None or parts.path or parts.query or parts.username:
        return None
    return scheme, parts.hostname.lower(), port


def _parsed(origin: str) -> tuple[str, str, int] | None:
    scheme, separator, netloc = origin.strip().partition("://")
    return _origin(scheme.lower(), netloc) if separator else None


def own_origins(scope) -> list[tuple[str, str, int]]:
    """The origins whose pages may open this handshake's socket with the user's cookie."""
    origins = [_parsed(origin) for origin in settings.CSRF_TRUSTED_ORIGINS]
    host = _header(scope, b"host")
    if host is not None and validate_host(split_domain_port(host)[0], settings.ALLOWED_HOSTS):
        origins.append(_origin(SCHEME_OF_SOCKET.get(scope.get("scheme", "ws"), "http"), host))
    return [origin for origin in origins if origin is not None]


def _header(scope, name: bytes) -> str | None:
    values = [value for key, value in scope.get("headers", ()) if key == name]
    return values[0].decode("latin-1") if len(values) == 1 else None


class OriginCheck:
    """ASGI middleware in front of the socket routes: the rule of this module."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        headers = scope.get("headers", ())
        origins = [value for key, value in headers if key == b"origin"]
        if not origins:
            scope = {**scope, "headers": [(key, value) for key, value in headers if key != b"cookie"]}
            return await self.application(scope, receive, send)
        origin = _parsed(origins[0].decode("latin-1")) if len(origins) == 1 else None
        if origin is not None and origin in own_origins(scope):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)
