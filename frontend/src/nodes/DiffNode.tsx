import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { useCatalogStore, type CatalogState } from '../state/shared/catalogStore';
import type { DiffNode as DiffNodeType } from '../state/shared/graph';
import { classNames } from '../ui/classNames';
import PortHandles from './PortHandles';
import SideHandles from './SideHandles';

const selectOperators = (state: CatalogState) => state.byType;

/** A node of a version diff: green when added, red when removed, amber with its changes when changed. */
function DiffNode({ id, data }: NodeProps<DiffNodeType>) {
  const operator = useCatalogStore(selectOperators)[data.type];
  const category = operator?.category ?? data.type.split('.')[0];
  return (
    <div
      data-testid={`diff-node-${id}`}
      data-diff={data.status}
      className={classNames('operator-node', 'is-readonly', 'diff-node', `category-${category}`, `diff-${data.status}`)}
      title={data.changes.join('\n') || undefined}
    >
      {operator?.input_sides?.length ? (
        <SideHandles sides={operator.input_sides} connectable={false} />
      ) : (
        operator?.inputs !== 0 && <Handle type="target" position={Position.Left} isConnectable={false} />
      )}
      <div className="operator-node__header">
        <span className="operator-node__category">{category}</span>
        {data.status !== 'same' && <span className={`diff-badge diff-badge--${data.status}`}>{data.status}</span>}
      </div>
      <div className="operator-node__title">{operator?.title ?? data.type}</div>
      <div className="operator-node__id">{id}</div>
      {data.changes.length > 0 && (
        <ul className="diff-node__changes">
          {data.changes.slice(0, 3).map((change) => (
            <li key={change}>{change}</li>
          ))}
          {data.changes.length > 3 && <li>+{data.changes.length - 3} more</li>}
        </ul>
      )}
      {operator?.outputs !== 0 && <Handle type="source" position={Position.Right} isConnectable={false} />}
      <PortHandles ports={operator?.output_ports} connectable={false} />
    </div>
  );
}

export default memo(DiffNode);
