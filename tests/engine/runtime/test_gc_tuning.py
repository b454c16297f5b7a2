"""The collector's thresholds while subtasks run: raised once for all, put back after the last."""
from __future__ import annotations

import gc

import pytest

from engine.runtime import gc_tuning
from engine.runtime.gc_tuning import YOUNG_THRESHOLD, collector_tuned_for_batches


@pytest.fixture
def thresholds(monkeypatch):
    """Known thresholds, and a count of running subtasks of this test's own: a job an earlier test in this
    process left running (its threads end on their own) holds the process-wide count above zero."""
    monkeypatch.setattr(gc_tuning, "_running", 0)
    monkeypatch.setattr(gc_tuning, "_saved_thresholds", None)
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_the_young_threshold_is_raised_while_any_subtask_runs(thresholds):
    first, second = collector_tuned_for_batches(), collector_tuned_for_batches()
    first.__enter__()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    second.__enter__()
    first.__exit__(None, None, None)
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)  # one subtask still runs
    second.__exit__(None, None, None)
    assert gc.get_threshold() == (700, 10, 10)


def test_a_failing_subtask_puts_the_thresholds_back(thresholds):
    with pytest.raises(RuntimeError):
        with collector_tuned_for_batches():
            raise RuntimeError("operator failed")
    assert gc.get_threshold() == (700, 10, 10)


def test_a_program_s_own_higher_threshold_is_kept(thresholds):
    gc.set_threshold(YOUNG_THRESHOLD * 2, 5, 5)
    with collector_tuned_for_batches():
        assert gc.get_threshold() == (YOUNG_THRESHOLD * 2, 5, 5)
    assert gc.get_threshold() == (YOUNG_THRESHOLD * 2, 5, 5)
