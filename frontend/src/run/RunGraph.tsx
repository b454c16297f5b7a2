import { Background, BackgroundVariant, Controls, MarkerType, Panel, ReactFlow, ReactFlowProvider, type DefaultEdgeOptions, type EdgeTypes } from '@xyflow/react';
import { useMemo } from 'react';
import { useRunStore, type RunStoreState } from '../state/run/runStore';
import type { PipelineDefinition, PlanSummary } from '../api/types';
import { runNodeTypes } from '../nodes';
import { definitionToGraph } from '../state/shared/definition';
import { nodeVertexIndex } from '../state/shared/planOverlay';
import { ReadableFit } from '../ui/ReadableFit';
import RunEdge from './RunEdge';

const edgeTypes = { pipeline: RunEdge } satisfies EdgeTypes;
const selectToggleNode = (state: RunStoreState) => state.toggleNode;
const DEFAULT_EDGE_OPTIONS: DefaultEdgeOptions = { markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 } };

function Legend() {
  return (
    <Panel position="bottom-right" className="activity-legend" aria-label="Colours">
      <span>
        <i className="swatch swatch--idle" /> idle
      </span>
      <span>
        <i className="swatch swatch--busy" /> busy
      </span>
      <span>
        <i className="swatch swatch--backpressured" /> backpressured
      </span>
    </Panel>
  );
}

/** The pipeline of a run, read-only, with live per-operator metrics on its nodes; a click opens the drill-down. */
export function RunGraph({ definition, plan }: { definition: PipelineDefinition; plan: PlanSummary | null | undefined }) {
  const graph = useMemo(() => {
    const base = definitionToGraph(definition, 'vertex');
    const vertices = nodeVertexIndex(plan);
    const parallelism = new Map((plan?.job_vertices ?? []).map((vertex) => [vertex.id, vertex.parallelism]));
    return {
      ...base,
      nodes: base.nodes.map((node) => {
        const vertex = vertices.get(node.id);
        if (!vertex) return node;
        return { ...node, data: { ...node.data, vertex: vertex.vertex, chain: vertex.chain, vertexParallelism: parallelism.get(vertex.vertex) } };
      }),
    };
  }, [definition, plan]);
  const toggleNode = useRunStore(selectToggleNode);
  return (
    <ReactFlowProvider>
      <ReactFlow
        nodes={graph.nodes}
        edges={graph.edges}
        nodeTypes={runNodeTypes}
        edgeTypes={edgeTypes}
        defaultEdgeOptions={DEFAULT_EDGE_OPTIONS}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        onNodeClick={(_, node) => toggleNode(node.id)}
        deleteKeyCode={null}
        minZoom={0.1}
      >
        <ReadableFit />
        <Background variant={BackgroundVariant.Dots} gap={18} size={1} />
        <Controls showInteractive={false} />
        <Legend />
      </ReactFlow>
    </ReactFlowProvider>
  );
}
