import { useEffect, useState } from 'react';
import { api, rowsOf } from '../api/client';
import type { DefinitionNode, RunSummary } from '../api/types';
import { currentDefinition, useEditorStore } from '../state/editor/editorStore';
import { chosenEnvironment } from '../state/editor/environmentChoice';
import {
  cellText,
  EXPECTATIONS,
  generateRows,
  MOCKABLE_TYPES,
  parseCell,
  parseJsonLines,
  tableColumns,
  toJsonLines,
  type TestAssertion,
  type TestCase,
  type TestInput,
  type TestMock,
} from '../state/editor/testCases';
import { useTestRunStore } from '../state/editor/testRunStore';
import { useCatalogStore } from '../state/shared/catalogStore';
import { captureTapSample } from './tapSample';

const SAMPLE_SIZE = 20;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A JSON-lines text area that parses when it loses focus, saying which line is not JSON. */
function JsonLinesArea({ rows, onRows, testId, placeholder }: { rows: unknown[]; onRows: (rows: unknown[]) => void; testId: string; placeholder?: string }) {
  const [text, setText] = useState(toJsonLines(rows));
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setText(toJsonLines(rows)), [rows]);
  return (
    <>
      <textarea
        className="input code-input"
        rows={Math.min(10, Math.max(3, rows.length + 1))}
        data-testid={testId}
        placeholder={placeholder ?? 'one JSON value per line'}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onBlur={() => {
          const parsed = parseJsonLines(text);
          setError(parsed.error);
          if (!parsed.error) onRows(parsed.rows);
        }}
      />
      {error && <p className="error-text">{error}</p>}
    </>
  );
}

/** Rows as a table when every row is an object (a column per field), else one JSON value per row. */
function RowsTable({ rows, onRows, testId }: { rows: unknown[]; onRows: (rows: unknown[]) => void; testId: string }) {
  const columns = tableColumns(rows) ?? [];
  const [newColumn, setNewColumn] = useState('');
  const objects = tableColumns(rows) !== null && (columns.length > 0 || rows.length === 0);
  const setCell = (index: number, column: string | null, text: string) =>
    onRows(rows.map((row, at) => (at !== index ? row : column === null ? parseCell(text) : { ...(row as object), [column]: parseCell(text) })));
  return (
    <div className="rows-table" data-testid={testId}>
      <table>
        <thead>
          <tr>
            <th>#</th>
            {objects ? columns.map((column) => <th key={column}>{column}</th>) : <th>value</th>}
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index}>
              <td className="muted">{index + 1}</td>
              {objects
                ? columns.map((column) => (
                    <td key={column}>
                      <input className="input cell-input" aria-label={`row ${index + 1} ${column}`} value={cellText((row as Record<string, unknown>)[column])} onChange={(event) => setCell(index, column, event.target.value)} />
                    </td>
                  ))
                : (
                    <td>
                      <input className="input cell-input" aria-label={`row ${index + 1}`} value={cellText(row)} onChange={(event) => setCell(index, null, event.target.value)} />
                    </td>
                  )}
              <td>
                <button type="button" className="link-button" aria-label={`remove row ${index + 1}`} onClick={() => onRows(rows.filter((_, at) => at !== index))}>
                  ×
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="rows-table__actions">
        <button type="button" className="link-button" data-testid={`${testId}-add-row`} onClick={() => onRows([...rows, objects ? Object.fromEntries(columns.map((column) => [column, ''])) : 0])}>
          + row
        </button>
        {objects && (
          <>
            <input className="input input--narrow" placeholder="field" value={newColumn} onChange={(event) => setNewColumn(event.target.value)} />
            <button
              type="button"
              className="link-button"
              disabled={!newColumn || columns.includes(newColumn)}
              onClick={() => {
                onRows(rows.length ? rows.map((row) => ({ ...(row as object), [newColumn]: '' })) : [{ [newColumn]: '' }]);
                setNewColumn('');
              }}
            >
              + field
            </button>
          </>
        )}
      </div>
    </div>
  );
}

/** The edge a tap samples for a source's input: the first one leaving it. */
function edgeFrom(source: string): string | null {
  return useEditorStore.getState().edges.find((edge) => edge.source === source && !edge.sourceHandle)?.id ?? null;
}

