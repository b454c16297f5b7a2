"""State files load without running what they name: only data types may be in them."""
from __future__ import annotations

import datetime
import json
import os
import pickle
import uuid
from collections import Counter, OrderedDict, defaultdict, deque
from decimal import Decimal
from pathlib import Path

import pytest

from engine.checkpoint.storage import load_metadata
from engine.cluster.local import LocalCluster
from engine.runtime.io.events import WATERMARK_IDLE, TimestampedBatch, Watermark
from engine.runtime.state import safe_pickle
from engine.runtime.state.key_groups import KeyGroupRange
from engine.runtime.state.keyed_state import KeyedStateBackend
from engine.runtime.state.snapshot import OperatorSnapshot, TaskStateSnapshot, deserialise_channel_state, \
    deserialise_task_state
from tests.engine.cluster.test_local_cluster import keyed_sum


class Planted:
    """What an attacker writes: unpickling it runs a command that leaves a marker file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


class Opaque:
    """An object of a class of its own, as a ``transform.python`` could put in state."""


VALUES = [
    (1, "a", (2, 3)), {1, 2}, frozenset({"x"}), 2**100, -(2**70), Decimal("1.10"), b"\x00raw", bytearray(b"ba"),
    datetime.datetime(2026, 11, 26, 1, 2, 3, tzinfo=datetime.timezone.utc), datetime.date(2026, 1, 1),
    datetime.time(4, 5), datetime.timedelta(seconds=7), uuid.UUID(int=42), complex(1, 2), deque([1, 2]),
    OrderedDict(a=1), defaultdict(list, {"k": [1]}), Counter("aab"), {"nested": [{"t": (1, None, True, 1.5)}]},
]


def test_every_data_type_a_record_may_hold_survives_a_snapshot():
    backend = KeyedStateBackend(8, KeyGroupRange(0, 7))
    state = backend.value_state("v")
    for number, value in enumerate(VALUES):
        state.update((number, "key"), value)
    snapshot = TaskStateSnapshot(("agg", 0), KeyGroupRange(0, 7))
    snapshot.add_operator("agg", OperatorSnapshot(backend.snapshot(), {"offsets": [("file", 12)]}))
    snapshot.input_channels = {0: [TimestampedBatch([{"a": 1}], [5]), Watermark(4), WATERMARK_IDLE]}
    snapshot.input_channel_ids = [("e", ("src", 0), ("agg", 0))]
    data, _, _ = snapshot.serialise()
    operators = deserialise_task_state(data)
    restored = {key: values["v"] for groups in operators["agg"]["keyed"].values()
                for key, values in _by_key(groups).items()}
    assert sorted(restored.values(), key=repr) == sorted(VALUES, key=repr)
    assert operators["agg"]["operator"] == {"offsets": [("file", 12)]}
    [[_, items]] = deserialise_channel_state(data)["input"]
    assert items == [[{"a": 1}], Watermark(4), WATERMARK_IDLE] and items[0].timestamps == [5]


def _by_key(groups: dict) -> dict:
    found: dict = {}
    for name, entries in groups.items():
        for key, value in entries.items():
            found.setdefault(key, {})[name] = value
    return found


def test_a_planted_pickle_is_refused_naming_what_it_calls(tmp_path):
    marker = tmp_path / "ran"
    with pytest.raises(safe_pickle.UnsafeStateError, match=r"posix\.system"):
        safe_pickle.loads(pickle.dumps({"format": 1, "operators": Planted(marker)}))
    with pytest.raises(safe_pickle.UnsafeStateError, match=r"test_safe_state\.Opaque"):
        safe_pickle.loads(pickle.dumps([1, Opaque()]))
    assert not marker.exists()


def test_a_restore_from_a_planted_state_file_fails_and_runs_nothing(tmp_path):
    cluster = LocalCluster()
    handle = cluster.submit(keyed_sum(parallelism=1, count=None, rate=20000), checkpoint_dir=str(tmp_path / "c"))
    location = handle.trigger_savepoint(str(tmp_path / "savepoints")).result(timeout=20)
    handle.cancel()
    handle.wait(20)
    marker = tmp_path / "ran"
    state_files = [Path(location) / task["path"] for task in load_metadata(location)["tasks"].values()
                   if task and task.get("path")]
    assert state_files
    for state_file in state_files:
        state_file.write_bytes(pickle.dumps({"format": 1, "task": ["agg", 0], "operators": Planted(marker)}))
    # the digests of the files written go too, as whoever plants files writes the metadata too: the
    # unpickler is what stands between the file and a restore then
    metadata = json.loads((Path(location) / "_metadata").read_text())
    for task in metadata["tasks"].values():
        (task or {}).pop("sha256", None)
    (Path(location) / "_metadata").write_text(json.dumps(metadata))
    result = cluster.run(keyed_sum(parallelism=1, count=100), restore=location, timeout=30,
                         checkpoint_dir=str(tmp_path / "restored"))
    assert result.status == "FAILED"
    assert "posix.system" in result.failure and "not a data type" in result.failure
    assert not marker.exists()
