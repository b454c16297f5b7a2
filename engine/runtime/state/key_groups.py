"""Key groups: the unit in which keyed state is partitioned, checkpointed and rescaled.

Keys are not assigned to subtasks directly. Each key belongs to one of ``max_parallelism``
*key groups* (a stable hash of the key, modulo max_parallelism), and each subtask owns a
contiguous range of key groups. The range depends only on (max_parallelism, parallelism,
subtask index), so after a restart at another parallelism every subtask knows which key
groups of the old snapshot files it must read. Max parallelism is therefore fixed for the
life of a job's state; parallelism is not.

The hash must be the same in every process and every run: Python's ``hash`` of ``str``
is salted per process (PYTHONHASHSEED), so strings and bytes are hashed with CRC-32 here;
ints hash as themselves, integral floats as the equal int (a dict, and so the keyed
state, treats 1 and 1.0 as one key), other floats, bools and None by their deterministic
Python hashes; tuples and lists combine their elements. The result is scrambled by a
multiplicative (Fibonacci) hash so that consecutive integer keys spread over all key groups.

Examples::

    >>> KeyGroupRange.for_subtask(128, 2, 0), KeyGroupRange.for_subtask(128, 2, 1)
    (KeyGroupRange(start=0, end=63), KeyGroupRange(start=64, end=127))
    >>> subtask_for_key_group(128, 2, 64)
    1
    >>> key_group_for("user-7", 128) == key_group_for("user-7", 128)
    True
"""
from __future__ import annotations

import zlib
from typing import Iterable

_GOLDEN = 0x9E3779B1
_MASK32 = 0xFFFFFFFF


def stable_hash(key) -> int:
    """Return a hash of ``key`` that is equal in every process and every run."""
    kind = type(key)
    if kind is int:
        return key
    if kind is str:
        return zlib.crc32(key.encode("utf-8", "surrogatepass"))
    if kind is bytes:
        return zlib.crc32(key)
    if kind is tuple or kind is list:
        combined = 0x345678
        for element in key:
            combined = ((combined * 1000003) ^ stable_hash(element)) & _MASK32
        return combined
    if key is None:
        return 0
    if kind is float:  # equal numbers are one key (1 == 1.0 == True): hash an integral float as its int
        return int(key) if key.is_integer() else hash(key)
    if isinstance(key, str):
        return stable_hash(str(key))
    if isinstance(key, bytes):
        return stable_hash(bytes(key))
    if kind is dict:
        return stable_hash(tuple(sorted((stable_hash(k), stable_hash(v)) for k, v in key.items())))
    return hash(key)


def _scramble(hash_value: int) -> int:
    return ((hash_value * _GOLDEN) & _MASK32) >> 8


def key_group_for(key, max_parallelism: int) -> int:
    """Return the key group of ``key``."""
    return _scramble(stable_hash(key)) % max_parallelism


def key_groups_for(keys: Iterable, max_parallelism: int) -> list[int]:
    """Return the key group of each key, with an integer fast path (one batch at a time)."""
    return [
        (((key * _GOLDEN) & _MASK32) >> 8) % max_parallelism if type(key) is int
        else key_group_for(key, max_parallelism)
        for key in keys
    ]


def subtask_for_key_group(max_parallelism: int, parallelism: int, key_group: int) -> int:
    """Return the index of the subtask that owns ``key_group``."""
    return key_group * parallelism // max_parallelism


def subtask_for_key(key, max_parallelism: int, parallelism: int) -> int:
    return subtask_for_key_group(max_parallelism, parallelism, key_group_for(key, max_parallelism))


class KeyGroupRange:
    """The key groups ``start..end`` (both inclusive) owned by one subtask; empty if end < start."""

    __slots__ = ("start", "end")

    def __init__(self, start: int, end: int):
        self.start = start
        self.end = end

    @classmethod
    def for_subtask(cls, max_parallelism: int, parallelism: int, index: int) -> "KeyGroupRange":
        """The range of subtask ``index``: exactly the key groups ``subtask_for_key_group`` maps to it."""
        if not 0 <= index < parallelism <= max_parallelism:
            raise ValueError(
                f"subtask {index} of parallelism {parallelism} with max_parallelism {max_parallelism}")
        start = (index * max_parallelism + parallelism - 1) // parallelism
        end = ((index + 1) * max_parallelism - 1) // parallelism
        return cls(start, end)

    @classmethod
    def from_list(cls, bounds) -> "KeyGroupRange":
        """The inverse of :meth:`as_list`."""
        return cls(int(bounds[0]), int(bounds[1]))

    def __contains__(self, key_group) -> bool:
        return self.start <= key_group <= self.end

    def __len__(self) -> int:
        return max(0, self.end - self.start + 1)

    def __iter__(self):
        return iter(range(self.start, self.end + 1))

    def __eq__(self, other) -> bool:
        return isinstance(other, KeyGroupRange) and (self.start, self.end) == (other.start, other.end)

    def __hash__(self) -> int:
        return hash((self.start, self.end))

    def __repr__(self) -> str:
        return f"KeyGroupRange(start={self.start}, end={self.end})"

    def intersects(self, other: "KeyGroupRange") -> bool:
        return max(self.start, other.start) <= min(self.end, other.end)

    def as_list(self) -> list[int]:
        """The msgpack-able form ``[start, end]``."""
        return [self.start, self.end]
