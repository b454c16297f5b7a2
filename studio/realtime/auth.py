"""WebSocket authentication: the browser's session cookie, or an API token for scripts.

A script sends ``Authorization: Token <key>`` with the handshake, or, when its client
cannot set headers, ``?token=<key>`` in the URL. The session middleware has run first;
a valid token replaces an anonymous user (and ``scope["token_hash"]`` remembers which
token it was). ``credential_user`` asks again, later, whether that credential still holds.
Cross-site use of the session cookie is refused earlier, by the Origin check
(``studio.realtime.origin``), which also drops the cookies of a handshake without ``Origin``.
"""
from __future__ import annotations

from importlib import import_module
from urllib.parse import parse_qs

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, load_backend
from django.utils.crypto import constant_time_compare

from studio.api.authentication import user_for_token
from studio.models import ApiToken


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
                scope = {**scope, "user": token_user, "token_hash": ApiToken.hash_key(key)}
        return await super().__call__(scope, receive, send)


def credential_user(scope):
    """The active user the socket's credential (its token, else its session) belongs to now, or None.

    Synchronous (database): the token must still exist; the session must still exist, name a
    user its backend still accepts (active) and match that user's password hash, as
    ``django.contrib.auth.get_user`` checks it for a request.
    """
    if scope.get("token_hash"):
        token = ApiToken.objects.select_related("user").filter(key_hash=scope["token_hash"]).first()
        return token.user if token is not None and token.user.is_active else None
    session = scope.get("session")
    if session is None or not session.session_key:
        return None
    data = import_module(settings.SESSION_ENGINE).SessionStore(session.session_key).load()
    if SESSION_KEY not in data or data.get(BACKEND_SESSION_KEY) not in settings.AUTHENTICATION_BACKENDS:
        return None
    user = load_backend(data[BACKEND_SESSION_KEY]).get_user(data[SESSION_KEY])
    if user is None or not constant_time_compare(data.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash()):
        return None
    return user


def StudioAuthMiddlewareStack(inner):  # noqa: N802 (named like channels' AuthMiddlewareStack)
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))
