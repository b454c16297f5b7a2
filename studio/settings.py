"""Django settings: embedded defaults for one machine, the environment for a deployment.

Environment: ``DATABASE_URL`` (default SQLite under ``STUDIO_DATA_DIR``), ``REDIS_URL``
(default: an embedded server started on a free port), ``SPARK_MASTER`` (default
``local[N]``), ``STUDIO_DATA_DIR`` (database, checkpoints, logs; default ``./var``),
``DJANGO_SECRET_KEY``, ``DJANGO_DEBUG``, ``DJANGO_ALLOWED_HOSTS``, ``STUDIO_ADMIN_PASSWORD``
(the ``admin`` user's password; generated once into ``var/admin-password`` when unset),
``STUDIO_HEARTBEAT_TIMEOUT`` (seconds without a driver heartbeat before a run is FAILED
"driver lost"; default 15), ``STUDIO_DRIVER_START_TIMEOUT`` (the same for a driver still starting,
before its first heartbeat; default 120), ``STUDIO_MAX_REQUESTS_IN_FLIGHT`` (per web worker, before 503;
default 8), ``STUDIO_MAX_QUEUE_WAIT_MS`` and
``STUDIO_QUEUE_WAIT_INTERVAL_MS`` (an API read that waited longer than the first for the
worker, while the wait has stood above it for the second, gets 503 too; 100 and 200), ``STUDIO_STORAGE_PROTOCOLS`` (filesystems restore paths and
savepoint targets may name; default local paths and object stores, never http),
``STUDIO_SNAPSHOT_SIGNING_KEY`` (hex; the key snapshots are signed with, generated once into
``var/snapshot-signing-key`` when unset), ``STUDIO_VALIDATION_BUDGET_S`` (2), ``STUDIO_PREVIEW_BUDGET_S`` (10) and
``STUDIO_BUDGET_MEMORY_MB`` (1024): the limits of the worker processes that validate, plan
and preview definitions (``studio.processes.budget``), ``STUDIO_SNAPSHOT_BUDGET_S`` (60) and
``STUDIO_SNAPSHOT_MEMORY_MB`` (2048): those of the state browser's reads, ``STUDIO_TEST_BUDGET_S`` (60: a run
of a version's test cases, in the same kind of worker), ``STUDIO_PROOF_TIMEOUT_S`` (900: an exactly-once
proof on Spark), ``STUDIO_WORKSPACE_ROOT`` (each pipeline's
directory for relative paths; default ``var/workspaces``, see ``studio.locations``),
``STUDIO_SESSION_MODE`` (1: ``make up`` keeps a session driver, one Spark application small runs share;
0: every run has a driver of its own) and ``STUDIO_SESSION_SLOTS`` (64: the slots, ``local[N]``'s cores,
of the session's application; with ``SPARK_MASTER`` the most executors it grows to; ``studio.runs.placement``),
``STUDIO_SESSION_SLOT_NICE`` (5: the niceness of the session's slot processes, so that the session driver gets
the CPU before them; 0: as any process), ``STUDIO_RUN_AUTOGROUP_NICE`` (0: the same weight; 10: where Linux groups the CPU
by session, autogroup, the niceness of the session driver's group, its JVM and slots included, against the web
server's, so that a web request gets the CPU at once however many runs run, and the runs wait behind any other
busy work of the machine; ``studio.processes.priority``, docs/capacity.md), ``STUDIO_SLOT_AUTOGROUP_NICE`` (10: the
same for the session's slots alone, in an autogroup of their own; the session driver keeps its weight; 0: off);
on a ``SPARK_MASTER``, ``STUDIO_SESSION_ELASTIC`` (1: the session's executors, one core each, follow the
slots its runs need; 0: it keeps what the master gives it), ``STUDIO_SESSION_MIN_EXECUTORS`` (1: kept even
when idle) and ``STUDIO_SESSION_EXECUTOR_IDLE_S`` (30: an idle executor above the demand is released after
it; docs/capacity.md).
"""
import os
from pathlib import Path

import dj_database_url

