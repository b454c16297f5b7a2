"""Steps the browser tests share: the live studio's admin password, connecting two nodes."""
from __future__ import annotations

import os
from pathlib import Path


def admin_password(tmp_path_factory) -> str:
    """The admin password of the live studio: STUDIO_ADMIN_PASSWORD, else the one it generated."""
    if os.environ.get("STUDIO_ADMIN_PASSWORD"):
        return os.environ["STUDIO_ADMIN_PASSWORD"]
    found = sorted(Path(tmp_path_factory.getbasetemp()).glob("live-studio*/admin-password"))
    assert found, "the live studio wrote no admin-password file"
    return found[-1].read_text().strip()


def connect(page, source_node, target_node) -> None:
    """Drag from the source node's output handle to the target node's input handle."""
    start = source_node.locator(".react-flow__handle.source").bounding_box()
    end = target_node.locator(".react-flow__handle.target").bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=12)
    page.mouse.up()
