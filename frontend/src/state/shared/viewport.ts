/** Where a graph opens: fitted into view, but never so small that its text cannot be read. */

/** Node text is 11-13 px: at 0.9 the smallest line is still 10 px on screen. */
export const MIN_READABLE_ZOOM = 0.9;
/** A fit never enlarges a small graph beyond its natural size. */
const MAX_FIT_ZOOM = 1;
const PADDING_PX = 32;
/** A graph taller than the pane starts below the canvas's own toolbar, which floats over its top. */
const TOP_PX = 72;

export interface Size {
  width: number;
  height: number;
}

export interface Rect extends Size {
  x: number;
  y: number;
}

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

/**
 * The viewport that shows `bounds` (flow coordinates) in a pane of `pane` pixels: centred
 * when it fits at a readable zoom; otherwise at MIN_READABLE_ZOOM with its upper left in view,
 * centred along an axis where it still fits.
 */
export function fitPlacement(bounds: Rect, pane: Size): Viewport {
  const room = { width: Math.max(1, pane.width - 2 * PADDING_PX), height: Math.max(1, pane.height - 2 * PADDING_PX) };
  const fitting = Math.min(room.width / Math.max(1, bounds.width), room.height / Math.max(1, bounds.height), MAX_FIT_ZOOM);
  const zoom = Math.max(fitting, MIN_READABLE_ZOOM);
  const place = (start: number, length: number, available: number, edge: number) =>
    length * zoom <= available - 2 * PADDING_PX ? (available - length * zoom) / 2 - start * zoom : edge - start * zoom;
  return { x: place(bounds.x, bounds.width, pane.width, PADDING_PX), y: place(bounds.y, bounds.height, pane.height, TOP_PX), zoom };
}