/** What a source emits in this test: typed in a table, JSON lines pasted or uploaded, a tap's sample, its first records, or generated. */
export function InputEditor({ source, input, onInput }: { source: DefinitionNode; input: TestInput; onInput: (input: TestInput) => void }) {
  const [view, setView] = useState<'table' | 'lines'>('table');
  const [busy, setBusy] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const rows = input.rows ?? [];
  const setRows = (next: unknown[]) => onInput({ ...input, rows: next, file: undefined });

  async function fill(label: string, load: () => Promise<unknown[]>) {
    setBusy(label);
    setNote(null);
    try {
      const sample = await load();
      setRows(sample);
      setNote(`${sample.length} rows from ${label}`);
    } catch (error) {
      setNote(`${label}: ${messageOf(error)}`);
    } finally {
      setBusy(null);
    }
  }

  const fromTap = async () => {
    const pipelineId = useEditorStore.getState().pipelineId;
    const edge = edgeFrom(source.id);
    if (pipelineId === null || edge === null) throw new Error('save the pipeline and connect the source first');
    const running = rowsOf<RunSummary>(await api.searchRuns({ pipeline: pipelineId, status: 'RUNNING' }));
    if (running.length === 0) throw new Error('no run of this pipeline is RUNNING: start one to tap it');
    return captureTapSample(running[0].id, edge, SAMPLE_SIZE);
  };
  const fromPreview = async () => {
    const state = useEditorStore.getState();
    const settings = currentDefinition(state);
    const definition = { ...settings, tests: undefined, nodes: [source, { id: 'sample_out', type: 'sink.collect', params: {} }], edges: [{ id: 'sample', from: source.id, to: 'sample_out', partitioning: 'forward' as const, exchange: 'pipelined' as const }] };
    const preview = await api.preview(definition, SAMPLE_SIZE, state.pipelineId, chosenEnvironment());
    if (preview.failure) throw new Error(preview.failure.split('\n')[0]);
    return (preview.nodes?.[source.id]?.records ?? []) as unknown[];
  };

  return (
    <section className="test-input" data-testid={`test-input-${source.id}`}>
      <div className="test-section__head">
        <code>{source.id}</code>
        <span className="count-pill">{input.file ? 'file' : `${rows.length} rows`}</span>
        <span className="segmented">
          <button type="button" className={view === 'table' ? 'is-active' : undefined} onClick={() => setView('table')}>
            table
          </button>
          <button type="button" className={view === 'lines' ? 'is-active' : undefined} data-testid={`test-input-${source.id}-lines`} onClick={() => setView('lines')}>
            JSON lines
          </button>
        </span>
      </div>
      {input.file !== undefined ? (
        <p className="muted">
          Reads <code>{input.file}</code> in the pipeline's workspace.{' '}
          <button type="button" className="link-button" onClick={() => setRows([])}>
            type rows instead
          </button>
        </p>
      ) : view === 'table' ? (
        <RowsTable rows={rows} onRows={setRows} testId={`test-input-${source.id}-table`} />
      ) : (
        <JsonLinesArea rows={rows} onRows={setRows} testId={`test-input-${source.id}-text`} />
      )}
      <div className="test-input__sources">
        <button type="button" className="link-button" data-testid={`test-input-${source.id}-tap`} disabled={busy !== null} onClick={() => void fill('a live tap', fromTap)}>
          from a live tap
        </button>
        <button type="button" className="link-button" disabled={busy !== null} onClick={() => void fill('its first records', fromPreview)}>
          first records
        </button>
        <button type="button" className="link-button" disabled={busy !== null} onClick={() => setRows(generateRows(rows, Math.max(rows.length, 10), rows.length + 1))}>
          generate
        </button>
        <label className="link-button">
          upload…
          <input
            type="file"
            accept=".jsonl,.json,.txt"
            hidden
            onChange={(event) => {
              const file = event.target.files?.[0];
              if (!file) return;
              void file.text().then((text) => {
                const parsed = parseJsonLines(text);
                setNote(parsed.error ?? `${parsed.rows.length} rows from ${file.name}`);
                if (!parsed.error) setRows(parsed.rows);
              });
            }}
          />
        </label>
        {busy && <span className="muted">reading {busy}…</span>}
      </div>
      {note && (
        <p className="muted" data-testid={`test-input-${source.id}-note`}>
          {note}
        </p>
      )}
    </section>
  );
}

