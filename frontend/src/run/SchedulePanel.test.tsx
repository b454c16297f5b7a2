// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordRequests, writes } from '../testing/requests';
import { SchedulePanel } from './SchedulePanel';

describe('the savepoint schedule form', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('sends the interval and how many to keep as JSON integers', async () => {
    const sent = recordRequests();
    render(<SchedulePanel runId={9} pipelineId={2} />);
    fireEvent.change(screen.getByTestId('schedule-interval'), { target: { value: ' 90 ' } });
    fireEvent.change(screen.getByTestId('schedule-retain'), { target: { value: '5' } });
    fireEvent.click(screen.getByTestId('schedule-add'));
    await waitFor(() => expect(writes(sent)).toHaveLength(1));
    expect(writes(sent)[0].raw).toBe('{"run":9,"interval_s":90,"retain":5}');
  });

  it('sends nothing for a fraction, a word or an empty field, and says what each takes', () => {
    const sent = recordRequests();
    render(<SchedulePanel runId={9} pipelineId={2} />);
    fireEvent.change(screen.getByTestId('schedule-interval'), { target: { value: '1.5' } });
    fireEvent.change(screen.getByTestId('schedule-retain'), { target: { value: '' } });
    fireEvent.click(screen.getByTestId('schedule-add'));
    expect(screen.getByTestId('schedule-error').textContent).toBe(
      'every: a whole number from 1 to 31,622,400 of seconds; keep: a whole number from 1 to 1,000',
    );
    fireEvent.change(screen.getByTestId('schedule-interval'), { target: { value: 'hourly' } });
    fireEvent.change(screen.getByTestId('schedule-retain'), { target: { value: '3' } });
    fireEvent.click(screen.getByTestId('schedule-add'));
    expect(screen.getByTestId('schedule-error').textContent).toBe('every: a whole number from 1 to 31,622,400 of seconds');
    expect(writes(sent)).toEqual([]);
  });
});
