"""Retention: what a long-running studio keeps, as an app of its own.

Every Celery worker runs a :class:`~studio.retention.loop.RetentionLoop` while it is up
(``settings.RETENTION_INTERVAL_S``; ``python manage.py retain`` does one pass by hand). A pass
folds the histories of the runs that go on or ended since (``studio.runs.history``: rollups
and ``folded`` event markers), deletes the retained checkpoints of runs that ended more than
``settings.RETENTION_ENDED_RUN_CHECKPOINTS_DAYS`` ago (never a savepoint), run logs older than
``settings.RETENTION_RUN_LOG_DAYS``, orphaned workspaces (a preview's temporary directory its
killed worker left, the workspace of a deleted pipeline) older than
``settings.RETENTION_ORPHAN_HOURS``, and measures each run's disk use (``GET
/api/runs/<id>/disk``, shown on the run page).
"""
