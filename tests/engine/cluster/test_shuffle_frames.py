"""Blocking partition files: int64 frames beside pickled ones, in order, read back as Python ints."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cluster.shuffle import INT_FRAME_RECORDS, BlockingPartitionReader, BlockingPartitionWriter
from engine.plan.channels import ChannelId
from engine.runtime.columnar import compile_int_key
from engine.runtime.io.events import END_OF_PARTITION, EndOfPartition, TimestampedBatch, Watermark
from engine.runtime.io.partitioner import create_partitioner
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.operators.base import compile_expression_function

CHANNEL = ChannelId("e1", ("gen", 0), ("sum", 0))
INT64 = st.integers(-(2**63), 2**63 - 1)


def read_all(location: str) -> list:
    reader = BlockingPartitionReader(CHANNEL, location)
    items = []
    while True:
        item, _ = reader.pop()
        items.append(item)
        if isinstance(item, EndOfPartition):
            reader.close()
            return items


def flattened(items: list) -> list:
    """Records and events one by one, in order: ("r", record), ("t", record, time), ("w", time)."""
    tokens: list = []
    for item in items:
        if type(item) is TimestampedBatch:
            tokens.extend(("t", record, stamp) for record, stamp in zip(item, item.timestamps))
        elif type(item) in (list, np.ndarray):
            tokens.extend(("r", record) for record in (item.tolist() if type(item) is np.ndarray else item))
        elif type(item) is Watermark:
            tokens.append(("w", item.timestamp))
    return tokens


@settings(max_examples=40, deadline=None)
@given(pushes=st.lists(st.one_of(
    st.lists(INT64, max_size=3 * INT_FRAME_RECORDS // 2).map(lambda values: np.array(values, dtype=np.int64)),
    st.lists(st.one_of(st.integers(), st.text(max_size=3), st.booleans(), st.floats(allow_nan=False)), max_size=5),
    st.integers(0, 10**6).map(Watermark),
    st.lists(st.integers(), min_size=1, max_size=4).map(lambda values: TimestampedBatch(values, list(values))),
), max_size=12))
def test_a_partition_gives_back_what_was_pushed_in_order_arrays_as_python_ints(tmp_path_factory, pushes):
    location = str(tmp_path_factory.mktemp("partition") / "p.partition")
    writer = BlockingPartitionWriter(location)
    for item in pushes:
        writer.push(item)
    writer.push(END_OF_PARTITION)
    items = read_all(location)
    assert all(type(item) is not np.ndarray for item in items), "a consumer never sees an array"
    assert all(type(record) is int for item in items if type(item) is list for record in item
               if type(record) is not bool and type(record) is not float and type(record) is not str)
    got = flattened(items)
    assert got == flattened(pushes)
    assert [type(token[1]) for token in got] == [type(token[1]) for token in flattened(pushes)
                                                 ], "ints stay ints, bools bools"


def test_small_int_parts_are_collected_into_frames_of_a_buffer(tmp_path):
    location = str(tmp_path / "p.partition")
    writer = BlockingPartitionWriter(location)
    for start in range(0, 3000, 300):
        writer.push(np.arange(start, start + 300, dtype=np.int64))
    writer.push(END_OF_PARTITION)
    items = read_all(location)[:-1]
    assert [len(item) for item in items] == [1200, 1200, 600]
    assert [value for item in items for value in item] == list(range(3000))
    assert writer.bytes_written < 3000 * 8 + 100, "eight bytes a number, a few for the frames"


def test_a_record_writer_pushes_even_small_int_parts_to_a_partition_file(tmp_path):
    """The writer's columnar path (a hash edge whose key compiles to arrays) hands a file its parts
    as arrays, however small; to an in-memory channel they are Python ints."""
    writers = [BlockingPartitionWriter(str(tmp_path / f"{index}.partition")) for index in range(2)]
    partitioner = create_partitioner("hash", 2, key_function=compile_expression_function("x % 10"),
                                     max_parallelism=128, columnar_key=compile_int_key("x % 10"))
    record_writer = RecordWriter("e1", writers, partitioner, buffer_records=1024)
    assert record_writer.takes_columnar()
    pushed = []
    for writer in writers:
        original = writer.push
        writer.push = lambda item, original=original: (pushed.append(type(item)), original(item))
    assert record_writer.emit_columnar(np.arange(100, dtype=np.int64))
    assert pushed and set(pushed) == {np.ndarray}, "a 50-record part is not turned into a list first"
    for writer in writers:
        writer.push(END_OF_PARTITION)
    read = sorted(value for index in range(2) for item in read_all(str(tmp_path / f"{index}.partition"))[:-1]
                  for value in item)
    assert read == list(range(100))


def test_files_are_written_and_read_in_chunks_and_frames_cross_chunk_boundaries(tmp_path):
    location = str(tmp_path / "p.partition")
    writer = BlockingPartitionWriter(location)
    writes = []
    real_write = writer._file.write
    writer._file.write = lambda data: (writes.append(len(data)), real_write(data))[1]
    pushes = [list(range(start, start + 100)) for start in range(0, 200_000, 100)]  # 2,000 small pickled frames
    pushes.insert(1000, np.arange(-300_000, 300_000, dtype=np.int64))  # one frame of 4.8 MB
    for item in pushes:
        writer.push(item)
    writer.push(END_OF_PARTITION)
    assert len(writes) < 40, "a write per chunk, not per frame"
    reader = BlockingPartitionReader(CHANNEL, location)
    items, reads = [], []
    item = None
    while not isinstance(item, EndOfPartition):
        item, _ = reader.pop()
        if reader._file is not None and not hasattr(reader._file, "counted"):
            real_read = reader._file.read
            reader._file.read = lambda size, real_read=real_read: (reads.append(size), real_read(size))[1]
            reader._file.counted = True
        items.append(item)
    assert flattened(items) == flattened(pushes)
    assert len(reads) < 40, "a read per chunk, not per frame"


def test_a_partition_cut_short_is_an_error_not_a_silent_end(tmp_path):
    location = tmp_path / "p.partition"
    writer = BlockingPartitionWriter(str(location))
    writer.push(list(range(1000)))
    writer.push(END_OF_PARTITION)
    location.write_bytes(location.read_bytes()[:-7])
    reader = BlockingPartitionReader(CHANNEL, str(location))
    assert reader.pop()[0] == list(range(1000))
    with pytest.raises(IOError, match="ends without EndOfPartition"):
        reader.pop()
