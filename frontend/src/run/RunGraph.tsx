import { Background, BackgroundVariant, Controls, MarkerType, ReactFlow, ReactFlowProvider, type DefaultEdgeOptions, type EdgeTypes } from '@xyflow/react';
import { useMemo } from 'react';
import type { PipelineDefinition } from '../api/types';
import { runNodeTypes } from '../nodes';
import { definitionToGraph } from '../state/definition';
import RunEdge from './RunEdge';

const edgeTypes = { pipeline: RunEdge } satisfies EdgeTypes;
const FIT_VIEW_OPTIONS = { padding: 0.15, maxZoom: 1 };
const DEFAULT_EDGE_OPTIONS: DefaultEdgeOptions = { markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 } };

/** The pipeline of a run, read-only, with live per-vertex counts on the nodes. */
export function RunGraph({ definition }: { definition: PipelineDefinition }) {
  const graph = useMemo(() => definitionToGraph(definition, 'vertex'), [definition]);
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
        deleteKeyCode={null}
        fitView
        fitViewOptions={FIT_VIEW_OPTIONS}
        minZoom={0.2}
      >
        <Background variant={BackgroundVariant.Dots} gap={18} size={1} />
        <Controls showInteractive={false} />
      </ReactFlow>
    </ReactFlowProvider>
  );
}
