import { useReactFlow, useStore, useStoreApi, type ReactFlowInstance, type ReactFlowState } from '@xyflow/react';
import { useCallback, useEffect, useRef } from 'react';
import { fitPlacement, READABLE_FIT, type FitOptions } from '../state/shared/viewport';

/** Place the graph by `fitPlacement` in the pane React Flow measured; nothing to do while it has no nodes. */
export function placeGraph(flow: ReactFlowInstance, pane: { width: number; height: number }, options: FitOptions): void {
  const nodes = flow.getNodes();
  if (nodes.length === 0) return;
  void flow.setViewport(fitPlacement(flow.getNodesBounds(nodes), pane, options));
}

/**
 * Whether the graph can be placed: the pane measured with its pan/zoom handler attached (before,
 * setViewport does nothing), and every node measured. Read from the node lookup, which React Flow
 * fills as it measures, because the `nodesInitialized` flag follows the nodes prop: a read-only
 * graph that takes no node changes would never see it turn true.
 */
const selectReady = (state: ReactFlowState) => {
  if (state.panZoom === null || state.width === 0 || state.height === 0 || state.nodeLookup.size === 0) return false;
  for (const node of state.nodeLookup.values()) if (!node.measured.width || !node.measured.height) return false;
  return true;
};

/** A function that places the graph with `options` now (for a Fit button). Inside <ReactFlow>. */
export function useFitGraph(options: FitOptions): () => void {
  const flow = useReactFlow();
  const store = useStoreApi();
  return useCallback(() => placeGraph(flow, store.getState(), options), [flow, store, options]);
}

/**
 * Fits a graph into view when it opens, but never below the zoom at which node text stays
 * readable: a larger graph opens at that zoom with its upper left (the sources) in view, and
 * the user scrolls or zooms out for the rest. Put inside <ReactFlow>; `epoch` refits when it changes.
 */
export function ReadableFit({ epoch = 0, options = READABLE_FIT }: { epoch?: number | string; options?: FitOptions }) {
  const ready = useStore(selectReady);
  const store = useStoreApi();
  const fit = useFitGraph(options);
  const fitted = useRef<number | string | null>(null);
  useEffect(() => {
    // asked again now: new nodes may have reached the store since this render read it
    if (!ready || fitted.current === epoch || !selectReady(store.getState())) return;
    fitted.current = epoch;
    fit();
  }, [ready, epoch, fit, store]);
  return null;
}
