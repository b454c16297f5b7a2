import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo, type CSSProperties } from 'react';
import { useCatalogStore, type CatalogState } from '../state/shared/catalogStore';
import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import { useEditorViewStore } from '../state/editor/editorViewStore';
import { useTestRunStore } from '../state/editor/testRunStore';
import type { OperatorNode as OperatorNodeType } from '../state/shared/graph';
import { paramSummary } from '../state/editor/paramFields';
import { REGION_COLOURS, regionLabel } from '../state/shared/planOverlay';
import { quarantinePorts } from '../state/shared/expectations';
import { classNames } from '../ui/classNames';
import PortHandles from './PortHandles';
import SideHandles from './SideHandles';

const selectOperators = (state: CatalogState) => state.byType;
const selectNodeProblems = (state: EditorState) => state.problems.byNode;
const selectEdges = (state: EditorState) => state.edges;

/** The quarantine ports the rules of the edges leaving `nodeId` add to it, one per line (a string compares by value). */
function edgePortsText(edges: EditorState['edges'], nodeId: string): string {
  return edges
    .filter((edge) => edge.source === nodeId)
    .flatMap((edge) => quarantinePorts(edge.data?.expectations))
    .join('\n');
}

function uniquePorts(own: string[], edgePorts: string): string[] {
  const ports = [...own];
  for (const port of edgePorts ? edgePorts.split('\n') : []) if (!ports.includes(port)) ports.push(port);
  return ports;
}

/** A node of the editable canvas: category colour, title, id, handles, validation, plan and preview marks. */
function OperatorNode({ id, data, selected }: NodeProps<OperatorNodeType>) {
  const operator = useCatalogStore(selectOperators)[data.type];
  const problems = useEditorStore(selectNodeProblems)[id];
  const edgePorts = useEditorStore((state) => edgePortsText(selectEdges(state), id));
  const plan = useEditorViewStore((state) => state.planMarks[id]);
  const previewCount = useEditorViewStore((state) => state.preview?.nodes?.[id]?.count);
  const test = useTestRunStore((state) => state.marks[id]);
  const category = operator?.category ?? data.type.split('.')[0];
  const summary = paramSummary(data.params);
  const style = plan ? ({ '--region-colour': REGION_COLOURS[plan.colour] } as CSSProperties) : undefined;
  return (
    <div
      data-testid={`node-${id}`}
      data-region={plan?.regions.join(' ')}
      data-test={test}
      className={classNames('operator-node', `category-${category}`, operator?.input_sides?.length && 'has-sides', selected && 'is-selected', problems && 'has-problems', plan && 'has-region', test && `test-${test}`)}
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
        <div className="region-badge" data-testid="region-badge" title={`Pipelined region ${plan.regions.join(', ')}; scheduled in step ${plan.step}. Chain: ${plan.chainLabel}`}>
          <span className="region-badge__dot" />
          {regionLabel(plan.regions)} · step {plan.step}
          {plan.chain.length > 1 && <span className="region-badge__chain">chain {plan.chainStep}/{plan.chainSteps}</span>}
        </div>
      )}
      {previewCount !== undefined && (
        <div className="preview-badge" title="Records out of this node in the preview">
          {previewCount.toLocaleString()} rec
        </div>
      )}
      {test && (
        <div className={`test-badge test-badge--${test}`} data-testid="test-badge" title={test === 'failed' ? 'A test case failed on this node (Tests panel)' : 'Every test of this node passed'}>
          {test === 'failed' ? '✗ test failed' : '✓ tests pass'}
        </div>
      )}
      {operator?.outputs !== 0 && <Handle type="source" position={Position.Right} />}
      {data.expectations?.length ? (
        <div className="expectation-badge" data-testid="expectation-badge" title={data.expectations.map((e) => `${e.name} (${e.action ?? 'warn'}): ${e.rule}`).join('\n')}>
          ✓ {data.expectations.length} expectation{data.expectations.length === 1 ? '' : 's'}
        </div>
      ) : null}
      <PortHandles ports={[...(operator?.output_ports ?? []), ...uniquePorts(quarantinePorts(data.expectations), edgePorts).map((name) => ({ name, description: 'Records its expectations (or its outgoing edges\') quarantine' }))]} />
    </div>
  );
}

export default memo(OperatorNode);
