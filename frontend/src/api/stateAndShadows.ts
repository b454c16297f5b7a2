/**
 * The state browser's and shadow runs' REST calls, typed from the generated schema
 * (schema.gen.ts, `make api-types`).
 */
import { query, request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];
export type SnapshotState = Schemas['SnapshotState'];
export type OperatorState = Schemas['OperatorState'];
export type StatePage = Schemas['StatePage'];
export type StateRow = Schemas['StateRow'];
export type StateSizes = Schemas['StateSizes'];
export type StateDiff = Schemas['StateDiff'];
export type Shadow = Schemas['Shadow'];
export type SinkDiff = Schemas['SinkDiff'];
export type ShadowRequest = Schemas['NewShadowRequest'];
export type OutputPage = Schemas['OutputPage'];

const stateOf = (runId: number, checkpointId: number) => `/api/runs/${runId}/checkpoints/${checkpointId}/state`;
const operatorOf = (runId: number, checkpointId: number, node: string) =>
  `${stateOf(runId, checkpointId)}/operators/${encodeURIComponent(node)}`;

export const stateApi = {
  overview: (runId: number, checkpointId: number) => request<SnapshotState>('GET', stateOf(runId, checkpointId)),
  keys: (runId: number, checkpointId: number, node: string, params: { offset?: number; limit?: number; search?: string; expression?: string }) =>
    request<StatePage>('GET', `${operatorOf(runId, checkpointId, node)}/keys${query(params)}`),
  key: (runId: number, checkpointId: number, node: string, keyJson: string) =>
    request<StateRow>('GET', `${operatorOf(runId, checkpointId, node)}/key${query({ key: keyJson })}`),
  sizes: (runId: number, checkpointId: number, node: string) => request<StateSizes>('GET', `${operatorOf(runId, checkpointId, node)}/sizes`),
  diff: (runId: number, checkpointId: number, node: string, params: { against: number; change?: string; offset?: number; limit?: number }) =>
    request<StateDiff>('GET', `${operatorOf(runId, checkpointId, node)}/diff${query(params)}`),
  exportUrl: (runId: number, checkpointId: number, node: string, as: 'jsonl' | 'parquet') =>
    `${operatorOf(runId, checkpointId, node)}/export${query({ as })}`,
};

export const shadowApi = {
  list: (runId: number) => request<Shadow[]>('GET', `/api/runs/${runId}/shadows`),
  create: (runId: number, body: ShadowRequest) => request<Shadow>('POST', `/api/runs/${runId}/shadows`, body),
  get: (runId: number, shadowId: number) => request<Shadow>('GET', `/api/runs/${runId}/shadows/${shadowId}`),
  promote: (runId: number, shadowId: number, run: number) =>
    request<Shadow>('POST', `/api/runs/${runId}/shadows/${shadowId}/promote`, { run }),
  discard: (runId: number, shadowId: number) => request<Shadow>('POST', `/api/runs/${runId}/shadows/${shadowId}/discard`),
  outputs: (runId: number, shadowId: number, node: string, side: 'production' | 'candidate', params: { offset?: number; limit?: number } = {}) =>
    request<OutputPage>('GET', `/api/runs/${runId}/shadows/${shadowId}/outputs/${encodeURIComponent(node)}${query({ side, ...params })}`),
};
