"""What the "first hour" browser stories share: the pipelines a newcomer builds, the two screen sizes
they look at them on, and the measures of what a person can read on the run graph."""
from __future__ import annotations

from pathlib import Path

from tests.support import grid_pipeline

SCREENS = ((1440, 900), (1280, 720))
"""A laptop and a small laptop: every story is looked at on both."""

READABLE_PX = 11
"""The smallest node text a person reads without leaning in, in screen pixels."""

RUN_GRAPH_NODES = '.run-graph [data-testid^="node-"][role="button"]'
"""The run graph's nodes: each opens its subtasks when clicked."""


def five_node_pipeline(name: str = "first-hour-five") -> dict:
    """Clicks, enriched, filtered and summed per user: a source, three operators and a sink."""
    nodes = [
        {"id": "clicks", "type": "source.datagen", "params": {"count": None, "rate": 200}},
        {"id": "enrich", "type": "transform.map", "params": {"expression": '{"user": x % 7, "n": x}'}},
        {"id": "valid", "type": "transform.filter", "params": {"predicate": 'x["n"] % 3 != 0'}},
        {"id": "per_user", "type": "aggregate.reduce", "params": {"function": "sum", "value": 'x["n"]'}},
        {"id": "out", "type": "sink.collect", "params": {}},
    ]
    for column, node in enumerate(nodes):
        node["ui"] = {"x": 60 + 260 * column, "y": 80}
    edges = [
        {"id": "e1", "from": "clicks", "to": "enrich"},
        {"id": "e2", "from": "enrich", "to": "valid"},
        {"id": "e3", "from": "valid", "to": "per_user", "partitioning": "hash", "key": 'x["user"]'},
        {"id": "e4", "from": "per_user", "to": "out"},
    ]
    return {"format": 1, "name": name, "mode": "streaming", "parallelism": 2,
            "checkpointing": {"interval_ms": 1000}, "nodes": nodes, "edges": edges}


def thirty_node_pipeline(name: str = "first-hour-thirty") -> dict:
    """Three rows of ten (a source, eight maps, a sink), each source unbounded at 20 records a second."""
    definition = grid_pipeline(30, name=name)
    for node in definition["nodes"]:
        if node["type"] == "source.datagen":
            node["params"] = {"count": None, "rate": 20}
    return definition


def shot(artifacts: Path, name: str, page) -> Path:
    """A screenshot under test-results/first-hour/, named after the story and the screen size."""
    size = page.viewport_size
    path = artifacts / "first-hour" / f"{name}-{size['width']}x{size['height']}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    return path


def graph_view(page) -> dict:
    """What the run graph shows: its canvas box, each node's box and the smallest node text on screen.

    The text size is the computed font size times the viewport's zoom, for every visible text of
    every node, so a label shrunk by the zoom counts as small as it looks.
    """
    return page.evaluate(
        """(selector) => {
          const canvas = document.querySelector('.run-graph__canvas').getBoundingClientRect();
          const viewport = document.querySelector('.run-graph .react-flow__viewport');
          const zoom = new DOMMatrix(getComputedStyle(viewport).transform).a;
          const nodes = [...document.querySelectorAll(selector)];
          let smallest = Infinity, smallestText = null;
          for (const node of nodes) {
            const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
            while (walker.nextNode()) {
              const text = walker.currentNode.textContent.trim();
              const element = walker.currentNode.parentElement;
              if (!text || element.getClientRects().length === 0) continue;
              const px = parseFloat(getComputedStyle(element).fontSize) * zoom;
              if (px < smallest) { smallest = px; smallestText = text; }
            }
          }
          const box = (rect) => ({x: rect.x, y: rect.y, width: rect.width, height: rect.height});
          return {
            canvas: box(canvas), zoom, smallest, smallestText,
            nodes: nodes.map((node) => ({id: node.dataset.testid.slice(5), ...box(node.getBoundingClientRect())})),
          };
        }""",
        RUN_GRAPH_NODES,
    )


def hidden_nodes(view: dict) -> list[str]:
    """The nodes not wholly inside the graph's canvas."""
    canvas = view["canvas"]
    return [node["id"] for node in view["nodes"]
            if node["x"] < canvas["x"] - 1 or node["y"] < canvas["y"] - 1
            or node["x"] + node["width"] > canvas["x"] + canvas["width"] + 1
            or node["y"] + node["height"] > canvas["y"] + canvas["height"] + 1]
