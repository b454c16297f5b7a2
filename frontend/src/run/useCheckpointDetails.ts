import { useEffect, useRef, useState } from 'react';
import { api, ApiError } from '../api/client';
import type { CheckpointDetails, CheckpointStats } from '../api/types';

/**
 * The details of one checkpoint (per vertex and subtask) from GET
 * /api/runs/<id>/checkpoints/<checkpoint id>, fetched again as acknowledgements come in.
 * Until it answers, and when the studio has no such endpoint, the row itself stands in: it
 * carries the subtasks the server and the live events know.
 */
export function useCheckpointDetails(runId: number, row: CheckpointStats | undefined): CheckpointDetails | undefined {
  const [fetched, setFetched] = useState<CheckpointDetails | undefined>(undefined);
  const unsupported = useRef(false);
  const id = row?.id;
  const progress = row ? `${row.status}:${row.num_acknowledged_subtasks}` : '';
  useEffect(() => {
    setFetched((current) => (current?.id === id ? current : undefined));
    if (id === undefined || unsupported.current) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      api.getCheckpoint(runId, id).then(
        (details) => !cancelled && setFetched(details),
        (error: unknown) => {
          if (error instanceof ApiError && (error.status === 404 || error.status === 405)) unsupported.current = true;
        },
      );
    }, 150);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [runId, id, progress]);
  if (!row) return undefined;
  if (fetched && fetched.id === row.id) {
    // The live row may be ahead of the fetched details: keep the newer status.
    return { ...fetched, status: row.status === 'IN_PROGRESS' ? fetched.status : row.status };
  }
  return row;
}
