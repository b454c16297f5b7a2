import { BaseEdge, EdgeLabelRenderer, getBezierPath, type EdgeProps } from '@xyflow/react';
import { memo } from 'react';
import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import { useEditorViewStore } from '../state/editor/editorViewStore';
import { edgeLabel, type PipelineEdge as PipelineEdgeType } from '../state/shared/graph';
import { classNames } from '../ui/classNames';

const selectEdgeProblems = (state: EditorState) => state.problems.byEdge;
const selectSelect = (state: EditorState) => state.select;

/**
 * An edge of the editor: dashed when blocking, red with a count when validation found
 * problems, and a label that shows the partitioning and selects the edge when clicked.
 */
function PipelineEdge(props: EdgeProps<PipelineEdgeType>) {
  const { id, data, selected, markerEnd, sourceHandleId } = props;
  const [path, labelX, labelY] = getBezierPath(props);
  const problems = useEditorStore(selectEdgeProblems)[id];
  const select = useEditorStore(selectSelect);
  const blocking = data?.exchange === 'blocking';
  return (
    <>
      <BaseEdge
        id={id}
        path={path}
        markerEnd={markerEnd}
        className={classNames('pipeline-edge', blocking && 'is-blocking', problems && 'has-problems', selected && 'is-selected')}
      />
      <EdgeLabelRenderer>
        <button
          type="button"
          data-testid={`edge-label-${id}`}
          className={classNames('edge-label', 'nodrag', 'nopan', problems && 'has-problems', selected && 'is-selected')}
          style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
          onClick={() => {
            select({ edge: id });
            useEditorViewStore.getState().revealInspector();
          }}
          title={problems?.map((problem) => problem.message).join('\n')}
        >
          {data ? edgeLabel(data, sourceHandleId) : id}
          {problems && <span className="problem-count">{problems.length}</span>}
        </button>
      </EdgeLabelRenderer>
    </>
  );
}

export default memo(PipelineEdge);
