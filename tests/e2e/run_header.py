"""Whether the run page's header can be read as the page shows it: no part squeezed to a letter, no line cut."""
from __future__ import annotations

SMALLEST_HEADER_PART_PX = 24
"""Narrower than this, a header part (a button, the start time, a checkbox's label) says nothing."""
SMALLEST_PLACEMENT_PX = 130
""""runs in its own driver" at 12 px."""

_HEADER_PARTS = """() => {
    const header = document.querySelector('.run-header');
    const parts = [...header.querySelectorAll(':scope > *, .run-title > *, .run-meta > *, .run-placement > *')];
    return parts.filter((part) => part.textContent.trim() && getComputedStyle(part).display !== 'none').map((part) => {
        const box = part.getBoundingClientRect();
        return {text: part.textContent.trim().slice(0, 40), testid: part.dataset.testid ?? null, cls: part.className,
                width: box.width, top: box.top, bottom: box.bottom,
                cut: part.scrollWidth > part.clientWidth + 1};  // cut, or spilling over its neighbours
    });
}"""


def assert_header_readable(page) -> None:
    """Every part of the run header at least SMALLEST_HEADER_PART_PX wide, the times whole (wrapped, not cut),
    the placement at least "runs in its own driver", the buttons on the times' row."""
    parts = page.evaluate(_HEADER_PARTS)
    narrow = [part for part in parts if part["width"] < SMALLEST_HEADER_PART_PX]
    assert not narrow, parts
    times = next(part for part in parts if part["testid"] == "run-times")
    assert not times["cut"], times  # "started 01:46:20 · disk 762 B", whole
    placement = next(part for part in parts if part["testid"] == "run-placement")
    assert placement["width"] >= SMALLEST_PLACEMENT_PX, placement  # at least "runs in its own driver"
    buttons = [part for part in parts if "button" in part["cls"]]
    assert all(button["top"] < times["bottom"] and times["top"] < button["bottom"] for button in buttons), parts
