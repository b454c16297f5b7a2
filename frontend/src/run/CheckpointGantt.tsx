import { useMemo } from 'react';
import type { CheckpointDetails } from '../api/types';
import { ganttOf, PHASE_LABELS, PHASES, ticks } from '../state/run/checkpointTimeline';
import { formatBytes, formatDuration } from '../state/shared/format';
import { classNames } from '../ui/classNames';

function percent(value: number, span: number): string {
  return `${((value / span) * 100).toFixed(3)}%`;
}

/** One row per subtask: start delay, alignment, sync and async, from the trigger on; a tick at its acknowledgement. */
export function CheckpointGantt({ details }: { details: CheckpointDetails }) {
  const gantt = useMemo(() => ganttOf(details), [details]);
  const marks = ticks(gantt.span);
  if (gantt.rows.length === 0) {
    return <p className="muted panel-empty">No per-subtask statistics for this checkpoint{details.status === 'IN_PROGRESS' ? ' yet' : ''}.</p>;
  }
  let lastVertex = '';
  return (
    <div className="gantt" data-testid="gantt">
      <div className="gantt__legend">
        {PHASES.map((phase) => (
          <span key={phase}>
            <i className={`swatch gantt-phase--${phase}`} /> {PHASE_LABELS[phase]}
          </span>
        ))}
        <span>
          <i className="swatch gantt-ack-swatch" /> acknowledged
        </span>
      </div>
      <div className="gantt__axis">
        <span className="gantt__label" />
        <div className="gantt__track">
          {marks.map((mark) => (
            <span key={mark} className="gantt__tick" style={{ left: percent(mark, gantt.span) }}>
              {formatDuration(mark)}
            </span>
          ))}
        </div>
      </div>
      <div className="gantt__rows">
        {gantt.rows.map((row) => {
          const heading = row.vertex !== lastVertex ? row.vertexName : null;
          lastVertex = row.vertex;
          const tooltip = [
            `${row.vertexName} #${row.index}`,
            ...PHASES.map((phase) => `${PHASE_LABELS[phase]}: ${formatDuration(row.segments.find((segment) => segment.phase === phase)?.duration ?? 0)}`),
            `state ${formatBytes(row.stateSize)}`,
            row.unaligned ? `unaligned: ${formatBytes(row.persistedData)} of in-flight data persisted` : 'aligned',
            row.finished ? 'finished before the checkpoint' : row.acknowledged ? `acknowledged after ${formatDuration(row.ack)}` : 'pending',
          ].join('\n');
          return (
            <div key={row.key}>
              {heading && <div className="gantt__vertex">{heading}</div>}
              <div className={classNames('gantt__row', !row.acknowledged && 'is-pending', row.finished && 'is-finished')} data-testid="gantt-row" data-subtask={row.key} title={tooltip}>
                <span className="gantt__label">
                  #{row.index}
                  {row.unaligned && (
                    <span className="alignment-tag" data-testid="gantt-unaligned" title={`unaligned: ${formatBytes(row.persistedData)} in flight persisted`}>
                      U
                    </span>
                  )}
                </span>
                <div className="gantt__track">
                  {row.segments.map((segment) => (
                    <span
                      key={segment.phase}
                      className={`gantt__segment gantt-phase--${segment.phase}`}
                      style={{ left: percent(segment.start, gantt.span), width: percent(Math.max(segment.duration, gantt.span / 400), gantt.span) }}
                    />
                  ))}
                  {row.ack !== null && <span className="gantt__ack" style={{ left: percent(row.ack, gantt.span) }} />}
                  {row.finished && <span className="gantt__note">finished</span>}
                  {!row.acknowledged && !row.finished && <span className="gantt__note">pending</span>}
                </div>
              </div>
            </div>
          );
        })}
      </div>
    </div>
  );
}
