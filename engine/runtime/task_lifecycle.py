"""The life cycle of a subtask's input, one class per state (seed 002: FLIP-147 end of input).

Like the barrier handler's states (``engine.runtime.io.barrier_handler``), each state is a
small class and every event returns the next state; ``StreamTask`` keeps the current one
and calls::

    state = state.run_default_action(task, controller)      # one input step
    state = state.checkpoint_performed(checkpoint_id, options)
    state = state.checkpoint_completed(task, checkpoint_id)
    state = state.checkpoint_aborted(task, checkpoint_id)

A state returns itself when only its bookkeeping changed (which it updates in place: a
mail may run while the default action is in the middle of an input step, and must not be
lost), and a new state on a transition; ``StreamTask`` keeps a transition a mail made during
an input step.

The states::

    Running ──end of data──► DataEnded ──end of input──► Finished
       │   (EndingData while           │                 ▲
       │    operators finish)          └──2PC sink──► AwaitingFinalCheckpoint
       │                                               (until a checkpoint covering the
       │                                                last data completed)
       └──stop with savepoint (source)──► [DrainRequested ─►] HoldingForStop
              savepoint completed ──► Finished      savepoint aborted ──► Running (no drain)
                                                                         or failure (drained)

``Finished`` means every input channel ended (or the source is done): the mailbox loop ends.
What a state remembers travels with it: the stop-with-savepoint a subtask took (without
drain it covers all the data, so it is the final checkpoint of a 2PC sink), and the first
checkpoint taken after the end of data.

Threading model: states are used by the subtask's mailbox thread only.
"""
from __future__ import annotations

from engine.runtime.io.stream_input import END_OF_DATA_STATUS, END_OF_INPUT_STATUS, MORE_AVAILABLE


class StopWithSavepointFailed(RuntimeError):
    """The savepoint of a stop with drain failed after the source's input was ended."""


class TaskLifecycleState:
    """What a subtask does next; the base answers every event with "no change"."""

    data_ended = False
    """EndOfData was sent downstream: no record follows."""
    input_finished = False
    """Every input channel ended (or the source is done): the coordinator triggers it directly."""
    accepts_stop = False
    """A source in this state can begin a stop with savepoint."""
    takes_checkpoints = True
    """A checkpoint may be performed in this state (also when the mailbox loop suspended)."""

    def run_default_action(self, task, controller) -> "TaskLifecycleState":
        controller.suspend_default_action("idle")
        return self

    def checkpoint_performed(self, checkpoint_id: int, options: dict) -> "TaskLifecycleState":
        return self

    def checkpoint_completed(self, task, checkpoint_id: int) -> "TaskLifecycleState":
        return self

    def checkpoint_aborted(self, task, checkpoint_id: int) -> "TaskLifecycleState":
        return self

    def __repr__(self) -> str:
        return type(self).__name__


def _read_input(state: TaskLifecycleState, task, controller) -> TaskLifecycleState:
    """One input step of a subtask that still reads (before and after its end of data)."""
    status = task.input.process_input()
    if status is MORE_AVAILABLE:
        task.suspend_if_backpressured(controller)
        return state
    if status is END_OF_DATA_STATUS:
        ended = task.end_of_data(task.input.drained)
        task.suspend_if_backpressured(controller)
        return ended
    if status is END_OF_INPUT_STATUS:
        ended = task.state if task.state.data_ended else task.end_of_data(task.input.drained)
        return ended.input_ended(task, controller)
    task.input.when_available(controller.suspend_default_action("idle").resume)
    return state


class Running(TaskLifecycleState):
    """Reading input. Remembers a stop-with-savepoint it took part in (a downstream subtask
    snapshots on the stop's barrier; its EndOfData without drain follows)."""

    accepts_stop = True

    def __init__(self, stop_savepoint: int | None = None):
        self.stop_savepoint = stop_savepoint

    def run_default_action(self, task, controller) -> TaskLifecycleState:
        return _read_input(self, task, controller)

    def checkpoint_performed(self, checkpoint_id: int, options: dict) -> TaskLifecycleState:
        if options.get("stop"):
            self.stop_savepoint = checkpoint_id
        return self

    def checkpoint_aborted(self, task, checkpoint_id: int) -> TaskLifecycleState:
        if checkpoint_id == self.stop_savepoint:
            self.stop_savepoint = None
        return self


class EndingData(Running):
    """The operators ``finish`` (which may yield to the mailbox: a checkpoint taken now is an
    ordinary one, before the end of data); a stop arriving now is taken as a checkpoint."""

    accepts_stop = False


