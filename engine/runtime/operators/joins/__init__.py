"""Joins: keyed event-time joins of two inputs (``join.interval``, ``join.window``) over
the two-input base of :mod:`engine.runtime.operators.joins.two_input`."""
