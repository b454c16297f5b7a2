"""Blocking result partitions as files: the pluggable shuffle of seed 002.

The three roles of Flink's shuffle split:

- the *shuffle master* (:class:`FileShuffleMaster`, on the JobMaster) owns a run's shuffle
  directory (a URL: a local directory by default, a shared filesystem on a cluster),
  hands out partition locations and deletes everything when the run ends;
- the *partition writer* (:class:`BlockingPartitionWriter`, in the producing slot) is an
  output channel that appends the producer's buffers and events to a hidden file and
  publishes it by renaming at EndOfPartition, so a reader never sees half a partition;
- the *partition reader* (:class:`BlockingPartitionReader`, in the consuming slot) is an
  input channel that reads a published file frame by frame on the consumer's own thread.

:class:`ShuffleNetwork` plugs them into a slot: channels of blocking edges go to files,
all others to the slot's own network (local queues, TCP). Another shuffle (a remote
shuffle service, object storage) implements the same three roles.

Frames are ``[4-byte length][1-byte kind][payload]``, written and read by the engine's own
slots in the run's own directory. Checkpoint barriers and cancel markers are not written:
a blocking exchange is read after its producer finished, when no checkpoint spans it.

Two kinds of frame: ``P``, anything (a buffer of records, an event) as pickle protocol 5;
``I``, a buffer of integer records as their int64 bytes. A writer takes int64 arrays
(``takes_int_arrays``, as a TCP channel does) when the edge's records are integers computed
by the columnar path (``engine.runtime.columnar``), also parts smaller than a buffer
(``takes_small_int_arrays``): it collects them until they fill :data:`INT_FRAME_RECORDS`
and writes them as one frame. Measured on ``make bench-batch``'s job: a Python list of ints
cost ``tolist`` + ``pickle.dumps`` + ``pickle.loads`` (~27 + 23 + 38 ns a record), the
array's bytes ``frombuffer().tolist()`` (~28 ns). The reader hands out Python ints, unless
its consumer asked for arrays (``hand_out_int_arrays``): batch mode's hash aggregate folds
them a whole array at a time (``engine.runtime.io.hash_aggregate_input``).

Files are written and read in chunks of :data:`IO_CHUNK_BYTES`, not a frame at a time: a
write or read call lets go of the GIL, and in a process where other subtask threads are
busy, getting it back costs a thread switch. Profiled on ``make bench-batch``'s job at a frame
per call, the keyed subtasks spent 29% of their samples in the reads (the source 16% in the
writes).
"""
from __future__ import annotations

import logging
import pickle
import struct
import threading
import uuid

import fsspec
import numpy as np

from engine.checkpoint.storage import join
from engine.plan.channels import ChannelId
from engine.runtime.io.events import CancelCheckpointMarker, CheckpointBarrier, EndOfPartition, LatencyMarker
from engine.runtime.io.local_channel import DEFAULT_CAPACITY, InputChannelBase

logger = logging.getLogger(__name__)

_HEADER = struct.Struct(">Ic")
_PICKLED, _INTS = b"P", b"I"
_INT64 = np.dtype("<i8")
INT_FRAME_RECORDS = 1024
IO_CHUNK_BYTES = 256 * 1024
"""Bytes a writer collects before one write, and a reader reads at once (per channel in memory)."""
"""Integer records an ``I`` frame collects before it is written (the default batch size)."""
_NOT_WRITTEN = (CheckpointBarrier, CancelCheckpointMarker, LatencyMarker)
"""Events a file does not keep: checkpoints do not cross a blocking exchange, and a latency marker
read back after the producer finished would measure the wait for the region, not a queue."""
PUBLISH_POLL_S = 0.05


