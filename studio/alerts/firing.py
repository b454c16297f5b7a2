"""What a firing rule does: a notification for each user it concerns (live over their WebSocket) and a
webhook delivery when the rule has a URL."""
from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from studio.alerts.models import AlertRule, Notification, WebhookDelivery
from studio.fanout import broadcast
from studio.models import Run, now_ms

logger = logging.getLogger(__name__)


def user_notifications_group(user_id: int) -> str:
    return f"notifications-user-{user_id}"


def recipients(rule: AlertRule) -> set[int]:
    """Who is told: the rule's author and the pipeline's owner."""
    return {user for user in (rule.created_by_id, rule.pipeline.owner_id) if user is not None}


class RuleSuspended(Exception):
    """The rule runs as its author, who may no longer run its pipeline: it does nothing; the message says why."""


def fire(rule: AlertRule, run: Run | None, message: str, data: dict[str, Any]) -> list[Notification]:
    """Store the notifications (and the delivery), then send them live and queue the webhook; raise
    :class:`RuleSuspended` when the rule's author may no longer run its pipeline."""
    reason = rule.suspension()
    if reason is not None:
        raise RuleSuspended(reason)
    with transaction.atomic():
        notifications = [Notification.objects.create(user_id=user, rule=rule, run=run, pipeline_id=rule.pipeline_id,
                                                     kind=rule.kind, message=message, data=data)
                         for user in sorted(recipients(rule))]
        delivery = None
        if rule.webhook_url:
            delivery = WebhookDelivery.objects.create(rule=rule, url=rule.webhook_url, payload=payload(
                rule, run, message, data))
    for notification in notifications:
        send_live(notification)
    if delivery is not None:
        queue_delivery(delivery.pk)
    return notifications


def payload(rule: AlertRule, run: Run | None, message: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"rule": {"id": rule.pk, "name": rule.name, "kind": rule.kind}, "pipeline": rule.pipeline_id,
            "run": run.pk if run else None, "message": message, "data": data, "ts": now_ms()}


def serialise(notification: Notification) -> dict[str, Any]:
    return {"id": notification.pk, "rule": notification.rule_id, "run": notification.run_id,
            "pipeline": notification.pipeline_id, "kind": notification.kind, "message": notification.message,
            "data": notification.data, "created_at": notification.created_at.isoformat().replace("+00:00", "Z"),
            "read_at": None}


def unread_count(user_id: int) -> int:
    return Notification.objects.filter(user_id=user_id, read_at=None).count()


def send_live(notification: Notification) -> None:
    broadcast(user_notifications_group(notification.user_id),
              {"type": "notification.created", "notification": serialise(notification),
               "unread": unread_count(notification.user_id)})


def queue_delivery(delivery_id: int) -> None:
    from studio.alerts.tasks import deliver_webhook

    try:
        deliver_webhook.delay(delivery_id)
    except Exception:  # the broker is away: the delivery stays PENDING, listed, and can be retried
        logger.warning("could not queue webhook delivery %s", delivery_id, exc_info=True)
