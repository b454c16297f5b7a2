/**
 * Import and export of a pipeline as a JSON file: the definition itself, exactly what the
 * studio stores (GET /api/pipelines/<id>/export writes the same). An import also accepts a
 * saved pipeline's JSON ({"definition": ...}), as the REST API returns it.
 */
import type { PipelineDefinition } from '../../api/types';

export type ImportResult = { ok: true; definition: PipelineDefinition } | { ok: false; message: string };

export function parseImportedDefinition(text: string): ImportResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `Not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (parsed && typeof parsed === 'object' && 'definition' in parsed && typeof (parsed as { definition: unknown }).definition === 'object') {
    parsed = (parsed as { definition: unknown }).definition;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, message: 'The file holds no pipeline definition.' };
  const candidate = parsed as Partial<PipelineDefinition>;
  if (!Array.isArray(candidate.nodes) || !Array.isArray(candidate.edges ?? [])) {
    return { ok: false, message: 'A pipeline definition needs a "nodes" list (and an "edges" list).' };
  }
  const bad = candidate.nodes.find((node) => !node || typeof node.id !== 'string' || typeof node.type !== 'string');
  if (bad !== undefined) return { ok: false, message: 'Every node needs a string "id" and "type".' };
  // Missing settings get the defaults the editor starts with; validation reports the rest.
  const definition: PipelineDefinition = {
    format: 1,
    name: 'imported-pipeline',
    mode: 'streaming',
    parallelism: 1,
    max_parallelism: 128,
    checkpointing: { interval_ms: 1000, mode: 'exactly_once' },
    ...candidate,
    nodes: candidate.nodes.map((node) => ({ ...node, params: node.params ?? {} })),
    edges: (candidate.edges ?? []).map((edge) => ({ ...edge, partitioning: edge.partitioning ?? 'forward', exchange: edge.exchange ?? 'pipelined' })),
  } as PipelineDefinition;
  return { ok: true, definition };
}

/** "clicks per user!" → "clicks-per-user.json" */
export function exportFileName(name: string, version?: number | null): string {
  const base = name.trim().replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'pipeline';
  return version ? `${base}.v${version}.json` : `${base}.json`;
}

export function exportText(definition: PipelineDefinition): string {
  return `${JSON.stringify(definition, null, 2)}\n`;
}
