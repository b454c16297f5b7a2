"""Redis stream entries become records a batch at a time, as they did one at a time."""
from __future__ import annotations

import json

import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.runtime.operators.connectors.redis_stream import (encode_record, entries_up_to, entry_record, entry_records,
                                                   stream_id)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=5)

stored_values = (json_values.map(json.dumps)  # what sink.redis_stream writes
                 | st.sampled_from(["NaN", "1e400", '"\\ud800"', "", " ", "[1", "2],3", "plain text"])
                 | st.text(alphabet='[]{}1,": a', max_size=6))

entry_fields = (stored_values.map(lambda value: {"value": value})
                | st.fixed_dictionaries({"user": st.text(max_size=4)})  # one field, not a value
                | st.dictionaries(st.sampled_from(["value", "user", "kind"]), st.text(max_size=4),
                                  min_size=2, max_size=3))


@settings(max_examples=300, deadline=None)
@given(fields=st.lists(entry_fields, max_size=12))
def test_a_batch_of_entries_gives_the_records_entry_by_entry_gives(fields):
    entries = [(f"{index}-0", entry) for index, entry in enumerate(fields)]
    # repr: 1.0 is not 1 or True, and NaN is NaN
    assert repr(entry_records(entries)) == repr([entry_record(entry) for entry in fields])


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), unique=True, max_size=10),
       end=st.tuples(st.integers(0, 6), st.integers(0, 3)))
def test_entries_up_to_an_id_are_those_the_id_does_not_pass(ids, end):
    entries = [(f"{milliseconds}-{sequence}", {}) for milliseconds, sequence in sorted(ids)]
    assert entries_up_to(entries, end) == [entry for entry in entries if stream_id(entry[0]) <= end]


@settings(max_examples=200, deadline=None)
@given(record=json_values | st.builds(lambda value: {"when": value}, st.dates()))
def test_records_are_written_as_json_dumps_writes_them(record):
    assert encode_record(record) == json.dumps(record, default=str)


def test_replies_are_parsed_by_hiredis():
    """The pure-Python reply parser held a Redis source to about 140k entries/s (hiredis: 740k)."""
    assert redis.utils.HIREDIS_AVAILABLE
