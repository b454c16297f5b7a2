import { Background, BackgroundVariant, ControlButton, Controls, MarkerType, Panel, ReactFlow, ReactFlowProvider, useStore, type DefaultEdgeOptions, type EdgeTypes, type NodeMouseHandler, type ReactFlowState } from '@xyflow/react';
import { useMemo, useRef } from 'react';
import type { PipelineDefinition, PlanSummary } from '../api/types';
import { runNodeTypes } from '../nodes';
import { BOX_HEIGHT, RUN_LAYOUT, runGraph } from '../state/run/runGraph';
import { useRunStore, type RunStoreState } from '../state/run/runStore';
import { ACTIVITY_SCALE } from '../state/run/vertexMetrics';
import { MIN_READABLE_ZOOM, type FitOptions } from '../state/shared/viewport';
import { ReadableFit, useFitGraph } from '../ui/ReadableFit';
import RunEdge from './RunEdge';

const edgeTypes = { pipeline: RunEdge } satisfies EdgeTypes;
const selectToggleNode = (state: RunStoreState) => state.toggleNode;
const DEFAULT_EDGE_OPTIONS: DefaultEdgeOptions = { markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 } };

/** Clear of the zoom controls on the left and the colour legend at the bottom. */
const GRAPH_INSETS = { top: 22, right: 20, bottom: 50, left: 48 };
/** On load: the whole graph when it fits at a readable zoom, else its upper left at that zoom. */
const OPEN_FIT: FitOptions = { padding: GRAPH_INSETS, anchorTop: GRAPH_INSETS.top, minZoom: MIN_READABLE_ZOOM };
/** Fit: the whole graph, whatever zoom that takes. */
const WHOLE_FIT: FitOptions = { ...OPEN_FIT, minZoom: 0.1 };

/** What the fills mean: the share of time a task works, from idle blue to busy red; dark when backpressured. */
function Legend() {
  return (
    <Panel position="bottom-right" className="activity-legend" aria-label="Colours" data-testid="activity-legend">
      <span title="The fill shows the share of its time each task spends working (busy), from 0 % to 100 %">
        idle <i className="swatch swatch--scale" style={{ background: `linear-gradient(to right, ${ACTIVITY_SCALE.join(', ')})` }} /> busy
      </span>
      <span title="More than half of its time waiting for room downstream">
        <i className="swatch swatch--backpressured" /> backpressured
      </span>
    </Panel>
  );
}

/** Heights are laid out in steps of this many pixels: a figure that changes its width by a digit moves nothing. */
const HEIGHT_STEP = 4;
/** The least gap kept between stacked boxes. A box's ×n and activity badges (9 px above it) may then touch the
 * bottom of the box above, its activity bar and not its text, as they did before boxes were measured: a
 * 30-operator graph of three chains, each box one latency line taller, still opens readable at 1280×720. */
const LEAST_GAP = 4;
/** How much a box may grow into the layout's spacing before the others move for it. */
const GROWTH_ALLOWED = RUN_LAYOUT.node - LEAST_GAP;

/** The boxes React Flow measured taller than their layout allows, as "id:height" pairs (a string: compared by value). */
const selectTallBoxes = (state: ReactFlowState) =>
  Array.from(state.nodeLookup.values())
    .filter((node) => (node.measured.height ?? 0) - GROWTH_ALLOWED > BOX_HEIGHT)
    .map((node) => `${node.id}:${Math.ceil(((node.measured.height ?? 0) - GROWTH_ALLOWED) / HEIGHT_STEP) * HEIGHT_STEP}`)
    .sort()
    .join(' ');

/**
 * The heights to lay the boxes out with: the tallest each was measured so far (less what it may take of
 * the spacing, `GROWTH_ALLOWED`), so a box whose figures
 * arrive (lag, latency, visible latency) pushes its neighbours apart once instead of covering them,
 * and a figure that comes and goes does not make the graph jump back and forth.
 */
function useGrownHeights(): Record<string, number> {
  const tall = useStore(selectTallBoxes);
  const grown = useRef<Record<string, number>>({});
  return useMemo(() => {
    let changed = false;
    const next = { ...grown.current };
    for (const pair of tall ? tall.split(' ') : []) {
      const at = pair.lastIndexOf(':');
      const id = pair.slice(0, at);
      const height = Number(pair.slice(at + 1));
      if (height > (next[id] ?? 0)) {
        next[id] = height;
        changed = true;
      }
    }
    if (changed) grown.current = next;
    return grown.current;
  }, [tall]);
}

/** Zoom in and out, and Fit: one click shows the whole graph. */
function GraphControls() {
  const fit = useFitGraph(WHOLE_FIT);
  return (
    <Controls showInteractive={false} showFitView={false}>
      <ControlButton className="react-flow__controls-fitview" onClick={fit} title="Fit view" aria-label="Fit view">
        <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true">
          <path d="M1 5V1h4M11 1h4v4M15 11v4h-4M5 15H1v-4" fill="none" stroke="currentColor" strokeWidth="1.6" />
        </svg>
      </ControlButton>
    </Controls>
  );
}

/**
 * The pipeline of a run, read-only: a box per job vertex with its operators' live metrics
 * (see runGraph.ts). A click on an operator opens its subtasks.
 */
export function RunGraph({ definition, plan }: { definition: PipelineDefinition; plan: PlanSummary | null | undefined }) {
  // The plan regroups the operators into vertices when the run is scheduled: a new drawing,
  // fitted again once React Flow has measured its boxes.
  const shape = useMemo(() => runGraph(definition, plan).nodes.map((node) => node.id).join(' '), [definition, plan]);
  return (
    <ReactFlowProvider key={shape}>
      <RunGraphCanvas definition={definition} plan={plan} />
    </ReactFlowProvider>
  );
}

function RunGraphCanvas({ definition, plan }: { definition: PipelineDefinition; plan: PlanSummary | null | undefined }) {
  const heights = useGrownHeights();
  const graph = useMemo(() => runGraph(definition, plan, heights), [definition, plan, heights]);
  const toggleNode = useRunStore(selectToggleNode);
  const openOperator: NodeMouseHandler = (event) => {
    const cell = (event.target as Element).closest<HTMLElement>('[data-node]');
    if (cell?.dataset.node) toggleNode(cell.dataset.node);
  };
  return (
    <ReactFlow
      nodes={graph.nodes}
      edges={graph.edges}
      nodeTypes={runNodeTypes}
      edgeTypes={edgeTypes}
      defaultEdgeOptions={DEFAULT_EDGE_OPTIONS}
      nodesDraggable={false}
      nodesConnectable={false}
      elementsSelectable={false}
      onNodeClick={openOperator}
      deleteKeyCode={null}
      minZoom={0.1}
    >
      <ReadableFit options={OPEN_FIT} />
      <Background variant={BackgroundVariant.Dots} gap={18} size={1} />
      <GraphControls />
      <Legend />
    </ReactFlow>
  );
}
