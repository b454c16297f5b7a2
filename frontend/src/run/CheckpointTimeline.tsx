import type { CheckpointStats } from '../api/types';
import { timelineBars, type TimelineTone } from '../state/run/checkpointTimeline';
import { formatBytes, formatDuration } from '../state/shared/format';
import { classNames } from '../ui/classNames';

const TONE_LABEL: Record<TimelineTone, string> = {
  completed: 'completed',
  savepoint: 'savepoint',
  in_progress: 'in progress',
  failed: 'failed',
};

/**
 * One bar per recent checkpoint, oldest left, growing live: green completed, violet
 * savepoint, blue in progress, red failed; height is the end-to-end duration. Click one to
 * open its details.
 */
export function CheckpointTimeline({ rows, selected, onSelect }: { rows: CheckpointStats[]; selected: number | null; onSelect: (id: number) => void }) {
  const bars = timelineBars(rows);
  return (
    <div className="checkpoint-strip">
      <div className="checkpoint-timeline" data-testid="checkpoint-timeline" aria-label="Recent checkpoints">
        {bars.length === 0 && <span className="muted timeline-empty">Checkpoints appear here as they happen.</span>}
        {bars.map((bar) => (
          <button
            type="button"
            key={bar.id}
            data-testid="timeline-bar"
            data-id={bar.id}
            data-tone={bar.tone}
            className={classNames('timeline-bar', `timeline-bar--${bar.tone}`, selected === bar.id && 'is-selected')}
            style={{ height: `${Math.round(bar.height * 100)}%` }}
            title={`#${bar.id} ${bar.row.kind} · ${TONE_LABEL[bar.tone]}\n${formatDuration(bar.row.end_to_end_duration)} · ${formatBytes(bar.row.state_size)}`}
            aria-label={`Checkpoint ${bar.id}, ${TONE_LABEL[bar.tone]}`}
            onClick={() => onSelect(bar.id)}
          />
        ))}
      </div>
      <div className="timeline-legend">
        {(Object.keys(TONE_LABEL) as TimelineTone[]).map((tone) => (
          <span key={tone}>
            <i className={`swatch timeline-bar--${tone}`} /> {TONE_LABEL[tone]}
          </span>
        ))}
      </div>
    </div>
  );
}