class FileShuffleMaster:
    """Where a run's blocking partitions live (``directory``, a URL), and their clean-up."""

    def __init__(self, directory: str):
        self.directory = directory

    @classmethod
    def for_new_run(cls, root_url: str) -> "FileShuffleMaster":
        """A fresh directory below ``root_url``, so runs never read each other's partitions."""
        return cls(join(root_url, uuid.uuid4().hex))

    def partition_location(self, channel_id: ChannelId) -> str:
        """The published file of one subpartition: edge, producer subtask, consumer subtask."""
        producer_vertex, producer = channel_id.producer
        consumer_vertex, consumer = channel_id.consumer
        return join(self.directory, channel_id.edge, f"{producer_vertex}-{producer}",
                    f"{consumer_vertex}-{consumer}.partition")

    def release_partitions_of(self, channel_ids) -> None:
        """Delete partitions before their producers run again (region failover)."""
        for channel_id in channel_ids:
            fs, path = fsspec.core.url_to_fs(self.partition_location(channel_id))
            if fs.exists(path):
                fs.rm(path)

    def cleanup(self) -> None:
        fs, path = fsspec.core.url_to_fs(self.directory)
        if fs.exists(path):
            fs.rm(path, recursive=True)


class BlockingPartitionWriter:
    """The producer's end of a blocking channel: a file, published when the partition ends.

    Threading model: used by the producing subtask's thread only. Never backpressures:
    the disk, not a consumer, takes the data.
    """

    def __init__(self, location: str):
        self.location = location
        self._fs, self._final_path = fsspec.core.url_to_fs(location)
        self._hidden_path = f"{self._final_path}.{uuid.uuid4().hex}.inprogress"
        self._fs.makedirs(self._fs._parent(self._final_path), exist_ok=True)
        self._file = self._fs.open(self._hidden_path, "wb")
        self._unwritten = bytearray()
        self.bytes_written = 0
        self._ints: list[np.ndarray] = []  # int64 parts not yet written, in order
        self._int_records = 0

    takes_int_arrays = True
    """A record writer may push int64 arrays of records here (written as ``I`` frames)."""
    takes_small_int_arrays = True
    """... also parts smaller than a buffer: this writer collects them into frames itself."""

    def push(self, item) -> None:
        if type(item) is np.ndarray:
            self._ints.append(item)
            self._int_records += len(item)
            if self._int_records >= INT_FRAME_RECORDS:
                self._write_ints()
            return
        if isinstance(item, _NOT_WRITTEN):
            return
        if self._ints:
            self._write_ints()  # what came before the item is written before it
        self._write(_PICKLED, pickle.dumps(item, protocol=5))
        if isinstance(item, EndOfPartition):
            self._publish()

    def _write_ints(self) -> None:
        ints = self._ints[0] if len(self._ints) == 1 else np.concatenate(self._ints)
        self._ints, self._int_records = [], 0
        self._write(_INTS, ints.astype(_INT64, copy=False).tobytes())

    def _write(self, kind: bytes, payload: bytes) -> None:
        unwritten = self._unwritten
        unwritten += _HEADER.pack(len(payload), kind)
        unwritten += payload
        self.bytes_written += _HEADER.size + len(payload)
        if len(unwritten) >= IO_CHUNK_BYTES:
            self._file.write(unwritten)
            unwritten.clear()

    def push_priority(self, event) -> list:
        """An unaligned barrier: nothing waits in a file for a consumer, so nothing to overtake."""
        self.push(event)
        return []

    def holds_barrier(self, checkpoint_id: int) -> bool:
        return False

    def overtake_barrier(self, barrier) -> None:
        return None

    def _publish(self) -> None:
        self._file.write(self._unwritten)
        self._unwritten = bytearray()
        self._file.close()
        self._fs.mv(self._hidden_path, self._final_path)
        self._file = None

    def is_writable(self) -> bool:
        return True

    def when_writable(self, callback) -> None:
        callback()

    def close(self) -> None:
        """Drop an unpublished partition (the producer failed or was cancelled)."""
        if self._file is not None:
            self._file.close()
            self._file = None
            if self._fs.exists(self._hidden_path):
                self._fs.rm(self._hidden_path)


