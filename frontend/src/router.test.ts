import { describe, expect, it } from 'vitest';
import { parseRoute, paths } from './router';

describe('parseRoute', () => {
  it('opens a new pipeline at /', () => {
    expect(parseRoute('/')).toEqual({ page: 'editor', pipelineId: null });
    expect(parseRoute('')).toEqual({ page: 'editor', pipelineId: null });
  });

  it('opens saved pipelines and runs by id, with or without a trailing slash', () => {
    expect(parseRoute('/pipelines/12')).toEqual({ page: 'editor', pipelineId: 12 });
    expect(parseRoute('/pipelines/12/')).toEqual({ page: 'editor', pipelineId: 12 });
    expect(parseRoute('/runs/3')).toEqual({ page: 'run', runId: 3 });
    expect(parseRoute('/pipelines')).toEqual({ page: 'pipelines' });
    expect(parseRoute('/pipelines/')).toEqual({ page: 'pipelines' });
  });

  it('opens the state browser of a checkpoint and a shadow run under their run', () => {
    expect(parseRoute('/runs/3/checkpoints/17/state')).toEqual({ page: 'state', runId: 3, checkpointId: 17 });
    expect(parseRoute(paths.state(3, 17))).toEqual({ page: 'state', runId: 3, checkpointId: 17 });
    expect(parseRoute('/runs/3/shadows/4/')).toEqual({ page: 'shadow', runId: 3, shadowId: 4 });
    expect(parseRoute(paths.shadow(3, 4))).toEqual({ page: 'shadow', runId: 3, shadowId: 4 });
    expect(parseRoute('/runs/3/checkpoints/x/state').page).toBe('not-found');
  });

  it('opens teams and a pipeline\'s access, file and Git pages', () => {
    expect(parseRoute(paths.teams())).toEqual({ page: 'teams', teamId: null });
    expect(parseRoute(paths.team(4))).toEqual({ page: 'teams', teamId: 4 });
    expect(parseRoute(paths.pipelineAccess(5))).toEqual({ page: 'pipeline-access', pipelineId: 5 });
    expect(parseRoute(paths.pipelineFile(5))).toEqual({ page: 'pipeline-file', pipelineId: 5 });
    expect(parseRoute('/pipelines/5/git/')).toEqual({ page: 'pipeline-git', pipelineId: 5 });
    expect(parseRoute('/pipelines/5/gitx').page).toBe('not-found');
  });

  it('reports anything else as not found', () => {
    expect(parseRoute('/runs/abc')).toEqual({ page: 'not-found', path: '/runs/abc' });
    expect(parseRoute('/static/x.js').page).toBe('not-found');
  });

  it('builds the paths it parses', () => {
    expect(parseRoute(paths.pipeline(5))).toEqual({ page: 'editor', pipelineId: 5 });
    expect(parseRoute(paths.run(9))).toEqual({ page: 'run', runId: 9 });
    expect(parseRoute(paths.newPipeline())).toEqual({ page: 'editor', pipelineId: null });
    expect(parseRoute(paths.pipelines())).toEqual({ page: 'pipelines' });
    expect(parseRoute(paths.jobs())).toEqual({ page: 'jobs' });
    expect(parseRoute(paths.alerts())).toEqual({ page: 'alerts' });
  });
});

describe('login routes', () => {
  it('parses the login and tokens pages', () => {
    expect(parseRoute('/login')).toEqual({ page: 'login' });
    expect(parseRoute('/tokens/')).toEqual({ page: 'tokens' });
  });

  it('remembers where the user was, and only ever returns inside the app', async () => {
    const { safeNext } = await import('./router');
    expect(paths.login('/runs/4?x=1')).toBe('/login?next=%2Fruns%2F4%3Fx%3D1');
    expect(safeNext('/runs/4?x=1')).toBe('/runs/4?x=1');
    expect(safeNext('//evil.example')).toBe('/');
    expect(safeNext('https://evil.example')).toBe('/');
    expect(safeNext('/login?next=/x')).toBe('/');
    expect(safeNext(null)).toBe('/');
  });
});
