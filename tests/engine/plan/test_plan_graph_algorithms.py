"""Union-find and the iterative Tarjan SCC the region computation is built on."""
from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.plan.disjoint_sets import DisjointSets
from engine.plan.strongly_connected import strongly_connected_components


def canonical(components):
    return sorted(sorted(component) for component in components)


def test_known_components():
    successors = [[1], [2], [0, 3], [4], [3], []]
    assert canonical(strongly_connected_components(successors)) == [[0, 1, 2], [3, 4], [5]]


def test_a_cycle_far_deeper_than_the_recursion_limit_is_one_component():
    length = max(50_000, sys.getrecursionlimit() * 20)
    successors = [[node + 1] for node in range(length - 1)] + [[0]]
    (component,) = strongly_connected_components(successors)
    assert len(component) == length


def test_components_come_out_in_reverse_topological_order():
    successors = [[1], [2], []]
    assert strongly_connected_components(successors) == [[2], [1], [0]]


def graphs():
    """Adjacency lists of random directed graphs with 1 to 12 nodes."""
    return st.integers(1, 12).flatmap(
        lambda n: st.lists(st.lists(st.integers(0, n - 1), max_size=4), min_size=n, max_size=n)
    )


@settings(max_examples=150, deadline=None)
@given(graphs())
def test_components_are_the_mutually_reachable_sets(successors):
    count = len(successors)

    def reachable(start):
        seen, stack = {start}, [start]
        while stack:
            for successor in successors[stack.pop()]:
                if successor not in seen:
                    seen.add(successor)
                    stack.append(successor)
        return seen

    reach = [reachable(node) for node in range(count)]
    expected = {
        frozenset(other for other in range(count) if other in reach[node] and node in reach[other])
        for node in range(count)
    }
    assert {frozenset(component) for component in strongly_connected_components(successors)} == expected


def test_disjoint_sets_merge_and_number_sets_by_smallest_element():
    sets = DisjointSets(6)
    sets.union(4, 5)
    sets.union_all([1, 3, 5])
    assert sets.find(1) == sets.find(4)
    assert sets.find(0) != sets.find(2)
    set_of, count = sets.set_numbers()
    assert (set_of, count) == ([0, 1, 2, 1, 1, 1], 3)
    sets.union_all([])
    assert sets.set_numbers()[1] == 3
