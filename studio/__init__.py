"""The studio: Django project and app serving the REST API, WebSockets and the frontend.

Importing the Celery app here makes ``@shared_task`` use it (Celery's Django layout).
"""
from studio.celery import app as celery_app

__all__ = ["celery_app"]
