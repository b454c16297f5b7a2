"""The mailbox: multi-producer single-consumer, priorities, batches, life cycle, the loop."""
from __future__ import annotations

import threading

import pytest

from engine.runtime.mailbox import (CONTROL_PRIORITY, Mail, MailboxClosedError, MailboxExecutor,
                                    MailboxProcessor, MailboxState, TaskMailbox, WrongThreadError)


def mail(out, value, priority=0):
    return Mail(lambda: out.append(value), priority, f"append {value}")


def test_take_returns_mails_in_order_and_put_first_jumps_the_queue():
    mailbox, out = TaskMailbox(), []
    mailbox.put(mail(out, 1))
    mailbox.put(mail(out, 2))
    mailbox.put_first(mail(out, 0))
    while (taken := mailbox.try_take(0)) is not None:
        taken.run()
    assert out == [0, 1, 2]


def test_take_with_a_priority_skips_lower_mails_without_losing_them():
    mailbox, out = TaskMailbox(), []
    mailbox.put(mail(out, "low", 0))
    mailbox.put(mail(out, "high", 5))
    mailbox.take(5).run()
    assert out == ["high"]
    assert mailbox.try_take(5) is None
    mailbox.take(0).run()
    assert out == ["high", "low"]


def test_batch_holds_the_mail_present_when_it_was_created():
    mailbox, out = TaskMailbox(), []
    mailbox.put(Mail(lambda: mailbox.put(mail(out, "again")), 0, "re-enqueue"))
    assert mailbox.create_batch()
    mailbox.try_take_from_batch().run()
    assert mailbox.try_take_from_batch() is None  # the re-enqueued mail waits for the next batch
    assert mailbox.create_batch()
    mailbox.try_take_from_batch().run()
    assert out == ["again"]


def test_life_cycle_open_quiesced_closed():
    mailbox, out = TaskMailbox(), []
    mailbox.put(mail(out, 1))
    mailbox.quiesce()
    assert mailbox.state is MailboxState.QUIESCED
    with pytest.raises(MailboxClosedError, match="state QUIESCED, but is required to be in state OPEN"):
        mailbox.put(mail(out, 2))
    mailbox.take(0).run()
    remaining = mailbox.close()
    assert remaining == [] and out == [1]
    with pytest.raises(MailboxClosedError, match="CLOSED"):
        mailbox.try_take(0)


def test_reader_methods_check_the_mailbox_thread():
    mailbox = TaskMailbox()
    errors = []

    def from_other_thread():
        try:
            mailbox.try_take(0)
        except WrongThreadError as error:
            errors.append(error)
        mailbox.put(Mail(lambda: None))  # writers are fine from any thread

    thread = threading.Thread(target=from_other_thread)
    thread.start()
    thread.join()
    assert errors and "mailbox thread" in str(errors[0])
    assert mailbox.try_take(0) is not None


def test_many_producers_lose_nothing():
    mailbox, out = TaskMailbox(), []
    producers = [threading.Thread(target=lambda p=p: [mailbox.put(mail(out, (p, i))) for i in range(500)])
                 for p in range(4)]
    for producer in producers:
        producer.start()
    for producer in producers:
        producer.join()
    while (taken := mailbox.try_take(0)) is not None:
        taken.run()
    assert len(out) == 2000
    for p in range(4):
        assert [i for q, i in out if q == p] == list(range(500))  # per producer order kept


def test_close_wakes_a_blocked_take():
    mailbox = TaskMailbox()
    errors = []

    def consumer():
        mailbox.bind_to_current_thread()
        try:
            mailbox.take(0)
        except MailboxClosedError as error:
            errors.append(error)

    thread = threading.Thread(target=consumer)
    thread.start()
    while not thread.is_alive():
        pass
    mailbox.close()
    thread.join(5)
    assert errors


