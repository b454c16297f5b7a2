import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { useCatalogStore, type CatalogState } from '../state/catalogStore';
import type { VertexNode } from '../state/graph';
import { useRunStore, type RunStoreState } from '../state/runStore';
import { classNames } from '../ui/classNames';

const selectOperators = (state: CatalogState) => state.byType;
const selectVertices = (state: RunStoreState) => state.vertices;

function formatCount(value: unknown): string {
  return typeof value === 'number' ? value.toLocaleString() : '–';
}

/** A node of a run's read-only graph: what it is, plus its live record counts when known. */
function RunVertexNode({ id, data }: NodeProps<VertexNode>) {
  const operator = useCatalogStore(selectOperators)[data.type];
  const metrics = useRunStore(selectVertices)[id];
  const category = operator?.category ?? data.type.split('.')[0];
  return (
    <div data-testid={`node-${id}`} className={classNames('operator-node', 'is-readonly', `category-${category}`)} title={operator?.description}>
      {operator?.inputs !== 0 && <Handle type="target" position={Position.Left} isConnectable={false} />}
      <div className="operator-node__header">
        <span className="operator-node__category">{category}</span>
        {data.parallelism !== undefined && <span className="operator-node__parallelism">×{data.parallelism}</span>}
      </div>
      <div className="operator-node__title">{operator?.title ?? data.type}</div>
      <div className="operator-node__id">{id}</div>
      {metrics && (
        <div className="operator-node__metrics">
          <span title="records in">in {formatCount(metrics.records_in)}</span>
          <span title="records out">out {formatCount(metrics.records_out)}</span>
        </div>
      )}
      {operator?.outputs !== 0 && <Handle type="source" position={Position.Right} isConnectable={false} />}
    </div>
  );
}

export default memo(RunVertexNode);
