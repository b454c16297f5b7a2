import { BaseEdge, EdgeLabelRenderer, getBezierPath, type EdgeProps } from '@xyflow/react';
import { memo } from 'react';
import { edgeLabel, type PipelineEdge } from '../state/shared/graph';
import { violatedTotal } from '../state/shared/expectations';
import { formatCount } from '../state/shared/format';
import { edgeLabelPlace } from '../state/run/runGraph';
import { useRunStore, type RunStoreState } from '../state/run/runStore';
import { classNames } from '../ui/classNames';

const selectExpectations = (state: RunStoreState) => state.expectations;

/**
 * An edge of a run's read-only graph: its partitioning as a label, dashed when blocking, and when
 * rules check its records how many of those they counted violated them (live, like a node's). The
 * label stands between the boxes, clear of the arrowhead (see edgeLabelPlace), cut with an ellipsis
 * when longer than that, its whole text in its title.
 */
function RunEdge(props: EdgeProps<PipelineEdge>) {
  const { id, data, markerEnd, sourceX, sourceY, targetX, targetY } = props;
  const [path] = getBezierPath(props);
  const place = edgeLabelPlace(sourceX, sourceY, targetX, targetY);
  const quality = useRunStore(selectExpectations)[`edge:${id}`];
  const violated = quality ? violatedTotal(quality) : 0;
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} className={classNames('pipeline-edge', data?.exchange === 'blocking' && 'is-blocking')} />
      {data && (
        <EdgeLabelRenderer>
          <span
            className={classNames('edge-label', 'is-static', 'run-edge-label', quality && 'has-quality')}
            data-testid={`run-edge-${id}`}
            title={edgeLabel(data)}
            style={{ transform: `translate(-50%, -50%) translate(${place.x}px, ${place.y}px)`, maxWidth: place.maxWidth }}
          >
            <span className="run-edge-label__text">{edgeLabel(data)}</span>
            {quality && (
              <span
                className={classNames('edge-label__quality', violated > 0 && 'has-violations')}
                data-testid="edge-expectation-counts"
                data-records={quality.records}
                data-violated={violated}
                title={Object.entries(quality.rules)
                  .map(([name, rule]) => `${name} (${rule.action}): ${rule.violated.toLocaleString()} of ${quality.records.toLocaleString()} violate it`)
                  .join('\n')}
              >
                {violated > 0 ? ` ✗ ${formatCount(violated)} violated` : ` ✓ of ${formatCount(quality.records)}`}
              </span>
            )}
          </span>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

export default memo(RunEdge);
