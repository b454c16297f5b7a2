import '../styles/dataIn.css';
import { useEffect, useState } from 'react';
import { dataIn, type ConnectionProfile, type KafkaSample } from '../api/dataIn';
import type { ParamSchema } from '../api/types';
import { FileBrowser } from '../files/FileBrowser';
import { TopicBrowser } from '../connections/TopicBrowser';
import { Dialog } from '../ui/Dialog';
import { keyOf, useInferredFields } from './inferredFields';

type Kind = 'path' | 'kafka' | 'redis' | 'postgres';
const CONNECTION_KINDS = new Set<Kind>(['kafka', 'redis', 'postgres']);

/** The location kind a parameter names (``x-location`` in the catalog), or null. */
export function locationKind(schema: ParamSchema | undefined): Kind | null {
  const kind = (schema as Record<string, unknown> | undefined)?.['x-location'];
  return kind === 'path' || kind === 'kafka' || kind === 'redis' || kind === 'postgres' ? kind : null;
}

interface LocationToolsProps {
  operatorType: string;
  name: string;
  schema: ParamSchema | undefined;
  params: Record<string, unknown>;
  setParam: (name: string, value: unknown) => void;
}

function ProfilePicker({ kind, value, onPick }: { kind: Kind; value: unknown; onPick: (reference: string) => void }) {
  const [profiles, setProfiles] = useState<ConnectionProfile[]>([]);
  useEffect(() => {
    dataIn.listConnections().then(
      (found) => setProfiles(found.filter((profile) => profile.kind === kind)),
      () => setProfiles([]),
    );
  }, [kind]);
  if (profiles.length === 0) return <span className="muted location-tools__none">No {kind} connection profile yet (Connections page).</span>;
  const current = profiles.find((profile) => profile.reference === value);
  return (
    <select className="input location-tools__profiles" data-testid="connection-pick" value={current?.reference ?? ''} onChange={(event) => event.target.value && onPick(event.target.value)}>
      <option value="">use a connection profile…</option>
      {profiles.map((profile) => (
        <option key={profile.id} value={profile.reference}>
          {profile.name}
          {profile.mine ? '' : ` (${profile.owner}'s)`} · {profile.address}
        </option>
      ))}
    </select>
  );
}

/**
 * Helpers beside a location parameter of a node's form: a path picker over the granted
 * directories (sources), a connection profile picker (Kafka, Redis, PostgreSQL), and for a Kafka
 * source the topic browser, whose chosen topic's inferred fields the editor then offers in expressions.
 */
export function LocationTools({ operatorType, name, schema, params, setParam }: LocationToolsProps) {
  const kind = locationKind(schema);
  const [dialog, setDialog] = useState<'files' | 'topics' | null>(null);
  const remember = useInferredFields((state) => state.remember);
  if (!kind) return null;
  const isSource = operatorType.startsWith('source.');
  const bootstrap = typeof params.bootstrap_servers === 'string' ? params.bootstrap_servers : '';
  const emit = typeof params.emit === 'string' ? params.emit : 'record';

  function useTopic(topic: string, sample: KafkaSample) {
    setParam('topics', [topic]);
    const format = typeof params.format === 'string' ? params.format : 'json';
    remember(keyOf({ bootstrap, topic, emit, format }), sample.fields);
    setDialog(null);
  }

  return (
    <div className="location-tools" data-testid={`location-tools-${name}`}>
      {kind === 'path' && isSource && (
        <button type="button" className="button" data-testid="browse-files" onClick={() => setDialog('files')}>
          Browse files…
        </button>
      )}
      {CONNECTION_KINDS.has(kind) && <ProfilePicker kind={kind} value={params[name]} onPick={(reference) => setParam(name, reference)} />}
      {kind === 'kafka' && operatorType === 'source.kafka' && (
        <button type="button" className="button" data-testid="browse-topics" disabled={!bootstrap} onClick={() => setDialog('topics')}>
          Browse topics…
        </button>
      )}
      {dialog === 'files' && (
        <Dialog label="Pick a file or directory" testId="file-picker" onClose={() => setDialog(null)}>
          <h2>Pick a file or directory</h2>
          <FileBrowser
            onPick={(path) => {
              setParam(name, path);
              setDialog(null);
            }}
          />
          <div className="dialog-actions">
            <button type="button" className="button" onClick={() => setDialog(null)}>
              Close
            </button>
          </div>
        </Dialog>
      )}
      {dialog === 'topics' && (
        <Dialog label="Topics" testId="topic-picker" onClose={() => setDialog(null)}>
          <h2>
            Topics of <code>{bootstrap}</code>
          </h2>
          <TopicBrowser bootstrap={bootstrap} emit={emit} onUseTopic={useTopic} />
          <div className="dialog-actions">
            <button type="button" className="button" onClick={() => setDialog(null)}>
              Close
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