from studio.embedded_redis import ensure_redis_url

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("STUDIO_DATA_DIR", BASE_DIR / "var")).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = os.environ.get("DJANGO_DEBUG", "0") == "1"  # debug pages list URL patterns: only when asked for
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-insecure-key-set-DJANGO_SECRET_KEY-in-production")
# The key users' secrets and connection passwords are encrypted with at rest (studio.secret_box); derived from
# SECRET_KEY when unset. To change it, name the keys it replaces in STUDIO_SECRETS_OLD_KEYS (comma-separated; still
# accepted for reading) and run `manage.py rotate_secrets` (docs/deployment.md); without them, what was sealed
# before is unreadable.
SECRETS_KEY = os.environ.get("STUDIO_SECRETS_KEY", "")
SECRETS_OLD_KEYS = [key.strip() for key in os.environ.get("STUDIO_SECRETS_OLD_KEYS", "").split(",") if key.strip()]
ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]").split(",")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served by the studio itself: /api/docs/ works offline
    "channels",
    "studio",
    # features: each an app owning its models, migrations, URLs and sockets (docs/architecture.md)
    "studio.alerts",
    "studio.schedules",
    "studio.taps",
    "studio.statebrowser",
    "studio.testcases",
    "studio.gitstore",
    "studio.shadows",
    "studio.retention",
    "studio.connections",
    "studio.environments",
    "studio.uploads",
    "studio.observability",
]

MIDDLEWARE = [
    "studio.load_shedding.StaleRequestMiddleware",
    "studio.api.body_limit.BodyLimitMiddleware",
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
        "OPTIONS": {"context_processors": [
            "django.template.context_processors.request",
            "django.contrib.auth.context_processors.auth",
            "django.contrib.messages.context_processors.messages",
        ]},
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
    # Tests share their database with driver and worker processes, so it must be a file; one
    # per test session (several engineers and CI may run the suite in one checkout at once).
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / f"test-studio-{os.getpid()}.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = ensure_redis_url()


def channel_layer_host(url: str) -> dict:
    """The channel layer's connection settings for the Redis at ``url``.

    redis-py's asyncio client times reads out after 5 s by default, exactly the layer's
    blocking-pop timeout: a consumer idle that long would die, so it reads longer. A pooled
    connection that a Redis restart closed fails once when next used; without a retry that
    failure is a failed handshake (500), once per stale connection of each web worker's pool.
    A few quick retries (each on a fresh connection) ride over it, and give up in a second
    when Redis is really down.
    """
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff

    return {"address": url, "socket_timeout": 30, "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), 3)}


CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [channel_layer_host(REDIS_URL)], "capacity": 1000, "expiry": 30,
                   "prefix": os.environ.get("STUDIO_CHANNEL_PREFIX", "asgi")},
    }
}
# Open sockets ask again whether their user may still see what they stream this often (seconds): changes
# that no revocation signal announces (raw SQL, QuerySet.update) close them within this time.
SOCKET_ACCESS_RECHECK_S = float(os.environ.get("STUDIO_SOCKET_ACCESS_RECHECK_S", "5"))

CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Studios sharing one Redis (test processes, each with a database of its own) keep their tasks apart.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("STUDIO_CELERY_QUEUE", "celery")

