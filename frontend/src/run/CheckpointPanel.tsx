import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { api } from '../api/client';
import type { CheckpointStats, DistributionSummary, FoldedCheckpoints, SavepointRequest } from '../api/types';
import { checkpointSummary, isSavepoint } from '../state/run/checkpointTimeline';
import { formatBytes, formatClock, formatDuration } from '../state/shared/format';
import { checkpointSummaryLoaded } from '../state/run/runState';
import { useRunStore, type RunStoreState } from '../state/run/runStore';
import { checkpointStatusTone } from '../state/run/runStatus';
import { paths } from '../router';
import { classNames } from '../ui/classNames';
import { Link } from '../ui/Link';
import { StatusBadge } from '../ui/StatusBadge';
import { CheckpointGantt } from './CheckpointGantt';
import { CheckpointTimeline } from './CheckpointTimeline';
import { useCheckpointDetails } from './useCheckpointDetails';

const selectCheckpoints = (state: RunStoreState) => ({
  savepoints: state.savepoints,
  counts: state.checkpoints.counts,
  rows: state.checkpoints.rows,
  serverSummary: state.checkpointSummary,
  folded: state.checkpointsFolded,
  selected: state.selectedCheckpoint,
  selectCheckpoint: state.selectCheckpoint,
  runId: state.runId,
  definition: state.run?.definition,
});

type Tab = 'history' | 'summary' | 'config';

/** How often at most the open Summary tab asks the server again, while checkpoints complete. */
export const SUMMARY_REFRESH_MS = 2000;

/**
 * While the Summary tab is open, the server's summary follows the run: asked again (counts and
 * summary only, no history rows) whenever more checkpoints completed, at most every
 * SUMMARY_REFRESH_MS. It covers every completed checkpoint, more than the rows the page holds.
 */
function useLiveSummary(runId: number | null, open: boolean): void {
  useEffect(() => {
    if (!open || runId === null) return;
    let askedAt = -1;
    const refresh = () => {
      const completed = useRunStore.getState().checkpoints.counts.completed;
      if (completed === askedAt) return;
      askedAt = completed;
      api.getCheckpoints(runId, 0).then(
        (history) => {
          if (useRunStore.getState().runId === runId) useRunStore.getState().update((state) => checkpointSummaryLoaded(state, history.summary, history.folded));
        },
        () => undefined, // the next completed checkpoint asks again
      );
    };
    refresh();
    const timer = setInterval(refresh, SUMMARY_REFRESH_MS);
    return () => clearInterval(timer);
  }, [runId, open]);
}

function AckProgress({ row }: { row: CheckpointStats }) {
  const share = row.num_subtasks > 0 ? row.num_acknowledged_subtasks / row.num_subtasks : 0;
  return (
    <span className="ack-progress" title={`${row.num_acknowledged_subtasks} of ${row.num_subtasks} subtasks acknowledged`}>
      <span className="ack-progress__bar">
        <span style={{ width: `${Math.round(share * 100)}%` }} />
      </span>
      {row.num_acknowledged_subtasks}/{row.num_subtasks}
    </span>
  );
}

/** Aligned or unaligned (with the in-flight bytes persisted), and how long alignment took. */
function AlignmentCell({ row }: { row: CheckpointStats }) {
  if (row.status === 'IN_PROGRESS' && row.unaligned == null) return <span className="muted">…</span>;
  const alignment = row.alignment_duration != null ? formatDuration(row.alignment_duration) : '–';
  if (row.unaligned) {
    return (
      <span title={`Unaligned: the barriers overtook ${formatBytes(row.persisted_data ?? 0)} of in-flight data, persisted with it; alignment ${alignment}`}>
        <span className="alignment-tag">unaligned</span> {formatBytes(row.persisted_data ?? 0)} · {alignment}
      </span>
    );
  }
  return <span title={`Aligned; alignment took ${alignment}`}>aligned · {alignment}</span>;
}

