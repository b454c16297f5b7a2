import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useRunStore, type RunStoreState } from '../state/run/runStore';
import { CheckpointPanel } from './CheckpointPanel';
import { RunGraph } from './RunGraph';
import { RunDetailsTabs } from './RunDetailsTabs';
import { RunHeader } from './RunHeader';
import { useRunDefinition } from './useRunDefinition';
import { useRunSubscription } from './useRunSubscription';

const selectPage = (state: RunStoreState) => ({
  run: state.run,
  connection: state.connection,
  loadError: state.loadError,
  accessLost: state.accessLost,
});

/** A drop that is repaired within this time shows no banner (no flicker on a quick reconnect). */
const BANNER_GRACE_MS = 800;

/** True once `on` has stayed true for `delayMs`; false as soon as it turns false. */
function useSustained(on: boolean, delayMs: number): boolean {
  const [sustained, setSustained] = useState(false);
  useEffect(() => {
    if (!on) {
      setSustained(false);
      return;
    }
    const timer = setTimeout(() => setSustained(true), delayMs);
    return () => clearTimeout(timer);
  }, [on, delayMs]);
  return on && sustained;
}

/** Shown only while the live connection is down and being retried. */
function ConnectionBanner() {
  return (
    <div className="ws-banner" data-testid="ws-banner" role="status">
      Live updates disconnected. Reconnecting… (what you see may be a few seconds old)
    </div>
  );
}

/** A run: live status, the graph, checkpoints and collected records. */
export function RunPage({ runId }: { runId: number }) {
  useRunSubscription(runId);
  const { run, connection, loadError, accessLost } = useRunStore(useShallow(selectPage));
  const { definition, note } = useRunDefinition(run);
  const showBanner = useSustained(connection === 'disconnected', BANNER_GRACE_MS);

  if (accessLost) {
    return (
      <main className="page-message" data-testid="run-access-lost">
        <h1>Run {runId} is no longer visible to you</h1>
        <p className="muted">
          Your access to its pipeline was taken away while the page was open (you left or were removed from its team, or a share ended). Ask an
          admin of the team if you need it again.
        </p>
      </main>
    );
  }
  if (loadError && !run) {
    return (
      <main className="page-message">
        <h1>Could not open run {runId}</h1>
        <p className="error-text">{loadError}</p>
      </main>
    );
  }
  return (
    <main className="run-page">
      <RunHeader runId={runId} />
      {showBanner && <ConnectionBanner />}
      <div className="run-body">
        <section className="panel run-graph" aria-label="Pipeline graph">
          {note && <p className="muted graph-note">{note}</p>}
          <div className="run-graph__canvas">{definition ? <RunGraph definition={definition} plan={run?.plan} /> : <p className="muted panel-empty">Loading the graph…</p>}</div>
        </section>
        <RunDetailsTabs runId={runId} definition={definition} />
        <CheckpointPanel />
      </div>
    </main>
  );
}
