"""Webhooks: POST a firing as JSON to the rule's URL, retried with exponential backoff.

A webhook URL is untrusted input: only ``http`` and ``https`` URLs with a host are
accepted (``check_webhook_url``), so a rule cannot make the studio read files or speak
other protocols. Each delivery is a row with every attempt (time, HTTP status or error);
the Celery task ``deliver_webhook`` makes one attempt and, when it failed, schedules the
next after ``WEBHOOK_BACKOFF_S × 2^(attempts-1)`` seconds, up to ``WEBHOOK_MAX_ATTEMPTS``.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

from studio.alerts.models import DeliveryStatus, WebhookDelivery
from studio.models import now_ms

ALLOWED_SCHEMES = ("http", "https")
TIMEOUT_S = 5.0
ERROR_CHARS = 500


class WebhookUrlError(ValueError):
    """The URL is not one the studio will POST to; the message says why."""


def check_webhook_url(url: str) -> str:
    """Return ``url`` when it is an http(s) URL with a host; raise :class:`WebhookUrlError` otherwise."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 (raises ValueError for a port out of range)
    except ValueError as error:
        raise WebhookUrlError(f"{url!r} is not a URL: {error}")
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        raise WebhookUrlError(f"only http and https webhooks are allowed, not {parts.scheme or 'a URL without a scheme'!r}")
    if not parts.hostname:
        raise WebhookUrlError(f"{url!r} names no host")
    if parts.username or parts.password:
        raise WebhookUrlError("credentials in the URL are not allowed; put a token in its path or query")
    return url.strip()


def attempt(delivery: WebhookDelivery) -> float | None:
    """POST the delivery once, record the attempt; the seconds to wait before the next try, or None (done)."""
    record = {"at": now_ms()}
    try:
        request = urllib.request.Request(check_webhook_url(delivery.url), method="POST",
                                         data=json.dumps(delivery.payload).encode(),
                                         headers={"Content-Type": "application/json",
                                                  "User-Agent": "pipeline-studio-webhook/1"})
        with _opener().open(request, timeout=TIMEOUT_S) as response:
            record["status_code"] = response.status
    except urllib.error.HTTPError as error:
        record["status_code"] = error.code
    except (OSError, WebhookUrlError) as error:
        record["error"] = (str(error) or type(error).__name__)[:ERROR_CHARS]
    delivery.attempts = [*delivery.attempts, record]
    succeeded = 200 <= record.get("status_code", 0) < 300
    retries_left = len(delivery.attempts) < settings.WEBHOOK_MAX_ATTEMPTS
    if succeeded:
        delivery.status, delivery.delivered_at = DeliveryStatus.DELIVERED, timezone.now()
    elif not retries_left:
        delivery.status = DeliveryStatus.FAILED
    delivery.save(update_fields=["attempts", "status", "delivered_at"])
    if succeeded or not retries_left:
        return None
    return settings.WEBHOOK_BACKOFF_S * 2 ** (len(delivery.attempts) - 1)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect could lead to any scheme or host: a webhook answers, it does not send us elsewhere."""

    def redirect_request(self, *args, **kwargs):
        return None


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(_NoRedirects, urllib.request.ProxyHandler({}))
