/**
 * A sample of a running job's records on one edge, for a test case's input: a live tap (the
 * run page's) opened for a few seconds, its records parsed, then closed. Records the tap cut short
 * are left out: a test input must be whole.
 */
import { api } from '../api/client';
import { socketUrl, type TapMessage } from '../api/operations';

export async function captureTapSample(runId: number, edge: string, count: number, timeoutMs = 8000): Promise<unknown[]> {
  const tap = await api.openTap(runId, { edge, records_per_second: Math.min(1000, Math.max(20, count)) });
  return new Promise((resolve, reject) => {
    const rows: unknown[] = [];
    const socket = new WebSocket(socketUrl(tap.websocket));
    let done = false;
    const finish = (failure?: string) => {
      if (done) return;
      done = true;
      window.clearTimeout(timer);
      socket.close();
      void api.closeTap(runId, tap.tap_id).catch(() => undefined);
      if (failure && rows.length === 0) reject(new Error(failure));
      else resolve(rows.slice(0, count));
    };
    const timer = window.setTimeout(() => finish(`no record crossed ${edge} within ${timeoutMs / 1000} s`), timeoutMs);
    socket.onmessage = (message) => {
      const data = JSON.parse(String(message.data)) as TapMessage;
      if (data.type !== 'records') return;
      for (const [text, cut] of data.records) {
        if (!cut) rows.push(JSON.parse(text));
      }
      if (rows.length >= count) finish();
    };
    socket.onclose = (event) => {
      if (!done && event.code >= 4000) finish(`the tap closed (${event.code})`);
    };
  });
}
