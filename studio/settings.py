"""Django settings: embedded defaults for one machine, the environment for a deployment.

Environment: ``DATABASE_URL`` (default SQLite under ``STUDIO_DATA_DIR``), ``REDIS_URL``
(default: an embedded server started on a free port), ``SPARK_MASTER`` (default
``local[N]``), ``STUDIO_DATA_DIR`` (database, checkpoints, logs; default ``./var``),
``DJANGO_SECRET_KEY``, ``DJANGO_DEBUG``, ``DJANGO_ALLOWED_HOSTS``.
"""
import os
from pathlib import Path

import dj_database_url

from studio.embedded_redis import ensure_redis_url

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("STUDIO_DATA_DIR", BASE_DIR / "var")).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-insecure-key-set-DJANGO_SECRET_KEY-in-production")
ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]").split(",")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "channels",
    "studio",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "studio.urls"
ASGI_APPLICATION = "studio.asgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]


def _database() -> dict:
    url = os.environ.get("DATABASE_URL")
    database = dj_database_url.parse(url, conn_max_age=60) if url else {
        "ENGINE": "django.db.backends.sqlite3", "NAME": DATA_DIR / "studio.sqlite3"}
    if database["ENGINE"].endswith("sqlite3"):
        # The web server, the Celery worker and each run's driver write concurrently:
        # WAL lets readers go on during a write, IMMEDIATE avoids lock-upgrade deadlocks.
        database["CONN_MAX_AGE"] = 0
        database["OPTIONS"] = {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    return database


DATABASES = {"default": _database()}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Tests share their database with driver and worker processes, so it must be a file.
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test-studio.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = ensure_redis_url()
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        # redis-py's asyncio client times reads out after 5 s by default, exactly the
        # layer's blocking-pop timeout: a consumer idle that long would die. Read longer.
        "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 30}], "capacity": 1000, "expiry": 30},
    }
}

CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

SPARK_MASTER = os.environ.get("SPARK_MASTER", "")  # empty: local[N] sized to the run's slots
CHECKPOINT_ROOT = os.environ.get("STUDIO_CHECKPOINT_ROOT", str(DATA_DIR / "checkpoints"))
RUN_LOG_DIR = DATA_DIR / "runs"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "EXCEPTION_HANDLER": "studio.api.exceptions.exception_handler",
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Pipeline studio API",
    "DESCRIPTION": "Draw, version, run and watch streaming pipelines; every browser action is a REST call.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
}

FRONTEND_DIST = BASE_DIR / "frontend" / "dist"
STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
STATICFILES_DIRS = [FRONTEND_DIST] if FRONTEND_DIST.exists() else []
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

USE_TZ = True
TIME_ZONE = "UTC"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "INFO"},
    "loggers": {"django.channels.server": {"level": "WARNING"}, "daphne": {"level": "WARNING"}},
}
