/** "Shadow first" in the Deploy dialog: run the chosen version beside the running run from its state, and show the diff. */
import { useState } from 'react';
import type { RunSummary } from '../api/types';
import { shadowApi } from '../api/stateAndShadows';
import { navigate, paths } from '../router';

/** How long the shadow job may run: until its input ends, or five minutes. */
const SHADOW_SECONDS = 300;

export function ShadowFirstButton({ run, version, disabled, onError }: { run: RunSummary | null; version: number; disabled: boolean; onError: (message: string) => void }) {
  const [starting, setStarting] = useState(false);
  if (!run || version === run.version) return null;
  async function start() {
    if (!run) return;
    setStarting(true);
    try {
      const shadow = await shadowApi.create(run.id, { candidate_version: version, snapshot: 'take', max_seconds: SHADOW_SECONDS });
      navigate(paths.shadow(run.id, shadow.id));
    } catch (failure) {
      onError(failure instanceof Error ? failure.message : String(failure));
      setStarting(false);
    }
  }
  return (
    <button type="button" className="button" data-testid="upgrade-shadow-first" disabled={disabled || starting}
            title="Run this version beside the running one from a savepoint it takes now, in a sandbox, and compare their outputs before deploying"
            onClick={() => void start()}>
      Shadow first
    </button>
  );
}
