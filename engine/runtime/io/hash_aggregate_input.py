"""Batch mode's input for an aggregation: a hash aggregate instead of a sort.

A keyed operator in batch mode normally reads its whole input into a sorter and then
processes it key by key (:class:`~engine.runtime.io.stream_input.SortingInput`), so its
keyed state only ever holds the keys of one piece. An aggregation whose state is one small
value per key (``aggregate.reduce``: ``aggregates_by_hash``) does not need that: its state
for every key of the subtask is a hash table (Flink's ``HashAggregate`` of batch SQL), and
its input can be folded into that table batch by batch as the blocking partitions are
read. That skips buffering every record, computing each key twice, spilling sorted runs,
merging them and cutting pieces: measured on ``make bench-batch``'s job (3M records), those
took 1.4 of the keyed subtasks' 2.4 CPU seconds, the fold itself 1.0 (``docs/performance.md``).

The result is the sorted path's: a key's records reach the table in their arrival order
(the order within a channel; across channels it is the gate's, as in streaming), and the
aggregate of a key depends only on its own records. Batch mode's aggregate is not rolling
(``engine.runtime.operators.aggregate``): once the whole input is in the table, the task
lets the operator emit every key's final aggregate (``on_keys_finished``) and clears it.

Event time: as in the sorted path nothing is late in batch mode. Watermarks only update the
valve while the input is read; the final watermark (the maximum, from bounded inputs) is
passed on once, at the end.

Integer records: when the operator folds int64 arrays (``fold_int_array``), the blocking
partitions' int frames are read as arrays (``hand_out_int_arrays``), collected into
:data:`INT_FOLD_RECORDS` records and folded together: sorted by key in numpy, one dict get
and set per distinct key (measured on ``make bench-batch``'s job, the fold of 1,024-record
lists was ~75 ns a record, 88% of the sum subtasks' CPU). An array the operator cannot fold
(a sum that could leave int64) is folded as a list. The arrays collected so far are folded
before any list batch, so records reach the table in arrival order up to reordering within
integer records, where a sum, count, min or max cannot tell.

Memory bound: the table holds at most ``max_keys`` keys (``hash_aggregate_keys`` in the
runtime configuration, default :data:`DEFAULT_MAX_KEYS`). When a batch takes it past that,
the rest of the input goes to a :class:`~engine.runtime.io.external_sort.KeyGroupingSorter`
(Flink's fallback from hash to sort aggregation). At the end the table is taken out of the
operator's state as the *carried* aggregates; the sorted rest is then processed piece by
piece, and before each piece the carried aggregates of its keys are put back, so each key
continues from what its earlier records left. State then holds the carried table (at most
``max_keys``) plus one piece's keys. The carried keys no piece brought back go back into the
table at the end and are finished with the last call.

Threading model: the owning subtask's mailbox thread.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from engine.runtime.io.events import (ChannelError, EndOfData, EndOfPartition, LatencyMarker, TimestampedBatch,
                                      Watermark, WatermarkStatus)
from engine.runtime.io.external_sort import KeyGroupingSorter, key_groups_in_pieces
from engine.runtime.io.stream_input import END_OF_INPUT_STATUS, MORE_AVAILABLE, NOTHING_AVAILABLE, InputStatus
from engine.runtime.io.watermark_valve import WatermarkValve
from engine.runtime.kill_hooks import maybe_kill

DEFAULT_MAX_KEYS = 1_000_000
"""Keys the hash table may hold before the rest of the input is sorted instead."""
INT_FOLD_RECORDS = 1 << 16
"""Integer records collected from int frames before one columnar fold (512 KB)."""


class HashAggregateInput:
    """Folds each buffer into the operator's keyed state as it is read; sorts only past ``max_keys``.

    ``table`` is the operator's live hash table (its value state's dict: key -> aggregate);
    ``create_sorter`` makes the fallback sorter, ``key_function`` gives a record's key (both
    used only past ``max_keys``); ``on_keys_finished`` is the sorted path's (the task lets the
    operator finish the keys and clears its keyed state). ``fold_int_array(array) -> bool``,
    when given, folds int64 records (False: it did not, fold them as a list).
    """

    def __init__(self, gate, process_batch: Callable, process_watermark: Callable, on_keys_finished: Callable,
                 table: dict, max_keys: int, create_sorter: Callable[[], KeyGroupingSorter], key_function: Callable,
                 batch_size: int, kill_hook=None, task=None, fold_int_array: Callable | None = None):
        self.gate = gate
        self._fold_int_array = fold_int_array
        self._arrays: list = []
        self._array_records = 0
        self.columnar_folded_records = 0
        if fold_int_array is not None:
            for channel in gate.channels:
                if hasattr(channel, "hand_out_int_arrays"):
                    channel.hand_out_int_arrays = True
        self._process_batch = process_batch
        self._process_watermark = process_watermark
        self._on_keys_finished = on_keys_finished
        self._table = table
        self.max_keys = max(1, int(max_keys))
        self._create_sorter = create_sorter
        self._key_function = key_function
        self.batch_size = batch_size
        self._kill_hook = kill_hook
        self._task = task
        self.valve = WatermarkValve(gate.number_of_channels)
        self.finished_channels = 0
        self.records_in = 0
        self.drained = True
        self.sorter: KeyGroupingSorter | None = None
        """The fallback sorter, once the table grew past ``max_keys``."""
        self._carried: dict | None = None
        self._pieces = None
        self.peak_keys = 0

    def process_input(self) -> InputStatus:
        if self._pieces is None:
            return self._read()
        piece = next(self._pieces, None)
        if piece is None:
            return self._end()
        records, stamps, ends_keys = piece
        if self._kill_hook is not None:
            maybe_kill(self._kill_hook, "process", self._task, {"records_in": self.records_in})
        self._bring_back_carried(records)
        self._process_batch(records if stamps is None else TimestampedBatch(records, stamps))
        if ends_keys:
            self._on_keys_finished()
        return MORE_AVAILABLE

    def _bring_back_carried(self, records: list) -> None:
        """Put the carried aggregates of this piece's keys back into the table, once each."""
        carried = self._carried
        if not carried:
            return
        table, key = self._table, self._key_function
        for k in {key(record) for record in records}:
            value = carried.pop(k, _MISSING)
            if value is not _MISSING:
                table[k] = value

    def _read(self) -> InputStatus:
        polled = self.gate.poll_next()
        if polled is None:
            return NOTHING_AVAILABLE
        channel, item = polled
        kind = type(item)
        if kind is np.ndarray:
            if self._kill_hook is not None:
                maybe_kill(self._kill_hook, "process", self._task, {"records_in": self.records_in})
            self.records_in += len(item)
            if self.sorter is not None:
                self.sorter.add(item.tolist(), None)
            else:
                self._arrays.append(item)
                self._array_records += len(item)
                if self._array_records >= INT_FOLD_RECORDS:
                    self._fold_arrays()
        elif kind is list or kind is TimestampedBatch:
            if self._kill_hook is not None:
                maybe_kill(self._kill_hook, "process", self._task, {"records_in": self.records_in})
            self.records_in += len(item)
            if kind is TimestampedBatch:
                for _, watermark in item.watermarks or ():
                    self.valve.input_watermark(channel, watermark.timestamp)  # nothing is late in batch mode
                item.watermarks = None  # read from a file for this subtask alone: nobody else holds it
            if self.sorter is not None:
                self.sorter.add(item, item.timestamps if kind is TimestampedBatch else None)
            else:
                if self._arrays:  # the collected arrays first: a list may hold other numbers (a float sum's order)
                    self._fold_arrays()
                if self.sorter is not None:
                    self.sorter.add(item, item.timestamps if kind is TimestampedBatch else None)
                else:
                    self._process_batch(item)
                    self._check_size()
        elif kind is Watermark:
            self.valve.input_watermark(channel, item.timestamp)
        elif kind is WatermarkStatus or kind is LatencyMarker:
            pass  # event time does not advance while the input is read; nothing waits in a queue for latency
        elif kind is EndOfPartition:
            self.finished_channels += 1
            self.valve.channel_finished(channel)
            if self.finished_channels >= self.gate.number_of_channels:
                return self._all_read()
        elif kind is ChannelError:
            raise ConnectionError(f"input channel {self.gate.channel_infos[channel]}: {item.message}")
        elif kind is EndOfData:
            self.drained = self.drained and item.drain
        return MORE_AVAILABLE

    def _fold_arrays(self) -> None:
        """Fold the collected int64 records into the table at once (as a list if the operator cannot)."""
        arrays, self._arrays, self._array_records = self._arrays, [], 0
        batch = arrays[0] if len(arrays) == 1 else np.concatenate(arrays)
        if self._fold_int_array(batch):
            self.columnar_folded_records += len(batch)
        else:
            self._process_batch(batch.tolist())
        self._check_size()

    def _check_size(self) -> None:
        """Past ``max_keys`` keys, the rest of the input goes to the sorter."""
        if len(self._table) > self.max_keys:
            self.peak_keys = len(self._table)
            self.sorter = self._create_sorter()

    def _all_read(self) -> InputStatus:
        if self._arrays:
            self._fold_arrays()
        self.peak_keys = max(self.peak_keys, len(self._table))
        if self.sorter is None:
            return self._end()
        self._carried = dict(self._table)
        self._table.clear()
        self._pieces = key_groups_in_pieces(self.sorter.sorted_entries(), self.batch_size)
        return MORE_AVAILABLE

    def _end(self) -> InputStatus:
        carried, self._carried = self._carried, None
        if carried:
            self._table.update(carried)
        if self._table:
            self._on_keys_finished()
        self.close()
        if self.valve.current > -(2**63):
            self._process_watermark(Watermark(self.valve.current))
        return END_OF_INPUT_STATUS

    def when_available(self, callback: Callable[[], None]) -> None:
        self.gate.when_available(callback)

    def metrics(self) -> dict:
        sorter = self.sorter
        return {"hash_aggregated_records": self.records_in - (sorter.records if sorter is not None else 0),
                "columnar_folded_records": self.columnar_folded_records,
                "hash_table_keys": self.peak_keys,
                "sorted_records": sorter.records if sorter is not None else 0,
                "spilled_runs": sorter.spilled_runs if sorter is not None else 0,
                "spilled_records": sorter.spilled_records if sorter is not None else 0}

    def close(self) -> None:
        if self.sorter is not None:
            self.sorter.close()


_MISSING = object()
