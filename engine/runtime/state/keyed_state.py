"""Keyed state: per-key value, list, map and reducing state of one operator in one subtask.

The operator's input arrives over a hash edge, so this subtask sees exactly the keys of
its key-group range. Each state is a plain dict from key to value, used directly by the
operators' batch loops (``state.entries``): a dict lookup per record is the whole cost.
Key groups matter only when the state leaves the subtask: a snapshot groups the entries
by key group, and a restore keeps only the key groups of the (possibly new) range. So
partitioning into key groups is exact on disk and free in the hot loop.

Value rules: ``value``/``reducing`` values are treated as immutable (replace, do not
mutate), so a snapshot is a shallow copy of the dict; list and map values are copied one
level deep. The copy is the synchronous part of a checkpoint; grouping by key group and
serialising happen later off the mailbox thread, on the copy.

Threading model: the backend and its states belong to the subtask's mailbox thread;
:meth:`KeyedStateBackend.snapshot` returns an independent object that the asynchronous
part may read from another thread.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from engine.runtime.state.key_groups import KeyGroupRange, key_group_for

_MISSING = object()


class KeyedState:
    """Base of the keyed state kinds: a name and a dict of entries."""

    kind = ""

    def __init__(self, name: str):
        self.name = name
        self.entries: dict[Any, Any] = {}
        """key -> value; operators may use it directly in their batch loops."""

    def clear(self, key) -> None:
        self.entries.pop(key, None)

    def keys(self):
        return self.entries.keys()

    def copy_entries(self) -> dict:
        return dict(self.entries)

    def __len__(self) -> int:
        return len(self.entries)


class ValueState(KeyedState):
    """One value per key."""

    kind = "value"

    def get(self, key, default=None):
        return self.entries.get(key, default)

    def update(self, key, value) -> None:
        self.entries[key] = value


class ListState(KeyedState):
    """A list of values per key."""

    kind = "list"

    def get(self, key) -> list:
        return self.entries.get(key, [])

    def add(self, key, value) -> None:
        values = self.entries.get(key)
        if values is None:
            self.entries[key] = [value]
        else:
            values.append(value)

    def update(self, key, values: Iterable) -> None:
        self.entries[key] = list(values)

    def copy_entries(self) -> dict:
        return {key: list(values) for key, values in self.entries.items()}


class MapState(KeyedState):
    """A dict per key."""

    kind = "map"

    def get(self, key, user_key, default=None):
        mapping = self.entries.get(key)
        return default if mapping is None else mapping.get(user_key, default)

    def put(self, key, user_key, value) -> None:
        mapping = self.entries.get(key)
        if mapping is None:
            self.entries[key] = {user_key: value}
        else:
            mapping[user_key] = value

    def remove(self, key, user_key) -> None:
        mapping = self.entries.get(key)
        if mapping is not None:
            mapping.pop(user_key, None)
            if not mapping:
                del self.entries[key]

    def items(self, key):
        return self.entries.get(key, {}).items()

    def copy_entries(self) -> dict:
        return {key: dict(mapping) for key, mapping in self.entries.items()}


class BucketState(MapState):
    """A dict of lists per key (``key -> {bucket: [values]}``), appended to in place.

    Joins buffer records per key and time (or window) bucket and append to a bucket's list
    in their batch loops (``entries`` directly), where replacing an immutable tuple would
    copy the bucket for every record. So a snapshot copies two levels deep: the dicts and
    the lists, not the values.
    """

    def pop(self, key, bucket) -> list | None:
        """Remove and return ``key``'s ``bucket`` (None when it is not there); forget an empty key."""
        buckets = self.entries.get(key)
        if buckets is None:
            return None
        values = buckets.pop(bucket, None)
        if not buckets:
            del self.entries[key]
        return values

    def copy_entries(self) -> dict:
        return {key: {bucket: list(values) for bucket, values in buckets.items()}
                for key, buckets in self.entries.items()}


