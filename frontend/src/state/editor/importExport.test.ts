import { describe, expect, it } from 'vitest';
import { sampleDefinition } from '../../testing/fixtures';
import { exportFileName, exportText, parseImportedDefinition } from './importExport';

describe('import / export', () => {
  it('round-trips a definition through the exported text', () => {
    const result = parseImportedDefinition(exportText(sampleDefinition()));
    expect(result).toEqual({ ok: true, definition: sampleDefinition() });
  });

  it('accepts a saved pipeline as the API returns it, and fills missing settings', () => {
    const result = parseImportedDefinition(JSON.stringify({ id: 3, definition: { nodes: [{ id: 'a', type: 'source.datagen' }], edges: [{ id: 'e1', from: 'a', to: 'b' }] } }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.definition).toMatchObject({ format: 1, mode: 'streaming', nodes: [{ id: 'a', params: {} }] });
    expect(result.definition.edges[0]).toEqual({ id: 'e1', from: 'a', to: 'b', partitioning: 'forward', exchange: 'pipelined' });
  });

  it('explains what is wrong with a file that is no definition', () => {
    expect(parseImportedDefinition('{oops')).toMatchObject({ ok: false, message: expect.stringMatching(/^Not JSON/) });
    expect(parseImportedDefinition('[1]')).toMatchObject({ ok: false });
    expect(parseImportedDefinition('{"nodes": [{"id": 1}]}')).toMatchObject({ ok: false, message: expect.stringMatching(/"id" and "type"/) });
  });

  it('names the file after the pipeline', () => {
    expect(exportFileName('clicks per user!', 3)).toBe('clicks-per-user.v3.json');
    expect(exportFileName('  ')).toBe('pipeline.json');
  });
});
