import type { CheckpointStats } from '../api/types';
import { formatBytes, formatClock, formatDuration } from '../state/format';
import { useRunStore, type RunStoreState } from '../state/runStore';
import { checkpointStatusTone } from '../state/runStatus';
import { StatusBadge } from '../ui/StatusBadge';
import { CheckpointTimeline } from './CheckpointTimeline';

const selectCheckpoints = (state: RunStoreState) => state.checkpoints;

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

function CheckpointRow({ row }: { row: CheckpointStats }) {
  return (
    <tr
      data-testid="checkpoint-row"
      data-status={row.status}
      data-kind={row.kind}
      data-id={row.id}
      className={row.discarded ? 'is-discarded' : undefined}
      title={row.discarded ? 'Subsumed by a newer checkpoint; its files were removed.' : (row.external_path ?? undefined)}
    >
      <td className="numeric">{row.id}</td>
      <td>{row.kind}</td>
      <td>
        <StatusBadge tone={checkpointStatusTone(row.status)} title={row.failure_message ?? undefined}>
          {row.status}
        </StatusBadge>
      </td>
      <td className="numeric">{formatClock(row.trigger_timestamp)}</td>
      <td className="numeric">{formatDuration(row.end_to_end_duration)}</td>
      <td className="numeric">{formatBytes(row.state_size)}</td>
      <td>
        <AckProgress row={row} />
      </td>
    </tr>
  );
}

/** Counts, a duration timeline and one row per checkpoint, newest first, updated live. */
export function CheckpointPanel() {
  const { counts, rows } = useRunStore(selectCheckpoints);
  return (
    <section className="panel checkpoint-panel" aria-label="Checkpoints">
      <div className="panel-heading">
        Checkpoints
        <span className="counts">
          <span>{counts.total} total</span>
          <span className="tone-text-success">{counts.completed} completed</span>
          <span className="tone-text-active">{counts.in_progress} in progress</span>
          <span className="tone-text-danger">{counts.failed} failed</span>
        </span>
      </div>
      <CheckpointTimeline rows={rows} />
      {rows.length === 0 ? (
        <p className="muted panel-empty">No checkpoint yet.</p>
      ) : (
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
                <th>Acks</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <CheckpointRow key={row.id} row={row} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
