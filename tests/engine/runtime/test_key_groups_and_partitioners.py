"""Key-group math (property tests) and the partitioners built on it."""
from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.plan.connection_patterns import pointwise_consumers, pointwise_producers
from engine.runtime.io.events import TimestampedBatch
from engine.runtime.io.partitioner import HashPartitioner, RoundRobinPartitioner, create_partitioner
from engine.runtime.state.key_groups import (KeyGroupRange, key_group_for, key_groups_for, stable_hash,
                                             subtask_for_key_group)

parallelism_pairs = st.integers(min_value=1, max_value=512).flatmap(
    lambda max_parallelism: st.tuples(st.just(max_parallelism), st.integers(min_value=1, max_value=max_parallelism)))

keys = st.recursive(
    st.one_of(st.integers(), st.text(max_size=8), st.binary(max_size=8), st.booleans(), st.none(),
              st.floats(allow_nan=False)),
    lambda children: st.tuples(children, children), max_leaves=4)


@given(parallelism_pairs)
def test_ranges_partition_all_key_groups_and_match_the_owner_function(pair):
    max_parallelism, parallelism = pair
    ranges = [KeyGroupRange.for_subtask(max_parallelism, parallelism, i) for i in range(parallelism)]
    covered = [group for key_group_range in ranges for group in key_group_range]
    assert covered == list(range(max_parallelism)), "contiguous, disjoint, complete"
    assert all(len(key_group_range) >= 1 for key_group_range in ranges)
    for index, key_group_range in enumerate(ranges):
        for group in (key_group_range.start, key_group_range.end):
            assert subtask_for_key_group(max_parallelism, parallelism, group) == index


@given(keys, st.integers(min_value=1, max_value=4096))
def test_key_group_is_in_range_and_equal_keys_share_it(key, max_parallelism):
    group = key_group_for(key, max_parallelism)
    assert 0 <= group < max_parallelism
    assert key_groups_for([key], max_parallelism) == [group]


def test_equal_numbers_of_different_types_share_a_key_group():
    assert key_group_for(1, 128) == key_group_for(True, 128) == key_group_for(1.0, 128)
    for number in (-1, 0, 2 ** 62, -(2 ** 70)):  # where Python's own float hash differs from the int
        assert key_group_for(number, 128) == key_group_for(float(number), 128)


def test_string_hash_is_the_same_in_another_process():
    keys_ = ["user-1", "ü", ("a", 2)]
    here = [stable_hash(key) for key in keys_]
    code = ("from engine.runtime.state.key_groups import stable_hash;"
            "print([stable_hash(k) for k in ['user-1', 'ü', ('a', 2)]])")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "12345", "PYTHONPATH": "."}).stdout.strip()
    assert other == str(here)


def test_consecutive_integer_keys_spread_over_key_groups():
    groups = key_groups_for(list(range(1000)), 128)
    counts = [groups.count(group) for group in range(128)]
    assert min(counts) >= 3 and max(counts) <= 15


@given(st.integers(min_value=1, max_value=16), st.integers(min_value=1, max_value=16))
def test_pointwise_wiring_is_symmetric_and_complete(producers, consumers):
    edges = {(p, c) for p in range(producers) for c in pointwise_consumers(p, producers, consumers)}
    assert edges == {(p, c) for c in range(consumers) for p in pointwise_producers(c, producers, consumers)}
    assert {c for _, c in edges} == set(range(consumers))
    assert {p for p, _ in edges} == set(range(producers))


@given(st.lists(st.integers(), max_size=50), st.integers(min_value=1, max_value=5))
def test_hash_partitioner_sends_each_record_to_the_owner_of_its_key_group(batch, channels):
    partitioner = HashPartitioner(channels, lambda x: x % 7, 64)
    parts = partitioner.partition(batch) if channels > 1 else [(0, batch)]
    received = sorted(x for _, part in parts for x in part)
    assert received == sorted(batch)
    for channel, part in parts:
        for x in part:
            assert subtask_for_key_group(64, channels, key_group_for(x % 7, 64)) == channel


def test_partitioners_split_timestamps_with_their_records():
    batch = TimestampedBatch([1, 2, 3, 4], [10, 20, 30, 40])
    for partitioner in (RoundRobinPartitioner(2), HashPartitioner(2, lambda x: x, 8)):
        for _, part in partitioner.partition(batch):
            assert isinstance(part, TimestampedBatch)
            assert part.timestamps == [x * 10 for x in part]


def test_single_channel_hash_needs_no_key():
    partitioner = create_partitioner("hash", 1, key_function=lambda x: 1 / 0, max_parallelism=8)
    assert partitioner.partition([1, 2]) == [(0, [1, 2])]


routable_keys = st.one_of(keys, st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=2), st.integers(),
                                                                                      max_size=2))


@given(st.lists(st.lists(routable_keys, max_size=30), max_size=6), st.integers(min_value=2, max_value=5),
       st.sampled_from([1, 4, 1 << 16]), st.booleans())
def test_remembered_routes_send_every_key_to_its_owner_in_every_batch(batches, channels, cache_limit, fused):
    """Keys seen before take the remembered channel, new, unhashable and overflowing ones the
    computed one, with or without the one-loop router: every record still reaches the owner
    of its key group, in order."""
    import engine.runtime.io.partitioner as partitioner_module
    from engine.spec.expressions import compile_batch_router

    original, partitioner_module.ROUTE_CACHE_LIMIT = partitioner_module.ROUTE_CACHE_LIMIT, cache_limit
    try:
        partitioner = HashPartitioner(channels, lambda record: record[1], 32,
                                      router=compile_batch_router("x[1]") if fused else None)
        for keys_ in batches + batches:  # the second round finds its keys remembered
            batch = list(enumerate(keys_))
            parts = partitioner.partition(batch)
            assert sorted(record for _, part in parts for record in part) == batch
            for channel, part in parts:
                assert part == sorted(part), "records keep their order within a channel"
                for _, key in part:
                    assert subtask_for_key_group(32, channels, key_group_for(key, 32)) == channel
        assert len(partitioner._channel_of_key) <= cache_limit
    finally:
        partitioner_module.ROUTE_CACHE_LIMIT = original


def compiled_partitioner(channels: int, key: str) -> HashPartitioner:
    from engine.spec.expressions import compile_batch_expression, compile_batch_router, compile_expression

    return HashPartitioner(channels, compile_expression(key).function, 128, compile_batch_expression(key),
                           compile_batch_router(key))


def test_the_compiled_routes_and_the_per_record_one_agree():
    from engine.spec.expressions import compile_expression

    batch = [{"user": f"u{i % 13}", "n": i} for i in range(200)]
    per_record = HashPartitioner(3, compile_expression("x.user").function, 128)
    compiled = compiled_partitioner(3, "x.user")
    first = compiled.partition(batch)  # three passes: every key is new
    assert per_record.partition(batch) == first == compiled.partition(batch)  # then one loop


def test_a_failing_key_expression_fails_the_batch_not_the_routing():
    partitioner = compiled_partitioner(2, "x.user")
    partitioner.partition([{"user": "a"}])
    with pytest.raises(KeyError, match="user"):
        partitioner.partition([{"user": "a"}, {"name": "b"}])
