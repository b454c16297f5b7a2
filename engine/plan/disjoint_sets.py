"""Union-find over the integers 0..n-1, for building pipelined regions.

Regions are unions of vertices over pipelined connections. Union by size (the smaller set
is merged into the larger) with path halving keeps every operation effectively O(1), so
building regions is linear in the number of connections processed.
"""
from __future__ import annotations

from typing import Iterable


class DisjointSets:
    """Sets of the integers ``0..size-1``, initially one set per integer."""

    __slots__ = ("_parent", "_size")

    def __init__(self, size: int) -> None:
        self._parent = list(range(size))
        self._size = [1] * size

    def find(self, element: int) -> int:
        """Return the representative of the set holding ``element``."""
        parent = self._parent
        while parent[element] != element:
            parent[element] = parent[parent[element]]
            element = parent[element]
        return element

    def union(self, first: int, second: int) -> int:
        """Merge the sets of both elements (the smaller into the larger); return the representative."""
        first, second = self.find(first), self.find(second)
        if first == second:
            return first
        if self._size[first] < self._size[second]:
            first, second = second, first
        self._parent[second] = first
        self._size[first] += self._size[second]
        return first

    def union_all(self, elements: Iterable[int]) -> None:
        """Merge the sets of all given elements into one."""
        iterator = iter(elements)
        first = next(iterator, None)
        if first is None:
            return
        for element in iterator:
            first = self.union(first, element)

    def set_numbers(self) -> tuple[list[int], int]:
        """Number the sets densely in order of their smallest element.

        Returns ``(set_of, count)`` where ``set_of[element]`` is the number of its set.
        """
        numbers: dict[int, int] = {}
        set_of = []
        for element in range(len(self._parent)):
            root = self.find(element)
            number = numbers.get(root)
            if number is None:
                number = numbers[root] = len(numbers)
            set_of.append(number)
        return set_of, len(numbers)
