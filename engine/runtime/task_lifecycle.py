"""The life cycle of a subtask's input, one class per state (seed 002: FLIP-147 end of input).

Like the barrier handler's states (``engine.runtime.io.barrier_handler``), each state is a
small class and every event returns the next state; ``StreamTask`` keeps the current one,
and its only assignments of it are these calls::

    state = state.run_default_action(task, controller)      # one input step
    state = state.checkpoint_performed(checkpoint_id, options)
    state = state.checkpoint_completed(task, checkpoint_id)
    state = state.checkpoint_aborted(task, checkpoint_id)
    state = state.stop_requested(task, trigger)             # a coordinator's stop-with-savepoint
    state = state.restored_finished()                       # the restored checkpoint had it finished

A state returns itself when only its bookkeeping changed (which it updates in place: a
mail may run while the default action is in the middle of an input step, and must not be
lost), and a new state on a transition; ``StreamTask`` keeps a transition a mail made during
an input step. Whether a stop is taken is the state's decision: only a running source takes
one; any other state takes the trigger as an ordinary savepoint.

The states::

    Running ──end of data──► EndingData ──► DataEnded ──end of input──► Finished
       │                   (next default        │                       ▲
       │                    action: finish,     └──2PC sink──► AwaitingFinalCheckpoint
       │                    EndOfData)                         (until a checkpoint covering the
       │                                                        last data completed)
       └──stop with savepoint (source)──► [DrainRequested ─►] HoldingForStop
              savepoint completed ──► Finished      savepoint aborted ──► Running (no drain)
                                                                         or failure (drained)

``Finished`` means every input channel ended (or the source is done): the mailbox loop ends.
What a state remembers travels with it: the stop-with-savepoint a subtask took (without
drain it covers all the data, so it is the final checkpoint of a 2PC sink), and the first
checkpoint taken after the end of data. A state that does its work across mails (the
operators' ``finish`` may yield to the mailbox) keeps the state of the data it wraps and
passes the checkpoint events on to it.

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

    def stop_requested(self, task, trigger: tuple) -> "TaskLifecycleState":
        """A coordinator's stop-with-savepoint ``trigger`` (``(checkpoint_id, timestamp_ms, options,
        alignment)``): here taken as an ordinary savepoint, the subtask goes on."""
        task.take_triggered_checkpoint(trigger)
        return self

    def restored_finished(self) -> "TaskLifecycleState":
        """The checkpoint restored says this vertex had finished: it only ends its outputs."""
        return Finished()

    def __repr__(self) -> str:
        return type(self).__name__


def _read_input(task, controller):
    """One input step of a subtask that still reads: the status once its data or its input
    ended, else None."""
    status = task.input.process_input()
    if status is MORE_AVAILABLE:
        task.suspend_if_backpressured(controller)
        return None
    if status is END_OF_DATA_STATUS or status is END_OF_INPUT_STATUS:
        return status
    task.input.when_available(controller.suspend_default_action("idle").resume)
    return None


class Running(TaskLifecycleState):
    """Reading input. Remembers a stop-with-savepoint it took part in (a downstream subtask
    snapshots on the stop's barrier; its EndOfData without drain follows)."""

    def __init__(self, stop_savepoint: int | None = None):
        self.stop_savepoint = stop_savepoint

    def run_default_action(self, task, controller) -> TaskLifecycleState:
        ended = _read_input(task, controller)
        if ended is None:
            return self
        return EndingData(self, drain=task.input.drained, input_ended=ended is END_OF_INPUT_STATUS)

    def checkpoint_performed(self, checkpoint_id: int, options: dict) -> TaskLifecycleState:
        if options.get("stop"):
            self.stop_savepoint = checkpoint_id
        return self

    def checkpoint_aborted(self, task, checkpoint_id: int) -> TaskLifecycleState:
        if checkpoint_id == self.stop_savepoint:
            self.stop_savepoint = None
        return self

    def stop_requested(self, task, trigger: tuple) -> TaskLifecycleState:
        """A source stops: with drain it ends its data first (``DrainRequested``); without, it
        takes the savepoint now and polls no more (``HoldingForStop``). Other subtasks take
        the stop's barrier, not its trigger."""
        if not task.is_source:
            return super().stop_requested(task, trigger)
        checkpoint_id, _, options, _ = trigger
        if options.get("drain"):  # ending the data finishes operators: at the top of the loop
            task.processor.resume_default_action()
            return DrainRequested(self, trigger)
        if not task.checkpoints.is_new(checkpoint_id):
            return self
        task.take_triggered_checkpoint(trigger)
        return HoldingForStop(checkpoint_id, self)


class EndingData(TaskLifecycleState):
    """The data ends at the top of the default action, never inside a mail (nothing may follow
    EndOfData): with drain the operators ``finish`` (the sources emit the maximum watermark
    first), then EndOfData goes downstream. ``finish`` may yield to the mailbox; a checkpoint
    taken meanwhile is an ordinary one, before the end of data (it reaches the running state
    this one wraps), and a stop arriving meanwhile is taken as one. Next: reading on for
    barriers and the channels' ends (``DataEnded``), or, when the input ended too, its end."""

    def __init__(self, running: Running, drain: bool, input_ended: bool = False):
        self.data_state: TaskLifecycleState = running
        self.drain = drain
        self.input_ended = input_ended

    def run_default_action(self, task, controller) -> TaskLifecycleState:
        task.end_data(self.drain)
        self.data_state = DataEnded(self.drain, self.data_state.stop_savepoint)
        return self.after_end_of_data(task, controller)

    def after_end_of_data(self, task, controller) -> TaskLifecycleState:
        if self.input_ended:
            return self.data_state.input_ended(task, controller)
        task.suspend_if_backpressured(controller)
        return self.data_state

    def checkpoint_performed(self, checkpoint_id: int, options: dict) -> TaskLifecycleState:
        self.data_state = self.data_state.checkpoint_performed(checkpoint_id, options)
        return self

    def checkpoint_aborted(self, task, checkpoint_id: int) -> TaskLifecycleState:
        self.data_state = self.data_state.checkpoint_aborted(task, checkpoint_id)
        return self


class DataEnded(TaskLifecycleState):
    """EndOfData went downstream; still reading, for barriers and the channels' ends."""

    data_ended = True

    def __init__(self, drained: bool, stop_savepoint: int | None, first_after: int | None = None):
        self.drained = drained
        self.stop_savepoint = stop_savepoint
        self.first_after = first_after

    def run_default_action(self, task, controller) -> TaskLifecycleState:
        if _read_input(task, controller) is END_OF_INPUT_STATUS:
            return self.input_ended(task, controller)
        return self

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
        """All input consumed: finish now, or (2PC sinks) after a checkpoint covering the last data.

        A trigger that came while the input had not quite ended is taken now; being the first
        checkpoint after the end of data, it becomes the final one (it reaches this state, the
        current one or the one the current state wraps)."""
        if not task.needs_final_checkpoint:
            controller.all_actions_completed()
            return Finished()
        final = self.final_checkpoint()
        if final is not None and task.checkpoints.latest_completed >= final:
            controller.all_actions_completed()
            return Finished()
        controller.suspend_default_action("idle")
        if final is None:
            task.take_pending_trigger()
        return AwaitingFinalCheckpoint(self.final_checkpoint())


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


class DrainRequested(EndingData):
    """A source got a stop with drain: its data ends with drain at the top of the default action
    (as ``EndingData``'s), then it takes the stop's savepoint and polls no more
    (``HoldingForStop``); unless the savepoint was aborted or overtaken meanwhile: then it
    reads on."""

    def __init__(self, running: Running, trigger: tuple):
        super().__init__(running, drain=True)
        self.trigger = trigger

    def run_default_action(self, task, controller) -> TaskLifecycleState:
        if not task.checkpoints.is_new(self.trigger[0]):
            return self.data_state
        return super().run_default_action(task, controller)

    def after_end_of_data(self, task, controller) -> TaskLifecycleState:
        task.take_triggered_checkpoint(self.trigger)  # performed: it reaches the DataEnded this state wraps
        return HoldingForStop(self.trigger[0], self.data_state)


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
            task.end_data(drain=False)
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
