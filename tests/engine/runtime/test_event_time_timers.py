"""Event-time timer queues (``timer_service.EventTimeTimers``): plain tuples while keys and namespaces are
one type of int or str, wrapped once any other comes, and the same timers fired in the same order."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.runtime.timer_service import EventTimeTimers, _Ordered


def test_timers_of_str_keys_and_int_namespaces_stay_plain_tuples_and_fire_in_order():
    timers = EventTimeTimers()
    for timestamp, key, namespace in [(30, "b", 2), (10, "b", 1), (30, "a", 7), (10, "b", 1), (20, "c", 0), (30, "a", 3)]:
        timers.register(timestamp, key, namespace)
    assert len(timers) == 5  # the duplicate counted once
    assert all(type(entry[1]) is str and type(entry[2]) is int for entry in timers._heap)  # no wrappers
    assert timers.fire_up_to(20) == [(10, "b", 1), (20, "c", 0)]
    timers.register(25, "a", 1)
    timers.register(20, "c", 0)  # fired: may be registered again
    assert timers.fire_up_to(100) == [(20, "c", 0), (25, "a", 1), (30, "a", 3), (30, "a", 7), (30, "b", 2)]
    assert timers.fire_up_to(100) == [] and len(timers) == 0


def test_a_timer_of_another_type_wraps_the_queue_and_ties_never_compare_unorderable_values():
    timers = EventTimeTimers()
    timers.register(10, "a", 1)
    timers.register(10, 2, 1)  # an int key beside a str key: comparing them would raise
    timers.register(10, True, 1)  # a bool is not an int here
    timers.register(5, ("k", 1), None)
    timers.register(10, "a", 1)  # still registered once
    assert all(type(entry[1]) is _Ordered for entry in timers._heap)
    fired = timers.fire_up_to(10)
    assert fired[0] == (5, ("k", 1), None)
    assert sorted(map(repr, fired[1:])) == sorted(map(repr, [(10, "a", 1), (10, 2, 1), (10, True, 1)]))
    assert len(timers) == 0


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(st.one_of(
    st.tuples(st.just("register"), st.integers(0, 50),
              st.one_of(st.sampled_from(["a", "b", "c"]), st.integers(0, 3), st.booleans(), st.none(),
                        st.tuples(st.integers(0, 2))),
              st.one_of(st.integers(0, 3), st.sampled_from(["x", "y"]))),
    st.tuples(st.just("fire"), st.integers(0, 60))), max_size=60),
    one_type=st.booleans())
def test_timers_fire_once_each_in_timestamp_order_whatever_their_types(steps, one_type):
    timers, pending, fired = EventTimeTimers(), set(), []
    for step in steps:
        if step[0] == "register":
            _, timestamp, key, namespace = step
            if one_type:
                key, namespace = str(key), hash(repr(namespace)) % 7
            timers.register(timestamp, key, namespace)
            pending.add((timestamp, key, namespace))
        else:
            due = sorted((timer for timer in pending if timer[0] <= step[1]), key=repr)
            got = timers.fire_up_to(step[1])
            assert sorted(got, key=repr) == due
            assert [timer[0] for timer in got] == sorted(timer[0] for timer in got)
            if one_type:  # plain tuples: full (timestamp, key, namespace) order
                assert got == sorted(got)
            pending -= set(got)
            fired += got
    assert len(timers) == len(pending)
