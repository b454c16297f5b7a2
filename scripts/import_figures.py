"""The shape of a package's imports, measured from the code with grimp (import-linter's graph).

    .venv/bin/python scripts/import_figures.py studio
    .venv/bin/python scripts/import_figures.py engine.runtime

Prints, for the package: its files and the imports between them, the import cycles between
files, and the same at the level of its *rooms* (each module or subpackage directly inside
it: ``studio/runs/`` is one room). Rooms are put on floors: a room's floor is one above the
highest room it imports; rooms that import each other in a circle share no order, so the
arrows of such a circle that cannot point down are counted as *pointing up*. A layered
package has no room circle and no arrow pointing up. Then the largest modules by lines.
The last line is one JSON object with the figures.

Imports inside functions count: they are arrows of the design as much as those at the top.
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent


def import_graph(package: str) -> tuple[list[str], set[tuple[str, str]]]:
    """The package's modules (migrations left out: generated) and the imports between them."""
    graph = grimp.build_graph(package.split(".")[0], cache_dir=None)  # a subpackage too: engine.runtime
    modules = sorted(m for m in graph.modules if m.startswith(package + ".") and ".migrations" not in m)
    inside = set(modules)
    imports = {(m, target) for m in modules for target in graph.find_modules_directly_imported_by(m)
               if target in inside}
    return modules, imports


def circles(nodes: list[str], arrows: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node (Tarjan, iterative)."""
    following = defaultdict(list)
    for source, target in sorted(arrows):
        following[source].append(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in nodes:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if position < len(following[node]):
                work.append((node, position + 1))
                nxt = following[node][position]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def arrows_pointing_up(group: list[str], arrows: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """The arrows of a circle that point up in the order that leaves fewest of them
    (Eades, Lin and Smyth's greedy order: rooms that import nothing left go down first)."""
    remaining = set(group)
    inner = {(a, b) for a, b in arrows if a in remaining and b in remaining}
    top, bottom = [], []
    while remaining:
        live = {(a, b) for a, b in inner if a in remaining and b in remaining}
        sinks = sorted(n for n in remaining if not any(a == n for a, _ in live))
        sources = sorted(n for n in remaining if not any(b == n for _, b in live))
        if sinks:
            bottom.insert(0, sinks[0])
            remaining.discard(sinks[0])
        elif sources:
            top.append(sources[0])
            remaining.discard(sources[0])
        else:
            best = max(sorted(remaining), key=lambda n: sum(a == n for a, _ in live) - sum(b == n for _, b in live))
            top.append(best)
            remaining.discard(best)
    position = {n: i for i, n in enumerate(top + bottom)}  # top first
    return sorted((a, b) for a, b in inner if position[a] > position[b])


def room_of(module: str, package: str) -> str:
    return ".".join(module.split(".")[:len(package.split(".")) + 1])


def floors(rooms: list[str], arrows: set[tuple[str, str]], groups: list[list[str]]) -> dict[str, int]:
    """Each room's floor: 1 for rooms that import no room, else one above the highest they import
    (the rooms of one circle share a floor)."""
    group_of = {room: tuple(group) for group in groups for room in group}
    unit = {room: group_of.get(room, (room,)) for room in rooms}
    below = defaultdict(set)
    for a, b in arrows:
        if unit[a] != unit[b]:
            below[unit[a]].add(unit[b])
    floor: dict[tuple, int] = {}

    def floor_of(u: tuple) -> int:
        if u not in floor:
            floor[u] = 1 + max((floor_of(v) for v in below[u]), default=0)
        return floor[u]

    return {room: floor_of(unit[room]) for room in rooms}


def lines_of(module: str) -> int:
    path = ROOT / Path(*module.split("."))
    file = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return len(file.read_text().splitlines()) if file.exists() else 0


def main(package: str) -> dict:
    sys.path.insert(0, str(ROOT))
    modules, imports = import_graph(package)
    file_circles = circles(modules, imports)
    rooms = sorted({room_of(m, package) for m in modules})
    room_arrows = {(room_of(a, package), room_of(b, package)) for a, b in imports
                   if room_of(a, package) != room_of(b, package)}
    room_circles = circles(rooms, room_arrows)
    up = [arrow for group in room_circles for arrow in arrows_pointing_up(group, room_arrows)]
    floor = floors(rooms, room_arrows, room_circles)
    largest = sorted(((lines_of(m), m) for m in modules), reverse=True)[:8]

    print(f"{package}: {len(modules)} files, {len(imports)} imports between them, "
          f"{len(file_circles)} import cycle(s)")
    for group in file_circles:
        print("  cycle: " + " -> ".join(group))
    print(f"{len(rooms)} rooms on {max(floor.values(), default=0)} floors, {len(room_arrows)} arrows between rooms, "
          f"{len(room_circles)} room circle(s), {len(up)} arrow(s) pointing up")
    for a, b in up:
        print(f"  up: {a} -> {b} (floor {floor[a]} -> {floor[b]})")
    print("largest modules: " + ", ".join(f"{m} {n}" for n, m in largest))
    figures = {"package": package, "files": len(modules), "imports": len(imports), "cycles": len(file_circles),
               "rooms": len(rooms), "floors": max(floor.values(), default=0), "room_arrows": len(room_arrows),
               "room_circles": len(room_circles), "arrows_pointing_up": len(up),
               "largest": {m: n for n, m in largest}}
    print(json.dumps(figures))
    return figures


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "studio")
