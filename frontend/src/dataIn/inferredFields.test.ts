import { describe, expect, it } from 'vitest';
import { kafkaSourcesFeeding } from './inferredFields';

const node = (id: string, type: string, params: Record<string, unknown> = {}) => ({ id, data: { type, params } });
const kafka = node('in', 'source.kafka', { bootstrap_servers: 'connection:orders', topics: ['orders'] });

describe('kafkaSourcesFeeding', () => {
  it('finds the Kafka source of a node and of the nodes records pass through unchanged', () => {
    const nodes = [kafka, node('keep', 'transform.filter'), node('late', 'transform.watermark'), node('shape', 'transform.map'), node('after', 'transform.filter')];
    const edges = [
      { source: 'in', target: 'keep' },
      { source: 'keep', target: 'late' },
      { source: 'late', target: 'shape' },
      { source: 'shape', target: 'after' },
    ];
    const orders = [{ bootstrap: 'connection:orders', topic: 'orders', emit: 'record', format: 'json' }];
    expect(kafkaSourcesFeeding('in', nodes, edges)).toEqual(orders);
    expect(kafkaSourcesFeeding('late', nodes, edges)).toEqual(orders);
    expect(kafkaSourcesFeeding('shape', nodes, edges)).toEqual(orders); // a map's expression reads its input
    expect(kafkaSourcesFeeding('after', nodes, edges)).toEqual([]); // ... but its output is another shape
  });

  it('needs the address and a topic to sample', () => {
    const nodes = [node('in', 'source.kafka', { bootstrap_servers: 'h:9092' }), node('keep', 'transform.filter')];
    expect(kafkaSourcesFeeding('keep', nodes, [{ source: 'in', target: 'keep' }])).toEqual([]);
  });
});
