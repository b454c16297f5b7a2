"""Whether a run-graph node's figures can be read as the page shows them: none cut at the cell's edge, each at
least ``MIN_SCREEN_PX`` on screen at the graph's zoom, and the text of each at a WCAG contrast of at least
``MIN_CONTRAST`` against what it is drawn on (its own background over the vertex's fill, composited)."""
from __future__ import annotations

MIN_SCREEN_PX = 9.9
"""The smallest node text on screen (tests/e2e/test_readable_graphs.py holds the editor's to the same)."""
MIN_CONTRAST = 4.5
"""WCAG AA for normal text."""

_READ = """(nodeId) => {
    const cell = document.querySelector(`[data-testid="node-${nodeId}"]`);
    if (!cell) return null;
    const viewport = document.querySelector('.react-flow__viewport');
    const zoom = Number((/scale\\(([\\d.]+)\\)/.exec(viewport.style.transform) || [0, 1])[1]);
    const parse = (colour) => {
        const parts = (colour.match(/[\\d.]+/g) || []).map(Number);
        return {r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1};
    };
    const over = (top, bottom) => ({r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a),
                                    b: top.b * top.a + bottom.b * (1 - top.a), a: 1});
    const behind = (element) => {  // the colour an element's text is drawn on: its backgrounds, inner over outer
        const layers = [];
        for (let node = element; node; node = node.parentElement) {
            const colour = parse(getComputedStyle(node).backgroundColor);
            if (colour.a > 0) layers.push(colour);
            if (colour.a >= 1) break;
        }
        return layers.reverse().reduce((below, layer) => over(layer, below), {r: 255, g: 255, b: 255, a: 1});
    };
    const luminance = ({r, g, b}) => {
        const channel = (value) => { value /= 255; return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const contrast = (first, second) => {
        const [lighter, darker] = [luminance(first), luminance(second)].sort((a, b) => b - a);
        return (lighter + 0.05) / (darker + 0.05);
    };
    const edge = cell.getBoundingClientRect();
    const pieces = [...cell.querySelectorAll('.run-cell__latency span, .run-cell__lag span, [data-testid="records-in"], [data-testid="records-out"]')]
        .filter((piece) => !piece.querySelector('span'));
    return pieces.map((piece) => {
        const style = getComputedStyle(piece);
        const box = piece.getBoundingClientRect();
        const holder = piece.closest('.run-cell__latency, .run-cell__lag, .run-cell__metrics');
        const background = behind(piece);
        const text = over(parse(style.color), background);
        return {text: piece.textContent, screen_px: parseFloat(style.fontSize) * zoom,
                cut: box.right > edge.right + 0.5 || box.left < edge.left - 0.5 || holder.scrollWidth > holder.clientWidth + 1,
                contrast: Math.round(contrast(text, background) * 100) / 100,
                colour: style.color, background: `rgb(${Math.round(background.r)}, ${Math.round(background.g)}, ${Math.round(background.b)})`};
    });
}"""


def figures_of(page, node_id: str) -> list[dict]:
    """Every figure of the node's cell as one render shows it (its text, size on screen, whether cut, contrast)."""
    return page.evaluate(_READ, node_id) or []


def unreadable(figures: list[dict]) -> list[dict]:
    """The figures a reader cannot read: cut, too small on screen or too faint."""
    return [figure for figure in figures if figure["cut"] or figure["screen_px"] < MIN_SCREEN_PX
            or figure["contrast"] < MIN_CONTRAST]


_OVERLAPS = """() => {
    const boxes = [...document.querySelectorAll('.react-flow__node')].map((node) => [node.dataset.id, node.getBoundingClientRect()]);
    const overlaps = [];
    for (let i = 0; i < boxes.length; i += 1) {
        for (let j = i + 1; j < boxes.length; j += 1) {
            const [a, first] = boxes[i];
            const [b, second] = boxes[j];
            if (first.left < second.right && second.left < first.right && first.top < second.bottom && second.top < first.bottom) {
                overlaps.push([a, b]);
            }
        }
    }
    return overlaps;
}"""


def overlapping_boxes(page) -> list[list[str]]:
    """Pairs of the graph's boxes (by node id) that cover each other as the page shows them."""
    return page.evaluate(_OVERLAPS)
