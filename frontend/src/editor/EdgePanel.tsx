import type { Exchange, Partitioning } from '../api/types';
import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import { EXCHANGES, PARTITIONINGS, type PipelineEdgeData } from '../state/shared/graph';
import { fieldMessages, generalMessages } from '../state/editor/problems';
import { classNames } from '../ui/classNames';
import { ExpectationsEditor, expectationFields } from './ExpectationsEditor';
import { FieldMessages } from './FieldMessages';
import { useDraftText } from '../ui/useDraftText';

const selectEdges = (state: EditorState) => state.edges;
const selectEdgeProblems = (state: EditorState) => state.problems.byEdge;
const selectUpdateEdgeData = (state: EditorState) => state.updateEdgeData;

const PARTITIONING_HELP: Record<Partitioning, string> = {
  forward: 'Subtask i sends to subtask i; both sides need the same parallelism.',
  rebalance: 'Round-robin over all downstream subtasks.',
  rescale: 'Round-robin over a local subset of downstream subtasks.',
  hash: 'Records with the same key go to the same subtask (needed before keyed operators).',
  broadcast: 'Every record goes to every downstream subtask.',
};

const EXCHANGE_HELP: Record<Exchange, string> = {
  pipelined: 'Records stream to the consumer as they are produced.',
  blocking: 'The producer finishes first; the consumer then reads the stored result.',
};

const SHOWN_FIELDS = new Set(['partitioning', 'key', 'exchange']);
const identity = (text: string) => text;
const keyText = (key: string | undefined) => key ?? '';

function KeyInput({ edgeId, value, messages }: { edgeId: string; value: string | undefined; messages: string[] }) {
  const updateEdgeData = useEditorStore(selectUpdateEdgeData);
  const [text, setText] = useDraftText(value ?? '', keyText, identity);
  return (
    <div className={classNames('form-field', messages.length > 0 && 'has-error')}>
      <div className="form-field__label-row">
        <label className="form-field__label" htmlFor={`key-${edgeId}`}>
          Key<span className="required-mark" aria-label="required">*</span>
        </label>
        <span className="form-field__kind">expression</span>
      </div>
      <input
        id={`key-${edgeId}`}
        data-testid="edge-key"
        className={classNames('input', 'is-code', messages.length > 0 && 'is-invalid')}
        spellCheck={false}
        autoComplete="off"
        placeholder='for example x["user"]'
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          updateEdgeData(edgeId, { key: event.target.value });
        }}
      />
      <p className="form-field__help">The key selector over the record x.</p>
      <FieldMessages messages={messages} />
    </div>
  );
}

/** The right panel for a selected edge: partitioning (with its key), exchange, and the rules checking its records. */
export function EdgePanel({ edgeId }: { edgeId: string }) {
  const edge = useEditorStore(selectEdges).find((candidate) => candidate.id === edgeId);
  const problems = useEditorStore(selectEdgeProblems)[edgeId];
  const updateEdgeData = useEditorStore(selectUpdateEdgeData);
  if (!edge) return null;
  const data: PipelineEdgeData = edge.data ?? { partitioning: 'forward', exchange: 'pipelined' };
  return (
    <div className="inspector-body">
      <div className="inspector-title">
        <span className="category-chip">edge</span>
        <h2>
          <code>{edge.source}</code>
          {edge.sourceHandle && (
            <span className="edge-port" data-testid="edge-port" title="Leaves this named output port of the node">
              {' '}
              port <code>{edge.sourceHandle}</code>
            </span>
          )}{' '}
          → <code>{edge.target}</code>
        </h2>
        <code className="inspector-id">{edge.id}</code>
      </div>
      <FieldMessages messages={generalMessages(problems, new Set([...SHOWN_FIELDS, ...expectationFields(data.expectations)]))} />

      <div className="form-field">
        <label className="form-field__label" htmlFor={`partitioning-${edge.id}`}>
          Partitioning
        </label>
        <select
          id={`partitioning-${edge.id}`}
          data-testid="edge-partitioning"
          className="input"
          value={data.partitioning}
          onChange={(event) => updateEdgeData(edge.id, { partitioning: event.target.value as Partitioning })}
        >
          {PARTITIONINGS.map((partitioning) => (
            <option key={partitioning} value={partitioning}>
              {partitioning}
            </option>
          ))}
        </select>
        <p className="form-field__help">{PARTITIONING_HELP[data.partitioning]}</p>
        <FieldMessages messages={fieldMessages(problems, 'partitioning')} />
      </div>

      {data.partitioning === 'hash' && <KeyInput edgeId={edge.id} value={data.key} messages={fieldMessages(problems, 'key')} />}

      <div className="form-field">
        <label className="form-field__label" htmlFor={`exchange-${edge.id}`}>
          Exchange
        </label>
        <select
          id={`exchange-${edge.id}`}
          data-testid="edge-exchange"
          className="input"
          value={data.exchange}
          onChange={(event) => updateEdgeData(edge.id, { exchange: event.target.value as Exchange })}
        >
          {EXCHANGES.map((exchange) => (
            <option key={exchange} value={exchange}>
              {exchange}
            </option>
          ))}
        </select>
        <p className="form-field__help">{EXCHANGE_HELP[data.exchange]}</p>
        <FieldMessages messages={fieldMessages(problems, 'exchange')} />
      </div>

      <ExpectationsEditor holder={{ kind: 'edge', id: edge.id }} expectations={data.expectations} problems={problems} />
    </div>
  );
}
