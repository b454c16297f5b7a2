/**
 * The difference between two pipeline definitions, in the server's shape (GET
 * /api/pipelines/<id>/diff), computed here too so that the editor can compare any two
 * definitions, a draft included, without a round trip. Positions (`ui`) are layout, not
 * content: moving a node is no change.
 *
 * diffGraph merges both graphs into one for drawing: every node and edge of `to`, plus the
 * removed ones of `from`, each marked added / removed / changed / same.
 */
import type { DefinitionDiff, DefinitionEdge, DefinitionNode, ElementDiff, FieldChange, PipelineDefinition } from '../../api/types';

export type DiffStatus = 'added' | 'removed' | 'changed' | 'same';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Changes between two JSON values as dotted paths; objects are compared key by key. */
export function fieldChanges(from: unknown, to: unknown, path = ''): FieldChange[] {
  if (isObject(from) && isObject(to)) {
    const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
    return keys.flatMap((key) => fieldChanges(from[key], to[key], path ? `${path}.${key}` : key));
  }
  if (JSON.stringify(from) === JSON.stringify(to)) return [];
  return [{ path, from: from === undefined ? null : from, to: to === undefined ? null : to }];
}

function nodeContent(node: DefinitionNode): Record<string, unknown> {
  const { id: _id, ui: _ui, ...content } = node;
  void _id;
  void _ui;
  return content;
}

function edgeContent(edge: DefinitionEdge): Record<string, unknown> {
  const { id: _id, ...content } = edge;
  void _id;
  return content;
}

function diffElements<T extends { id: string }>(from: T[], to: T[], content: (element: T) => Record<string, unknown>): ElementDiff {
  const before = new Map(from.map((element) => [element.id, element]));
  const after = new Map(to.map((element) => [element.id, element]));
  const diff: ElementDiff = { added: [], removed: [], changed: [] };
  for (const [id, element] of after) {
    const old = before.get(id);
    if (!old) {
      diff.added.push(id);
      continue;
    }
    const changes = fieldChanges(content(old), content(element));
    if (changes.length > 0) diff.changed.push({ id, changes });
  }
  for (const id of before.keys()) if (!after.has(id)) diff.removed.push(id);
  return diff;
}

function settingsOf(definition: PipelineDefinition): Record<string, unknown> {
  const { nodes: _nodes, edges: _edges, ...settings } = definition;
  void _nodes;
  void _edges;
  return settings;
}

export function diffDefinitions(from: PipelineDefinition, to: PipelineDefinition): DefinitionDiff {
  return {
    from: null,
    to: null,
    nodes: diffElements(from.nodes ?? [], to.nodes ?? [], nodeContent),
    edges: diffElements(from.edges ?? [], to.edges ?? [], edgeContent),
    settings: { changed: fieldChanges(settingsOf(from), settingsOf(to)) },
  };
}

export function isEmptyDiff(diff: DefinitionDiff): boolean {
  const empty = (part: ElementDiff) => part.added.length + part.removed.length + part.changed.length === 0;
  return empty(diff.nodes) && empty(diff.edges) && diff.settings.changed.length === 0;
}

export function statusOf(part: ElementDiff, id: string): DiffStatus {
  if (part.added.includes(id)) return 'added';
  if (part.removed.includes(id)) return 'removed';
  if (part.changed.some((change) => change.id === id)) return 'changed';
  return 'same';
}

export interface DiffGraphNode {
  node: DefinitionNode;
  status: DiffStatus;
  changes: FieldChange[];
}

export interface DiffGraphEdge {
  edge: DefinitionEdge;
  status: DiffStatus;
  changes: FieldChange[];
}

export interface DiffGraph {
  nodes: DiffGraphNode[];
  edges: DiffGraphEdge[];
}

/** Both versions in one graph; removed elements keep their old place. */
export function diffGraph(from: PipelineDefinition, to: PipelineDefinition, diff: DefinitionDiff = diffDefinitions(from, to)): DiffGraph {
  const changesOf = (part: ElementDiff, id: string) => part.changed.find((change) => change.id === id)?.changes ?? [];
  const nodes: DiffGraphNode[] = (to.nodes ?? []).map((node) => ({
    node,
    status: statusOf(diff.nodes, node.id),
    changes: changesOf(diff.nodes, node.id),
  }));
  for (const node of from.nodes ?? []) {
    if (diff.nodes.removed.includes(node.id)) nodes.push({ node, status: 'removed', changes: [] });
  }
  const edges: DiffGraphEdge[] = (to.edges ?? []).map((edge) => ({
    edge,
    status: statusOf(diff.edges, edge.id),
    changes: changesOf(diff.edges, edge.id),
  }));
  for (const edge of from.edges ?? []) {
    if (diff.edges.removed.includes(edge.id)) edges.push({ edge, status: 'removed', changes: [] });
  }
  return { nodes, edges };
}

/** A changed value as a person reads it: text (an expression) as written, with its line breaks, not JSON-escaped. */
export function showValue(value: unknown): string {
  if (value === null || value === undefined) return '∅';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Text of more lines than this (a Python function's code) is shown as the lines that changed. */
const WHOLE_TEXT_LINES = 2;

/**
 * The lines that differ between two texts, in order: "- " for a removed line, "+ " for an added
 * one (a longest-common-subsequence diff; code params are small, so its quadratic table is too).
 */
export function changedLines(from: string, to: string): string[] {
  const a = from.split('\n');
  const b = to.split('\n');
  const common: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i += 1;
      j += 1;
    } else if (i < a.length && (j === b.length || common[i + 1][j] >= common[i][j + 1])) {
      lines.push(`- ${a[i]}`);
      i += 1;
    } else {
      lines.push(`+ ${b[j]}`);
      j += 1;
    }
  }
  return lines;
}

/** "params.expression: x → x * 2"; for code, "params.code:" and the lines that changed. */
export function describeChange(change: FieldChange): string {
  const { from, to } = change;
  if (typeof from === 'string' && typeof to === 'string'
      && Math.max(from.split('\n').length, to.split('\n').length) > WHOLE_TEXT_LINES) {
    return [`${change.path}:`, ...changedLines(from, to)].join('\n');
  }
  return `${change.path}: ${showValue(from)} → ${showValue(to)}`;
}
