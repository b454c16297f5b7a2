import { useEffect, useState } from 'react';
import { api, rowsOf } from '../api/client';
import type { RunSummary } from '../api/types';
import { paths } from '../router';
import { formatClock } from '../state/shared/format';
import { endingOf, formatUptime, formatWhen, JOBS_ORDER, jobsInOrder, uptimeMs } from '../state/run/jobsOverview';
import { runStatusTone } from '../state/run/runStatus';
import { Link } from '../ui/Link';
import { StatusBadge } from '../ui/StatusBadge';
import { SessionUseLine } from './SessionUseLine';

/** How often the overview asks for fresh rows (Flink's overview refreshes like this too). */
export const JOBS_REFRESH_MS = 3000;
const JOBS_SHOWN = 100;

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** Every running and recent run: status, uptime, last checkpoint, restarts (Flink's jobs overview). */
export function JobsPage() {
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const now = useNow(1000);
  useEffect(() => {
    let cancelled = false;
    const load = () =>
      api.searchRuns({ page_size: JOBS_SHOWN }).then(
        (answer) => {
          if (cancelled) return;
          setRuns(jobsInOrder(rowsOf<RunSummary>(answer)));
          setError(null);
        },
        (failure: unknown) => !cancelled && setError(failure instanceof Error ? failure.message : String(failure)),
      );
    void load();
    const timer = setInterval(() => void load(), JOBS_REFRESH_MS);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, []);
  const running = runs?.filter((run) => !run.ended_at).length ?? 0;
  return (
    <main className="list-page jobs-page">
      <div className="list-page__heading">
        <h1>Jobs</h1>
        {runs && (
          <span className="muted" data-testid="jobs-counts">
            {running} running · {runs.length - running} ended
          </span>
        )}
        <SessionUseLine refreshMs={JOBS_REFRESH_MS} />
        {runs && runs.length > 0 && (
          <span className="muted jobs-order" data-testid="jobs-order">
            {JOBS_ORDER}
          </span>
        )}
      </div>
      {error && <p className="error-text">{error}</p>}
      {runs === null && !error && <p className="muted">Loading…</p>}
      {runs?.length === 0 && <p className="muted">No runs yet.</p>}
      {runs && runs.length > 0 && (
        <table className="data-table" data-testid="jobs">
          <thead>
            <tr>
              <th className="numeric">Run</th>
              <th>Pipeline</th>
              <th>Status</th>
              <th aria-sort="descending">Started</th>
              <th aria-sort="descending">Ended</th>
              <th className="numeric">Uptime</th>
              <th>Last checkpoint</th>
              <th className="numeric">Restarts</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.id} data-testid="job-row" data-run={run.id} data-status={run.status}>
                <td className="numeric">
                  <Link to={paths.run(run.id)}>#{run.id}</Link>
                </td>
                <td>
                  <Link to={paths.pipeline(run.pipeline)}>{run.pipeline_name}</Link> <span className="muted">v{run.version} · {run.mode}</span>
                </td>
                <td className="job-status">
                  <StatusBadge tone={runStatusTone(run.status)} title={run.failure_cause ?? undefined}>
                    {run.status}
                  </StatusBadge>
                  {run.ended_by && (
                    <span className="job-ending" data-testid="job-ending" data-how={run.ended_by.how}>
                      {' '}
                      {endingOf(run)}
                      {run.ended_by.continued_as != null && (
                        <>
                          {' → '}
                          <Link to={paths.run(run.ended_by.continued_as)}>#{run.ended_by.continued_as}</Link>
                        </>
                      )}
                    </span>
                  )}
                </td>
                <td title={run.started_at ? new Date(run.started_at).toLocaleString() : undefined}>{formatWhen(run.started_at, now)}</td>
                <td data-testid="job-ended" title={run.ended_at ? new Date(run.ended_at).toLocaleString() : undefined}>
                  {formatWhen(run.ended_at, now)}
                </td>
                <td className="numeric" data-testid="job-uptime">
                  {formatUptime(uptimeMs(run, now))}
                </td>
                <td data-testid="job-last-checkpoint">
                  {run.last_checkpoint ? (
                    <>
                      #{run.last_checkpoint.id} <span className="muted">{formatClock(run.last_checkpoint.trigger_timestamp)}</span>
                    </>
                  ) : (
                    '–'
                  )}
                </td>
                <td className="numeric" data-testid="job-restarts">
                  {run.restarts ?? 0}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
