"""Authentication policies: browser sessions (with CSRF) and named API tokens for scripts."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from studio import access_epoch
from studio.models import ApiToken

LAST_USED_RESOLUTION = timedelta(minutes=1)


def user_for_token(key: str):
    """The active user a token key belongs to, or None; notes when the token was used.

    Found tokens are kept per process for the access epoch they were found in
    (``studio.access_epoch``): a deleted token or a deactivated user moves the epoch, so it
    stops working at the next request in every process."""
    key_hash = ApiToken.hash_key(key)
    epoch = access_epoch.current()  # before the database: a change after this moves it again
    found = _found_tokens.get(key_hash, epoch)
    if found is None:
        token = ApiToken.objects.select_related("user").filter(key_hash=key_hash).first()
        if token is None or not token.user.is_active:
            return None
        found = FoundToken(token.pk, token.user, token.last_used_at)
        _found_tokens.put(key_hash, epoch, found)
    now = timezone.now()
    if found.last_used_at is None or now - found.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=found.token_pk).update(last_used_at=now)  # at most one write a minute
        found.last_used_at = now
    return copy.copy(found.user)  # each request its own instance: views may cache things on it


@dataclass
class FoundToken:
    token_pk: int
    user: object
    last_used_at: datetime | None


_found_tokens = access_epoch.EpochCache()


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
