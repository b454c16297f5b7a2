/**
 * How full the studio's shared Spark session is (GET /api/session): its runs, slots in use and memory, so a
 * person whose run waits for slots sees why; a session on a Spark master (elastic) also says its executors,
 * one slot each, and whether it is growing or shrinking to what its runs need. Nothing when session mode is off.
 */
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { SessionUse } from '../api/types';

export function describeSessionUse(use: SessionUse): string | null {
  if (!use.enabled) return null;
  if (!use.serving) return 'shared session: not serving (starting, or restarting); new runs get drivers of their own';
  const memory = use.memory_mb == null ? '' : ` · ${(use.memory_mb / 1024).toFixed(1)} GB`;
  const waiting = use.runs_waiting ? ` · ${use.runs_waiting} waiting for slots` : '';
  return `shared session: ${use.runs ?? 0} run${use.runs === 1 ? '' : 's'} · ${use.slots_used ?? 0}/${use.slots ?? 0} slots${waiting}${describeExecutors(use)}${memory}`;
}

/** An elastic session's executors: registered, the count it asked for when that differs, its minimum and maximum. */
export function describeExecutors(use: SessionUse): string {
  if (use.executors == null) return '';
  const { executors, executors_target: target } = use;
  const change = target == null || target === executors ? '' : `, ${target > executors ? 'growing' : 'shrinking'} to ${target}`;
  return ` · ${executors} executor${executors === 1 ? '' : 's'}${change} (min ${use.executors_min ?? 0}, max ${use.executors_max ?? 0})`;
}

function titleOf(use: SessionUse): string | undefined {
  if (!use.application_id) return undefined;
  const cores = use.executors == null ? ' (local: its cores are fixed for its life)' : ' (elastic: one slot per executor)';
  return `Spark application ${use.application_id}${cores}`;
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
    <span className="muted" data-testid="session-use" title={use ? titleOf(use) : undefined}>
      {line}
    </span>
  );
}
