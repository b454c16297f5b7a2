import { Handle, Position } from '@xyflow/react';
import { memo } from 'react';

/**
 * The named inputs of a two-input operator (a join's "left" and "right") as target handles on
 * its left edge, each with its name: an edge dropped on one feeds that side (`side` in the
 * definition). Operators with one kind of input keep their single unnamed handle.
 */
function SideHandles({ sides, connectable = true }: { sides: string[]; connectable?: boolean }) {
  return (
    <div className="operator-node__sides">
      {sides.map((side) => (
        <div key={side} className="operator-node__side">
          <Handle
            type="target"
            id={side}
            position={Position.Left}
            isConnectable={connectable}
            className="side-handle"
            data-testid={`side-${side}`}
          />
          <span className="operator-node__side-name">{side}</span>
        </div>
      ))}
    </div>
  );
}

export default memo(SideHandles);