function CheckpointRow({ row, runId, selected, onSelect }: { row: CheckpointStats; runId: number | null; selected: boolean; onSelect: () => void }) {
  return (
    <tr
      data-testid="checkpoint-row"
      data-status={row.status}
      data-kind={row.kind}
      data-id={row.id}
      className={classNames(row.discarded && 'is-discarded', selected && 'is-selected', 'is-clickable')}
      title={row.discarded ? (isSavepoint(row) ? 'Deleted: its files were removed.' : 'Subsumed by a newer checkpoint; its files were removed.') : (row.external_path ?? undefined)}
      onClick={onSelect}
    >
      <td className="numeric">{row.id}</td>
      <td>
        {row.kind}
        {row.trigger && (
          <span className="trigger-tag" data-testid="checkpoint-trigger">
            {row.trigger}
          </span>
        )}
      </td>
      <td>
        <StatusBadge tone={checkpointStatusTone(row.status)} title={row.failure_message ?? undefined}>
          {row.status}
        </StatusBadge>
      </td>
      <td className="numeric">{formatClock(row.trigger_timestamp)}</td>
      <td className="numeric">{formatDuration(row.end_to_end_duration)}</td>
      <td className="numeric">{formatBytes(row.state_size)}</td>
      <td data-testid="checkpoint-alignment" data-unaligned={row.unaligned ? 'true' : 'false'}>
        <AlignmentCell row={row} />
      </td>
      <td>
        <AckProgress row={row} />
      </td>
      <td>
        {runId !== null && row.status === 'COMPLETED' && !row.discarded && (
          <Link to={paths.state(runId, row.id)} data-testid="checkpoint-browse-state" onClick={(event) => event.stopPropagation()}>
            Browse state
          </Link>
        )}
      </td>
    </tr>
  );
}

/** Rows of savepoints get the trigger of the request that produced them, when the row has none. */
export function withTriggers(rows: CheckpointStats[], savepoints: SavepointRequest[]): CheckpointStats[] {
  const triggers = new Map(savepoints.filter((request) => request.checkpoint_id != null && request.trigger)
    .map((request) => [request.checkpoint_id as number, request.trigger]));
  if (triggers.size === 0) return rows;
  return rows.map((row) => (row.kind !== 'checkpoint' && !row.trigger && triggers.has(row.id) ? { ...row, trigger: triggers.get(row.id) } : row));
}

