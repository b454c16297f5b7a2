import { useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import { socketUrl, type TapMessage } from '../api/operations';
import type { PipelineDefinition } from '../api/types';

const SHOWN = 50;

interface TappedRecord {
  key: number;
  task: string;
  text: string;
  cut: boolean;
}

/** One open tap: its socket, and the newest records it brought. Closing the socket closes the tap. */
function useTap(runId: number, edge: string | null) {
  const [records, setRecords] = useState<TappedRecord[]>([]);
  const [dropped, setDropped] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const counter = useRef(0);
  useEffect(() => {
    if (!edge) return;
    let socket: WebSocket | null = null;
    let closed = false;
    setRecords([]);
    setDropped(0);
    setError(null);
    api.openTap(runId, { edge }).then(
      (tap) => {
        if (closed) {
          void api.closeTap(runId, tap.tap_id);
          return;
        }
        socket = new WebSocket(socketUrl(tap.websocket));
        socket.onmessage = (message) => {
          const data = JSON.parse(String(message.data)) as TapMessage;
          if (data.type !== 'records') return;
          const arrived = data.records.map(([text, cut]) => ({ key: counter.current++, task: data.task, text, cut }));
          setRecords((list) => [...arrived.reverse(), ...list].slice(0, SHOWN));
          setDropped((total) => total + data.dropped);
        };
        socket.onclose = (event) => {
          if (!closed && event.code >= 4000) setError(`the tap closed (${event.code})`);
        };
      },
      (failure: unknown) => setError(failure instanceof Error ? failure.message : String(failure)),
    );
    return () => {
      closed = true;
      socket?.close();
    };
  }, [runId, edge]);
  return { records, dropped, error };
}

/** Live tap: pick an edge of the running job and watch a sample of the records crossing it. */
export function TapPanel({ runId, definition, running }: { runId: number; definition: PipelineDefinition | null; running: boolean }) {
  const edges = definition?.edges ?? [];
  const [choice, setChoice] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const { records, dropped, error } = useTap(runId, running ? open : null);
  const selected = choice || edges[0]?.id || '';
  return (
    <section className="tap-panel" aria-label="Live tap" data-testid="tap-panel">
      <div className="tap-controls">
        <select className="input" data-testid="tap-edge" value={selected} disabled={!!open} onChange={(event) => setChoice(event.target.value)}>
          {edges.map((edge) => (
            <option key={edge.id} value={edge.id}>
              {edge.id}: {edge.from} → {edge.to}
            </option>
          ))}
        </select>
        {open ? (
          <button type="button" className="button" data-testid="tap-close" onClick={() => setOpen(null)}>
            Close tap
          </button>
        ) : (
          <button type="button" className="button" data-testid="tap-open" disabled={!running || !selected} onClick={() => setOpen(selected)}>
            Open tap
          </button>
        )}
        {open && <span className="muted" data-testid="tap-dropped">{dropped} not shown (rate limit)</span>}
      </div>
      {error && <p className="error-text">{error}</p>}
      {open && records.length === 0 && !error && <p className="muted panel-empty">Waiting for records on {open}…</p>}
      <ol className="tap-records" data-testid="tap-records">
        {records.map((record) => (
          <li key={record.key} data-testid="tap-record">
            <code>{record.text}{record.cut && '…'}</code> <span className="muted">{record.task}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
