/**
 * Test cases as the editor edits them: the definition's `tests` (saved and versioned with the
 * pipeline), rows as a table or JSON lines, rows generated from a sample, and what a run's
 * results mean for the canvas. The format is the engine's (engine/spec/test_cases.py); the
 * results are what POST /api/pipelines/<id>/test-runs answers.
 */
import type { PipelineSettings } from '../../api/types';

export type TestCase = NonNullable<PipelineSettings['tests']>[number];
export type TestAssertion = NonNullable<TestCase['assertions']>[number];
export type TestInput = NonNullable<TestCase['inputs']>[string];
export type TestMock = NonNullable<TestCase['mocks']>[string];
export type Expectation = TestAssertion['expect'];

export const EXPECTATIONS: Array<{ value: Expectation; label: string }> = [
  { value: 'rows', label: 'exactly these rows' },
  { value: 'contains', label: 'contains these rows' },
  { value: 'count', label: 'count between' },
  { value: 'every', label: 'every row satisfies' },
  { value: 'none', label: 'no row satisfies' },
  { value: 'unique', label: 'unique value of' },
  { value: 'empty', label: 'no record at all' },
];

/** Operators a test answers for instead of the outside world (engine.spec.test_cases.MOCKABLE_TYPES). */
export const MOCKABLE_TYPES = new Set(['lookup.http', 'lookup.redis', 'transform.python']);

/** Where an assertion compares rows, what the engine found different: in order, or as multisets. */
export interface Difference {
  order: 'exact' | 'any';
  at?: number;
  expected?: unknown[];
  actual?: unknown[];
  missing?: unknown[];
  unexpected?: unknown[];
  missing_count?: number;
  unexpected_count?: number;
  expected_count: number;
  actual_count: number;
}

export interface CheckedAssertion {
  index?: number;
  node: string;
  port: string | null;
  expect?: string;
  passed: boolean;
  message: string;
  mode?: string;
  difference?: Difference;
}

export type NodeVerdict = 'passed' | 'failed';

export interface NodeOutput {
  count: number;
  records: unknown[];
  ports: Record<string, { count: number; records: unknown[] }>;
  status: NodeVerdict | null;
}

export interface CaseResult {
  name: string;
  status: 'passed' | 'failed' | 'error';
  error?: string;
  modes: string[];
  nodes: Record<string, NodeOutput>;
  assertions: CheckedAssertion[];
  agreement: CheckedAssertion[];
  failures: string[];
  duration_s?: number;
}

/** A new test case named apart from `taken`, with an empty input for every source. */
export function newTestCase(sources: string[], taken: string[]): TestCase {
  let number = taken.length + 1;
  while (taken.includes(`test ${number}`)) number += 1;
  return { name: `test ${number}`, inputs: Object.fromEntries(sources.map((id) => [id, { rows: [] }])), assertions: [] };
}

/** One row per line, each line JSON; the first line that is not says where. */
export function parseJsonLines(text: string): { rows: unknown[]; error: string | null } {
  const rows: unknown[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index].trim();
    if (!line) continue;
    try {
      rows.push(JSON.parse(line));
    } catch {
      return { rows, error: `line ${index + 1} is not JSON: ${line.slice(0, 60)}` };
    }
  }
  return { rows, error: null };
}

export function toJsonLines(rows: unknown[]): string {
  return rows.map((row) => JSON.stringify(row)).join('\n');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The table's columns: every key of the object rows, in first-seen order; none when a row is not an object. */
export function tableColumns(rows: unknown[]): string[] | null {
  const columns: string[] = [];
  for (const row of rows) {
    if (!isRecord(row)) return null;
    for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  }
  return columns;
}

/** A cell as typed: JSON when it parses (numbers, true, null, lists), else the text itself. */
export function parseCell(text: string): unknown {
  if (text === '') return '';
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function cellText(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' && parseCell(value) === value ? value : JSON.stringify(value);
}

/** A small deterministic generator, so "generate" gives the same rows for the same sample. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * `count` rows shaped like `sample` (a tap's records, the source's first records, rows typed): each
 * field keeps its type, numbers within the sample's range, texts and flags among the sample's values.
 * Without a sample: the integers a datagen source emits.
 */
export function generateRows(sample: unknown[], count: number, seed = 1): unknown[] {
  const next = random(seed);
  const pick = <T,>(values: T[]): T => values[Math.floor(next() * values.length)];
  const like = (values: unknown[]): unknown => {
    const numbers = values.filter((value): value is number => typeof value === 'number');
    if (numbers.length === values.length && numbers.length > 0) {
      const low = Math.min(...numbers);
      const high = Math.max(...numbers);
      const integral = numbers.every(Number.isInteger);
      const value = low + next() * (high - low || 10);
      return integral ? Math.round(value) : Math.round(value * 1000) / 1000;
    }
    return pick(values);
  };
  if (sample.length === 0) return Array.from({ length: count }, (_, index) => index);
  const columns = tableColumns(sample);
  if (!columns) return Array.from({ length: count }, () => like(sample));
  return Array.from({ length: count }, () =>
    Object.fromEntries(columns.map((column) => [column, like(sample.map((row) => (row as Record<string, unknown>)[column]).filter((value) => value !== undefined))])),
  );
}

/** Per node, what the results say: failed when a test case failed on it, passed when every check of it held. */
export function nodeVerdicts(results: CaseResult[]): Record<string, NodeVerdict> {
  const verdicts: Record<string, NodeVerdict> = {};
  for (const result of results) {
    for (const [id, output] of Object.entries(result.nodes ?? {})) {
      if (output.status === 'failed') verdicts[id] = 'failed';
      else if (output.status === 'passed' && verdicts[id] !== 'failed') verdicts[id] = 'passed';
    }
  }
  return verdicts;
}

/** The first failing check of a result (an assertion, else a disagreement of the modes). */
export function firstFailure(result: CaseResult): CheckedAssertion | null {
  return result.assertions.find((item) => !item.passed) ?? result.agreement.find((item) => !item.passed) ?? null;
}

/** The two sides of a difference as the panel shows them: in order from where they differ, or what is missing / not expected. */
export function differenceSides(difference: Difference): { left: string; right: string; leftRows: unknown[]; rightRows: unknown[] } {
  if (difference.order === 'exact') {
    return { left: `expected (from row ${(difference.at ?? 0) + 1})`, right: 'actual', leftRows: difference.expected ?? [], rightRows: difference.actual ?? [] };
  }
  return {
    left: `missing (${difference.missing_count ?? 0})`,
    right: `not expected (${difference.unexpected_count ?? 0})`,
    leftRows: difference.missing ?? [],
    rightRows: difference.unexpected ?? [],
  };
}
