import { useNodesInitialized, useReactFlow, useStoreApi } from '@xyflow/react';
import { useEffect, useRef } from 'react';
import { fitPlacement } from '../state/shared/viewport';

/**
 * Fits a graph into view when it opens, but never below the zoom at which node text stays
 * readable: a larger graph opens at that zoom with its upper left (the sources) in view, and
 * the user scrolls or zooms out for the rest. Put inside <ReactFlow>; `epoch` refits when it changes.
 */
export function ReadableFit({ epoch = 0 }: { epoch?: number }) {
  const initialized = useNodesInitialized();
  const flow = useReactFlow();
  const store = useStoreApi();
  const fitted = useRef<number | null>(null);
  useEffect(() => {
    if (!initialized || fitted.current === epoch) return;
    fitted.current = epoch;
    const { width, height } = store.getState(); // the pane's size in pixels
    const nodes = flow.getNodes();
    if (nodes.length === 0) return;
    void flow.setViewport(fitPlacement(flow.getNodesBounds(nodes), { width, height }));
  }, [initialized, epoch, flow, store]);
  return null;
}
