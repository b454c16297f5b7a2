import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import type { Schedule } from '../api/operations';
import { readNumber } from '../state/shared/numberInput';

/** The server's bounds (studio/schedules/api.py): an interval of up to a year, up to 1,000 savepoints kept. */
export const INTERVAL_S = { integer: true, min: 1, max: 366 * 24 * 3600 };
export const RETAIN = { integer: true, min: 1, max: 1000 };

function describe(schedule: Schedule): string {
  const when = schedule.interval_s ? `every ${schedule.interval_s} s` : `cron ${schedule.cron}`;
  return `${when} · keeps ${schedule.retain}${schedule.pipeline ? ' · all runs of the pipeline' : ''}`;
}

/** Savepoint schedules of this run (and of its pipeline): add one by interval, delete. */
export function SchedulePanel({ runId, pipelineId }: { runId: number; pipelineId: number | null }) {
  const [schedules, setSchedules] = useState<Schedule[]>([]);
  const [intervalText, setIntervalText] = useState('60');
  const [retain, setRetain] = useState('3');
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    const all = await api.listSchedules();
    setSchedules(all.filter((schedule) => schedule.run === runId || (pipelineId !== null && schedule.pipeline === pipelineId)));
  }, [runId, pipelineId]);
  useEffect(() => {
    reload().catch(() => undefined);
  }, [reload]);
  async function add() {
    setError(null);
    const interval = readNumber(intervalText, INTERVAL_S);
    const kept = readNumber(retain, RETAIN);
    if (interval.value === null || kept.value === null) {
      setError([interval.problem && `every: ${interval.problem} of seconds`, kept.problem && `keep: ${kept.problem}`].filter(Boolean).join('; '));
      return;
    }
    try {
      await api.createSchedule({ run: runId, interval_s: interval.value, retain: kept.value });
      await reload();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  }
  async function remove(id: number) {
    await api.deleteSchedule(id);
    await reload();
  }
  return (
    <section className="schedule-panel" aria-label="Savepoint schedules" data-testid="schedule-panel">
      <ul className="schedule-list">
        {schedules.map((schedule) => (
          <li key={schedule.id} data-testid="schedule">
            {describe(schedule)}
            {schedule.last_error && <span className="error-text"> · {schedule.last_error}</span>}{' '}
            <button type="button" className="link-button" onClick={() => void remove(schedule.id)}>
              delete
            </button>
          </li>
        ))}
      </ul>
      <div className="schedule-form">
        <label>
          every <input className="input" data-testid="schedule-interval" size={5} value={intervalText} onChange={(event) => setIntervalText(event.target.value)} /> s
        </label>
        <label>
          keep <input className="input" data-testid="schedule-retain" size={3} value={retain} onChange={(event) => setRetain(event.target.value)} />
        </label>
        <button type="button" className="button" data-testid="schedule-add" onClick={() => void add()}>
          Add schedule
        </button>
      </div>
      {error && <p className="error-text" data-testid="schedule-error">{error}</p>}
    </section>
  );
}
