import { Handle, Position } from '@xyflow/react';
import { memo } from 'react';
import type { OutputPort } from '../api/types';

/**
 * The named output ports of a node (a window's "late" records) as extra source handles
 * under the main one, each with its name: an edge drawn from one leaves that port
 * (`from_port` in the definition).
 */
function PortHandles({ ports, connectable = true }: { ports: OutputPort[] | undefined; connectable?: boolean }) {
  if (!ports?.length) return null;
  return (
    <div className="operator-node__ports">
      {ports.map((port) => (
        <div key={port.name} className="operator-node__port" title={port.description}>
          <span className="operator-node__port-name">{port.name}</span>
          <Handle
            type="source"
            id={port.name}
            position={Position.Right}
            isConnectable={connectable}
            className="port-handle"
            data-testid={`port-${port.name}`}
          />
        </div>
      ))}
    </div>
  );
}

export default memo(PortHandles);
