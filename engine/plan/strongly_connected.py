"""Strongly connected components (Tarjan), iterative so deep graphs cannot hit the recursion limit.

Regions that depend on each other in a cycle can never be scheduled one after the other
(seed 002: the all-to-all blocking edge inside a logical region deadlocks), so every
strongly connected component of the region dependency graph becomes one region.
"""
from __future__ import annotations

from typing import Sequence


def strongly_connected_components(successors: Sequence[Sequence[int]]) -> list[list[int]]:
    """Return the strongly connected components of the graph ``i -> successors[i]``.

    Nodes are ``0..len(successors)-1``; every node is in exactly one component. Runs in
    O(nodes + edges) with an explicit stack instead of recursion.
    """
    count = len(successors)
    unvisited = -1
    discovery = [unvisited] * count
    low_link = [0] * count
    on_stack = bytearray(count)
    component_stack: list[int] = []
    components: list[list[int]] = []
    next_discovery = 0
    for root in range(count):
        if discovery[root] != unvisited:
            continue
        discovery[root] = low_link[root] = next_discovery
        next_discovery += 1
        component_stack.append(root)
        on_stack[root] = 1
        work = [(root, 0)]
        while work:
            node, next_edge = work[-1]
            edges = successors[node]
            if next_edge < len(edges):
                work[-1] = (node, next_edge + 1)
                successor = edges[next_edge]
                if discovery[successor] == unvisited:
                    discovery[successor] = low_link[successor] = next_discovery
                    next_discovery += 1
                    component_stack.append(successor)
                    on_stack[successor] = 1
                    work.append((successor, 0))
                elif on_stack[successor] and discovery[successor] < low_link[node]:
                    low_link[node] = discovery[successor]
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low_link[node] < low_link[parent]:
                    low_link[parent] = low_link[node]
            if low_link[node] == discovery[node]:
                component = []
                while True:
                    member = component_stack.pop()
                    on_stack[member] = 0
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components
