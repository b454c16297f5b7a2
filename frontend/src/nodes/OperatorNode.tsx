import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo, type CSSProperties } from 'react';
import { useCatalogStore, type CatalogState } from '../state/shared/catalogStore';
import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import { useEditorViewStore } from '../state/editor/editorViewStore';
import type { OperatorNode as OperatorNodeType } from '../state/shared/graph';
import { paramSummary } from '../state/editor/paramFields';
import { REGION_COLOURS, regionLabel } from '../state/shared/planOverlay';
import { classNames } from '../ui/classNames';
import PortHandles from './PortHandles';
import SideHandles from './SideHandles';

const selectOperators = (state: CatalogState) => state.byType;
const selectNodeProblems = (state: EditorState) => state.problems.byNode;

/** A node of the editable canvas: category colour, title, id, handles, validation, plan and preview marks. */
function OperatorNode({ id, data, selected }: NodeProps<OperatorNodeType>) {
  const operator = useCatalogStore(selectOperators)[data.type];
  const problems = useEditorStore(selectNodeProblems)[id];
  const plan = useEditorViewStore((state) => state.planMarks[id]);
  const previewCount = useEditorViewStore((state) => state.preview?.nodes?.[id]?.count);
  const category = operator?.category ?? data.type.split('.')[0];
  const summary = paramSummary(data.params);
  const style = plan ? ({ '--region-colour': REGION_COLOURS[plan.colour] } as CSSProperties) : undefined;
  return (
    <div
      data-testid={`node-${id}`}
      data-region={plan?.regions.join(' ')}
      className={classNames('operator-node', `category-${category}`, selected && 'is-selected', problems && 'has-problems', plan && 'has-region')}
      style={style}
      title={operator?.description}
    >
      {operator?.input_sides?.length ? (
        <SideHandles sides={operator.input_sides} />
      ) : (
        operator?.inputs !== 0 && <Handle type="target" position={Position.Left} />
      )}
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
      {plan && (
        <div className="region-badge" data-testid="region-badge" title={`Pipelined region ${plan.regions.join(', ')}; scheduled in step ${plan.step}. Chain: ${plan.chain.join(' → ')}`}>
          <span className="region-badge__dot" />
          {regionLabel(plan.regions)} · step {plan.step}
          {plan.chain.length > 1 && <span className="region-badge__chain">chain {plan.chain.indexOf(id) + 1}/{plan.chain.length}</span>}
        </div>
      )}
      {previewCount !== undefined && (
        <div className="preview-badge" title="Records out of this node in the preview">
          {previewCount.toLocaleString()} rec
        </div>
      )}
      {operator?.outputs !== 0 && <Handle type="source" position={Position.Right} />}
      <PortHandles ports={operator?.output_ports} />
    </div>
  );
}

export default memo(OperatorNode);
