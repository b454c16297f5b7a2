import { Background, BackgroundVariant, ControlButton, Controls, MarkerType, Panel, ReactFlow, ReactFlowProvider, type DefaultEdgeOptions, type EdgeTypes, type NodeMouseHandler } from '@xyflow/react';
import { useMemo } from 'react';
import type { PipelineDefinition, PlanSummary } from '../api/types';
import { runNodeTypes } from '../nodes';
import { runGraph } from '../state/run/runGraph';
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
  const graph = useMemo(() => runGraph(definition, plan), [definition, plan]);
  // The plan regroups the operators into vertices when the run is scheduled: a new drawing,
  // fitted again once React Flow has measured its boxes.
  const shape = useMemo(() => graph.nodes.map((node) => node.id).join(' '), [graph]);
  const toggleNode = useRunStore(selectToggleNode);
  const openOperator: NodeMouseHandler = (event) => {
    const cell = (event.target as Element).closest<HTMLElement>('[data-node]');
    if (cell?.dataset.node) toggleNode(cell.dataset.node);
  };
  return (
    <ReactFlowProvider key={shape}>
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
    </ReactFlowProvider>
  );
}
