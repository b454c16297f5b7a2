"""``transform.python``: a Python function from the definition, with checkpointed state.

The node's ``code`` is compiled once per subtask and run in a namespace of its own, with
the worker's full rights (trusted users only: the studio enforces who may save or run it,
see ``engine.spec.python_catalog``). It defines::

    process(records) -> list     a batch in (a list the code may keep or change), records out
    open(context)                optional: once per subtask, before the first batch;
                                 context = {"node", "subtask", "parallelism"}
    snapshot() -> value          optional: at every checkpoint, this subtask's state
    restore(states)              optional: after a restore, before open, with the snapshot
                                 values this subtask takes over (one at the same parallelism,
                                 several or none after a rescale)

Per batch, not per record: ``process`` is one Python call for a whole batch, so the code
pays the call once and loops (or uses a comprehension) itself.

Event time: when ``process`` returns one record per input record, the records keep the
input's event times in order; otherwise every record takes the batch's newest event time
(never older than what the watermark after the batch allows, so nothing becomes late).

State: each ``snapshot()`` value is pickled at once (the synchronous part of the checkpoint,
so later changes to the value do not leak into it) and kept as this subtask's one element
of operator list state; a restore at another parallelism deals the elements out round
robin, which is why ``restore`` receives a list. A snapshot value is data: Python's
containers, numbers, strings, bytes, dates and decimals (``engine.runtime.state.safe_pickle``:
a state file must not be able to run code when it is restored); an object of the code's own
class fails the restore, naming the class.
"""
from __future__ import annotations

import pickle

from engine.runtime.io.events import TimestampedBatch
from engine.runtime.operators.base import StreamOperator
from engine.runtime.state import safe_pickle

STATE_NAME = "python"


class PythonTransformOperator(StreamOperator):
    """Runs the node's ``process(records)`` on every batch."""

    def __init__(self, node, context):
        super().__init__(node, context)
        namespace: dict = {"__name__": f"transform_python_{self.node_id}"}
        code = compile(self.params["code"], f"<transform.python {self.node_id}>", "exec")
        exec(code, namespace)  # noqa: S102 - trusted code: only permitted users may save or run it
        self.process_function = namespace.get("process")
        if not callable(self.process_function):
            raise ValueError(f"'{self.node_id}': the code defines no process(records) function")
        self.hooks = {name: namespace.get(name) for name in ("open", "snapshot", "restore")}
        self.state = None

    def initialize_state(self):
        self.state = self.context.operator_state().list_state(STATE_NAME)
        restore = self.hooks["restore"]
        if self.context.is_restored and callable(restore):
            restore([safe_pickle.loads(element) for element in self.state.get()])

    def open(self):
        open_hook = self.hooks["open"]
        if callable(open_hook):
            open_hook({"node": self.node_id, "subtask": self.context.subtask_index,
                       "parallelism": self.context.parallelism})

    def process_batch(self, batch):
        records = self.process_function(list(batch))
        if records is None:
            return
        if type(records) is not list:
            records = list(records)
        if type(batch) is TimestampedBatch:
            stamps = batch.timestamps if len(records) == len(batch) else [max(batch.timestamps)] * len(records)
            records = TimestampedBatch(records, stamps)
        if records:
            self.emit(records)

    def snapshot_state(self, checkpoint_id):
        snapshot = self.hooks["snapshot"]
        if callable(snapshot):
            self.state.update([pickle.dumps(snapshot(), protocol=5)])
