import { BaseEdge, EdgeLabelRenderer, getBezierPath, type EdgeProps } from '@xyflow/react';
import { memo } from 'react';
import { edgeLabel, type PipelineEdge } from '../state/shared/graph';
import { classNames } from '../ui/classNames';

/** An edge of a run's read-only graph: its partitioning as a label, dashed when blocking. */
function RunEdge(props: EdgeProps<PipelineEdge>) {
  const { id, data, markerEnd } = props;
  const [path, labelX, labelY] = getBezierPath(props);
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} className={classNames('pipeline-edge', data?.exchange === 'blocking' && 'is-blocking')} />
      {data && (
        <EdgeLabelRenderer>
          <span className="edge-label is-static" style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}>
            {edgeLabel(data)}
          </span>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

export default memo(RunEdge);
