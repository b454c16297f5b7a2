/**
 * The state browser: what one completed checkpoint or savepoint of a run holds, per operator,
 * read as data on the server (GET /api/runs/{id}/checkpoints/{checkpoint_id}/state...): the kind of
 * state and its size, a page of keys searched by text or a key expression, one key's full state,
 * rows and bytes per key group, the diff with another checkpoint, and exports.
 */
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { stateApi, type SnapshotState, type StateDiff, type StatePage as Page, type StateRow, type StateSizes } from '../api/stateAndShadows';
import { paths } from '../router';
import { formatBytes } from '../state/shared/format';
import { classNames } from '../ui/classNames';
import { Link } from '../ui/Link';

const PAGE = 25;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

export function StatePage({ runId, checkpointId }: { runId: number; checkpointId: number }) {
  const [overview, setOverview] = useState<SnapshotState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [node, setNode] = useState<string | null>(null);
  useEffect(() => {
    stateApi.overview(runId, checkpointId).then(
      (answer) => {
        setOverview(answer);
        const keyed = answer.operators.find((operator) => operator.keyed) ?? answer.operators[0];
        setNode(keyed?.node ?? null);
      },
      (failure) => setError(message(failure)),
    );
  }, [runId, checkpointId]);
  return (
    <main className="list-page state-page" data-testid="state-page">
      <div className="list-page__heading">
        <h1>
          State of {overview?.kind ?? 'checkpoint'} #{checkpointId}
        </h1>
        <Link to={paths.run(runId)}>Run #{runId}</Link>
      </div>
      {error && <p className="error-text" role="alert" data-testid="state-error">{error}</p>}
      {overview && (
        <div className="state-layout">
          <OperatorList overview={overview} node={node} onSelect={setNode} />
          {node && <OperatorState key={node} runId={runId} checkpointId={checkpointId} node={node} />}
        </div>
      )}
    </main>
  );
}

