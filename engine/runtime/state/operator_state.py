"""Operator (non-keyed) state: named lists of elements owned by one subtask.

Sources keep their positions here (one element per split: a file and its offset, a range
of the sequence, a stream id) and two-phase-commit sinks their pending transactions.
On restore at the same parallelism every subtask gets back its own lists. At another
parallelism the elements of all old subtasks are pooled and dealt out round robin
(Flink's "split distribute" redistribution), which is why an element must stand on its
own: a split, never "the third element of subtask 2".

Two more redistributions, chosen by the operator when it asks for the state (the mode
travels in the stored name, so a restore knows it without the operator's code):

- *union* (Flink's ``getUnionListState``): on every restore, at any parallelism, each
  subtask gets the elements of all old subtasks and keeps what it needs (for example the
  splits it is assigned by index);
- *broadcast*: every subtask holds the same elements (broadcast state); on restore each
  gets old subtask 0's copy, so a new subtask starts with what the others have.

Threading model: mailbox thread; :meth:`OperatorStateBackend.snapshot` returns copies.
"""
from __future__ import annotations

from typing import Iterable


UNION_PREFIX = "union/"
BROADCAST_PREFIX = "broadcast/"
"""Stored names of union and broadcast list states start with these."""


class OperatorListState:
    """A list of elements; ``update`` replaces it, ``add`` appends one."""

    def __init__(self, name: str, elements: Iterable = ()):
        self.name = name
        self.elements: list = list(elements)

    def get(self) -> list:
        return self.elements

    def update(self, elements: Iterable) -> None:
        self.elements = list(elements)

    def add(self, element) -> None:
        self.elements.append(element)

    def clear(self) -> None:
        self.elements = []


class OperatorStateBackend:
    """The list states of one operator in one subtask."""

    def __init__(self, restored: dict[str, list] | None = None):
        self._restored = dict(restored or {})
        self._states: dict[str, OperatorListState] = {}
        self.is_restored = restored is not None
        """Whether this subtask started from a checkpoint (even one that gave it no elements)."""

    def list_state(self, name: str) -> OperatorListState:
        state = self._states.get(name)
        if state is None:
            state = self._states[name] = OperatorListState(name, self._restored.pop(name, ()))
        return state

    def union_list_state(self, name: str) -> OperatorListState:
        """A list state restored as the union of every old subtask's elements (see the module docstring)."""
        return self.list_state(UNION_PREFIX + name)

    def broadcast_list_state(self, name: str) -> OperatorListState:
        """A list state every subtask holds alike; restored from old subtask 0's copy."""
        return self.list_state(BROADCAST_PREFIX + name)

    def snapshot(self) -> dict[str, list]:
        """The synchronous copy: ``{name: [elements]}`` (elements must be plain, immutable data)."""
        result = {name: list(state.elements) for name, state in self._states.items()}
        for name, elements in self._restored.items():
            result.setdefault(name, list(elements))
        return result
