import { describe, expect, it } from 'vitest';
import type { Problem } from '../../api/types';
import { fieldMessages, generalMessages, indexProblems, NO_PROBLEMS, paramMessages, problemLocation, problemsOfLiveElements } from './problems';

const problems: Problem[] = [
  { node: 'map-2', edge: null, field: 'params.expression', message: 'expression is required' },
  { node: 'map-2', edge: null, field: 'parallelism', message: 'must be at least 1' },
  { node: 'map-2', edge: null, field: null, message: 'has no input' },
  { node: 'datagen-1', edge: null, field: 'params.count', message: 'must be >= 0' },
  { node: null, edge: 'e2', field: 'key', message: 'hash partitioning needs a key' },
  { node: null, edge: null, field: 'checkpointing.interval_ms', message: 'must be positive' },
  { node: null, edge: null, field: null, message: 'pipeline has no sink' },
];

describe('indexProblems', () => {
  const index = indexProblems(problems);

  it('groups problems by node and by edge', () => {
    expect(Object.keys(index.byNode).sort()).toEqual(['datagen-1', 'map-2']);
    expect(index.byNode['map-2']).toHaveLength(3);
    expect(index.byEdge.e2.map((p) => p.message)).toEqual(['hash partitioning needs a key']);
  });

  it('keeps pipeline-wide problems apart and all of them in order', () => {
    expect(index.pipeline.map((p) => p.message)).toEqual(['must be positive', 'pipeline has no sink']);
    expect(index.all).toEqual(problems);
  });

  it('is the shared empty index when there is nothing wrong', () => {
    expect(indexProblems([])).toBe(NO_PROBLEMS);
    expect(NO_PROBLEMS.all).toEqual([]);
  });
});

describe('field messages', () => {
  const index = indexProblems([
    ...problems,
    { node: 'map-2', edge: null, field: 'params.expression', message: 'unknown name y' },
    { node: 'map-2', edge: null, field: 'params.retry.delay_ms', message: 'nested' },
  ]);

  it('collects every message of a param', () => {
    expect(paramMessages(index.byNode['map-2'])).toEqual({
      expression: ['expression is required', 'unknown name y'],
      retry: ['nested'],
    });
    expect(paramMessages(undefined)).toEqual({});
  });

  it('finds messages of an exact field', () => {
    expect(fieldMessages(index.byNode['map-2'], 'parallelism')).toEqual(['must be at least 1']);
    expect(fieldMessages(index.byEdge.e2, 'key')).toEqual(['hash partitioning needs a key']);
    expect(fieldMessages(index.byEdge.e9, 'key')).toEqual([]);
  });

  it('lists the messages no input shows', () => {
    const shown = new Set(['params.expression', 'params.retry.delay_ms', 'parallelism']);
    expect(generalMessages(index.byNode['map-2'], shown)).toEqual(['has no input']);
  });

  it('describes where a problem is', () => {
    expect(problemLocation(problems[0])).toBe('node map-2 · params.expression');
    expect(problemLocation(problems[4])).toBe('edge e2 · key');
    expect(problemLocation(problems[6])).toBe('pipeline');
  });
});

describe('problemsOfLiveElements', () => {
  it('drops the problems of deleted nodes and edges and keeps pipeline-wide ones', () => {
    const live = problemsOfLiveElements(problems, new Set(['datagen-1']), new Set());
    expect(live.map((p) => p.message)).toEqual(['must be >= 0', 'must be positive', 'pipeline has no sink']);
  });

  it('returns the same list when every element still exists', () => {
    expect(problemsOfLiveElements(problems, new Set(['map-2', 'datagen-1']), new Set(['e2']))).toBe(problems);
  });
});
