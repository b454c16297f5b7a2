/**
 * Per-node (per-operator) metrics as the run graph and its drill-down show them.
 *
 * The engine counts records in and out for every operator of a chain and keeps its input
 * watermark; the studio sums them over the node's subtasks (`NodeMetrics`). A node without
 * such figures (an older run) falls back to its job vertex's numbers.
 */
import type { NodeMetrics, VertexMetrics } from '../../api/types';
import { formatClock } from '../shared/format';

/** The engine's end-of-input watermark (Long.MAX_VALUE), as JSON numbers carry it. */
const END_OF_INPUT_WATERMARK = 2 ** 63 - 1;

/** Below this a watermark is not an epoch time but a plain event-time number (1973-03-03). */
const EPOCH_MS_FROM = 1e11;

/** "–" before the first watermark, "end" after the last, a clock time, or the number. */
export function formatWatermark(watermark: number | null | undefined): string {
  if (watermark === null || watermark === undefined || !Number.isFinite(watermark)) return '–';
  if (watermark >= END_OF_INPUT_WATERMARK) return 'end';
  if (watermark >= EPOCH_MS_FROM) return formatClock(watermark);
  return watermark.toLocaleString();
}

/** The numbers a run-graph node shows: its operator's own when reported, else its vertex's. */
export function nodeFigures(node: NodeMetrics | undefined, vertex: VertexMetrics | undefined): VertexMetrics | undefined {
  if (!node) return vertex;
  return {
    records_in: node.records_in,
    records_out: node.records_out,
    records_in_per_second: node.records_in_per_second ?? undefined,
    records_out_per_second: node.records_out_per_second ?? undefined,
    busy_ratio: node.busy_ratio ?? vertex?.busy_ratio,
    idle_ratio: node.idle_ratio ?? vertex?.idle_ratio,
    backpressured_ratio: node.backpressured_ratio ?? vertex?.backpressured_ratio,
    parallelism: node.parallelism ?? vertex?.parallelism,
  };
}
