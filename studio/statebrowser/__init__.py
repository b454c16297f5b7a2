"""The state browser: what a run's completed checkpoint or savepoint holds, per operator, read as data (never restored)."""
