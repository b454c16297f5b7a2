"""The engine's command line (``python -m engine plan|run``): clients of ``engine.api``,
on the top floor like the studio."""