class ReducingState(KeyedState):
    """One value per key, combined with each added value by ``reduce_function(old, new)``."""

    kind = "reducing"

    def __init__(self, name: str, reduce_function: Callable[[Any, Any], Any]):
        super().__init__(name)
        self.reduce_function = reduce_function

    def get(self, key, default=None):
        return self.entries.get(key, default)

    def add(self, key, value):
        current = self.entries.get(key, _MISSING)
        result = value if current is _MISSING else self.reduce_function(current, value)
        self.entries[key] = result
        return result


class KeyedStateSnapshot:
    """A consistent copy of all keyed states of one operator, safe to read from any thread."""

    def __init__(self, kinds: dict[str, str], entries: dict[str, dict], max_parallelism: int,
                 key_group_range: KeyGroupRange):
        self.kinds = kinds
        self.entries = entries
        self.max_parallelism = max_parallelism
        self.key_group_range = key_group_range

    def by_key_group(self) -> dict[int, dict[str, dict]]:
        """Return ``{key group: {state name: {key: value}}}`` (the expensive part, done async)."""
        groups: dict[int, dict[str, dict]] = {}
        max_parallelism = self.max_parallelism
        cache: dict[Any, int] = {}
        for name, entries in self.entries.items():
            for key, value in entries.items():
                group = cache.get(key)
                if group is None:
                    group = cache[key] = key_group_for(key, max_parallelism)
                groups.setdefault(group, {}).setdefault(name, {})[key] = value
        return groups

    def is_empty(self) -> bool:
        return not any(self.entries.values())


class KeyedStateBackend:
    """The keyed states of one operator in one subtask, for the key groups of ``key_group_range``."""

    def __init__(self, max_parallelism: int, key_group_range: KeyGroupRange):
        self.max_parallelism = max_parallelism
        self.key_group_range = key_group_range
        self._states: dict[str, KeyedState] = {}
        self._restored: dict[str, dict] = {}

    def value_state(self, name: str) -> ValueState:
        return self._register(ValueState(name))

    def list_state(self, name: str) -> ListState:
        return self._register(ListState(name))

    def map_state(self, name: str) -> MapState:
        return self._register(MapState(name))

    def bucket_state(self, name: str) -> BucketState:
        return self._register(BucketState(name))

    def reducing_state(self, name: str, reduce_function: Callable[[Any, Any], Any]) -> ReducingState:
        return self._register(ReducingState(name, reduce_function))

    def register(self, state: KeyedState) -> Any:
        """Register a state of an operator's own kind (a :class:`KeyedState` whose ``copy_entries``
        gives what a checkpoint writes); its ``entries`` get what a restore brought for its name."""
        return self._register(state)

    def _register(self, state: KeyedState) -> Any:
        existing = self._states.get(state.name)
        if existing is not None:
            if existing.kind != state.kind:
                raise ValueError(f"keyed state '{state.name}' is a {existing.kind} state, not {state.kind}")
            return existing
        state.entries.update(self._restored.pop(state.name, {}))
        self._states[state.name] = state
        return state

    @property
    def states(self) -> dict[str, KeyedState]:
        return self._states

    def clear(self) -> None:
        """Forget every key of every state (batch mode drops finished keys this way)."""
        for state in self._states.values():
            state.entries.clear()
        self._restored.clear()

    def snapshot(self) -> KeyedStateSnapshot:
        """The synchronous part of a checkpoint: copy every state's entries."""
        kinds = {name: state.kind for name, state in self._states.items()}
        entries = {name: state.copy_entries() for name, state in self._states.items()}
        for name, restored in self._restored.items():  # restored but not (yet) registered
            entries.setdefault(name, dict(restored))
            kinds.setdefault(name, "value")
        return KeyedStateSnapshot(kinds, entries, self.max_parallelism, self.key_group_range)

    def restore(self, key_groups: dict[int, dict[str, dict]]) -> None:
        """Load ``{key group: {state name: {key: value}}}``, keeping only this backend's key groups."""
        key_group_range = self.key_group_range
        for group, states in key_groups.items():
            if int(group) not in key_group_range:
                continue
            for name, entries in states.items():
                target = self._states.get(name)
                if target is not None:
                    target.entries.update(entries)
                else:
                    self._restored.setdefault(name, {}).update(entries)