SPARK_MASTER = os.environ.get("SPARK_MASTER", "")  # empty: local[N] sized to the run's slots
# a run's sources send a latency marker this often (ms; 0: off) unless its definition's latency_tracking says;
# cheap enough to leave on (make bench-markers measures it)
LATENCY_MARKER_INTERVAL_MS = int(os.environ.get("STUDIO_LATENCY_MARKER_INTERVAL_MS", "1000"))
# Driver processes each Celery worker keeps started, and the slots their Spark sessions offer (studio.processes.driver_pool).
# None by default on a cluster master: an idle warm driver's application holds the cluster cores it was given, which
# the elastic session and other runs' applications then wait for (the multi-host story: a replacement warm driver took
# the cores a run had just freed); there the session is what starts a run quickly.
_ON_A_CLUSTER_MASTER = bool(SPARK_MASTER) and not SPARK_MASTER.startswith("local")
WARM_DRIVERS = int(os.environ.get("STUDIO_WARM_DRIVERS", "0" if _ON_A_CLUSTER_MASTER else "1"))
WARM_DRIVER_SLOTS = int(os.environ.get("STUDIO_WARM_DRIVER_SLOTS", str(max(4, os.cpu_count() or 1))))
# Session mode (studio.runs.placement, studio.runs.session_driver): one Spark application many runs share
SESSION_MODE = os.environ.get("STUDIO_SESSION_MODE", "1").lower() not in ("0", "false", "no", "off", "")
SESSION_SLOTS = int(os.environ.get("STUDIO_SESSION_SLOTS", "64"))
# how long a run started while the session driver starts (it holds the lease, its Spark session not up yet) waits
# for it to serve before taking a driver of its own: on a cluster master that driver's application would compete
# with the starting session for the cluster's cores (studio.runs.placement). Well inside DRIVER_START_TIMEOUT_S:
# the run is SCHEDULING meanwhile, and a driver of its own must still beat within that time of the launch
SESSION_START_WAIT_S = float(os.environ.get("STUDIO_SESSION_START_WAIT_S", "60"))
# the niceness of the session's slot processes: the session driver comes first when CPU is short (and, where
# autogroup is off, the web server too; where it is on, RUN_AUTOGROUP_NICE below can put the web first)
# 5, not 19: at 19 (CFS weight 15) two of four 100-run benches left runs short of RUNNING after 5 minutes (a slot
# starting waits behind everything else), while REST p99 did not improve; see docs/performance.md, sixth wave
SESSION_SLOT_NICE = int(os.environ.get("STUDIO_SESSION_SLOT_NICE", "5"))
# the niceness of the runs' scheduling group (Linux autogroup: the session driver's session, its JVM and slots
# included) against the web server's and Celery's (studio.processes.priority). 10 puts a web request first (REST
# p99 62-69 ms with 100 runs), but the session driver is in that group too: with other work busy on the machine
# a run started while 50 ran took 1.9-2.9 s instead of 0.4 s, so it is off (0) unless set; docs/capacity.md
RUN_AUTOGROUP_NICE = int(os.environ.get("STUDIO_RUN_AUTOGROUP_NICE", "0"))
# the autogroup niceness of the session's slots alone (engine.cluster.autogroup): their Python daemon starts a
# session of its own at it, so the slots (the data path) wait behind the web server while the session driver
# (JobMasters, heartbeats, new runs' starts) keeps its weight; 0: the slots stay in the driver's group. 10: REST p99
# 23-183 ms with 50-100 runs (58-591 ms at 0), a run started while 50 ran 0.10 s; docs/performance.md, eighth wave
SLOT_AUTOGROUP_NICE = int(os.environ.get("STUDIO_SLOT_AUTOGROUP_NICE", "10"))
# On a SPARK_MASTER (not local[N], whose cores are fixed): executors follow the slots the session's runs need
SESSION_ELASTIC = os.environ.get("STUDIO_SESSION_ELASTIC", "1").lower() not in ("0", "false", "no", "off", "")
SESSION_MIN_EXECUTORS = int(os.environ.get("STUDIO_SESSION_MIN_EXECUTORS", "1"))
SESSION_EXECUTOR_IDLE_S = float(os.environ.get("STUDIO_SESSION_EXECUTOR_IDLE_S", "30"))
CHECKPOINT_ROOT = os.environ.get("STUDIO_CHECKPOINT_ROOT", str(DATA_DIR / "checkpoints"))
RUN_LOG_DIR = DATA_DIR / "runs"
# Each pipeline's relative paths resolve in its own directory here (studio.locations).
STUDIO_WORKSPACE_ROOT = os.environ.get("STUDIO_WORKSPACE_ROOT", str(DATA_DIR / "workspaces"))
# The bare mirrors through which pipelines kept in Git are fetched and pushed (studio.gitstore).
STUDIO_GIT_MIRRORS = os.environ.get("STUDIO_GIT_MIRRORS", str(DATA_DIR / "git-mirrors"))

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Token first: its challenge makes an anonymous request a 401 (with WWW-Authenticate), not a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "studio.api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["studio.api.parsers.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["studio.api.renderers.StudioJSONRenderer"],
    "EXCEPTION_HANDLER": "studio.api.exceptions.exception_handler",
}
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("STUDIO_MAX_BODY_BYTES", str(2 ** 20)))  # larger bodies: 413
# An upload's body is a file (studio.uploads), streamed to disk: its own limit, by path.
UPLOAD_MAX_BYTES = int(os.environ.get("STUDIO_MAX_UPLOAD_BYTES", str(100 * 2 ** 20)))
BODY_LIMITS_BY_PATH = {"/api/uploads": UPLOAD_MAX_BYTES, "/api/uploads/": UPLOAD_MAX_BYTES}
STUDIO_THROTTLE_RATES = {"login": os.environ.get("STUDIO_LOGIN_RATE", "30/min"),
                         "preview": os.environ.get("STUDIO_PREVIEW_RATE", "60/min")}
