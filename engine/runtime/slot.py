"""A slot: the subtasks one worker runs, one mailbox thread each (slot sharing).

Slot i usually hosts subtask i of every job vertex (the in-process cluster and the Spark
barrier stage both assign that way), so one slot holds a whole pipeline slice: source,
transforms and sink subtasks, each on its own thread, connected by local channels where
both ends are in the slot and by the network environment's remote channels otherwise.

The slot is the JobMaster's ``TaskExecutorGateway`` for its subtasks: every call only
enqueues mails, so it never blocks the caller (the coordinator's timer thread, or the
control connection's reader thread on Spark).

- ``trigger_checkpoint`` goes to the subtasks the options name in ``trigger_tasks`` (the
  coordinator's sources of the moment), or to every subtask when it names none; sources
  take it, and so do subtasks whose inputs all ended (they will see no more barriers);
  the others keep it for their end of input and meanwhile wait for the barriers.
- ``notify_checkpoint_complete`` / ``notify_checkpoint_aborted`` go to every subtask.
- ``cancel`` stops every subtask.
- ``open_tap`` / ``close_tap`` go to the subtasks whose chain holds the tapped operator;
  their samples leave through the slot's one ``TapSender`` (``engine.runtime.tap``).

Construction wires every channel (``network.output_channel`` / ``input_channel``) before
any subtask runs; ``start`` then starts the threads. One small thread pool per slot runs
the asynchronous parts of checkpoints.
"""
from __future__ import annotations

import contextlib
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from engine.runtime.gateway import JobMasterGateway, TaskExecutorGateway, TaskId, as_task_id
from engine.runtime.stream_task import StreamTask
from engine.runtime.tap import TapLimits, TapSender
from engine.runtime.thread_names import name_os_thread


class Slot(TaskExecutorGateway):
    """Runs one subtask of each job vertex assigned to it, each on its own mailbox thread.

    ``config``: ``{"checkpoint_storage": url, "checkpointing": {definition section},
    "mode": "streaming" | "batch", "batch_size": records per source poll and per output
    buffer (default 1024), "buffer_timeout_ms": age at which a partly filled output buffer
    is sent anyway (default 100), ...}``. ``restore``: the metadata of the completed
    checkpoint to restore from (as ``CheckpointStorage.load_metadata`` returns it), or
    None. ``kill_hook``: test hook (see ``engine.runtime.kill_hooks``). ``cpu``: the CPU each
    task thread keeps to (``engine.cluster.cpu_pinning``; None: where it starts, which for a
    Spark slot is its pinned process's CPU).
    """

    def __init__(self, job_graph, tasks: list[TaskId], gateway: JobMasterGateway, network, config: dict,
                 restore: dict | None = None, *, kill_hook=None, cpu: int | None = None):
        self.job_graph = job_graph
        self.cpu = cpu
        self.gateway = gateway
        self.network = network
        self.config = dict(config)
        self._snapshot_executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="snapshot",
                                                     initializer=name_os_thread)
        self._tap_sender = TapSender(gateway)
        self.tasks: dict[TaskId, StreamTask] = {}
        for vertex_id, index in tasks:
            task_id = (vertex_id, int(index))
            self.tasks[task_id] = StreamTask(
                job_graph=job_graph, vertex=job_graph.vertex(vertex_id), index=int(index), network=network,
                gateway=gateway, config=self.config, restore=restore,
                snapshot_executor=self._snapshot_executor, kill_hook=kill_hook, tap_sender=self._tap_sender)
        self._threads: list[threading.Thread] = []
        self._started = False

    def start(self) -> None:
        if self._started:
            raise RuntimeError("a slot starts once")
        self._started = True
        for task in self.tasks.values():
            thread = threading.Thread(target=_run_on_cpu, args=(self.cpu, task.invoke), name=f"task {task.name}",
                                      daemon=True)
            self._threads.append(thread)
            thread.start()

    def join(self, timeout: float | None = None) -> bool:
        """Wait until every subtask ended; True when they did within ``timeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for task in self.tasks.values():
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not task.done.wait(remaining):
                return False
        self._snapshot_executor.shutdown(wait=False)
        self._tap_sender.stop()
        return True

    def failure(self) -> str | None:
        """The first failure of a subtask of this slot, or None."""
        for task in self.tasks.values():
            if task.failure:
                return f"{task.name}: {task.failure}"
        return None

    # -- TaskExecutorGateway -----------------------------------------------------------------
    def trigger_checkpoint(self, checkpoint_id: int, timestamp_ms: int, options: dict) -> None:
        names = options.get("trigger_tasks")
        wanted = None if names is None else set(names)
        for task in self.tasks.values():
            if wanted is None or task.name in wanted:
                task.trigger_checkpoint_from_coordinator(checkpoint_id, timestamp_ms, dict(options))

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        for task in self.tasks.values():
            task.notify_checkpoint_complete(checkpoint_id)

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        for task in self.tasks.values():
            task.notify_checkpoint_aborted(checkpoint_id)

    def cancel(self) -> None:
        for task in self.tasks.values():
            task.cancel()

    def open_tap(self, tap_id: str, node_id: str, limits: dict) -> None:
        parsed = TapLimits.from_dict(limits)
        for task in self.tasks.values():
            if any(node["id"] == node_id for node in task.vertex.operators):
                task.open_tap(tap_id, node_id, parsed)

    def close_tap(self, tap_id: str) -> None:
        for task in self.tasks.values():
            task.close_tap(tap_id)

    def deliver_operator_event(self, task: TaskId, node_id: str, event: dict) -> None:
        target = self.tasks.get(as_task_id(task))
        if target is not None:
            target.deliver_operator_event(node_id, event)


def _run_on_cpu(cpu: int | None, invoke) -> None:
    """A task thread's body: keep to ``cpu`` (only this thread: Linux affinity is per thread), then run."""
    name_os_thread()  # "task <vertex>#<index>" in /proc and top -H (``thread_names``)
    if cpu is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {cpu})
    invoke()
