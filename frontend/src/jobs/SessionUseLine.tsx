/**
 * How full the studio's shared Spark session is (GET /api/session): its runs, slots in use and memory, so a
 * person whose run waits for slots sees why. Nothing when session mode is off.
 */
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { SessionUse } from '../api/types';

export function describeSessionUse(use: SessionUse): string | null {
  if (!use.enabled) return null;
  if (!use.serving) return 'shared session: not serving (starting, or restarting); new runs get drivers of their own';
  const memory = use.memory_mb == null ? '' : ` · ${(use.memory_mb / 1024).toFixed(1)} GB`;
  const waiting = use.runs_waiting ? ` · ${use.runs_waiting} waiting for slots` : '';
  return `shared session: ${use.runs ?? 0} run${use.runs === 1 ? '' : 's'} · ${use.slots_used ?? 0}/${use.slots ?? 0} slots${waiting}${memory}`;
}

export function SessionUseLine({ refreshMs }: { refreshMs: number }) {
  const [use, setUse] = useState<SessionUse | null>(null);
  useEffect(() => {
    let cancelled = false;
    const load = () => api.getSession().then((answer) => !cancelled && setUse(answer), () => undefined);
    void load();
    const timer = setInterval(() => void load(), refreshMs);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [refreshMs]);
  const line = use ? describeSessionUse(use) : null;
  if (line === null) return null;
  return (
    <span className="muted" data-testid="session-use" title={use?.application_id ? `Spark application ${use.application_id}` : undefined}>
      {line}
    </span>
  );
}
