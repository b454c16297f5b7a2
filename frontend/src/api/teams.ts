/**
 * Teams, their members and roles, who a pipeline is shared with, a pipeline as a file and its Git
 * binding; typed from the generated schema (schema.gen.ts, `make api-types`).
 */
import { query, request } from './client';
import type { components } from './schema.gen';
import type { Pipeline } from './types';

type Schemas = components['schemas'];
export type Team = Schemas['Team'];
export type Member = Schemas['Member'];
export type TeamRole = Schemas['TeamRoleEnum'];
export type TeamShare = Schemas['TeamShare'];
export type TeamShareRole = Schemas['TeamShareRoleEnum'];
export type TeamLocation = Schemas['TeamLocation'];
export type PipelineFile = Schemas['PipelineFile'];
export type GitBinding = Schemas['GitBinding'];
export type GitSteps = Schemas['Steps'];
export type GitComparison = Schemas['Comparison'];

/** The roles, weakest first, with what each may do (the server's `studio.teams` says the same). */
export const ROLES: Array<{ role: TeamRole; meaning: string }> = [
  { role: 'viewer', meaning: 'sees pipelines, runs, files and Git' },
  { role: 'editor', meaning: 'also saves versions and pulls from Git' },
  { role: 'operator', meaning: 'also starts, stops and restores runs' },
  { role: 'admin', meaning: 'also deletes, shares and moves pipelines; manages members' },
];

export const teams = {
  list: () => request<Team[]>('GET', '/api/teams'),
  get: (id: number) => request<Team>('GET', `/api/teams/${id}`),
  create: (name: string, description = '') => request<Team>('POST', '/api/teams', { name, description }),
  remove: (id: number) => request<void>('DELETE', `/api/teams/${id}`),
  members: (id: number) => request<Member[]>('GET', `/api/teams/${id}/members`),
  addMember: (id: number, username: string, role: TeamRole) =>
    request<Member>('POST', `/api/teams/${id}/members`, { username, role }),
  changeRole: (id: number, memberId: number, role: TeamRole) =>
    request<Member>('PUT', `/api/teams/${id}/members/${memberId}`, { role }),
  removeMember: (id: number, memberId: number) => request<void>('DELETE', `/api/teams/${id}/members/${memberId}`),
  /** The storage locations an administrator granted to the team: its editors and up get them. */
  locations: (id: number) => request<TeamLocation[]>('GET', `/api/teams/${id}/locations`),

  /** Move a pipeline into a team (null: out of it, to yourself). */
  movePipeline: (pipelineId: number, team: number | null) =>
    request<Pipeline>('POST', `/api/pipelines/${pipelineId}/team`, { team }),
  shares: (pipelineId: number) => request<TeamShare[]>('GET', `/api/pipelines/${pipelineId}/team-shares`),
  share: (pipelineId: number, team: string, role: TeamShareRole) =>
    request<TeamShare>('POST', `/api/pipelines/${pipelineId}/team-shares`, { team, role }),
  unshare: (pipelineId: number, shareId: number) =>
    request<void>('DELETE', `/api/pipelines/${pipelineId}/team-shares/${shareId}`),
};

export const git = {
  pipelineFile: (pipelineId: number, version?: number) =>
    request<PipelineFile>('GET', `/api/pipelines/${pipelineId}/file${query({ version })}`),
  bindings: () => request<GitBinding[]>('GET', '/api/git-bindings'),
  bind: (pipeline: number, repository: string, branch?: string, path?: string) =>
    request<GitSteps>('POST', '/api/git-bindings', { pipeline, repository, ...(branch ? { branch } : {}), ...(path ? { path } : {}) }),
  unbind: (id: number) => request<void>('DELETE', `/api/git-bindings/${id}`),
  pull: (id: number) => request<GitSteps>('POST', `/api/git-bindings/${id}/pull`),
  resolve: (id: number, take: 'git' | 'studio') => request<GitSteps>('POST', `/api/git-bindings/${id}/resolve`, { take }),
  compare: (id: number) => request<GitComparison>('GET', `/api/git-bindings/${id}/compare`),
};

/** The message of a failed call, for the page. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