/** A mock of a node that reaches outside: answers by request (JSON lines of {request, answer}) and an expression for the rest. */
export function MockEditor({ node, mock, onMock }: { node: DefinitionNode; mock: TestMock | undefined; onMock: (mock: TestMock | undefined) => void }) {
  const current = mock ?? {};
  const update = (patch: Partial<TestMock>) => {
    const next = { ...current, ...patch };
    onMock(!next.expression && !(next.answers ?? []).length ? undefined : next);
  };
  return (
    <section className="test-mock" data-testid={`test-mock-${node.id}`}>
      <div className="test-section__head">
        <code>{node.id}</code>
        <span className="muted">{node.type}</span>
      </div>
      <label className="form-field">
        <span className="form-field__label">Answer (expression over x, request)</span>
        <input className="input code-input" data-testid={`test-mock-${node.id}-expression`} value={current.expression ?? ''} placeholder={node.type === 'transform.python' ? '[x]' : "{'tier': 'gold'}"} onChange={(event) => update({ expression: event.target.value || undefined })} />
      </label>
      <span className="form-field__label">Answers by request</span>
      <JsonLinesArea rows={current.answers ?? []} onRows={(answers) => update({ answers: answers as TestMock['answers'] })} testId={`test-mock-${node.id}-answers`} placeholder='{"request": "http://users/1", "answer": {"tier": "gold"}}' />
    </section>
  );
}

/** One assertion: a node (and port), what its output must be. */
export function AssertionEditor({ assertion, index, nodes, onChange, onRemove }: {
  assertion: TestAssertion;
  index: number;
  nodes: DefinitionNode[];
  onChange: (assertion: TestAssertion) => void;
  onRemove: () => void;
}) {
  const node = nodes.find((entry) => entry.id === assertion.node);
  const ports = useCatalogStore((state) => state.byType[node?.type ?? ''])?.output_ports ?? [];
  const emitted = useTestRunStore((state) => {
    for (const result of state.results) {
      const output = result.nodes?.[assertion.node];
      if (output) return assertion.port ? output.ports?.[assertion.port]?.records : output.records;
    }
    return undefined;
  });
  const needsRows = assertion.expect === 'rows' || assertion.expect === 'contains';
  const needsExpression = assertion.expect === 'every' || assertion.expect === 'none' || assertion.expect === 'unique';
  return (
    <li className="test-assertion" data-testid={`test-assertion-${index}`}>
      <div className="test-assertion__row">
        <select className="input" aria-label="node" data-testid={`test-assertion-${index}-node`} value={assertion.node} onChange={(event) => onChange({ ...assertion, node: event.target.value, port: undefined })}>
          {nodes.map((entry) => (
            <option key={entry.id} value={entry.id}>
              {entry.id}
            </option>
          ))}
        </select>
        {ports.length > 0 && (
          <select className="input input--narrow" aria-label="port" value={assertion.port ?? ''} onChange={(event) => onChange({ ...assertion, port: event.target.value || undefined })}>
            <option value="">main output</option>
            {ports.map((port) => (
              <option key={port.name} value={port.name}>
                {port.name} port
              </option>
            ))}
          </select>
        )}
        <select className="input" aria-label="expectation" data-testid={`test-assertion-${index}-expect`} value={assertion.expect} onChange={(event) => onChange({ node: assertion.node, port: assertion.port, expect: event.target.value as TestAssertion['expect'] })}>
          {EXPECTATIONS.map((entry) => (
            <option key={entry.value} value={entry.value}>
              {entry.label}
            </option>
          ))}
        </select>
        <button type="button" className="link-button danger" aria-label={`remove assertion ${index + 1}`} onClick={onRemove}>
          ×
        </button>
      </div>
      {needsRows && (
        <>
          <JsonLinesArea rows={assertion.rows ?? []} onRows={(rows) => onChange({ ...assertion, rows })} testId={`test-assertion-${index}-rows`} />
          <div className="test-assertion__row">
            {assertion.expect === 'rows' && (
              <select className="input input--narrow" aria-label="order" value={assertion.order ?? 'auto'} onChange={(event) => onChange({ ...assertion, order: event.target.value as TestAssertion['order'] })}>
                <option value="auto">in order where the node promises one</option>
                <option value="any">in any order</option>
                <option value="exact">in this order</option>
              </select>
            )}
            {emitted && (
              <button type="button" className="link-button" data-testid={`test-assertion-${index}-use-emitted`} onClick={() => onChange({ ...assertion, rows: emitted })}>
                use what it emitted ({emitted.length})
              </button>
            )}
          </div>
        </>
      )}
      {needsExpression && (
        <input className="input code-input" aria-label="expression" data-testid={`test-assertion-${index}-expression`} placeholder="x['total'] >= 0" value={assertion.expression ?? ''} onChange={(event) => onChange({ ...assertion, expression: event.target.value })} />
      )}
      {assertion.expect === 'count' && (
        <div className="test-assertion__row">
          <input className="input input--narrow" type="number" min={0} aria-label="at least" data-testid={`test-assertion-${index}-min`} placeholder="min" value={assertion.min ?? ''} onChange={(event) => onChange({ ...assertion, min: event.target.value === '' ? undefined : Number(event.target.value) })} />
          <span>to</span>
          <input className="input input--narrow" type="number" min={0} aria-label="at most" data-testid={`test-assertion-${index}-max`} placeholder="max" value={assertion.max ?? ''} onChange={(event) => onChange({ ...assertion, max: event.target.value === '' ? undefined : Number(event.target.value) })} />
        </div>
      )}
    </li>
  );
}