STUDIO_STORAGE_PROTOCOLS = frozenset(os.environ.get(
    "STUDIO_STORAGE_PROTOCOLS", "file,local,s3,s3a,gs,gcs,hdfs,abfs,abfss,az,memory").split(","))
# Validating, planning and previewing run in worker processes within these budgets (studio.processes.budget).
STUDIO_VALIDATION_BUDGET_S = float(os.environ.get("STUDIO_VALIDATION_BUDGET_S", "2"))
STUDIO_PREVIEW_BUDGET_S = float(os.environ.get("STUDIO_PREVIEW_BUDGET_S", "10"))
STUDIO_TEST_BUDGET_S = float(os.environ.get("STUDIO_TEST_BUDGET_S", "60"))
STUDIO_PROOF_TIMEOUT_S = float(os.environ.get("STUDIO_PROOF_TIMEOUT_S", "900"))
STUDIO_BUDGET_MEMORY_MB = int(os.environ.get("STUDIO_BUDGET_MEMORY_MB", "1024"))
# The state browser's reads (studio.statebrowser): a first read of an operator indexes its state once.
STUDIO_SNAPSHOT_BUDGET_S = float(os.environ.get("STUDIO_SNAPSHOT_BUDGET_S", "60"))
STUDIO_SNAPSHOT_MEMORY_MB = int(os.environ.get("STUDIO_SNAPSHOT_MEMORY_MB", "2048"))
STATE_BROWSER_CACHE = DATA_DIR / "state-browser"
# Shadow runs (studio.shadows): the most a user may ask for, and where their outputs go.
SHADOW_MAX_SECONDS = int(os.environ.get("STUDIO_SHADOW_MAX_SECONDS", "600"))
SHADOW_MAX_OUTPUT_BYTES = int(os.environ.get("STUDIO_SHADOW_MAX_OUTPUT_BYTES", str(256 * 2 ** 20)))
SHADOW_MAX_SLOTS = int(os.environ.get("STUDIO_SHADOW_MAX_SLOTS", "4"))
HEARTBEAT_TIMEOUT_S = float(os.environ.get("STUDIO_HEARTBEAT_TIMEOUT", "15"))
HEARTBEAT_CHECK_INTERVAL_S = float(os.environ.get("STUDIO_HEARTBEAT_CHECK_INTERVAL", "3"))
# A driver process started for a run beats from when Django and the engine have imported: on a busy machine
# that took longer than the heartbeat timeout, so a run SCHEDULING without a first beat gets this long.
DRIVER_START_TIMEOUT_S = float(os.environ.get("STUDIO_DRIVER_START_TIMEOUT", "120"))
# How often each Celery worker looks for due savepoint schedules (studio.schedules.scheduler).
SCHEDULE_CHECK_INTERVAL_S = float(os.environ.get("STUDIO_SCHEDULE_CHECK_INTERVAL", "1"))
# Alert webhooks (studio.alerts.webhooks): attempts per delivery, and the first retry's delay (doubling).
WEBHOOK_MAX_ATTEMPTS = int(os.environ.get("STUDIO_WEBHOOK_MAX_ATTEMPTS", "5"))
WEBHOOK_BACKOFF_S = float(os.environ.get("STUDIO_WEBHOOK_BACKOFF_S", "2"))
# Networks (CIDRs) a granted host name may resolve into although they are not public, for receivers on the
# operator's own network (studio.outbound_http); loopback and private addresses are refused otherwise.
STUDIO_TRUSTED_NETWORKS = [network for network in os.environ.get("STUDIO_TRUSTED_NETWORKS", "").split(",") if network]
LAUNCH_TIMEOUT_S = float(os.environ.get("STUDIO_LAUNCH_TIMEOUT", "600"))
# A run's bounded history (studio.runs.history): checkpoints kept in detail, the rest folded into rollups;
# events kept for a reconnecting page and the audit trail, metrics and progress events folded after that.
HISTORY_DETAILED_CHECKPOINTS = max(1, int(os.environ.get("STUDIO_HISTORY_CHECKPOINTS", "100")))
HISTORY_FAILED_CHECKPOINTS = max(1, int(os.environ.get("STUDIO_HISTORY_FAILED_CHECKPOINTS", "100")))
HISTORY_EVENTS_SECONDS = float(os.environ.get("STUDIO_HISTORY_EVENTS_SECONDS", "120"))
HISTORY_RECENT_EVENTS = max(0, int(os.environ.get("STUDIO_HISTORY_RECENT_EVENTS", "1000")))
HISTORY_MINUTE_ROLLUPS_HOURS = float(os.environ.get("STUDIO_HISTORY_MINUTE_ROLLUPS_HOURS", "48"))
# Retention (studio.retention): how often each Celery worker folds histories and sweeps files, and what it keeps.
RETENTION_INTERVAL_S = float(os.environ.get("STUDIO_RETENTION_INTERVAL", "30"))
RETENTION_ENDED_RUN_CHECKPOINTS_DAYS = float(os.environ.get("STUDIO_RETENTION_CHECKPOINT_DAYS", "7"))
RETENTION_RUN_LOG_DAYS = float(os.environ.get("STUDIO_RETENTION_LOG_DAYS", "14"))
RETENTION_ORPHAN_HOURS = float(os.environ.get("STUDIO_RETENTION_ORPHAN_HOURS", "24"))
# Per web worker process: HTTP requests served at once before further ones get 503 + Retry-After.
MAX_REQUESTS_IN_FLIGHT = int(os.environ.get("STUDIO_MAX_REQUESTS_IN_FLIGHT", "8"))
# ... and an API read that waited longer than this for the worker's Django thread gets 503 too, once the
# wait has stood above it for the interval (studio.load_shedding.StaleRequestMiddleware).
MAX_QUEUE_WAIT_MS = float(os.environ.get("STUDIO_MAX_QUEUE_WAIT_MS", "100"))
QUEUE_WAIT_INTERVAL_MS = float(os.environ.get("STUDIO_QUEUE_WAIT_INTERVAL_MS", "200"))
ADMIN_PASSWORD_FILE = DATA_DIR / "admin-password"
SNAPSHOT_SIGNING_KEY = os.environ.get("STUDIO_SNAPSHOT_SIGNING_KEY", "")
"""Hex key the runs sign their snapshots with (``studio.runs.snapshots``); empty: generated once into the file below."""
SNAPSHOT_SIGNING_KEY_FILE = DATA_DIR / "snapshot-signing-key"
LOGIN_URL = "/login"
CSRF_COOKIE_SAMESITE = "Lax"
CSRF_FAILURE_VIEW = "studio.api.exceptions.csrf_failure"
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_HTTPONLY = True
# Behind TLS in a deployment: STUDIO_SECURE_COOKIES=1, and the site's origin in DJANGO_CSRF_TRUSTED_ORIGINS.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = os.environ.get("STUDIO_SECURE_COOKIES") == "1"
CSRF_TRUSTED_ORIGINS = [origin for origin in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if origin]
SPECTACULAR_SETTINGS = {
    "TITLE": "Pipeline studio API",
    "DESCRIPTION": "Draw, version, run and watch streaming pipelines; every browser action is a REST call.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "RunStatusEnum": "studio.models.RunStatus",
        "RunStatusValueEnum": ["CREATED", "SCHEDULING", "RUNNING", "FINISHING", "FINISHED", "CANCELING", "CANCELED",
                               "FAILING", "FAILED", "RESTARTING"],  # the same statuses, where a field lists values
        "SavepointStatusEnum": "studio.models.SavepointStatus",
        "LocationKindEnum": "studio.models.LocationKind",
        "TeamRoleEnum": "studio.models.TeamRole",
        "TeamShareRoleEnum": ["viewer", "editor", "operator"],
        "CheckpointStatusEnum": ["IN_PROGRESS", "COMPLETED", "FAILED"],
        "SavepointTriggerEnum": "studio.models.SavepointTrigger",
        "AlertKindEnum": "studio.alerts.models.AlertKind",
        "CheckpointKindEnum": ["checkpoint", "savepoint", "sync-savepoint"],
        "DeliveryStatusEnum": "studio.alerts.models.DeliveryStatus",
        "ConnectionKindEnum": "studio.connections.models.ConnectionKind",
        "FileEntryKindEnum": ["directory", "file", "link", "other"],
        "VerdictEnum": "studio.testcases.models.Verdict",
        "RunStartModeEnum": ["streaming", "batch"],  # a run's mode and a definition's (the Definition component)
    },
    "SCHEMA_PATH_PREFIX": r"/api/",
    # the answers every operation may get whatever its view (503 + Retry-After, 413, 404): studio.api.schema
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "studio.api.schema.document_common_answers"],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # no badge from swagger.io's online validator: the docs page asks no other host for anything
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
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
