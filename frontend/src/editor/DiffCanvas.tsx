import { Background, BackgroundVariant, BaseEdge, Controls, EdgeLabelRenderer, getBezierPath, MarkerType, MiniMap, Panel, ReactFlow, ReactFlowProvider, type EdgeProps, type EdgeTypes, type Node } from '@xyflow/react';
import { memo, useMemo } from 'react';
import { diffNodeTypes } from '../nodes';
import { layeredPositions } from '../state/shared/definition';
import { describeChange } from '../state/editor/diff';
import { useEditorViewStore, type DiffView } from '../state/editor/editorViewStore';
import { edgeLabel, type DiffEdge as DiffEdgeType, type DiffNode } from '../state/shared/graph';
import { classNames } from '../ui/classNames';
import { ReadableFit } from '../ui/ReadableFit';

function DiffEdgeComponent(props: EdgeProps<DiffEdgeType>) {
  const { id, data, markerEnd } = props;
  const [path, labelX, labelY] = getBezierPath(props);
  const status = data?.status ?? 'same';
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} className={classNames('pipeline-edge', `diff-edge-${status}`, data?.exchange === 'blocking' && 'is-blocking')} />
      {data && (
        <EdgeLabelRenderer>
          <span
            data-testid={`diff-edge-${id}`}
            data-diff={status}
            className={classNames('edge-label', 'is-static', `diff-${status}`)}
            title={data.changes.join('\n') || undefined}
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
          >
            {edgeLabel(data)}
          </span>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

const edgeTypes = { diff: memo(DiffEdgeComponent) } satisfies EdgeTypes;
const MARKER = { type: MarkerType.ArrowClosed, width: 16, height: 16 };
const DIFF_COLOURS: Record<string, string> = { added: '#16a34a', removed: '#dc2626', changed: '#d97706', same: '#94a3b8' };

function minimapColour(node: Node): string {
  return DIFF_COLOURS[String((node as DiffNode).data?.status)] ?? '#94a3b8';
}

function flowOf(view: DiffView) {
  const definitionNodes = view.graph.nodes.map((entry) => entry.node);
  const fallback = layeredPositions({
    nodes: definitionNodes,
    edges: view.graph.edges.map((entry) => entry.edge),
  });
  const nodes: DiffNode[] = view.graph.nodes.map(({ node, status, changes }) => ({
    id: node.id,
    type: 'diff',
    position: node.ui ? { x: node.ui.x, y: node.ui.y } : (fallback.get(node.id) ?? { x: 0, y: 0 }),
    data: { type: node.type, params: node.params ?? {}, parallelism: node.parallelism, status, changes: changes.map(describeChange) },
  }));
  const edges: DiffEdgeType[] = view.graph.edges.map(({ edge, status, changes }) => ({
    id: edge.id,
    type: 'diff',
    source: edge.from,
    sourceHandle: edge.from_port ?? undefined,
    target: edge.to,
    targetHandle: edge.side ?? undefined,
    markerEnd: MARKER,
    data: { partitioning: edge.partitioning, key: edge.key, exchange: edge.exchange, status, changes: changes.map(describeChange) },
  }));
  return { nodes, edges };
}

/** Two versions in one read-only drawing, with what changed highlighted. */
export function DiffCanvas({ view }: { view: DiffView }) {
  const { nodes, edges } = useMemo(() => flowOf(view), [view]);
  const close = () => useEditorViewStore.getState().showDiff(null);
  const counts = {
    added: view.diff.nodes.added.length,
    removed: view.diff.nodes.removed.length,
    changed: view.diff.nodes.changed.length,
  };
  return (
    <div className="canvas diff-canvas" data-testid="diff-view">
      <ReactFlowProvider>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={diffNodeTypes}
        edgeTypes={edgeTypes}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        deleteKeyCode={null}
        minZoom={0.1}
      >
        <ReadableFit />
        <Panel position="top-left" className="diff-legend">
          <strong>
            {view.fromLabel} → {view.toLabel}
          </strong>
          <span className="diff-chip diff-added">{counts.added} added</span>
          <span className="diff-chip diff-removed">{counts.removed} removed</span>
          <span className="diff-chip diff-changed">{counts.changed} changed</span>
          {view.diff.settings.changed.length > 0 && (
            <span className="diff-settings" title={view.diff.settings.changed.map(describeChange).join('\n')}>
              settings: {view.diff.settings.changed.map((change) => change.path).join(', ')}
            </span>
          )}
          <button type="button" className="button" data-testid="diff-close" onClick={close}>
            Close diff
          </button>
        </Panel>
        <Background variant={BackgroundVariant.Dots} gap={18} size={1} />
        <Controls showInteractive={false} />
        <MiniMap pannable zoomable nodeColor={minimapColour} />
      </ReactFlow>
      </ReactFlowProvider>
    </div>
  );
}