function HistoryTable({ rows, runId, selected, onSelect }: { rows: CheckpointStats[]; runId: number | null; selected: number | null; onSelect: (id: number) => void }) {
  if (rows.length === 0) return <p className="muted panel-empty">No checkpoint yet.</p>;
  return (
    <div className="table-scroll">
      <table className="data-table">
        <thead>
          <tr>
            <th className="numeric">ID</th>
            <th>Kind</th>
            <th>Status</th>
            <th className="numeric">Triggered</th>
            <th className="numeric">Duration</th>
            <th className="numeric">Size</th>
            <th title="Aligned, or unaligned with the in-flight bytes it persisted; the alignment time">Alignment</th>
            <th>Acks</th>
            <th>State</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <CheckpointRow key={row.id} row={row} runId={runId} selected={row.id === selected} onSelect={() => onSelect(row.id)} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

const SUMMARY_ROWS: Array<{ key: string; label: string; format: (value: number | null | undefined) => string }> = [
  { key: 'end_to_end_duration', label: 'End to end duration', format: formatDuration },
  { key: 'state_size', label: 'Checkpointed data size', format: formatBytes },
  { key: 'alignment_duration', label: 'Alignment duration', format: formatDuration },
  { key: 'persisted_data', label: 'Persisted in-flight data', format: formatBytes },
];

/** Older checkpoints kept only in rollups: the summary counts them, the history and timeline do not list them. */
function FoldedNote({ folded }: { folded: FoldedCheckpoints }) {
  const failed = folded.failed ? `, ${folded.failed} failed` : '';
  return (
    <p className="muted folded-note" data-testid="checkpoints-folded">
      Includes {folded.completed} older checkpoints{failed} (#{folded.first_id}–#{folded.last_id}) kept as per-minute rollups: min,
      avg and max are exact, percentiles within {Math.round(folded.relative_accuracy * 100)}%.
    </p>
  );
}

function SummaryTable({ summary, folded }: { summary: Record<string, DistributionSummary>; folded: FoldedCheckpoints | null }) {
  const columns: Array<keyof DistributionSummary> = ['min', 'avg', 'p50', 'p90', 'p99', 'max'];
  return (
    <div className="table-scroll">
      {folded && <FoldedNote folded={folded} />}
      <table className="data-table" data-testid="checkpoint-summary">
        <thead>
          <tr>
            <th />
            {columns.map((column) => (
              <th key={column} className="numeric">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {SUMMARY_ROWS.map((row) => (
            <tr key={row.key}>
              <td>{row.label}</td>
              {columns.map((column) => (
                <td key={column} className="numeric">
                  {row.format(summary[row.key]?.[column] ?? null)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ConfigTable({ runId, fallback }: { runId: number | null; fallback: Record<string, unknown> | undefined }) {
  const [config, setConfig] = useState<Record<string, unknown> | null>(null);
  useEffect(() => {
    if (runId === null) return;
    let cancelled = false;
    api.getCheckpointConfig(runId).then(
      (answer) => !cancelled && setConfig(answer),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [runId]);
  const shown = config ?? fallback ?? {};
  // Nested sections (externalization, settings) read best as "settings · interval_ms" rows.
  const entries = Object.entries(shown).flatMap(([name, value]): Array<[string, unknown]> =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value as Record<string, unknown>).map(([inner, innerValue]) => [`${name} · ${inner}`, innerValue])
      : [[name, value]],
  );
  if (entries.length === 0) return <p className="muted panel-empty">No checkpointing settings known.</p>;
  return (
    <table className="data-table config-table" data-testid="checkpoint-config">
      <tbody>
        {entries.map(([name, value]) => (
          <tr key={name}>
            <td>{name.replace(/_/g, ' ')}</td>
            <td className="numeric">
              <code>{typeof value === 'object' ? JSON.stringify(value) : String(value)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Details({ runId, row }: { runId: number; row: CheckpointStats }) {
  const details = useCheckpointDetails(runId, row);
  return (
    <div className="checkpoint-details" data-testid="checkpoint-details" data-id={row.id}>
      <div className="checkpoint-details__heading">
        <strong>
          {isSavepoint(row) ? 'Savepoint' : 'Checkpoint'} #{row.id}
        </strong>
        <StatusBadge tone={checkpointStatusTone(row.status)}>{row.status}</StatusBadge>
        <span className="muted">
          {formatClock(row.trigger_timestamp)} · {formatDuration(row.end_to_end_duration)} · {formatBytes(row.state_size)} · {row.num_acknowledged_subtasks}/{row.num_subtasks} acks
        </span>
        <span className="muted" data-testid="checkpoint-details-alignment">
          {row.unaligned ? `unaligned · ${formatBytes(row.persisted_data ?? 0)} in flight persisted` : 'aligned'}
          {row.alignment_duration != null ? ` · alignment ${formatDuration(row.alignment_duration)}` : ''}
        </span>
      </div>
      {row.external_path && (
        <div className="checkpoint-details__path">
          <code>{row.external_path}</code>
        </div>
      )}
      {row.failure_message && <p className="error-text">{row.failure_message}</p>}
      {details && <CheckpointGantt details={details} />}
    </div>
  );
}

/** The checkpoints of a run, live: timeline strip, the selected one's Gantt chart, then history, summary and config. */
export function CheckpointPanel() {
  const { counts, rows: liveRows, savepoints, serverSummary, folded, selected, selectCheckpoint, runId, definition } =
    useRunStore(useShallow(selectCheckpoints));
  // Live checkpoint events do not say who asked for a savepoint; its request does.
  const rows = useMemo(() => withTriggers(liveRows, savepoints), [liveRows, savepoints]);
  const [tab, setTab] = useState<Tab>('history');
  useLiveSummary(runId, tab === 'summary');
  const summary = useMemo(() => serverSummary ?? checkpointSummary(rows), [serverSummary, rows]);
  const selectedRow = selected === null ? undefined : rows.find((row) => row.id === selected);
  return (
    <section className="panel checkpoint-panel" aria-label="Checkpoints">
      <div className="panel-heading">
        Checkpoints
        <span className="counts">
          <span>{counts.total} total</span>
          <span className="tone-text-success">{counts.completed} completed</span>
          <span className="tone-text-active">{counts.in_progress} in progress</span>
          <span className="tone-text-danger">{counts.failed} failed</span>
          {counts.restored ? <span>{counts.restored} restored</span> : null}
        </span>
      </div>
      <CheckpointTimeline rows={rows} selected={selected} onSelect={(id) => selectCheckpoint(selected === id ? null : id)} />
      {selectedRow && runId !== null && <Details runId={runId} row={selectedRow} />}
      <div className="panel-tabs" role="tablist">
        {(['history', 'summary', 'config'] as Tab[]).map((name) => (
          <button key={name} type="button" role="tab" aria-selected={tab === name} data-testid={`checkpoint-tab-${name}`} className={classNames('sidebar-tab', tab === name && 'is-active')} onClick={() => setTab(name)}>
            {name}
          </button>
        ))}
      </div>
      {tab === 'history' && <HistoryTable rows={rows} runId={runId} selected={selected} onSelect={(id) => selectCheckpoint(selected === id ? null : id)} />}
      {tab === 'summary' && <SummaryTable summary={summary} folded={serverSummary ? folded : null} />}
      {tab === 'config' && <ConfigTable runId={runId} fallback={definition?.checkpointing as Record<string, unknown> | undefined} />}
    </section>
  );
}
