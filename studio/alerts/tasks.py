"""Celery tasks of alerts: webhook deliveries (ids, not objects)."""
from __future__ import annotations

from celery import shared_task

from studio.alerts import webhooks
from studio.alerts.models import DeliveryStatus, WebhookDelivery


@shared_task(bind=True, max_retries=None, acks_late=False)
def deliver_webhook(self, delivery_id: int) -> None:
    delivery = WebhookDelivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING).first()
    if delivery is None:
        return
    delay = webhooks.attempt(delivery)
    if delay is not None:
        raise self.retry(countdown=delay)
