import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { useCatalogStore, type CatalogState } from '../state/catalogStore';
import { useEditorStore, type EditorState } from '../state/editorStore';
import type { OperatorNode as OperatorNodeType } from '../state/graph';
import { paramSummary } from '../state/paramFields';
import { classNames } from '../ui/classNames';

const selectOperators = (state: CatalogState) => state.byType;
const selectNodeProblems = (state: EditorState) => state.problems.byNode;

/** A node of the editable canvas: category colour, title, id, handles, validation marks. */
function OperatorNode({ id, data, selected }: NodeProps<OperatorNodeType>) {
  const operator = useCatalogStore(selectOperators)[data.type];
  const problems = useEditorStore(selectNodeProblems)[id];
  const category = operator?.category ?? data.type.split('.')[0];
  const summary = paramSummary(data.params);
  return (
    <div
      data-testid={`node-${id}`}
      className={classNames('operator-node', `category-${category}`, selected && 'is-selected', problems && 'has-problems')}
      title={operator?.description}
    >
      {operator?.inputs !== 0 && <Handle type="target" position={Position.Left} />}
      <div className="operator-node__header">
        <span className="operator-node__category">{category}</span>
        {data.parallelism !== undefined && <span className="operator-node__parallelism">×{data.parallelism}</span>}
        {problems && (
          <span className="problem-count" title={problems.map((problem) => problem.message).join('\n')}>
            {problems.length}
          </span>
        )}
      </div>
      <div className="operator-node__title">{operator?.title ?? data.type}</div>
      <div className="operator-node__id">{id}</div>
      {summary && <div className="operator-node__summary">{summary}</div>}
      {operator?.outputs !== 0 && <Handle type="source" position={Position.Right} />}
    </div>
  );
}

export default memo(OperatorNode);
