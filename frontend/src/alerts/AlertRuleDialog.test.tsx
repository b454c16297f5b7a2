// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordRequests, writes } from '../testing/requests';
import { AlertRuleDialog } from './AlertRuleDialog';

function fill(testId: string, value: string) {
  fireEvent.change(screen.getByTestId(testId), { target: { value } });
}

describe('the alert rule dialog', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('sends the threshold and duration typed as JSON numbers', async () => {
    const sent = recordRequests(({ method, body }) => (method === 'POST' ? { status: 201, body: { id: 1, ...(body as object) } } : undefined));
    const onSaved = vi.fn();
    render(<AlertRuleDialog rule={null} pipelineId={3} pipelines={[]} onSaved={onSaved} onClose={() => undefined} />);
    fill('alert-rule-name', 'slow');
    fill('alert-rule-kind', 'backpressure');
    fill('alert-rule-threshold', '75');
    fill('alert-rule-duration', '45');
    fireEvent.click(screen.getByTestId('alert-rule-save'));
    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    const [create] = writes(sent);
    expect(create.path).toBe('/api/alerts/rules');
    expect(create.body).toMatchObject({ pipeline: 3, kind: 'backpressure', threshold: 0.75, duration_s: 45 });
    expect(create.raw).toContain('"threshold":0.75,"duration_s":45');
  });

  it("sends nothing for a threshold that is no number, and shows the server's refusal at the field it names", async () => {
    const sent = recordRequests(({ method }) =>
      method === 'POST' ? { status: 400, body: { detail: 'threshold: A valid number is required.', fields: { threshold: ['A valid number is required.'] } } } : undefined,
    );
    render(<AlertRuleDialog rule={null} pipelineId={3} pipelines={[]} onSaved={() => undefined} onClose={() => undefined} />);
    fill('alert-rule-name', 'slow');
    fill('alert-rule-kind', 'checkpoint_duration');
    fill('alert-rule-threshold', 'soon');
    fireEvent.click(screen.getByTestId('alert-rule-save'));
    expect(screen.getByTestId('alert-rule-problem-threshold').textContent).toBe('longer than: a number of ms');
    expect(writes(sent)).toEqual([]);
    fill('alert-rule-threshold', '5000');
    fireEvent.click(screen.getByTestId('alert-rule-save'));
    await waitFor(() => expect(screen.getByTestId('alert-rule-problem-threshold').textContent).toBe('A valid number is required.'));
    expect(writes(sent)[0].body).toMatchObject({ threshold: 5000 });
  });
});
