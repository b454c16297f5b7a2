import { describe, expect, it } from 'vitest';
import { evenInsets, fitPlacement, MIN_READABLE_ZOOM } from './viewport';

const pane = { width: 1000, height: 600 };

describe('fitPlacement', () => {
  it('centres a small graph at its natural size', () => {
    expect(fitPlacement({ x: 0, y: 0, width: 400, height: 200 }, pane)).toEqual({ x: 300, y: 200, zoom: 1 });
  });

  it('shrinks a graph that fits at a readable zoom', () => {
    const viewport = fitPlacement({ x: 0, y: 0, width: 1000, height: 200 }, pane);
    expect(viewport.zoom).toBeCloseTo(936 / 1000);
    expect(viewport.x).toBeCloseTo(32);
  });

  it('keeps a large graph readable with its upper left in view', () => {
    const viewport = fitPlacement({ x: 100, y: 50, width: 6000, height: 3000 }, pane);
    expect(viewport).toEqual({ x: 32 - 100 * MIN_READABLE_ZOOM, y: 72 - 50 * MIN_READABLE_ZOOM, zoom: MIN_READABLE_ZOOM });
  });

  it('centres along the axis that still fits', () => {
    const viewport = fitPlacement({ x: 0, y: 0, width: 6000, height: 100 }, pane);
    expect(viewport.zoom).toBe(MIN_READABLE_ZOOM);
    expect(viewport.y).toBeCloseTo((600 - 100 * MIN_READABLE_ZOOM) / 2);
  });

  it('centres in the room the insets leave, clear of controls floating over the pane', () => {
    const insets = { top: 20, right: 20, bottom: 50, left: 50 };
    const viewport = fitPlacement({ x: 0, y: 0, width: 930, height: 200 }, pane, { padding: insets, anchorTop: 20, minZoom: 0.1 });
    expect(viewport.zoom).toBe(1);
    expect(viewport.x).toBe(50);
    expect(viewport.y).toBe(20 + (530 - 200) / 2);
  });

  it('fits the whole of a large graph when asked to, below the readable zoom', () => {
    const viewport = fitPlacement({ x: 0, y: 0, width: 6000, height: 3000 }, pane, { padding: evenInsets(0), anchorTop: 0, minZoom: 0.1 });
    expect(viewport.zoom).toBeCloseTo(1000 / 6000);
  });
});
