"""The mailbox: one thread owns all state of a subtask; everything else sends it mail.

A subtask used to need a *checkpoint lock*: the record-processing thread, the thread that
triggers checkpoints, timer threads and async I/O callbacks all touched operator state.
Here, as in Flink since 1.10 (FLINK-12477), there is exactly one thread per subtask, the
*mailbox thread*. It runs a loop: take the queued mails and run them, then run the
*default action* (process one input batch, or poll a source for one batch). Everything
that other threads want done to the subtask -- trigger a checkpoint, notify that one
completed, fire a timer, hand over an async result, cancel -- is a :class:`Mail` put into
the :class:`TaskMailbox` and run later by the mailbox thread, between two batches.

The pieces
    :class:`TaskMailbox`
        the multi-producer single-consumer queue of mails, with priorities and batches;
    :class:`MailboxProcessor`
        the loop: mails first, then the default action; suspends the default action while
        input or output is unavailable and then blocks on the mailbox instead of spinning;
    :class:`MailboxExecutor`
        the handle other components use to send mail, and ``yield_`` for operators that
        must wait for something (async I/O with a full queue) without leaving the thread.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import Future
from enum import Enum
from typing import Callable

MIN_PRIORITY = 0
"""Mails of this priority or above are taken by the main loop (that is: all of them)."""
DEFAULT_PRIORITY = 0
"""The priority of ordinary mails (checkpoint triggers, notifications, timers)."""
CONTROL_PRIORITY = 2**31
"""The priority of the processor's own control mails (resume, stop); taken by every yield."""


class MailboxClosedError(RuntimeError):
    """A mail was put into a mailbox that no longer accepts mail."""


class WrongThreadError(RuntimeError):
    """A mailbox-thread-only method was called from another thread."""


class MailboxState(Enum):
    """Life cycle of a :class:`TaskMailbox`.

    OPEN: accepts and hands out mail. QUIESCED: hands out the mail it still holds but
    accepts no more (the task is finishing). CLOSED: neither; remaining mail was drained.
    """

    OPEN = "OPEN"
    QUIESCED = "QUIESCED"
    CLOSED = "CLOSED"


class Mail:
    """An action to run in the mailbox thread, with a priority and a description for errors."""

    __slots__ = ("action", "priority", "description")

    def __init__(self, action: Callable[[], object], priority: int = DEFAULT_PRIORITY,
                 description: str = ""):
        self.action = action
        self.priority = priority
        self.description = description

    def run(self) -> None:
        self.action()

    def __repr__(self) -> str:
        return f"Mail({self.description or self.action!r}, priority={self.priority})"


