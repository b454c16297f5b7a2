import {
  Background,
  BackgroundVariant,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  useReactFlow,
  type DefaultEdgeOptions,
  type EdgeTypes,
  type IsValidConnection,
  type Node,
} from '@xyflow/react';
import { useCallback, type DragEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { editorNodeTypes } from '../nodes';
import { operatorOf } from '../state/shared/catalogStore';
import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import { useEditorViewStore, type EditorViewState } from '../state/editor/editorViewStore';
import { connectionProblem } from '../state/editor/graphEdits';
import { REGION_COLOURS } from '../state/shared/planOverlay';
import { CanvasToolbar } from './CanvasToolbar';
import { DiffCanvas } from './DiffCanvas';
import { ReadableFit } from '../ui/ReadableFit';
import { PALETTE_DRAG_TYPE } from './Palette';
import PipelineEdge from './PipelineEdge';

const edgeTypes = { pipeline: PipelineEdge } satisfies EdgeTypes;
/** Deleting is the editor's own shortcut (one undo step for nodes and their edges). */
const DELETE_KEYS = null;
const selectDiffView = (state: EditorViewState) => state.diffView;
const selectPlanMarks = (state: EditorViewState) => state.planMarks;
const DEFAULT_EDGE_OPTIONS: DefaultEdgeOptions = { markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 } };

const selectCanvas = (state: EditorState) => ({
  nodes: state.nodes,
  edges: state.edges,
  graphEpoch: state.graphEpoch,
  onNodesChange: state.onNodesChange,
  onEdgesChange: state.onEdgesChange,
  onConnect: state.onConnect,
  addOperatorNode: state.addOperatorNode,
});

const CATEGORY_COLOURS: Record<string, string> = {
  source: '#16a34a',
  transform: '#2563eb',
  aggregate: '#7c3aed',
  window: '#d97706',
  sink: '#db2777',
};

function minimapColour(node: Node): string {
  const type = typeof node.data?.type === 'string' ? node.data.type : '';
  return CATEGORY_COLOURS[operatorOf(type)?.category ?? type.split('.')[0]] ?? '#64748b';
}

function regionMinimapColour(node: Node): string {
  const mark = useEditorViewStore.getState().planMarks[node.id];
  return mark ? REGION_COLOURS[mark.colour] : '#cbd5e1';
}

/** Whether a connection being dragged may be dropped here (checked against the live graph). */
const isValidConnection: IsValidConnection = (connection) => {
  const { nodes, edges } = useEditorStore.getState();
  const operatorOfNode = (id: string) => {
    const node = nodes.find((candidate) => candidate.id === id);
    return node ? operatorOf(node.data.type) : undefined;
  };
  return connectionProblem(connection, edges, operatorOfNode) === null;
};

const revealInspector = () => useEditorViewStore.getState().revealInspector();

/** The editable React Flow canvas; drop palette items here. */
export function PipelineCanvas() {
  const { nodes, edges, graphEpoch, onNodesChange, onEdgesChange, onConnect, addOperatorNode } = useEditorStore(
    useShallow(selectCanvas),
  );
  const { screenToFlowPosition } = useReactFlow();
  const diffView = useEditorViewStore(selectDiffView);
  const planMarks = useEditorViewStore(selectPlanMarks);
  const planShown = Object.keys(planMarks).length > 0;

  const onDragOver = useCallback((event: DragEvent) => {
    if (!event.dataTransfer.types.includes(PALETTE_DRAG_TYPE)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  }, []);

  const onDrop = useCallback(
    (event: DragEvent) => {
      const type = event.dataTransfer.getData(PALETTE_DRAG_TYPE);
      const operator = type ? operatorOf(type) : undefined;
      if (!operator) return;
      event.preventDefault();
      const point = screenToFlowPosition({ x: event.clientX, y: event.clientY });
      // Drop the node centred under the pointer rather than hanging off it.
      addOperatorNode(operator, { x: Math.round(point.x - 100), y: Math.round(point.y - 30) });
    },
    [addOperatorNode, screenToFlowPosition],
  );

  if (diffView) return <DiffCanvas view={diffView} />;
  return (
    <div className="canvas" onDragOver={onDragOver} onDrop={onDrop}>
      <ReactFlow
        key={graphEpoch}
        nodes={nodes}
        edges={edges}
        nodeTypes={editorNodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onNodeClick={revealInspector}
        onEdgeClick={revealInspector}
        isValidConnection={isValidConnection}
        defaultEdgeOptions={DEFAULT_EDGE_OPTIONS}
        deleteKeyCode={DELETE_KEYS}
        minZoom={0.1}
        maxZoom={2}
        onlyRenderVisibleElements={nodes.length > 120}
      >
        <ReadableFit epoch={graphEpoch} />
        <CanvasToolbar />
        <Background variant={BackgroundVariant.Dots} gap={18} size={1} />
        <Controls showInteractive={false} />
        <MiniMap pannable zoomable nodeColor={planShown ? regionMinimapColour : minimapColour} nodeStrokeWidth={2} />
      </ReactFlow>
    </div>
  );
}
