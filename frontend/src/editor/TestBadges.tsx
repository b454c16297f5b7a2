import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { TestBadge } from '../api/operations';
import { valuesText } from '../state/editor/environmentChoice';
import { classNames } from '../ui/classNames';

/** Each version's latest test-case run and exactly-once proof, for the history's rows. */
export function useTestBadges(pipelineId: number | null, refresh: unknown): Record<number, TestBadge> {
  const [badges, setBadges] = useState<Record<number, TestBadge>>({});
  useEffect(() => {
    if (pipelineId === null) return;
    let cancelled = false;
    api.testBadges(pipelineId).then(
      (list) => !cancelled && setBadges(Object.fromEntries(list.map((badge) => [badge.version, badge]))),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [pipelineId, refresh]);
  return badges;
}

/** "tests passed" (with the environment they ran in: "tests passed in prod"), "exactly-once proven (seed 42)": a
 * version's verdicts as badges. */
export function TestBadges({ badge }: { badge: TestBadge | undefined }) {
  if (!badge || (!badge.tests && !badge.proof)) return null;
  return (
    <span className="test-badges" data-testid="version-test-badges">
      {badge.tests && (
        <span className={classNames('status-pill', `status-${badge.tests.status}`)} data-testid="version-tests-badge" data-environment={badge.tests.environment ?? ''} title={`test cases run ${badge.tests.at} ${valuesText(badge.tests.environment)}`}>
          tests {badge.tests.status}
          {badge.tests.environment ? ` in ${badge.tests.environment}` : ''}
        </span>
      )}
      {badge.proof && (
        <span className={classNames('status-pill', `status-${badge.proof.status}`)} data-testid="version-proof-badge" title={`exactly-once proof, seed ${badge.proof.seed ?? ''}`}>
          {badge.proof.status === 'passed' ? 'exactly-once proven' : `proof ${badge.proof.status}`}
        </span>
      )}
    </span>
  );
}