class TaskMailbox:
    """A multi-producer single-consumer queue of mails.

    Threading model
        Write operations (``put``, ``put_first``) may be called from any thread. Read
        operations (``take``, ``try_take``, ``create_batch``, ``try_take_from_batch``) and
        life-cycle changes (``quiesce``, ``close``) must be called from the mailbox thread,
        which is the thread that created the mailbox unless ``bind_to_current_thread`` said
        otherwise; they start with ``self._check_mailbox_thread()``.

    Priorities
        ``take(priority)`` returns the oldest mail whose priority is at least ``priority``.
        The main loop takes everything (``MIN_PRIORITY``); an operator that yields while
        waiting takes only mails of its own priority or above, so it cannot run a mail of
        an upstream operator in the chain that would re-enter it.

    Batches
        ``create_batch`` moves every queued mail into a batch owned by the mailbox thread,
        and ``try_take_from_batch`` then hands them out without touching the lock. Besides
        saving lock round trips this bounds one round of mail processing: a mail that
        enqueues itself again lands in the next batch, so it cannot starve the default
        action.

    Life cycle
        OPEN -> QUIESCED (``quiesce``) -> CLOSED (``close``). ``put`` requires OPEN;
        taking requires OPEN or QUIESCED.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._not_empty = threading.Condition(self._lock)
        self._queue: deque[Mail] = deque()  # guarded by: self._lock
        self._state = MailboxState.OPEN  # guarded by: self._lock (written); read lock-free
        self._batch: deque[Mail] = deque()  # mailbox thread only
        self.has_new_mail = False
        """Lock-free mirror of ``bool(self._queue)``, read by the hot loop on every step."""
        self._mailbox_thread = threading.current_thread()
        self.before_waiting: Callable[[], None] | None = None
        """Called in the mailbox thread whenever ``take`` is about to block: the thread has
        nothing else to do, the moment to send what its output buffers hold."""

    # -- thread contract -------------------------------------------------------------
    def bind_to_current_thread(self) -> None:
        """Declare the calling thread the mailbox thread (the task thread calls this first)."""
        self._mailbox_thread = threading.current_thread()

    def is_mailbox_thread(self) -> bool:
        return threading.current_thread() is self._mailbox_thread

    def _check_mailbox_thread(self) -> None:
        if threading.current_thread() is not self._mailbox_thread:
            raise WrongThreadError(
                f"must be called from the mailbox thread {self._mailbox_thread.name}, "
                f"not from {threading.current_thread().name}")

    @property
    def state(self) -> MailboxState:
        return self._state

    def _check_put_allowed(self) -> None:
        if self._state is not MailboxState.OPEN:
            raise MailboxClosedError(
                f"Mailbox is in state {self._state.value}, but is required to be in state "
                f"OPEN for put operations")

    def _check_take_allowed(self) -> None:
        if self._state is MailboxState.CLOSED:
            raise MailboxClosedError(
                "Mailbox is in state CLOSED, but is required to be in state OPEN or QUIESCED "
                "for take operations")

    # -- writers (any thread) ------------------------------------------------------------
    def put(self, mail: Mail) -> None:
        """Enqueue ``mail`` behind all others. Any thread."""
        with self._lock:
            self._check_put_allowed()
            self._queue.append(mail)
            self.has_new_mail = True
            self._not_empty.notify()

    def put_first(self, mail: Mail) -> None:
        """Enqueue ``mail`` in front of all others (cancellation, control). Any thread."""
        with self._lock:
            self._check_put_allowed()
            self._queue.appendleft(mail)
            self.has_new_mail = True
            self._not_empty.notify()

    # -- readers (mailbox thread) -----------------------------------------------------------
    def has_mail(self) -> bool:
        """Whether any mail is queued or batched. Mailbox thread only."""
        self._check_mailbox_thread()
        return bool(self._batch) or self.has_new_mail

    def try_take(self, priority: int) -> Mail | None:
        """Return the oldest mail of at least ``priority``, or None. Mailbox thread only."""
        self._check_mailbox_thread()
        mail = self._take_from_batch(priority)
        if mail is not None:
            return mail
        with self._lock:
            self._check_take_allowed()
            return self._take_locked(priority)

    def take(self, priority: int) -> Mail:
        """Return the oldest mail of at least ``priority``, blocking until there is one.

        Mailbox thread only. Raises :class:`MailboxClosedError` when the mailbox is closed
        while waiting.
        """
        self._check_mailbox_thread()
        mail = self._take_from_batch(priority)
        if mail is not None:
            return mail
        if self.before_waiting is not None:
            with self._lock:
                self._check_take_allowed()
                mail = self._take_locked(priority)
            if mail is not None:
                return mail
            self.before_waiting()  # outside the lock: it may wake other threads
        with self._lock:
            while True:
                self._check_take_allowed()
                mail = self._take_locked(priority)
                if mail is not None:
                    return mail
                self._not_empty.wait()

    def create_batch(self) -> bool:
        """Move all queued mail into the batch; return whether the batch has mail.

        Mailbox thread only. Without new mail this is one attribute read, no lock.
        """
        self._check_mailbox_thread()
        if not self.has_new_mail:
            return bool(self._batch)
        with self._lock:
            self._batch.extend(self._queue)
            self._queue.clear()
            self.has_new_mail = False
        return bool(self._batch)

    def try_take_from_batch(self) -> Mail | None:
        """Return the next mail of the batch, or None when it is used up. Mailbox thread only."""
        self._check_mailbox_thread()
        return self._batch.popleft() if self._batch else None

    def _take_from_batch(self, priority: int) -> Mail | None:
        for index, mail in enumerate(self._batch):
            if mail.priority >= priority:
                del self._batch[index]
                return mail
        return None

    def _take_locked(self, priority: int) -> Mail | None:
        for index, mail in enumerate(self._queue):
            if mail.priority >= priority:
                del self._queue[index]
                self.has_new_mail = bool(self._queue)
                return mail
        return None

    # -- life cycle (mailbox thread) --------------------------------------------------------
    def quiesce(self) -> None:
        """Stop accepting mail; the mail already queued can still be taken."""
        self._check_mailbox_thread()
        with self._lock:
            if self._state is MailboxState.OPEN:
                self._state = MailboxState.QUIESCED

    def close(self) -> list[Mail]:
        """Close the mailbox for good and return the mail nobody will run.

        Any thread may close (a task that never started closes from its owner's thread);
        a mailbox thread blocked in ``take`` wakes up with :class:`MailboxClosedError`.
        """
        with self._lock:
            self._state = MailboxState.CLOSED
            remaining = list(self._batch) + list(self._queue)
            self._batch.clear()
            self._queue.clear()
            self.has_new_mail = False
            self._not_empty.notify_all()
        return remaining


class MailboxExecutor:
    """Sends mail to one mailbox at one priority; lets the mailbox thread yield.

    ``execute`` and ``submit`` may be called from any thread. ``yield_`` and ``try_yield``
    run one mail in the calling thread and so must be called from the mailbox thread: they
    are how an operator waits (for example for a free slot in its async queue) without
    blocking the subtask: while it waits, checkpoints, timers and completions still run.
    """

    def __init__(self, mailbox: TaskMailbox, priority: int = DEFAULT_PRIORITY):
        self._mailbox = mailbox
        self.priority = priority

    def execute(self, action: Callable[[], object], description: str = "") -> None:
        """Run ``action`` in the mailbox thread, after the mail already queued. Any thread."""
        self._mailbox.put(Mail(action, self.priority, description))

    def submit(self, action: Callable[[], object], description: str = "") -> Future:
        """Like ``execute`` but return a Future of the action's result. Any thread."""
        future: Future = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(action())
            except BaseException as error:
                future.set_exception(error)
                raise

        self.execute(run, description)
        return future

    def yield_(self) -> None:
        """Run one mail of at least this executor's priority, blocking until there is one."""
        self._mailbox.take(self.priority).run()

    def try_yield(self) -> bool:
        """Run one mail of at least this executor's priority if there is one; say whether."""
        mail = self._mailbox.try_take(self.priority)
        if mail is None:
            return False
        mail.run()
        return True


class Suspension:
    """A suspended default action; ``resume`` may be called from any thread, once or more."""

    __slots__ = ("_processor", "reason", "_resumed")

    def __init__(self, processor: "MailboxProcessor", reason: str):
        self._processor = processor
        self.reason = reason
        self._resumed = False

    def resume(self) -> None:
        if self._resumed:
            return
        self._resumed = True
        self._processor._resume(self)


class DefaultActionController:
    """What the default action may ask of its processor while it runs (mailbox thread)."""

    __slots__ = ("_processor",)

    def __init__(self, processor: "MailboxProcessor"):
        self._processor = processor

    def suspend_default_action(self, reason: str = "idle") -> Suspension:
        """Stop calling the default action until the returned suspension is resumed.

        ``reason`` is "idle" (no input) or "backpressured" (no room for output); the time
        spent waiting is accounted to it in the task's metrics.
        """
        return self._processor.suspend_default_action(reason)

    def all_actions_completed(self) -> None:
        """The default action has nothing left to do: end the loop after the current mails."""
        self._processor.all_actions_completed()


class MailboxProcessor:
    """Runs the mailbox loop: all queued mail, then one step of the default action.

    Life cycle
        The processor runs while its mailbox is OPEN. ``all_actions_completed`` ends the
        loop (the task then quiesces the mailbox, drains it and closes it).
        ``report_throwable`` and ``stop`` end it from any thread by sending a control mail,
        so a thread blocked in ``take`` wakes up. An exception raised by a mail or by the
        default action leaves ``run_mailbox_loop`` and fails the task.

    Threading model
        ``run_mailbox_loop``, ``run_mailbox_step`` and ``suspend_default_action`` are for
        the mailbox thread; ``all_actions_completed``, ``stop``, ``report_throwable`` and
        ``Suspension.resume`` may be called from any thread.

    Time accounting
        Time blocked on the mailbox while the default action is suspended counts as idle
        or backpressured (the suspension's reason); the rest of the loop is busy time.
    """

    def __init__(self, default_action: Callable[[DefaultActionController], None],
                 mailbox: TaskMailbox | None = None):
        self.mailbox = mailbox if mailbox is not None else TaskMailbox()
        self._default_action = default_action
        self._controller = DefaultActionController(self)
        self._suspension: Suspension | None = None  # mailbox thread only
        self._running = True  # written by control mails in the mailbox thread
        self.waiting_ms = {"idle": 0.0, "backpressured": 0.0}
        """Milliseconds spent blocked per suspension reason (read by metrics, any thread)."""

    def main_executor(self, priority: int = DEFAULT_PRIORITY) -> MailboxExecutor:
        return MailboxExecutor(self.mailbox, priority)

    @property
    def is_default_action_available(self) -> bool:
        return self._suspension is None

    @property
    def is_running(self) -> bool:
        return self._running

    def run_mailbox_loop(self) -> None:
        """Run until all actions completed or an error. Mailbox thread only."""
        self.mailbox._check_mailbox_thread()
        default_action = self._default_action
        controller = self._controller
        while self._process_mail():
            default_action(controller)

    def run_mailbox_step(self) -> bool:
        """Run the queued mail and one default action step; return whether still running.

        For tests: drive a task deterministically instead of sleeping. Never blocks: if the
        default action is suspended it is skipped.
        """
        self.mailbox._check_mailbox_thread()
        if self.mailbox.create_batch():
            while self._running:
                mail = self.mailbox.try_take_from_batch()
                if mail is None:
                    break
                mail.run()
        if self._running and self._suspension is None:
            self._default_action(self._controller)
        elif self._running and self.mailbox.before_waiting is not None:
            self.mailbox.before_waiting()  # where the loop would block
        return self._running

    def _process_mail(self) -> bool:
        mailbox = self.mailbox
        if mailbox.create_batch():
            while self._running:
                mail = mailbox.try_take_from_batch()
                if mail is None:
                    break
                mail.run()
        while self._suspension is not None and self._running:
            self._block_for_mail()
        return self._running

    def _block_for_mail(self) -> None:
        reason = self._suspension.reason if self._suspension is not None else "idle"
        started = time.perf_counter()
        mail = self.mailbox.take(MIN_PRIORITY)
        self.waiting_ms[reason] = self.waiting_ms.get(reason, 0.0) + (time.perf_counter() - started) * 1000
        mail.run()

    # -- suspension ----------------------------------------------------------------------
    def suspend_default_action(self, reason: str = "idle") -> Suspension:
        """Suspend the default action; the loop blocks on mail until it is resumed."""
        if self._suspension is None:
            self._suspension = Suspension(self, reason)
        return self._suspension

    def resume_default_action(self) -> None:
        """Resume the default action if it is suspended, whatever the reason. Mailbox thread.

        For a mail that changed what the default action should do next (a stop request):
        it runs again soon instead of when its input or output would have woken it.
        """
        suspension = self._suspension
        if suspension is not None:
            suspension.resume()

    def _resume(self, suspension: Suspension) -> None:
        if self.mailbox.is_mailbox_thread():
            self._resume_in_mailbox_thread(suspension)
            return
        try:
            self.mailbox.put(Mail(lambda: self._resume_in_mailbox_thread(suspension),
                                  CONTROL_PRIORITY, "resume default action"))
        except MailboxClosedError:
            pass

    def _resume_in_mailbox_thread(self, suspension: Suspension) -> None:
        if self._suspension is suspension:
            self._suspension = None

    # -- ending the loop -----------------------------------------------------------------
    def all_actions_completed(self) -> None:
        """End the loop once the mail in hand ran. Any thread."""
        if self.mailbox.is_mailbox_thread():
            self._running = False
            return
        self._send_control_mail(self._stop_in_mailbox_thread, "all actions completed")

    def stop(self) -> None:
        """End the loop as soon as possible (cancellation). Any thread."""
        self._send_control_mail(self._stop_in_mailbox_thread, "stop", first=True)

    def report_throwable(self, error: BaseException) -> None:
        """Fail the task with ``error`` raised in the mailbox thread. Any thread."""
        def rethrow() -> None:
            raise error

        self._send_control_mail(rethrow, f"report {type(error).__name__}", first=True)

    def _stop_in_mailbox_thread(self) -> None:
        self._running = False

    def _send_control_mail(self, action: Callable[[], None], description: str,
                           first: bool = False) -> None:
        mail = Mail(action, CONTROL_PRIORITY, description)
        try:
            if first:
                self.mailbox.put_first(mail)
            else:
                self.mailbox.put(mail)
        except MailboxClosedError:
            pass
