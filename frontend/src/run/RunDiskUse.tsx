import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { RunDiskUsage } from '../api/types';
import { formatBytes } from '../state/shared/format';

/** How often the header asks again while the run goes on (retention measures every half minute). */
export const DISK_REFRESH_MS = 30_000;

function breakdown(usage: RunDiskUsage): string {
  const parts = [
    `checkpoints ${formatBytes(usage.checkpoint_bytes)} (${usage.checkpoint_count})`,
    `savepoints ${formatBytes(usage.savepoint_bytes)} (${usage.savepoint_count})`,
    `log ${formatBytes(usage.log_bytes)}`,
  ];
  if (usage.checkpoints_swept_at) parts.push(`checkpoints deleted by retention ${new Date(usage.checkpoints_swept_at).toLocaleDateString()}`);
  return `${parts.join(' · ')} — measured ${new Date(usage.measured_at).toLocaleTimeString()}`;
}

/** The bytes the run holds on disk (checkpoints, savepoints, its log), with the breakdown on hover. */
export function RunDiskUse({ runId, live }: { runId: number; live: boolean }) {
  const [usage, setUsage] = useState<RunDiskUsage | null>(null);
  useEffect(() => {
    let cancelled = false;
    const load = () =>
      api.getRunDisk(runId).then(
        (answer) => {
          if (!cancelled) setUsage(answer);
        },
        () => undefined, // the next refresh asks again
      );
    void load();
    const timer = live ? setInterval(() => void load(), DISK_REFRESH_MS) : null;
    return () => {
      cancelled = true;
      if (timer !== null) clearInterval(timer);
    };
  }, [runId, live]);
  if (!usage) return null;
  return (
    <span className="run-disk" data-testid="run-disk" title={breakdown(usage)}>
      {' '}
      · disk {formatBytes(usage.total_bytes)}
    </span>
  );
}
