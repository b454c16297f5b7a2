"""Fencing at the moment of use: a driver completes a checkpoint only while its hold on the run is confirmed.

A run's driver holds it with a fencing token (``Run.driver_token``); a session driver holds its runs
also through the studio's session lease (``studio.runs.session.SessionLease``). Either may be taken
away while the driver cannot tell: its process stalled (GC, SIGSTOP, a loaded machine) and the studio
declared it lost, or another session driver took the lease and the runs. Its heartbeat
(``studio.runs.heartbeats``) or its next event learns so within seconds, but until then its JobMaster
could still complete checkpoints: write their ``_metadata`` and let the sinks commit records the driver
that took over will commit again from the checkpoint it chose.

So the job asks :class:`CompletionGuard` right before it writes a checkpoint's ``_metadata`` and again
before it tells its sinks to commit, and before a checkpoint takes an id (``engine.checkpoint.coordinator``,
"Fencing": the job that took over numbers its checkpoints after every one in the run's checkpoint
directory, which a fenced job then no longer adds to, so it never deletes one of them): yes only while the
driver's token was confirmed (a heartbeat's UPDATE matched it) and, in the session driver, its lease was
renewed, each less than :data:`CONFIRM_WINDOW_S` ago by the monotonic clock, counted from before the
statement was sent. A no fails that checkpoint (its sinks keep their transactions open), or skips that
trigger, and wakes the heartbeat at once: a driver fenced cancels its job; one only slow to confirm goes
on, and completes the next checkpoint once confirmed.

Why that is enough: every take-over chooses its checkpoint only once the old driver's window has run
out, whether or not that driver knows it was fenced:

- the heartbeat check (``studio.runs.liveness``) fences a driver silent for the heartbeat timeout,
  never less than :data:`CONFIRM_WINDOW_S` (``liveness.lost_after_s``), after its last heartbeat, which
  is no sooner than its last confirmation (the clocks of its host and the checking worker's assumed
  to agree to within the difference, 5 s with the defaults);
- a run handed back to the session driver that still drives it (``SessionDriver.start_run``) starts
  its next job only once the fenced one's thread ended: its JobMaster completes nothing afterwards;
- a new holder of the session lease takes runs back once the lease expired (``PRESENCE_TTL_S`` after
  its last renewal, longer than the window) or was given up by a holder whose jobs all ended, or
  taken from a holder of this host whose process is gone; when it vanished early from a live holder (its
  key deleted by hand, or evicted by a Redis short of memory) the new holder waits until the old holder's
  last renewal is :data:`CONFIRM_WINDOW_S` old before it takes any run back
  (``SessionLease.predecessor_may_commit_s``, ``SessionDriver.wait_for_predecessor``).

A checkpoint whose ``_metadata`` was written while the guard still said yes may be committed later
(its sinks' commits are mails): the driver that took over restores from it, since the window ended
after the write, and commits the same transactions again, which two-phase-commit sinks do idempotently.
"""
from __future__ import annotations

from typing import Callable

from studio.runs.heartbeats import HEARTBEAT_INTERVAL_S, Heartbeats

CONFIRM_WINDOW_S = 10.0
"""How recently a driver's hold on a run must have been confirmed for its job to complete a checkpoint:
five heartbeats (a late one only delays a checkpoint), and shorter than every take-over waits."""

assert CONFIRM_WINDOW_S >= 3 * HEARTBEAT_INTERVAL_S, "a slow heartbeat or two must not decline checkpoints"


class CompletionGuard:
    """The ``may_complete_checkpoint`` of one run's job in this driver: called by the job's checkpoint
    coordinator under its lock, so it reads two clocks and never waits (any thread)."""

    def __init__(self, beats: Heartbeats, run_id: int, token: str, lease: Callable[[], bool] | None = None):
        self._beats = beats
        self.run_id = run_id
        self.token = token
        self._lease = lease
        """Whether this driver's session lease was renewed within the window (None: a driver of its own)."""

    def __call__(self) -> bool:
        if self._beats.confirmed_within(self.run_id, self.token, CONFIRM_WINDOW_S) and (
                self._lease is None or self._lease()):
            return True
        self._beats.wake()  # learn now whether the run is still this driver's (if not, its job is cancelled)
        return False
