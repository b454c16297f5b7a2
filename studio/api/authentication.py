"""Authentication policies: browser sessions (with CSRF) and named API tokens for scripts."""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from studio.models import ApiToken

LAST_USED_RESOLUTION = timedelta(minutes=1)


def user_for_token(key: str):
    """The active user a token key belongs to, or None; notes when the token was used."""
    token = ApiToken.objects.select_related("user").filter(key_hash=ApiToken.hash_key(key)).first()
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)  # at most one write a minute
    return token.user


class ApiTokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Token <key>``; its challenge makes anonymous API calls 401s."""

    keyword = "Token"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Invalid token header: use 'Authorization: Token <key>'.")
        try:
            key = header[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed("Invalid token header: the key is not text.")
        user = user_for_token(key)
        if user is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return user, key

    def authenticate_header(self, request):
        return self.keyword


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """Documents ``ApiTokenAuthentication`` in the OpenAPI schema."""

    target_class = ApiTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Token <key>`; create keys with POST /api/auth/tokens"}