class BlockingPartitionReader(InputChannelBase):
    """The consumer's end of a blocking channel: reads the published file on demand.

    Reading happens in ``pop``, on the consumer's thread, one frame at a time, so memory
    holds one buffer per channel. A partition not yet published (its producer runs in the
    same region, as after seed 002's cycle merging) is watched by a short-lived thread that
    announces the channel once the file appears.
    """

    def __init__(self, channel_id: ChannelId, location: str, capacity: int = DEFAULT_CAPACITY):
        super().__init__(channel_id, capacity)
        self.location = location
        self._fs, self._path = fsspec.core.url_to_fs(location)
        self._file = None
        self._chunk, self._offset = b"", 0  # what was read of the file and not yet taken: self._chunk[self._offset:]
        self._exhausted = False
        self._closed = threading.Event()
        self.hand_out_int_arrays = False
        """Give an ``I`` frame's records as its read-only int64 array instead of a list (set by the
        consumer before it reads: only a consumer that folds arrays asks)."""

    def attach(self, gate, index: int) -> None:
        with self._lock:
            self._gate = gate
            self._index = index
        if self._fs.exists(self._path):
            self._announce()
        else:
            threading.Thread(target=self._wait_for_publication, name=f"await-{self._path}", daemon=True).start()

    def _wait_for_publication(self) -> None:
        while not self._closed.wait(PUBLISH_POLL_S):
            if self._fs.exists(self._path):
                self._announce()
                return

    def _announce(self) -> None:
        with self._lock:
            if self._announced or self._blocked:
                return
            self._announced = True
        self._gate._channel_available(self._index)

    def pop(self):
        with self._lock:
            if self._blocked or self._exhausted:
                self._announced = False
                return None, False
        item = self._read_frame()
        if isinstance(item, EndOfPartition):
            with self._lock:
                self._exhausted = True
                self._announced = False
            self._close_file()
            return item, False
        return item, True

    def _read_frame(self):
        if self._file is None:
            self._file = self._fs.open(self._path, "rb")
        header = self._take(_HEADER.size)
        length, kind = _HEADER.unpack(header)
        payload = self._take(length)
        if kind == _INTS:
            array = np.frombuffer(payload, dtype=_INT64)
            return array if self.hand_out_int_arrays else array.tolist()
        return pickle.loads(payload)

    def _take(self, size: int) -> bytes:
        """The next ``size`` bytes of the file, read a chunk at a time."""
        start, end = self._offset, self._offset + size
        if end > len(self._chunk):
            self._chunk = self._chunk[start:] + self._file.read(max(IO_CHUNK_BYTES, size))
            start, end = 0, size
            if len(self._chunk) < size:
                raise IOError(f"blocking partition {self.location} ends without EndOfPartition")
        self._offset = end
        return self._chunk[start:end]

    def queued(self) -> int:
        return 0

    def _close_file(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self._chunk = b""

    def close(self) -> None:
        self._closed.set()
        self._close_file()


class ShuffleNetwork:
    """A slot's network: blocking edges through the shuffle, everything else through ``inner``."""

    def __init__(self, inner, shuffle: FileShuffleMaster, blocking_edges: set[str]):
        self._inner = inner
        self._shuffle = shuffle
        self._blocking_edges = frozenset(blocking_edges)
        self._opened: list = []

    def output_channel(self, channel_id: ChannelId):
        if channel_id.edge not in self._blocking_edges:
            return self._inner.output_channel(channel_id)
        writer = BlockingPartitionWriter(self._shuffle.partition_location(channel_id))
        self._opened.append(writer)
        return writer

    def input_channel(self, channel_id: ChannelId):
        if channel_id.edge not in self._blocking_edges:
            return self._inner.input_channel(channel_id)
        reader = BlockingPartitionReader(channel_id, self._shuffle.partition_location(channel_id))
        self._opened.append(reader)
        return reader

    def close(self) -> None:
        for channel in self._opened:
            channel.close()
        self._inner.close()
