import { useEffect } from 'react';
import { api, ApiError } from '../api/client';
import { RunEventStream } from '../api/runSocket';
import type { RunEvent } from '../api/types';
import { useRunStore } from '../state/run/runStore';
import { applyRunEvent, checkpointHistoryLoaded, metricsSampled, nodeMetricsReported, runLoaded, savepointRequestsLoaded } from '../state/run/runState';
import { isRunEnded } from '../state/run/runStatus';

/** While the WebSocket is down, the page refreshes from REST this often. */
export const REST_FALLBACK_MS = 3000;

/** Reload the run and its checkpoints; false when the run does not exist. */
async function refreshFromRest(runId: number): Promise<boolean> {
  const [run, history] = await Promise.allSettled([api.getRun(runId), api.getCheckpoints(runId)]);
  const store = useRunStore.getState();
  if (store.runId !== runId) return true;
  if (store.accessLost) return false;
  if (run.status === 'fulfilled') {
    store.update((state) => runLoaded(state, run.value));
    store.setLoadError(null);
  } else if (store.run && run.reason instanceof ApiError && run.reason.status === 404) {
    store.loseAccess(); // it was shown a moment ago: the user may no longer see it
    return false;
  } else if (!store.run) {
    store.setLoadError(run.reason instanceof Error ? run.reason.message : String(run.reason));
  }
  if (history.status === 'fulfilled') store.update((state) => checkpointHistoryLoaded(state, history.value));
  return !(run.status === 'rejected' && run.reason instanceof ApiError && run.reason.status === 404);
}

/** Endpoints a studio may not have yet: their absence only means less to show. */
async function refreshExtras(runId: number): Promise<void> {
  const [metrics, savepoints] = await Promise.allSettled([api.getMetrics(runId), api.listSavepoints(runId)]);
  const store = useRunStore.getState();
  if (store.runId !== runId) return;
  if (metrics.status === 'fulfilled' && metrics.value?.vertices && Object.keys(store.vertices).length === 0) {
    store.update((state) => metricsSampled(state, metrics.value.vertices, Date.now()));
  }
  if (metrics.status === 'fulfilled' && metrics.value?.nodes && Object.keys(store.nodes).length === 0) {
    store.update((state) => nodeMetricsReported(state, metrics.value.nodes));
  }
  if (savepoints.status === 'fulfilled' && Array.isArray(savepoints.value)) {
    store.update((state) => savepointRequestsLoaded(state, savepoints.value));
  }
}

/**
 * Keep the run store in step with the server: first the run and its checkpoint history from
 * REST, then the event stream (replayed from the start, then live; see RunEventStream). When
 * the stream is down the page polls REST, and once the run ends it reads the final run once.
 * When the server refuses the user (the socket closed with 4403/4404, or the run turned into a
 * 404: removed from the pipeline's team, a share taken away), the page forgets the run at once.
 */
export function useRunSubscription(runId: number): void {
  useEffect(() => {
    useRunStore.getState().reset(runId);
    let stream: RunEventStream | null = null;
    let cancelled = false;

    const onEvent = (event: RunEvent) => {
      const store = useRunStore.getState();
      store.update((state) => applyRunEvent(state, event));
      if (event.type === 'status' && isRunEnded(event.data.status)) void refreshFromRest(runId);
      // The plan (which nodes share a vertex's metrics) is written when the run is scheduled.
      else if (event.type === 'status' && !useRunStore.getState().run?.plan) void refreshFromRest(runId);
      // Where it runs is decided at its launch: its driver's first word says it is known.
      else if (event.type === 'startup' && !useRunStore.getState().run?.placement) void refreshFromRest(runId);
    };

    void refreshFromRest(runId).then((exists) => {
      if (cancelled || !exists) return;
      void refreshExtras(runId);
      stream = new RunEventStream({
        runId,
        onEvent,
        onConnectionChange: (connection) => useRunStore.getState().setConnection(connection),
        shouldReconnect: () => !isRunEnded(useRunStore.getState().status),
        onRefused: () => useRunStore.getState().loseAccess(),
      });
      stream.start();
    });

    const poll = setInterval(() => {
      const { connection, status, accessLost } = useRunStore.getState();
      if (!accessLost && connection !== 'open' && connection !== 'connecting' && !isRunEnded(status)) void refreshFromRest(runId);
    }, REST_FALLBACK_MS);

    return () => {
      cancelled = true;
      clearInterval(poll);
      stream?.stop();
    };
  }, [runId]);
}
