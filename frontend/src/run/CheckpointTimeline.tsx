import type { CheckpointStats } from '../api/types';
import { formatBytes, formatDuration } from '../state/format';
import { checkpointStatusTone } from '../state/runStatus';

const MAX_BARS = 48;

/** One bar per recent checkpoint, oldest left; height is the end-to-end duration. */
export function CheckpointTimeline({ rows }: { rows: CheckpointStats[] }) {
  const recent = rows.slice(0, MAX_BARS).reverse();
  if (recent.length === 0) return null;
  const longest = Math.max(1, ...recent.map((row) => row.end_to_end_duration ?? 0));
  return (
    <div className="checkpoint-timeline" aria-label="Checkpoint durations">
      {recent.map((row) => {
        const share = row.end_to_end_duration ? row.end_to_end_duration / longest : 0.15;
        return (
          <div
            key={row.id}
            className={`timeline-bar tone-${checkpointStatusTone(row.status)}${row.kind === 'savepoint' ? ' is-savepoint' : ''}`}
            style={{ height: `${Math.max(8, Math.round(share * 100))}%` }}
            title={`#${row.id} ${row.kind} ${row.status}\n${formatDuration(row.end_to_end_duration)} · ${formatBytes(row.state_size)}`}
          />
        );
      })}
    </div>
  );
}
