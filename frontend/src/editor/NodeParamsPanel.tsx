import { Fragment, useCallback, useMemo } from 'react';
import { useCatalogStore, type CatalogState } from '../state/shared/catalogStore';
import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import type { OperatorNode } from '../state/shared/graph';
import { paramFields, withParam, type ParsedInput } from '../state/editor/paramFields';
import { fieldMessages, generalMessages, paramMessages } from '../state/editor/problems';
import { IntegerInput } from '../ui/IntegerInput';
import { ExpectationsEditor, expectationFields } from './ExpectationsEditor';
import { FieldMessages } from './FieldMessages';
import { ParamInput } from './ParamInput';
import { LocationTools } from '../dataIn/LocationTools';
import { useExpressionFields } from '../dataIn/useExpressionFields';

const selectOperators = (state: CatalogState) => state.byType;
const selectNodes = (state: EditorState) => state.nodes;
const selectNodeProblems = (state: EditorState) => state.problems.byNode;
const selectPipelineParallelism = (state: EditorState) => state.settings.parallelism;
const selectUpdateNodeData = (state: EditorState) => state.updateNodeData;

/** The right panel for a selected node: its parallelism and a form built from its params schema. */
export function NodeParamsPanel({ nodeId }: { nodeId: string }) {
  const node = useEditorStore(selectNodes).find((candidate) => candidate.id === nodeId);
  const operator = useCatalogStore(selectOperators)[node?.data.type ?? ''];
  const problems = useEditorStore(selectNodeProblems)[nodeId];
  const pipelineParallelism = useEditorStore(selectPipelineParallelism);
  const updateNodeData = useEditorStore(selectUpdateNodeData);
  const fields = useMemo(() => paramFields(operator?.params_schema), [operator]);
  const messagesByParam = useMemo(() => paramMessages(problems), [problems]);
  const otherMessages = useMemo(
    () =>
      generalMessages(
        problems,
        new Set([
          'parallelism',
          ...fields.map((field) => `params.${field.name}`),
          ...expectationFields(node?.data.expectations),
        ]),
      ),
    [problems, fields, node?.data.expectations],
  );

  const setParam = useCallback(
    (name: string, parsed: ParsedInput) =>
      updateNodeData(nodeId, (current) => ({ ...current, params: withParam(current.params, name, parsed) }), `param:${nodeId}:${name}`),
    [nodeId, updateNodeData],
  );

  const setParamValue = useCallback((name: string, value: unknown) => setParam(name, { kind: 'value', value }), [setParam]);
  const suggestions = useExpressionFields(nodeId);

  if (!node) return null;
  return (
    <div className="inspector-body">
      <div className="inspector-title">
        <span className={`category-chip category-${operator?.category ?? 'unknown'}`}>{operator?.category ?? 'unknown'}</span>
        <h2>{operator?.title ?? node.data.type}</h2>
        <code className="inspector-id">{node.id}</code>
        {operator && <p className="muted">{operator.description}</p>}
        {!operator && <p className="error-text">Unknown operator type {node.data.type}.</p>}
      </div>
      <FieldMessages messages={otherMessages} />

      <div className="form-field">
        <div className="form-field__label-row">
          <label className="form-field__label" htmlFor={`parallelism-${nodeId}`}>
            Parallelism
          </label>
          <span className="form-field__kind">integer</span>
        </div>
        <IntegerInput
          id={`parallelism-${nodeId}`}
          data-testid="override-parallelism"
          value={node.data.parallelism}
          optional
          min={1}
          placeholder={`pipeline (${pipelineParallelism})`}
          onCommit={(parallelism) =>
            updateNodeData(
              nodeId,
              (current) => {
                const next: OperatorNode['data'] = { ...current };
                if (parallelism === undefined) delete next.parallelism;
                else next.parallelism = parallelism;
                return next;
              },
              `parallelism:${nodeId}`,
            )
          }
        />
        <FieldMessages messages={fieldMessages(problems, 'parallelism')} />
      </div>

      {fields.length > 0 && <div className="inspector-section">Parameters</div>}
      {fields.length === 0 && operator && <p className="muted">This operator has no parameters.</p>}
      {fields.map((field) => (
        <Fragment key={field.name}>
          <ParamInput
            field={field}
            value={node.data.params[field.name]}
            messages={messagesByParam[field.name]}
            onChange={(parsed) => setParam(field.name, parsed)}
            suggestions={field.kind === 'expression' ? suggestions : undefined}
          />
          <LocationTools
            operatorType={node.data.type}
            name={field.name}
            schema={operator?.params_schema?.properties?.[field.name]}
            params={node.data.params}
            setParam={setParamValue}
          />
        </Fragment>
      ))}
      <ExpectationsEditor holder={{ kind: 'node', id: nodeId }} expectations={node.data.expectations} problems={problems} />
    </div>
  );
}
