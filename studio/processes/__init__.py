"""The processes the studio starts and keeps beside its web server and Celery worker: warm run
drivers (``driver_pool``), budgeted workers that validate and preview untrusted definitions
(``budget``, ``budgeted_worker``), and ``make up``'s supervisor of them all (``supervisor``).
"""
