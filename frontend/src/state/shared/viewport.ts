/** Where a graph opens: fitted into view, but never so small that its text cannot be read. */

/** Node text is 11-13 px: at 0.9 the smallest line is still 10 px on screen. */
export const MIN_READABLE_ZOOM = 0.9;
/** A fit never enlarges a small graph beyond its natural size. */
const MAX_FIT_ZOOM = 1;

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

/** Screen pixels kept free on each side of the pane (where controls float over it). */
export interface Insets {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

export interface FitOptions {
  /** Room kept between the graph and the pane's edges. */
  padding: Insets;
  /** Where a graph too tall to fit starts from the top (the editor's canvas tools float over its top). */
  anchorTop: number;
  /** The smallest zoom the fit goes down to; below it the graph's upper left stays in view. */
  minZoom: number;
}

export function evenInsets(pixels: number): Insets {
  return { top: pixels, right: pixels, bottom: pixels, left: pixels };
}

/** The editor's canvas: room for its tool bar, and never below the readable zoom. */
export const READABLE_FIT: FitOptions = { padding: evenInsets(32), anchorTop: 72, minZoom: MIN_READABLE_ZOOM };

/**
 * The viewport that shows `bounds` (flow coordinates) in a pane of `pane` pixels: centred in
 * the room the padding leaves when it fits at a zoom of at least `minZoom`; otherwise at
 * `minZoom` with its upper left in view, centred along an axis where it still fits.
 */
export function fitPlacement(bounds: Rect, pane: Size, options: FitOptions = READABLE_FIT): Viewport {
  const { padding, anchorTop, minZoom } = options;
  const room = { width: Math.max(1, pane.width - padding.left - padding.right), height: Math.max(1, pane.height - padding.top - padding.bottom) };
  const fitting = Math.min(room.width / Math.max(1, bounds.width), room.height / Math.max(1, bounds.height), MAX_FIT_ZOOM);
  const zoom = Math.max(fitting, minZoom);
  const place = (start: number, length: number, available: number, before: number, edge: number) =>
    length * zoom <= available ? before + (available - length * zoom) / 2 - start * zoom : edge - start * zoom;
  return {
    x: place(bounds.x, bounds.width, room.width, padding.left, padding.left),
    y: place(bounds.y, bounds.height, room.height, padding.top, anchorTop),
    zoom,
  };
}