function OperatorList({ overview, node, onSelect }: { overview: SnapshotState; node: string | null; onSelect: (node: string) => void }) {
  return (
    <section className="panel state-operators">
      <div className="panel-heading">Operators</div>
      <table className="data-table" data-testid="state-operators">
        <thead>
          <tr>
            <th>Operator</th>
            <th>Kind of state</th>
            <th className="numeric">Rows</th>
            <th className="numeric">Bytes</th>
          </tr>
        </thead>
        <tbody>
          {overview.operators.map((operator) => (
            <tr key={operator.node} data-testid="state-operator" data-node={operator.node}
                className={classNames('is-clickable', operator.node === node && 'is-selected')} onClick={() => onSelect(operator.node)}>
              <td>
                <code>{operator.node}</code> <span className="muted">{operator.type}</span>
              </td>
              <td>{operator.kind}</td>
              <td className="numeric">{operator.rows}</td>
              <td className="numeric">{formatBytes(operator.bytes)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

type Tab = 'keys' | 'sizes' | 'diff';

function OperatorState({ runId, checkpointId, node }: { runId: number; checkpointId: number; node: string }) {
  const [tab, setTab] = useState<Tab>('keys');
  return (
    <section className="panel state-operator" data-testid="state-operator-panel">
      <div className="panel-heading">
        <code>{node}</code>
        {(['keys', 'sizes', 'diff'] as Tab[]).map((name) => (
          <button key={name} type="button" className={classNames('button button--quiet', tab === name && 'is-active')}
                  data-testid={`state-tab-${name}`} aria-pressed={tab === name} onClick={() => setTab(name)}>
            {name === 'diff' ? 'Diff' : name === 'sizes' ? 'Sizes' : 'Keys'}
          </button>
        ))}
        <span className="state-exports">
          Export <a href={stateApi.exportUrl(runId, checkpointId, node, 'jsonl')} data-testid="state-export-jsonl">JSON lines</a>
          {' · '}
          <a href={stateApi.exportUrl(runId, checkpointId, node, 'parquet')} data-testid="state-export-parquet">Parquet</a>
        </span>
      </div>
      {tab === 'keys' && <Keys runId={runId} checkpointId={checkpointId} node={node} />}
      {tab === 'sizes' && <Sizes runId={runId} checkpointId={checkpointId} node={node} />}
      {tab === 'diff' && <Diff runId={runId} checkpointId={checkpointId} node={node} />}
    </section>
  );
}

function Keys({ runId, checkpointId, node }: { runId: number; checkpointId: number; node: string }) {
  const [search, setSearch] = useState('');
  const [expression, setExpression] = useState('');
  const [applied, setApplied] = useState<{ search: string; expression: string }>({ search: '', expression: '' });
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<StateRow | null>(null);
  useEffect(() => {
    let current = true;
    setError(null);
    stateApi.keys(runId, checkpointId, node, { offset, limit: PAGE, search: applied.search, expression: applied.expression }).then(
      (answer) => current && setPage(answer),
      (failure) => current && setError(message(failure)),
    );
    return () => {
      current = false;
    };
  }, [runId, checkpointId, node, offset, applied]);
  function openKey(row: StateRow) {
    stateApi.key(runId, checkpointId, node, row.key_json).then(setOpen, (failure) => setError(message(failure)));
  }
  return (
    <div className="state-keys">
      <form className="state-filters" onSubmit={(event) => { event.preventDefault(); setOffset(0); setApplied({ search, expression }); }}>
        <input className="input" placeholder="Search keys and state" value={search} data-testid="state-search" onChange={(event) => setSearch(event.target.value)} />
        <input className="input" placeholder='Key expression, e.g. key % 2 == 0 or len(state["panes"]) > 2' value={expression} data-testid="state-expression"
               onChange={(event) => setExpression(event.target.value)} />
        <button type="submit" className="button" data-testid="state-apply">Apply</button>
      </form>
      {error && <p className="error-text" role="alert" data-testid="state-keys-error">{error}</p>}
      {page && (
        <>
          <table className="data-table" data-testid="state-keys">
            <thead>
              <tr>
                <th>Key</th>
                <th className="numeric">Key group</th>
                <th className="numeric">Subtask</th>
                <th>State</th>
                <th className="numeric">Bytes</th>
              </tr>
            </thead>
            <tbody>
              {page.rows.map((row) => (
                <tr key={row.key_json} data-testid="state-key-row" data-key={row.key_json} className="is-clickable" onClick={() => openKey(row)}>
                  <td><code>{row.key_json}</code></td>
                  <td className="numeric">{row.key_group}</td>
                  <td className="numeric">{row.subtask}</td>
                  <td className="state-value"><code>{json(row.state).slice(0, 160)}</code></td>
                  <td className="numeric">{row.bytes}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="state-pager">
            <button type="button" className="button" disabled={offset === 0} data-testid="state-previous" onClick={() => setOffset(Math.max(0, offset - PAGE))}>Previous</button>
            <span className="muted" data-testid="state-range">
              {page.total === 0 ? 'no rows' : `${offset + 1}–${Math.min(offset + PAGE, page.total)} of ${page.total}`}
            </span>
            <button type="button" className="button" disabled={offset + PAGE >= page.total} data-testid="state-next" onClick={() => setOffset(offset + PAGE)}>Next</button>
          </div>
        </>
      )}
      {open && (
        <div className="state-key-detail" data-testid="state-key-detail">
          <div className="panel-heading">
            Key <code>{open.key_json}</code> · key group {open.key_group} · subtask {open.subtask}
            <button type="button" className="button button--quiet" onClick={() => setOpen(null)}>Close</button>
          </div>
          <pre>{JSON.stringify(open.state, null, 2)}</pre>
        </div>
      )}
    </div>
  );
}

function Sizes({ runId, checkpointId, node }: { runId: number; checkpointId: number; node: string }) {
  const [sizes, setSizes] = useState<StateSizes | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    stateApi.sizes(runId, checkpointId, node).then(setSizes, (failure) => setError(message(failure)));
  }, [runId, checkpointId, node]);
  if (error) return <p className="error-text" role="alert">{error}</p>;
  if (!sizes) return <p className="muted panel-empty">Reading…</p>;
  const largest = Math.max(1, ...sizes.key_groups.map((group) => group.bytes));
  return (
    <div className="state-sizes" data-testid="state-sizes">
      <p className="muted">{sizes.rows} rows, {formatBytes(sizes.bytes)} of state</p>
      <table className="data-table">
        <thead>
          <tr>
            <th className="numeric">Key group</th>
            <th className="numeric">Rows</th>
            <th className="numeric">Bytes</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {sizes.key_groups.map((group) => (
            <tr key={group.key_group} data-testid="state-size-row">
              <td className="numeric">{group.key_group === -1 ? 'list state' : group.key_group}</td>
              <td className="numeric">{group.rows}</td>
              <td className="numeric">{formatBytes(group.bytes)}</td>
              <td><span className="state-bar" style={{ width: `${(100 * group.bytes) / largest}%` }} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Diff({ runId, checkpointId, node }: { runId: number; checkpointId: number; node: string }) {
  const [others, setOthers] = useState<number[]>([]);
  const [against, setAgainst] = useState<number | null>(null);
  const [change, setChange] = useState<string>('');
  const [diff, setDiff] = useState<StateDiff | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.listRestorePoints(runId).then(
      (points) => {
        const ids = points.map((point) => point.checkpoint_id).filter((id) => id !== checkpointId);
        setOthers(ids);
        setAgainst(ids.find((id) => id < checkpointId) ?? ids[0] ?? null);
      },
      (failure) => setError(message(failure)),
    );
  }, [runId, checkpointId]);
  useEffect(() => {
    if (against === null) return;
    setError(null);
    stateApi.diff(runId, checkpointId, node, { against, change: change || undefined, limit: 200 }).then(setDiff, (failure) => setError(message(failure)));
  }, [runId, checkpointId, node, against, change]);
  return (
    <div className="state-diff" data-testid="state-diff">
      <div className="state-filters">
        <label>
          Since{' '}
          <select className="input" value={against ?? ''} data-testid="state-diff-against" onChange={(event) => setAgainst(Number(event.target.value))}>
            {others.map((id) => <option key={id} value={id}>#{id}</option>)}
          </select>
        </label>
        <label>
          Show{' '}
          <select className="input" value={change} data-testid="state-diff-change" onChange={(event) => setChange(event.target.value)}>
            <option value="">every change</option>
            <option value="added">added</option>
            <option value="removed">removed</option>
            <option value="changed">changed</option>
          </select>
        </label>
      </div>
      {others.length === 0 && !error && <p className="muted panel-empty">No other checkpoint of this run to compare with.</p>}
      {error && <p className="error-text" role="alert">{error}</p>}
      {diff && (
        <>
          <p data-testid="state-diff-counts">
            <b>{diff.counts.added}</b> added · <b>{diff.counts.removed}</b> removed · <b>{diff.counts.changed}</b> changed · {diff.counts.unchanged} unchanged (#{diff.before} → #{diff.after})
          </p>
          <table className="data-table">
            <thead>
              <tr>
                <th>Change</th>
                <th>Key</th>
                <th>Before</th>
                <th>After</th>
              </tr>
            </thead>
            <tbody>
              {diff.rows.map((row) => (
                <tr key={row.key_json} data-testid="state-diff-row" data-change={row.change}>
                  <td><span className={`diff-tag diff-tag--${row.change}`}>{row.change}</span></td>
                  <td><code>{row.key_json}</code></td>
                  <td className="state-value"><code>{row.before == null ? '–' : json(row.before).slice(0, 120)}</code></td>
                  <td className="state-value"><code>{row.after == null ? '–' : json(row.after).slice(0, 120)}</code></td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
