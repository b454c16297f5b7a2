"""Restored state is data: what an operator finds in a snapshot is checked before it acts on it.

A snapshot may lie where a user can write, and a state file holds plain data of her
choosing (the safe unpickler loads nothing else). So an operator that acts on restored
state -- a sink committing or aborting the transactions it finds, a source seeking to an
offset, a split enumerator handing out splits -- derives the places it may touch from its
own configuration and checks every path, key, id, prefix and offset the state names
against them first: a file sink commits a pending file only inside its own directory,
under a name it could have produced; a source reads a split only of its own files, from a
non-negative offset. What fails the check fails the subtask with
:class:`RestoredStateRefused`, which names the node and the snapshot and touches nothing.
The checks run once per restored element (a split, a transaction), never per record.
"""
from __future__ import annotations

from typing import Any

from engine.runtime.operators.base import ConfigurationError


class RestoredStateRefused(ConfigurationError):
    """A node's restored state names something the node does not own: the snapshot is refused."""

    def __init__(self, node: dict, context, what: str):
        restore = getattr(context, "restore", None)
        location = getattr(restore, "location", None) or "?"
        super().__init__(node, f"the snapshot at {location} is refused: its state {what}")


def require(condition: bool, node: dict, context, what: str) -> None:
    """Refuse the snapshot (naming ``what`` its state holds) unless ``condition`` holds."""
    if not condition:
        raise RestoredStateRefused(node, context, what)


def is_offset(value: Any) -> bool:
    """A byte, row or group position: a non-negative int (not a bool)."""
    return type(value) is int and value >= 0


def is_optional_offset(value: Any) -> bool:
    return value is None or is_offset(value)


def restored_dicts(node: dict, context, name: str, elements) -> list[dict]:
    """The elements of a restored list state ``name``, each a dict with string keys (copied)."""
    result = []
    for element in elements:
        require(isinstance(element, dict) and all(isinstance(key, str) for key in element), node, context,
                f"holds {name} element {element!r:.80}, which is not what this node writes")
        result.append(dict(element))
    return result
