"""WebSocket authentication: the browser's session cookie, or an API token for scripts.

A script sends ``Authorization: Token <key>`` with the handshake, or, when its client
cannot set headers, ``?token=<key>`` in the URL. The session middleware has run first;
a valid token replaces an anonymous user. Cross-site use of the session cookie is
refused earlier, by the Origin check (``AllowedHostsOriginValidator``).
"""
from __future__ import annotations

from urllib.parse import parse_qs

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware

from studio.api.authentication import user_for_token


def _token_from(scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            parts = value.decode("latin-1").split()
            if len(parts) == 2 and parts[0].lower() == "token":
                return parts[1]
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
    return values[0] if values else None


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(self, scope, receive, send):
        key = _token_from(scope)
        user = scope.get("user")
        if key and (user is None or not user.is_authenticated):
            token_user = await database_sync_to_async(user_for_token)(key)
            if token_user is not None:
                scope = {**scope, "user": token_user}
        return await super().__call__(scope, receive, send)


def StudioAuthMiddlewareStack(inner):  # noqa: N802 (named like channels' AuthMiddlewareStack)
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))
