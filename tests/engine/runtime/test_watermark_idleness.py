"""Watermark idleness: an input without records stops holding event time back downstream."""
from __future__ import annotations

from engine.runtime.io.watermark_valve import WatermarkValve
from tests.support import a_window_fired, inexact_windows, wait_until, windows_over_half_idle_source


def test_an_idle_channel_is_left_out_of_the_watermark():
    valve = WatermarkValve(2)
    assert valve.input_watermark(0, 100) is None  # channel 1 has no watermark yet: it holds back
    assert not valve.idle
    assert valve.input_status(1, idle=True) == 100  # left out: channel 0 alone decides
    assert not valve.idle  # channel 0 is active
    assert valve.input_watermark(0, 150) == 150


def test_a_channel_back_from_idleness_holds_the_watermark_until_it_caught_up():
    valve = WatermarkValve(2)
    valve.input_status(1, idle=True)
    valve.input_watermark(0, 100)
    assert valve.input_status(1, idle=False) is None  # it never goes back
    assert valve.input_watermark(0, 200) is None  # channel 1 (no watermark yet) holds it now
    assert valve.input_watermark(1, 120) == 120
    assert valve.current == 120


def test_a_watermark_makes_its_channel_active_and_all_idle_channels_make_the_subtask_idle():
    valve = WatermarkValve(2)
    valve.input_status(0, idle=True)
    valve.input_status(1, idle=True)
    assert valve.idle
    assert valve.input_watermark(1, 50) == 50
    assert not valve.idle
    assert valve.channel_finished(1) is None
    assert valve.idle  # the only open channel is idle
    valve.channel_finished(0)
    assert not valve.idle  # no open channel: the input ended, it is not idle


def test_windows_fire_while_one_source_subtask_has_no_records(deployment, tmp_path):
    """Subtask 1's watermark assigner sees no record and goes idle; its status reaches the
    window subtasks (across slots over TCP on Spark), which then fire while the job runs."""
    events = []
    handle = deployment.submit(windows_over_half_idle_source(idle_timeout_ms=50), on_event=events.append,
                               checkpoint_dir=str(tmp_path))
    try:
        wait_until(lambda: a_window_fired(events), 120, "a window to fire while the source runs")
    finally:
        handle.stop_with_savepoint(drain=False).result(60)  # no drain: no window fires at the end
    result = handle.wait(60)
    assert result.status == "FINISHED", result.failure
    fired = result.collected["out"]
    assert fired and not inexact_windows(fired)
