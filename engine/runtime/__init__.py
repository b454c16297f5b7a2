"""The Flink-style streaming runtime: the same task code in-process and inside Spark slots.

Map of the package:

- ``mailbox``: the mailbox threading model (one thread per subtask; everything is mail);
- ``stream_task``: a subtask: operator chain, input, outputs, checkpoints;
- ``operator_chain``, ``operators/``: the operators of the catalog, chained by calls;
- ``io/``: buffers and events, channels (local, TCP credit-based), input gate, barrier
  handlers, partitioners, record writers, watermark valve, buffer debloating, and batch
  mode's sorted keyed input (``external_sort``, ``stream_input.SortingInput``) and its
  hash aggregation (``hash_aggregate_input``);
- ``state/``: keyed and operator state, key groups, snapshots, restore assignment;
- ``columnar``: integer batches as numpy arrays, from a source through maps, filters and
  a hash exchange;
- ``slot``: the subtasks of one worker (``TaskExecutorGateway``);
- ``gateway``: the seams to the JobMaster; ``timer_service``;
  ``kill_hooks`` (test hooks for failure injection).
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
"""numpy's BLAS would start a pool of threads when numpy is first imported (``columnar`` imports
it). The engine does no linear algebra, a slot has one CPU, and Spark's daemon forks its
workers after preloading the engine, which a running thread does not survive: one thread,
set before any module of this package imports numpy."""
