import type { PipelineDefinition } from '../api/types';
import { formatRecord } from '../state/shared/format';
import { useRunStore, type RunStoreState } from '../state/run/runStore';

const selectCollected = (state: RunStoreState) => state.collected;
const MAX_SHOWN = 200;

/** The ids of the nodes whose records are previewed: the collect sinks, then any other the server sent. */
function collectNodeIds(definition: PipelineDefinition | null, collected: Record<string, unknown[]>): string[] {
  const sinks = (definition?.nodes ?? []).filter((node) => node.type === 'sink.collect').map((node) => node.id);
  return [...sinks, ...Object.keys(collected).filter((id) => !sinks.includes(id))];
}

/** The latest records of every sink.collect node. */
export function CollectedPanel({ definition }: { definition: PipelineDefinition | null }) {
  const collected = useRunStore(selectCollected);
  const nodeIds = collectNodeIds(definition, collected);
  return (
    <div className="collected-body" data-testid="collected" aria-label="Collected records">
      {nodeIds.length === 0 && <p className="muted panel-empty">This pipeline has no collect sink.</p>}
      <div className="collected-columns">
        {nodeIds.map((nodeId) => {
          const records = collected[nodeId] ?? [];
          return (
            <div key={nodeId} className="collected-node" data-testid={`collected-${nodeId}`}>
              <div className="collected-node__heading">
                <code>{nodeId}</code>
                <span className="count-pill" data-testid="collected-count">
                  {records.length}
                </span>
              </div>
              {records.length === 0 ? (
                <p className="muted">No records yet.</p>
              ) : (
                <ol className="record-list">
                  {records.slice(-MAX_SHOWN).map((record, index) => (
                    <li key={index} data-testid="collected-record">
                      {formatRecord(record)}
                    </li>
                  ))}
                </ol>
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}