def test_before_waiting_runs_only_when_take_would_block():
    mailbox, out, calls = TaskMailbox(), [], []
    mailbox.before_waiting = lambda: calls.append("flush")
    mailbox.put(mail(out, 1))
    mailbox.take(0).run()
    assert calls == []  # mail was there: no wait, no flush

    def put_later():
        mailbox.put(mail(out, 2))

    def flush_then_wake():
        calls.append("flush")
        threading.Thread(target=put_later).start()

    mailbox.before_waiting = flush_then_wake
    mailbox.take(0).run()
    assert calls == ["flush"] and out == [1, 2]


def test_run_mailbox_step_calls_before_waiting_where_the_loop_would_block():
    calls = []
    processor = MailboxProcessor(Counter(10))
    processor.mailbox.before_waiting = lambda: calls.append("flush")
    processor.run_mailbox_step()
    assert calls == []  # the default action ran
    processor.suspend_default_action("idle")
    processor.run_mailbox_step()
    assert calls == ["flush"]


class Counter:
    """A default action that counts steps and can be told to stop or to suspend."""

    def __init__(self, steps):
        self.steps = steps
        self.done = 0
        self.suspension = None

    def __call__(self, controller):
        self.done += 1
        if self.done == self.steps:
            controller.all_actions_completed()


def test_loop_alternates_mails_and_default_action_and_ends_on_all_actions_completed():
    action = Counter(3)
    processor = MailboxProcessor(action)
    out = []
    processor.main_executor().execute(lambda: out.append(action.done))
    processor.run_mailbox_loop()
    assert action.done == 3 and out == [0]


def test_suspended_default_action_blocks_on_mail_until_resumed():
    steps = []

    def default_action(controller):
        steps.append("step")
        if len(steps) == 1:
            suspension = controller.suspend_default_action("idle")
            threading.Thread(target=suspension.resume).start()  # resumed from another thread
        else:
            controller.all_actions_completed()

    processor = MailboxProcessor(default_action)
    processor.run_mailbox_loop()
    assert steps == ["step", "step"]
    assert processor.waiting_ms["idle"] >= 0


def test_run_mailbox_step_drives_the_loop_deterministically():
    action = Counter(10)
    processor = MailboxProcessor(action)
    out = []
    executor = processor.main_executor()
    executor.execute(lambda: out.append("mail"))
    assert processor.run_mailbox_step()
    assert out == ["mail"] and action.done == 1
    suspension = processor.suspend_default_action()
    assert processor.run_mailbox_step() and action.done == 1  # suspended: skipped, not blocked
    suspension.resume()
    processor.run_mailbox_step()
    assert action.done == 2


def test_report_throwable_fails_the_loop_in_the_mailbox_thread():
    processor = MailboxProcessor(lambda controller: processor.suspend_default_action())
    threading.Thread(target=lambda: processor.report_throwable(ValueError("boom"))).start()
    with pytest.raises(ValueError, match="boom"):
        processor.run_mailbox_loop()


def test_stop_from_another_thread_ends_a_blocked_loop():
    processor = MailboxProcessor(lambda controller: controller.suspend_default_action())
    threading.Timer(0.01, processor.stop).start()
    processor.run_mailbox_loop()
    assert not processor.is_running


def test_yield_runs_mail_of_at_least_its_priority():
    mailbox, out = TaskMailbox(), []
    low = MailboxExecutor(mailbox, 0)
    high = MailboxExecutor(mailbox, 3)
    low.execute(lambda: out.append("low"))
    high.execute(lambda: out.append("high"))
    assert high.try_yield() and out == ["high"]
    assert not high.try_yield()
    low.yield_()
    assert out == ["high", "low"]


def test_submit_returns_a_future_with_the_result():
    processor = MailboxProcessor(lambda controller: controller.all_actions_completed())
    future = processor.main_executor().submit(lambda: 42)
    processor.run_mailbox_loop()
    assert future.result(0) == 42


def test_control_mails_are_taken_by_any_yield():
    mailbox, out = TaskMailbox(), []
    mailbox.put(mail(out, "control", CONTROL_PRIORITY))
    MailboxExecutor(mailbox, 100).yield_()
    assert out == ["control"]
