"""Savepoints taken on a schedule (an interval or a cron expression), with a retention count."""
