"""Keyed and operator state: snapshots by key group, restore, rescaling by key-group ranges."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.checkpoint import storage
from engine.runtime.state.key_groups import KeyGroupRange, key_group_for
from engine.runtime.state.keyed_state import KeyedStateBackend
from engine.runtime.state.operator_state import OperatorStateBackend
from engine.runtime.state.restore import TaskRestore
from engine.runtime.state.snapshot import OperatorSnapshot, TaskStateSnapshot, deserialise_task_state

MAX_PARALLELISM = 32


def backend(parallelism=1, index=0):
    return KeyedStateBackend(MAX_PARALLELISM, KeyGroupRange.for_subtask(MAX_PARALLELISM, parallelism, index))


def test_state_kinds():
    keyed = backend()
    value = keyed.value_state("v")
    value.update("a", 1)
    listing = keyed.list_state("l")
    listing.add("a", 1)
    listing.add("a", 2)
    mapping = keyed.map_state("m")
    mapping.put("a", "x", 1)
    mapping.remove("a", "x")
    reducing = keyed.reducing_state("r", lambda a, b: a + b)
    reducing.add("a", 2)
    assert reducing.add("a", 3) == 5
    assert value.get("a") == 1 and listing.get("a") == [1, 2] and mapping.get("a", "x") is None
    assert keyed.value_state("v") is value


def test_snapshot_is_a_copy_that_later_updates_do_not_change():
    keyed = backend()
    listing = keyed.list_state("l")
    listing.add("k", 1)
    snapshot = keyed.snapshot()
    listing.add("k", 2)
    keyed.value_state("v").update("k", 9)
    assert snapshot.entries == {"l": {"k": [1]}}


def test_snapshot_groups_entries_by_key_group():
    keyed = backend()
    values = keyed.value_state("v")
    for key in range(100):
        values.update(key, key * 10)
    groups = keyed.snapshot().by_key_group()
    for group, states in groups.items():
        for key in states["v"]:
            assert key_group_for(key, MAX_PARALLELISM) == group
    assert sum(len(states["v"]) for states in groups.values()) == 100


def write_checkpoint(tmp_path, parallelism, entries_per_subtask, elements_per_subtask, finished=()):
    """Write state files and a metadata dict as a checkpoint of vertex "op" would have them."""
    location = str(tmp_path / "chk-1")
    tasks = {}
    for index in range(parallelism):
        key_group_range = KeyGroupRange.for_subtask(MAX_PARALLELISM, parallelism, index)
        keyed = KeyedStateBackend(MAX_PARALLELISM, key_group_range)
        values = keyed.value_state("v")
        for key, value in entries_per_subtask[index].items():
            values.update(key, value)
        operator = OperatorStateBackend()
        operator.list_state("splits").update(elements_per_subtask[index])
        snapshot = TaskStateSnapshot(("op", index), key_group_range)
        snapshot.add_operator("op", OperatorSnapshot(keyed.snapshot(), operator.snapshot()))
        data, described, _ = snapshot.serialise()
        size = storage.write_file(location, f"op-{index}.state", data)
        tasks[f"op#{index}"] = {"path": f"op-{index}.state", "size": size,
                                "key_group_range": key_group_range.as_list(), "operators": described}
    return {"checkpoint_id": 1, "location": location, "tasks": tasks,
            "vertices": {"op": {"parallelism": parallelism, "max_parallelism": MAX_PARALLELISM, "operators": ["op"],
                                "finished": list(finished)}}}


def split_by_owner(entries, parallelism):
    owned = [dict() for _ in range(parallelism)]
    for key, value in entries.items():
        group = key_group_for(key, MAX_PARALLELISM)
        owned[group * parallelism // MAX_PARALLELISM][key] = value
    return owned


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(st.one_of(st.integers(), st.text(max_size=5)), st.integers(), max_size=60),
       st.integers(min_value=1, max_value=4), st.integers(min_value=1, max_value=5))
def test_rescaling_restores_every_key_exactly_once(tmp_path_factory, entries, old_parallelism, new_parallelism):
    tmp_path = tmp_path_factory.mktemp("rescale")
    metadata = write_checkpoint(tmp_path, old_parallelism, split_by_owner(entries, old_parallelism),
                                [[f"split-{i}"] for i in range(old_parallelism)])
    restored = {}
    elements = []
    for index in range(new_parallelism):
        restore = TaskRestore(metadata, index, new_parallelism)
        key_group_range = KeyGroupRange.for_subtask(MAX_PARALLELISM, new_parallelism, index)
        keyed = KeyedStateBackend(MAX_PARALLELISM, key_group_range)
        keyed.restore(restore.keyed_state("op", key_group_range))
        values = keyed.value_state("v")
        for key in values.keys():
            assert key_group_for(key, MAX_PARALLELISM) in key_group_range
            assert key not in restored
        restored.update(values.entries)
        elements.extend(restore.operator_state("op")["splits"])
    assert restored == entries
    assert sorted(elements) == sorted(f"split-{i}" for i in range(old_parallelism))


def test_same_parallelism_gives_each_subtask_its_own_operator_state(tmp_path):
    metadata = write_checkpoint(tmp_path, 3, [{}, {}, {}], [["a", "b"], [], ["c"]])
    assert [TaskRestore(metadata, i, 3).operator_state("op")["splits"] for i in range(3)] == [["a", "b"], [], ["c"]]


def test_unknown_operators_are_not_restored_and_finished_vertices_are_recognised(tmp_path):
    metadata = write_checkpoint(tmp_path, 2, [{}, {}], [[], []], finished=[0, 1])
    restore = TaskRestore(metadata, 0, 1)
    assert restore.knows("op") and restore.is_finished("op")
    assert not restore.knows("new") and restore.operator_state("new") is None


def test_state_file_round_trip_keeps_tuples():
    keyed = backend()
    keyed.value_state("v").update(("a", 1), (2, 3))
    snapshot = TaskStateSnapshot(("op", 0), keyed.key_group_range)
    snapshot.add_operator("op", OperatorSnapshot(keyed.snapshot(), None))
    data, _, _ = snapshot.serialise()
    groups = deserialise_task_state(data)["op"]["keyed"]
    assert [states["v"] for states in groups.values()] == [{("a", 1): (2, 3)}]


def test_keyed_state_needs_the_same_max_parallelism(tmp_path):
    metadata = write_checkpoint(tmp_path, 1, [{1: 1}], [[]])
    with pytest.raises(ValueError, match="max_parallelism 64"):
        TaskRestore(metadata, 0, 1).keyed_state("op", KeyGroupRange(0, 63), 64)


def write_list_states(tmp_path, per_subtask: list[dict]) -> dict:
    """A checkpoint of vertex "op" whose subtask i filled its list states as ``per_subtask[i]`` says:
    ``{("union" | "broadcast" | "split", name): [elements]}``."""
    location = str(tmp_path / "chk-2")
    tasks = {}
    for index, states in enumerate(per_subtask):
        operator = OperatorStateBackend()
        for (mode, name), elements in states.items():
            state = {"union": operator.union_list_state, "broadcast": operator.broadcast_list_state,
                     "split": operator.list_state}[mode](name)
            state.update(elements)
        snapshot = TaskStateSnapshot(("op", index), None)
        snapshot.add_operator("op", OperatorSnapshot(None, operator.snapshot()))
        data, described, _ = snapshot.serialise()
        size = storage.write_file(location, f"op-{index}.state", data)
        tasks[f"op#{index}"] = {"path": f"op-{index}.state", "size": size, "operators": described}
    return {"checkpoint_id": 2, "location": location, "tasks": tasks,
            "vertices": {"op": {"parallelism": len(per_subtask), "operators": ["op"], "finished": []}}}


@pytest.mark.parametrize("new_parallelism", [1, 2, 3])
def test_union_list_state_gives_every_subtask_all_elements_and_broadcast_state_one_copy(tmp_path, new_parallelism):
    metadata = write_list_states(tmp_path, [
        {("union", "offsets"): [("p0", 5)], ("broadcast", "rules"): ["r1", "r2"], ("split", "splits"): ["a"]},
        {("union", "offsets"): [("p1", 7), ("p2", 1)], ("broadcast", "rules"): ["r1", "r2"], ("split", "splits"): ["b"]},
    ])
    splits = []
    for index in range(new_parallelism):
        backend = OperatorStateBackend(TaskRestore(metadata, index, new_parallelism).operator_state("op"))
        assert backend.union_list_state("offsets").get() == [("p0", 5), ("p1", 7), ("p2", 1)]
        assert backend.broadcast_list_state("rules").get() == ["r1", "r2"]
        splits += backend.list_state("splits").get()
    assert sorted(splits) == ["a", "b"]  # round robin: each element once
