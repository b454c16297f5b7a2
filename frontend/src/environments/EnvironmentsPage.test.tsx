// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordRequests, writes } from '../testing/requests';
import { EnvironmentsPage } from './EnvironmentsPage';
import PromotionsSection from './PromotionsSection';

const PROD = { id: 5, name: 'prod', position: 1, mine: true, owner: 'alice', parameters: {}, requires_approval: false, approval_role: 'operator' };

describe('the environment forms send JSON integers', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("sends a new environment's order as an integer, and nothing past the server's 31 bits", async () => {
    const sent = recordRequests();
    render(<EnvironmentsPage />);
    fireEvent.change(screen.getByTestId('environment-name'), { target: { value: 'prod' } });
    // (a fraction never gets here: the browser's own check of the number input's step refuses to submit it)
    fireEvent.change(screen.getByTestId('environment-position'), { target: { value: '3000000000' } });
    fireEvent.click(screen.getByTestId('environment-save'));
    await waitFor(() => expect(screen.getByTestId('environment-error').textContent).toBe('Order: a whole number from 0 to 2,147,483,647'));
    expect(writes(sent)).toEqual([]);
    fireEvent.change(screen.getByTestId('environment-position'), { target: { value: '2' } });
    fireEvent.click(screen.getByTestId('environment-save'));
    await waitFor(() => expect(writes(sent)).toHaveLength(1));
    expect(writes(sent)[0].body).toEqual({ name: 'prod', position: 2, requires_approval: false, approval_role: 'operator', team: null });
  });

  it("promotes a version named by a JSON integer, and offers nothing to send for a fraction", async () => {
    const sent = recordRequests(({ path }) => (path === '/api/pipelines' ? { status: 200, body: [{ id: 3, name: 'clicks', version: 4 }] } : undefined));
    render(<PromotionsSection environmentList={[PROD] as never} onChanged={() => undefined} />);
    await screen.findByText('clicks');
    fireEvent.change(screen.getByTestId('promotion-pipeline'), { target: { value: '3' } });
    fireEvent.change(screen.getByTestId('promotion-target'), { target: { value: '5' } });
    expect((screen.getByTestId('promotion-version') as HTMLInputElement).value).toBe('4');
    fireEvent.change(screen.getByTestId('promotion-version'), { target: { value: '2.5' } });
    expect((screen.getByTestId('promotion-promote') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByTestId('promotion-version'), { target: { value: '2' } });
    fireEvent.click(screen.getByTestId('promotion-promote'));
    await waitFor(() => expect(writes(sent)).toHaveLength(1));
    expect(writes(sent)[0].raw).toBe('{"pipeline":3,"version":2,"environment":5,"message":""}');
  });
});
