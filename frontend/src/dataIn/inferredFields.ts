/**
 * The fields a Kafka topic's records offer to expressions, inferred from its latest messages by
 * the studio (GET /api/kafka/sample), and which nodes' expressions see them: the Kafka source's
 * own and those downstream of it through operators that pass records on unchanged (filters,
 * watermarks, unions, deduplication, windows' and joins' inputs are not followed).
 */
import { create } from 'zustand';
import { dataIn, type InferredField } from '../api/dataIn';

/** Operators whose output records are their input records: their expressions see the source's fields. */
export const PASS_THROUGH = new Set(['transform.filter', 'transform.watermark', 'transform.union', 'transform.deduplicate']);

export interface SourceKey {
  bootstrap: string;
  topic: string;
  emit: string;
  format: string;
}

export function keyOf(source: SourceKey): string {
  return JSON.stringify([source.bootstrap, source.topic, source.emit, source.format]);
}

interface InferredState {
  /** Fields by source key; null while the sample is read or when it could not be. */
  byKey: Record<string, InferredField[] | null>;
  remember: (key: string, fields: InferredField[] | null) => void;
  ensure: (source: SourceKey) => void;
}

export const useInferredFields = create<InferredState>()((set, get) => ({
  byKey: {},
  remember: (key, fields) => set((state) => ({ byKey: { ...state.byKey, [key]: fields } })),
  ensure: (source) => {
    const key = keyOf(source);
    if (key in get().byKey) return;
    get().remember(key, null);
    const format = ['json', 'csv', 'string', 'raw'].includes(source.format) ? source.format : 'json';
    if (format === 'csv') return; // its columns are in the node: nothing to infer
    dataIn.kafkaSample(source.bootstrap, source.topic, { limit: 20, emit: source.emit, value_format: format }).then(
      (sample) => get().remember(key, sample.fields),
      () => undefined, // no fields to offer; the topic browser says why
    );
  },
}));

interface GraphNode {
  id: string;
  data: { type: string; params: Record<string, unknown> };
}

interface GraphEdge {
  source: string;
  target: string;
}

/** The Kafka sources whose records reach ``nodeId``'s expressions unchanged (the node itself included). */
export function kafkaSourcesFeeding(nodeId: string, nodes: GraphNode[], edges: GraphEdge[]): SourceKey[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const found: SourceKey[] = [];
  const seen = new Set<string>();
  const visit = (id: string, first: boolean) => {
    if (seen.has(id)) return;
    seen.add(id);
    const node = byId.get(id);
    if (!node) return;
    if (node.data.type === 'source.kafka') {
      const params = node.data.params;
      const topics = Array.isArray(params.topics) ? params.topics : [];
      if (typeof params.bootstrap_servers === 'string' && params.bootstrap_servers && typeof topics[0] === 'string') {
        found.push({
          bootstrap: params.bootstrap_servers,
          topic: topics[0],
          emit: typeof params.emit === 'string' ? params.emit : 'record',
          format: typeof params.format === 'string' ? params.format : 'json',
        });
      }
      return;
    }
    if (!first && !PASS_THROUGH.has(node.data.type)) return;
    for (const edge of edges) if (edge.target === id) visit(edge.source, false);
  };
  visit(nodeId, true);
  return found;
}
