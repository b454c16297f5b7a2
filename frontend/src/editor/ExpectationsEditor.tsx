import { useCallback } from 'react';
import type { Expectation, ExpectationAction } from '../api/types';
import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import { fieldMessages } from '../state/editor/problems';
import { EXPECTATION_ACTIONS, newExpectation } from '../state/shared/expectations';
import type { Problem } from '../api/types';
import { FieldMessages } from './FieldMessages';

const selectUpdateNodeData = (state: EditorState) => state.updateNodeData;
const selectUpdateEdgeData = (state: EditorState) => state.updateEdgeData;

const ACTION_HELP: Record<ExpectationAction, string> = {
  warn: 'count it, pass it on',
  drop: 'count it, drop it',
  quarantine: 'count it, send it to the named output port (connect it to a sink)',
  fail: 'fail the run, naming the rule and the record',
};

/** Where the rules are: a node (they check what it emits) or an edge (what crosses it). */
export type ExpectationHolder = { kind: 'node' | 'edge'; id: string };

type Write = (next: Expectation[], historyKey?: string) => void;

function useWriteExpectations(holder: ExpectationHolder): Write {
  const updateNodeData = useEditorStore(selectUpdateNodeData);
  const updateEdgeData = useEditorStore(selectUpdateEdgeData);
  const { kind, id } = holder;
  return useCallback(
    (next, historyKey) => {
      if (kind === 'edge') {
        updateEdgeData(id, { expectations: next.length ? next : undefined });
        return;
      }
      updateNodeData(
        id,
        (current) => {
          const data = { ...current };
          if (next.length) data.expectations = next;
          else delete data.expectations;
          return data;
        },
        historyKey,
      );
    },
    [kind, id, updateNodeData, updateEdgeData],
  );
}

/** The fields of a holder's rules that this editor shows its problems at. */
export function expectationFields(expectations: Expectation[] | undefined): string[] {
  return (expectations ?? []).flatMap((_, index) => ['name', 'rule', 'port'].map((part) => `expectations.${index}.${part}`));
}

/**
 * The expectations (data-quality rules, as in Spark Declarative Pipelines) of a node or an edge: each
 * a name, a rule over the record `x` that good records meet, and what happens to one that violates
 * it. A node's check what it emits (what a sink receives), an edge's what crosses it (a quarantined
 * record leaves through a port of the edge's source node); the run page counts each rule's violations.
 */
export function ExpectationsEditor({ holder, expectations, problems }: { holder: ExpectationHolder; expectations: Expectation[] | undefined; problems: Problem[] | undefined }) {
  const write = useWriteExpectations(holder);
  const list = expectations ?? [];
  const nodeId = `${holder.kind}-${holder.id}`;
  const change = (index: number, patch: Partial<Expectation>, field: string) => {
    const next = list.map((expectation, position) => {
      if (position !== index) return expectation;
      const changed: Expectation = { ...expectation, ...patch };
      if (changed.action !== 'quarantine') delete changed.port;
      else if (!changed.port) changed.port = `${changed.name}_failed`;
      return changed;
    });
    write(next, `expectation:${nodeId}:${index}:${field}`);
  };
  return (
    <div className="expectations-editor" data-testid="expectations-editor" data-holder={holder.kind}>
      <div className="inspector-section">Expectations</div>
      {list.length === 0 && (
        <p className="muted">
          No data-quality rules{holder.kind === 'edge' ? ' on this edge' : ''}. A rule counts the records that violate it and can drop, quarantine or fail on them.
        </p>
      )}
      {list.map((expectation, index) => (
        <fieldset key={index} className="expectation-row" data-testid="expectation-row">
          <legend className="sr-only">Expectation {index + 1}</legend>
          <label className="form-field__label" htmlFor={`expectation-name-${nodeId}-${index}`}>
            Name
          </label>
          <input
            id={`expectation-name-${nodeId}-${index}`}
            data-testid="expectation-name"
            value={expectation.name}
            onChange={(event) => change(index, { name: event.target.value }, 'name')}
          />
          <FieldMessages messages={fieldMessages(problems, `expectations.${index}.name`)} />
          <label className="form-field__label" htmlFor={`expectation-rule-${nodeId}-${index}`}>
            Rule (good records meet it)
          </label>
          <input
            id={`expectation-rule-${nodeId}-${index}`}
            data-testid="expectation-rule"
            className="expression-input"
            spellCheck={false}
            value={expectation.rule}
            onChange={(event) => change(index, { rule: event.target.value }, 'rule')}
          />
          <FieldMessages messages={fieldMessages(problems, `expectations.${index}.rule`)} />
          <label className="form-field__label" htmlFor={`expectation-action-${nodeId}-${index}`}>
            On violation
          </label>
          <select
            id={`expectation-action-${nodeId}-${index}`}
            data-testid="expectation-action"
            value={expectation.action ?? 'warn'}
            title={ACTION_HELP[expectation.action ?? 'warn']}
            onChange={(event) => change(index, { action: event.target.value as ExpectationAction }, 'action')}
          >
            {EXPECTATION_ACTIONS.map((action) => (
              <option key={action} value={action}>
                {action}: {ACTION_HELP[action]}
              </option>
            ))}
          </select>
          {expectation.action === 'quarantine' && (
            <>
              <label className="form-field__label" htmlFor={`expectation-port-${nodeId}-${index}`}>
                Quarantine port
              </label>
              <input
                id={`expectation-port-${nodeId}-${index}`}
                data-testid="expectation-port"
                value={expectation.port ?? ''}
                onChange={(event) => change(index, { port: event.target.value }, 'port')}
              />
              <FieldMessages messages={fieldMessages(problems, `expectations.${index}.port`)} />
            </>
          )}
          <button
            type="button"
            className="link-button"
            data-testid="expectation-remove"
            onClick={() => write(list.filter((_, position) => position !== index))}
          >
            Remove rule
          </button>
        </fieldset>
      ))}
      <button type="button" className="button" data-testid="expectation-add" onClick={() => write([...list, newExpectation(list)])}>
        Add expectation
      </button>
    </div>
  );
}
