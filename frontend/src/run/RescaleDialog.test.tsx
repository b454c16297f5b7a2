// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Run } from '../api/types';
import { recordRequests, writes } from '../testing/requests';
import { RescaleDialog } from './RescaleDialog';

const RUN = { id: 7, pipeline: 3, status: 'RUNNING', definition: { parallelism: 2 } } as unknown as Run;

describe('the rescale dialog', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('sends the new parallelism as a JSON integer', async () => {
    const sent = recordRequests(({ method }) => (method === 'POST' ? { status: 202, body: { id: 1, run: 7, status: 'pending' } } : undefined));
    const onClose = vi.fn();
    render(<RescaleDialog run={RUN} onClose={onClose} />);
    expect((screen.getByTestId('rescale-parallelism') as HTMLInputElement).value).toBe('3');
    fireEvent.change(screen.getByTestId('rescale-parallelism'), { target: { value: '4' } });
    fireEvent.click(screen.getByTestId('rescale-confirm'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(writes(sent)[0].raw).toBe('{"parallelism":4}');
  });

  it('sends nothing for a fraction or past the server bound of 1024', () => {
    const sent = recordRequests();
    render(<RescaleDialog run={RUN} onClose={() => undefined} />);
    for (const value of ['2.5', '2000']) {
      fireEvent.change(screen.getByTestId('rescale-parallelism'), { target: { value } });
      fireEvent.click(screen.getByTestId('rescale-confirm'));
      expect(screen.getByTestId('rescale-error').textContent).toBe('parallelism must be a whole number from 1 to 1,024');
    }
    expect(writes(sent)).toEqual([]);
  });
});