class DataEnded(TaskLifecycleState):
    """EndOfData went downstream; still reading, for barriers and the channels' ends."""

    data_ended = True

    def __init__(self, drained: bool, stop_savepoint: int | None, first_after: int | None = None):
        self.drained = drained
        self.stop_savepoint = stop_savepoint
        self.first_after = first_after

    def run_default_action(self, task, controller) -> TaskLifecycleState:
        return _read_input(self, task, controller)

    def checkpoint_performed(self, checkpoint_id: int, options: dict) -> TaskLifecycleState:
        if options.get("stop"):
            self.stop_savepoint = checkpoint_id
        if self.first_after is None:
            self.first_after = checkpoint_id
        return self

    def checkpoint_aborted(self, task, checkpoint_id: int) -> TaskLifecycleState:
        if checkpoint_id == self.stop_savepoint:
            self.stop_savepoint = None
        if checkpoint_id == self.first_after:
            self.first_after = None
        return self

    def final_checkpoint(self) -> int | None:
        """The checkpoint whose completion lets a 2PC subtask finish, if it was taken already.

        Normally the first one taken after the end of data. After a stop without drain it
        is the stop's savepoint: it was taken before EndOfData, but nothing was processed
        after its barrier, so it covers all data."""
        if not self.drained and self.stop_savepoint is not None:
            return self.stop_savepoint
        return self.first_after

    def input_ended(self, task, controller) -> TaskLifecycleState:
        """All input consumed: finish now, or (2PC sinks) after a checkpoint covering the last data."""
        if not task.needs_final_checkpoint:
            controller.all_actions_completed()
            return Finished()
        final = self.final_checkpoint()
        if final is not None and task.checkpoints.latest_completed >= final:
            controller.all_actions_completed()
            return Finished()
        controller.suspend_default_action("idle")
        task.state = AwaitingFinalCheckpoint(final)
        if final is None:
            task.take_pending_trigger()
        return task.state


class AwaitingFinalCheckpoint(TaskLifecycleState):
    """Input done; a two-phase-commit sink waits until a checkpoint covering its last data
    completed, taking the coordinator's triggers itself (no barrier reaches it any more)."""

    data_ended = True
    input_finished = True

    def __init__(self, final: int | None):
        self.final = final

    def checkpoint_performed(self, checkpoint_id: int, options: dict) -> TaskLifecycleState:
        if self.final is None:
            self.final = checkpoint_id
        return self

    def checkpoint_completed(self, task, checkpoint_id: int) -> TaskLifecycleState:
        if self.final is not None and checkpoint_id >= self.final:
            task.processor.all_actions_completed()
            return Finished()
        return self

    def checkpoint_aborted(self, task, checkpoint_id: int) -> TaskLifecycleState:
        if checkpoint_id == self.final:
            self.final = None  # the next checkpoint will be the final one
        return self


class Finished(TaskLifecycleState):
    """Every input ended: the mailbox loop ends; nothing changes any more."""

    data_ended = True
    input_finished = True
    takes_checkpoints = False


class DrainRequested(TaskLifecycleState):
    """A source got a stop with drain: ending the data finishes the operators, which happens
    at the top of the default action, never inside a mail (nothing may follow EndOfData)."""

    def __init__(self, running: Running, request: tuple):
        self.running = running
        self.request = request

    def run_default_action(self, task, controller) -> TaskLifecycleState:
        task.state = self.running
        return task.stop_source(*self.request)

    def checkpoint_performed(self, checkpoint_id: int, options: dict) -> TaskLifecycleState:
        self.running.checkpoint_performed(checkpoint_id, options)
        return self


class HoldingForStop(TaskLifecycleState):
    """A source took its stop-with-savepoint and polls no more until that savepoint ends."""

    def __init__(self, savepoint: int, data_state: TaskLifecycleState, completed: bool = False):
        self.savepoint = savepoint
        self.data_state = data_state
        self.completed = completed
        self.data_ended = data_state.data_ended

    def run_default_action(self, task, controller) -> TaskLifecycleState:
        if not self.completed:
            controller.suspend_default_action("idle")
            return self
        if not self.data_ended:
            task.end_of_data(drain=False)
        controller.all_actions_completed()  # the savepoint holds everything: end without waiting
        return Finished()

    def checkpoint_performed(self, checkpoint_id: int, options: dict) -> TaskLifecycleState:
        self.data_state.checkpoint_performed(checkpoint_id, options)
        return self

    def checkpoint_completed(self, task, checkpoint_id: int) -> TaskLifecycleState:
        if checkpoint_id >= self.savepoint:
            self.completed = True
            task.processor.resume_default_action()  # the default action ends the subtask
        return self

    def checkpoint_aborted(self, task, checkpoint_id: int) -> TaskLifecycleState:
        if checkpoint_id != self.savepoint:
            return self
        if self.data_ended:  # drained already: there is no going back to reading input
            raise StopWithSavepointFailed(
                f"stop with drain failed: savepoint {checkpoint_id} was aborted after subtask {task.name} "
                f"had ended its input; the job recovers from its latest checkpoint")
        task.processor.resume_default_action()
        return self.data_state.checkpoint_aborted(task, checkpoint_id)
