"""Throttling policies: login attempts per client address, previews per user.

Rates come from ``settings.STUDIO_THROTTLE_RATES`` (``{"login": "20/min", "preview": "30/min"}``)
and are read on every request, so tests and deployments can change them.
"""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from rest_framework.throttling import SimpleRateThrottle


class SettingsRateThrottle(SimpleRateThrottle):
    """A throttle whose rate is ``settings.STUDIO_THROTTLE_RATES[scope]``."""

    def get_rate(self):
        if not getattr(self, "scope", None):
            raise ImproperlyConfigured(f"You must set .scope for '{type(self).__name__}' throttle")
        rates = getattr(settings, "STUDIO_THROTTLE_RATES", {})
        return rates.get(self.scope)

    def allow_request(self, request, view):
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)


class LoginThrottle(SettingsRateThrottle):
    """Login attempts per client address: slows password guessing."""

    scope = "login"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class PreviewThrottle(SettingsRateThrottle):
    """Previews per user: each one runs a pipeline in the web process."""

    scope = "preview"

    def get_cache_key(self, request, view):
        ident = request.user.pk if request.user and request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}
