"""Webhooks: POST a firing as JSON to the rule's URL, retried with exponential backoff.

A webhook URL is a location like any other (``studio.location_policy``): an http(s) URL
below an address granted to the user, checked when the rule is saved (``check_webhook_url``)
and again at every delivery attempt against the grants of the rule's author as they are
then, the rule running as its author (``studio.access.why_owner_may_not``). Each hop of a
delivery, redirects included, is checked after its host is resolved, and loopback and
private addresses need the operator's own grant (``studio.outbound_http``). A delivery
the studio refuses fails at once and says why; one whose receiver cannot be reached says
only that, whatever the network answered, and is retried.

Each delivery is a row with every attempt (time, HTTP status or error); the Celery task
``deliver_webhook`` makes one attempt and, when it failed, schedules the next after
``WEBHOOK_BACKOFF_S × 2^(attempts-1)`` seconds, up to ``WEBHOOK_MAX_ATTEMPTS``.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

from studio.alerts.models import AlertRule, DeliveryStatus, WebhookDelivery
from studio.json_out import dumps
from studio.location_policy import LocationRefused, Policy, resolve_url
from studio.locations import granted_locations
from studio.models import now_ms
from studio.outbound_http import HopRefused, Unreachable, post

ALLOWED_SCHEMES = ("http", "https")
TIMEOUT_S = 5.0
ERROR_CHARS = 500
HEADERS = {"Content-Type": "application/json", "User-Agent": "pipeline-studio-webhook/1"}


class WebhookUrlError(ValueError):
    """The URL is not one the studio will POST to; the message says why."""


def check_webhook_url(url: str, user, owner=None) -> str:
    """``url`` when it is an http(s) URL with a host, below an address granted to ``user`` (who sets it)
    and to ``owner`` (the rule's author, whom it runs as, when that is someone else); raise
    :class:`WebhookUrlError` otherwise."""
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
    _check_granted(url, user)
    if owner is not None and owner != user:
        _check_granted(url, owner, f" (the grants of {owner.get_username()}, whom the rule runs as)")
    return url.strip()


def _check_granted(url: str, user, whose: str = "") -> None:
    try:
        resolve_url(url, _policy(user))
    except LocationRefused as refused:
        raise WebhookUrlError(f"{refused}{whose}")


def _policy(user) -> Policy:
    return Policy(tuple(granted_locations(user)))


def attempt(delivery: WebhookDelivery) -> float | None:
    """POST the delivery once, record the attempt; the seconds to wait before the next try, or None (done).

    Sent as the rule's author, with the author's permissions and grants as they are now: a refusal
    (the rule suspended, an address not granted or not public) ends the delivery at once."""
    record = {"at": now_ms()}
    rule = AlertRule.objects.select_related("pipeline", "created_by").get(pk=delivery.rule_id)
    refused = rule.suspension()
    if refused is None:
        policy = _policy(rule.created_by)
        try:
            record["status_code"] = post(delivery.url, dumps(delivery.payload).encode(), HEADERS,
                                         lambda url: resolve_url(url, policy)[1], timeout=TIMEOUT_S,
                                         trusted_networks=settings.STUDIO_TRUSTED_NETWORKS)
        except HopRefused as hop:
            refused = str(hop)
        except Unreachable as unreachable:
            record["error"] = str(unreachable)
    if refused is not None:
        record["error"] = f"not sent: {refused}"[:ERROR_CHARS]
    delivery.attempts = [*delivery.attempts, record]
    succeeded = 200 <= record.get("status_code", 0) < 300
    retries_left = refused is None and len(delivery.attempts) < settings.WEBHOOK_MAX_ATTEMPTS
    if succeeded:
        delivery.status, delivery.delivered_at = DeliveryStatus.DELIVERED, timezone.now()
    elif not retries_left:
        delivery.status = DeliveryStatus.FAILED
    delivery.save(update_fields=["attempts", "status", "delivered_at"])
    if succeeded or not retries_left:
        return None
    return settings.WEBHOOK_BACKOFF_S * 2 ** (len(delivery.attempts) - 1)
