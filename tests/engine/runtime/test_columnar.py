"""Columnar integer batches: the same numbers, keys, channels, counts and taps as the Python path."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.runtime.columnar import (KEY_TABLE_SPAN, LIMIT, ChannelsOfKeys, compile_int_key, compile_int_steps,
                                     key_groups_of, split_by_channel)
from engine.runtime.io.partitioner import HashPartitioner
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.operator_chain import OperatorChain
from engine.runtime.operators.base import StreamOperator
from engine.runtime.operators.transform import FilterOperator, MapOperator
from engine.runtime.state.key_groups import key_groups_for
from engine.runtime.operators.base import compile_expression_function
from engine.spec.expressions import compile_batch_router, compile_expression


def _int_terms(depth: int) -> st.SearchStrategy[str]:
    leaves = st.one_of(st.just("x"), st.integers(-10**6, 10**6).map(str),
                       st.sampled_from(["4611686018427387903", "-4611686018427387903", "3037000499"]))
    if depth == 0:
        return leaves
    inner = _int_terms(depth - 1)
    divisor = st.integers(-50, 50).filter(bool).map(str)
    return st.one_of(
        leaves,
        st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(inner, st.sampled_from(["//", "%"]), divisor).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda term: f"(-{term})"))


def _predicates() -> st.SearchStrategy[str]:
    comparison = st.tuples(_int_terms(2), st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), _int_terms(1)) \
        .map(lambda t: f"{t[0]} {t[1]} {t[2]}")
    single = st.one_of(comparison, _int_terms(2), comparison.map(lambda c: f"not ({c})"),
                       st.tuples(_int_terms(1), _int_terms(1), _int_terms(1)).map(lambda t: f"{t[0]} < {t[1]} <= {t[2]}"))
    return st.one_of(single, st.tuples(single, st.sampled_from(["and", "or"]), single)
                     .map(lambda t: f"({t[0]}) {t[1]} ({t[2]})"))


numbers = st.lists(st.one_of(st.integers(-10**9, 10**9), st.integers(-LIMIT + 1, LIMIT - 1)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(values=numbers, expression=_int_terms(3), predicate=_predicates())
def test_steps_on_arrays_give_the_python_paths_records_or_step_aside(values, expression, predicate):
    """Where the bounds allow, exactly the record-at-a-time result; where they do not, None (never a wrapped number)."""
    steps = [("map", expression), ("filter", predicate)]
    run = compile_int_steps(steps)
    assert run is not None, steps
    result = run(np.array(values, dtype=np.int64))
    mapped, kept = compile_expression(expression), compile_expression(predicate)
    expected = [y for y in (mapped(x) for x in values) if kept(y)]
    if result is not None:
        assert result.tolist() == expected
        assert all(type(value) is int for value in result.tolist())
    else:
        assert values  # an empty batch always goes through


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.integers(-LIMIT + 1, LIMIT - 1), max_size=50), max_parallelism=st.sampled_from([1, 7, 128, 32768]))
def test_key_groups_of_arrays_are_those_of_the_python_path(keys, max_parallelism):
    assert key_groups_of(np.array(keys, dtype=np.int64), max_parallelism).tolist() == key_groups_for(keys, max_parallelism)


@pytest.mark.parametrize("source", ["x / 2", "x ** 2", "x % 0", "x // 0", "abs(x)", "x['a']", "x * 2.5", "x and 1",
                                    "x > 1", "True", "x % y", "x << 2", "-(x > 1)"])
def test_what_is_not_integer_arithmetic_keeps_the_python_path(source):
    assert compile_int_steps([("map", source)]) is None
    assert compile_int_key(source) is None


def test_a_batch_that_could_overflow_keeps_the_python_path():
    square = compile_int_steps([("map", "x * x")])
    assert square(np.array([3, -4], dtype=np.int64)).tolist() == [9, 16]
    assert square(np.array([3, 2**40], dtype=np.int64)) is None
    assert compile_int_key("x * 4")(np.array([2**61], dtype=np.int64)) is None


@settings(max_examples=100, deadline=None)
@given(low=st.one_of(st.integers(-10**6, 10**6), st.integers(-LIMIT + 1, LIMIT - KEY_TABLE_SPAN)),
       span=st.one_of(st.integers(0, 3000), st.just(KEY_TABLE_SPAN - 1), st.just(KEY_TABLE_SPAN)),
       picks=st.lists(st.integers(0, 2**31), min_size=1, max_size=60), max_parallelism=st.sampled_from([7, 128]),
       channels=st.sampled_from([2, 3, 5]))
def test_channels_from_a_table_of_bounded_keys_are_those_of_their_key_groups(low, span, picks, max_parallelism,
                                                                              channels):
    """The first batch with some bounds is hashed, the second builds the table, the rest look it up."""
    channel_of_group = np.array([group * channels // max_parallelism for group in range(max_parallelism)])
    channels_of = ChannelsOfKeys(channel_of_group, max_parallelism)
    keys = np.array([low + pick % (span + 1) for pick in picks], dtype=np.int64)
    expected = [channel_of_group[group] for group in key_groups_for(keys.tolist(), max_parallelism)]
    for _ in range(3):
        assert channels_of(keys, (low, low + span)).tolist() == expected
    assert bool(channels_of._tables) == (span < KEY_TABLE_SPAN), "a table for a small range only"


def test_a_split_keeps_the_order_within_each_channel():
    values = np.arange(40, dtype=np.int64)
    channels = values % 3
    assert split_by_channel(values, channels, 3) == [(c, list(range(c, 40, 3))) for c in range(3)]
    wide = split_by_channel(values, values % 11, 11)
    assert wide == [(c, list(range(c, 40, 11))) for c in range(11)]


class Channel:
    """An output channel that keeps what it was given."""

    def __init__(self):
        self.items: list = []

    def push(self, item):
        self.items.append(item)


class IntSource(StreamOperator):
    """A head that emits int64 arrays when asked, as datagen does."""

    def __init__(self):
        super().__init__({"id": "gen"}, context=None)
        self.int_arrays = False

    def emit_int_arrays(self) -> bool:
        self.int_arrays = True
        return True


class OpenTap:
    open = True

    def __init__(self):
        self.offered: list = []

    def offer(self, batch):
        self.offered.append(batch)


def keyed_chain(key: str = "x % 1000", tap_points=None, parallelism: int = 3):
    head = IntSource()
    operators = [head, MapOperator({"id": "double", "params": {"expression": "x * 2"}}, None),
                 FilterOperator({"id": "not3", "params": {"predicate": "x % 3 != 0"}}, None)]
    channels = [Channel() for _ in range(parallelism)]
    partitioner = HashPartitioner(parallelism, compile_expression_function(key), 128,
                                  router=compile_batch_router(key), columnar_key=compile_int_key(key))
    writer = RecordWriter("e", channels, partitioner, buffer_records=10**6)
    chain = OperatorChain(operators, {"not3": [writer]}, tap_points=tap_points)
    return chain, head, writer, channels


def test_a_chain_of_int_arrays_routes_each_record_where_the_python_path_does():
    chain, head, writer, channels = keyed_chain()
    assert head.int_arrays
    for start in range(0, 3000, 600):  # the same key bounds batch after batch: a key table routes the later ones
        head.emit(np.arange(start, start + 600, dtype=np.int64))
    writer.flush()
    python_chain, python_head, python_writer, python_channels = keyed_chain()
    python_head.emit(list(range(3000)))
    python_writer.flush()
    assert [channel.items for channel in channels] == [channel.items for channel in python_channels]
    assert all(type(record) is int for channel in channels for item in channel.items for record in item)
    assert {node: (values["records_in"], values["records_out"])
            for node, values in chain.per_operator_metrics(3000, None).items()} == {
        "gen": (3000, 3000), "double": (3000, 3000), "not3": (3000, 2000)}


def test_an_open_tap_sees_lists_and_the_records_are_the_same():
    tap = OpenTap()
    chain, head, writer, channels = keyed_chain(tap_points={"double": tap, "gen": tap})
    head.emit(np.arange(6, dtype=np.int64))
    writer.flush()
    assert tap.offered[0].tolist() == list(range(6)) and tap.offered[1] == [0, 2, 4, 6, 8, 10]
    assert sorted(record for channel in channels for item in channel.items for record in item) == [2, 4, 8, 10]


def test_keys_outside_the_columnar_subset_are_routed_from_the_records():
    chain, head, writer, channels = keyed_chain(key="str(x)")
    head.emit(np.arange(300, dtype=np.int64))
    writer.flush()
    python_chain, python_head, python_writer, python_channels = keyed_chain(key="str(x)")
    python_head.emit(list(range(300)))
    python_writer.flush()
    assert [channel.items for channel in channels] == [channel.items for channel in python_channels]


@settings(max_examples=150, deadline=None)
@given(batches=st.lists(st.lists(st.one_of(st.integers(-2000, 2000), st.integers(-LIMIT + 1, LIMIT - 1)),
                                 max_size=80), min_size=1, max_size=4),
       key=st.sampled_from(["x", "x % 1000", "x // 7", "-x % 13", "x * 3 + 1"]),
       parallelism=st.sampled_from([2, 3, 9]), as_arrays=st.booleans())
def test_columnar_routing_at_every_parallelism_is_the_python_paths(batches, key, parallelism, as_arrays):
    """Each int64 record reaches the channel the record-at-a-time router sends it to, in order, whatever
    the channel table's type (a bool per key group at two channels, a byte up to 8, an intp beyond) and
    whether the bounds come from the batch or from the steps before (``compile_int_steps``' ``bounded``)."""
    columnar = HashPartitioner(parallelism, compile_expression_function(key), 128, columnar_key=compile_int_key(key))
    python = HashPartitioner(parallelism, compile_expression_function(key), 128)
    steps = compile_int_steps([("map", "x"), ("filter", "x != 5")])
    for values in batches * 3:  # the same bounds again: the later batches are routed by a key table
        batch, bounds = steps.bounded(np.array(values, dtype=np.int64))
        records = batch.tolist()
        expected = python.partition(records) if records else []
        for given_bounds in (None, bounds):
            parts = columnar.partition_columnar(batch, [as_arrays] * parallelism, given_bounds)
            if parts is None:  # keys that could leave int64: the caller routes the list
                assert not records or compile_int_key(key).with_bounds(batch) is None
                continue
            assert [(c, part.tolist() if type(part) is np.ndarray else part) for c, part in parts] == expected
            assert all(type(part) is (np.ndarray if as_arrays else list) for _, part in parts)


@settings(max_examples=200, deadline=None)
@given(values=numbers, expression=_int_terms(2), predicate=_predicates())
def test_the_steps_bounds_hold_every_value_they_give(values, expression, predicate):
    computed = compile_int_steps([("map", expression), ("filter", predicate)]).bounded(np.array(values, dtype=np.int64))
    if computed is None:
        return
    result, bounds = computed
    if len(result):
        assert bounds[0] <= int(result.min()) and int(result.max()) <= bounds[1]
    else:
        assert bounds is None


def test_two_channels_split_by_a_bool_per_key_group():
    partitioner = HashPartitioner(2, compile_expression_function("x % 10"), 128, columnar_key=compile_int_key("x % 10"))
    assert partitioner._channels_of_keys(np.arange(10, dtype=np.int64), (0, 9)).dtype == np.bool_
    assert split_by_channel(np.arange(6, dtype=np.int64), np.array([0, 1, 1, 0, 0, 1], dtype=bool), 2) == [
        (0, [0, 3, 4]), (1, [1, 2, 5])]
    assert split_by_channel(np.arange(3, dtype=np.int64), np.zeros(3, dtype=bool), 2) == [(0, [0, 1, 2])]
