// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TestBadges } from './TestBadges';
import { TestsFirst } from './TestsFirst';

const AT = '2026-11-28T07:00:00Z';

describe('where a kept test run shows the environment it ran with', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("names it on the version's tests badge, and nothing when it ran with none", () => {
    render(<TestBadges badge={{ version: 3, tests: { id: 7, status: 'passed', at: AT, environment: 'prod' }, proof: null }} />);
    const badge = screen.getByTestId('version-tests-badge');
    expect(badge.textContent).toBe('tests passed in prod');
    expect(badge.getAttribute('data-environment')).toBe('prod');
    expect(badge.getAttribute('title')).toBe(`test cases run ${AT} with environment prod's values`);
    cleanup();
    render(<TestBadges badge={{ version: 2, tests: { id: 6, status: 'failed', at: AT, environment: null }, proof: null }} />);
    expect(screen.getByTestId('version-tests-badge').textContent).toBe('tests failed');
  });

  it('names it beside the verdict when Deploy runs the test cases first', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify({
      id: 8, pipeline: 3, version: 2, environment: 'prod', parameters: { factor: 5 }, status: 'passed', cases: ['t'],
      counts: { passed: 1, failed: 0, error: 0 }, results: [], error: '', duration_s: 1, created_by: 'ada', created_at: AT, finished_at: AT,
    }), { status: 201 })));
    render(<TestsFirst pipelineId={3} version={2} environment="prod" />);
    fireEvent.click(screen.getByTestId('tests-first-run'));
    await waitFor(() => expect(screen.getByTestId('tests-first-environment').textContent).toBe(" with environment prod's values"));
    expect(screen.getByTestId('tests-first-verdict').textContent).toBe('1 passed, 0 failed, 0 errors');
  });
});