/** A test case's inputs, mocks and assertions. */
export function TestCaseEditor({ testCase, nodes, onChange }: { testCase: TestCase; nodes: DefinitionNode[]; onChange: (testCase: TestCase) => void }) {
  const operators = useCatalogStore((state) => state.byType);
  const sources = nodes.filter((node) => operators[node.type]?.category === 'source');
  const mockable = nodes.filter((node) => MOCKABLE_TYPES.has(node.type));
  const assertions = testCase.assertions ?? [];
  return (
    <div className="test-case-editor" data-testid="test-case-editor">
      <h3>Inputs</h3>
      {sources.length === 0 && <p className="muted">The pipeline has no source yet.</p>}
      {sources.map((source) => (
        <InputEditor
          key={source.id}
          source={source}
          input={testCase.inputs?.[source.id] ?? { rows: [] }}
          onInput={(input) => onChange({ ...testCase, inputs: { ...testCase.inputs, [source.id]: input.file === undefined ? { rows: input.rows ?? [], ...(input.timestamp ? { timestamp: input.timestamp } : {}) } : input } })}
        />
      ))}
      {mockable.length > 0 && <h3>Mocks</h3>}
      {mockable.map((node) => (
        <MockEditor
          key={node.id}
          node={node}
          mock={testCase.mocks?.[node.id]}
          onMock={(mock) => {
            const mocks = { ...testCase.mocks };
            if (mock) mocks[node.id] = mock;
            else delete mocks[node.id];
            onChange({ ...testCase, mocks });
          }}
        />
      ))}
      <h3>Assertions</h3>
      <ol className="test-assertions">
        {assertions.map((assertion, index) => (
          <AssertionEditor
            key={index}
            index={index}
            assertion={assertion}
            nodes={nodes}
            onChange={(next) => onChange({ ...testCase, assertions: assertions.map((item, at) => (at === index ? next : item)) })}
            onRemove={() => onChange({ ...testCase, assertions: assertions.filter((_, at) => at !== index) })}
          />
        ))}
      </ol>
      <button
        type="button"
        className="button"
        data-testid="test-add-assertion"
        disabled={nodes.length === 0}
        onClick={() => onChange({ ...testCase, assertions: [...assertions, { node: nodes[nodes.length - 1].id, expect: 'rows', rows: [] }] })}
      >
        + assertion
      </button>
    </div>
  );
}
