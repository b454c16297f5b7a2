/**
 * Environments, promotions and secrets, typed from the generated schema (schema.gen.ts, `make api-types`).
 * A secret's value goes one way only: it is sent when created or replaced, and no answer carries it.
 */
import { request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];
export type Environment = Schemas['Environment'];
export type EnvironmentRequest = Schemas['EnvironmentRequest'];
export type EnvironmentRun = Schemas['EnvironmentRun'];
export type PromotedVersion = Schemas['PromotedVersion'];
export type Promotion = Schemas['Promotion'];
export type PromotionDiff = Schemas['PromotionDiff'];
export type PromotionRequest = Schemas['VersionPromoteRequest'];
export type Secret = Schemas['Secret'];
export type SecretRequest = Schemas['SecretRequest'];
export type ParameterValue = string | number | boolean;
export type ApprovalRole = NonNullable<EnvironmentRequest['approval_role']>;
/** The team roles a promotion's approver may be asked to hold on the pipeline, weakest first. */
export const APPROVAL_ROLES: ApprovalRole[] = ['viewer', 'editor', 'operator', 'admin'];

export const environments = {
  list: () => request<Environment[]>('GET', '/api/environments'),
  /** Those the user may run, preview and test in (not those he only approves promotions into). */
  usable: (pipelineId?: number | null) =>
    request<Environment[]>('GET', `/api/environments?usable=true${pipelineId != null ? `&pipeline=${pipelineId}` : ''}`),
  create: (body: EnvironmentRequest) => request<Environment>('POST', '/api/environments', body),
  update: (id: number, body: Partial<EnvironmentRequest>) => request<Environment>('PATCH', `/api/environments/${id}`, body),
  remove: (id: number) => request<void>('DELETE', `/api/environments/${id}`),
  runs: (id: number) => request<EnvironmentRun[]>('GET', `/api/environments/${id}/runs`),
  versions: (id: number) => request<PromotedVersion[]>('GET', `/api/environments/${id}/versions`),

  promotions: () => request<Promotion[]>('GET', '/api/promotions'),
  preview: (body: PromotionRequest) => request<PromotionDiff>('POST', '/api/promotions/preview', body),
  promote: (body: PromotionRequest) => request<Promotion>('POST', '/api/promotions', body),
  approve: (id: number, comment: string) => request<Promotion>('POST', `/api/promotions/${id}/approve`, { comment }),
  reject: (id: number, comment: string) => request<Promotion>('POST', `/api/promotions/${id}/reject`, { comment }),
  withdraw: (id: number) => request<Promotion>('POST', `/api/promotions/${id}/withdraw`),

  secrets: () => request<Secret[]>('GET', '/api/secrets'),
  createSecret: (body: SecretRequest) => request<Secret>('POST', '/api/secrets', body),
  replaceSecret: (id: number, value: string) => request<Secret>('PATCH', `/api/secrets/${id}`, { value }),
  removeSecret: (id: number) => request<void>('DELETE', `/api/secrets/${id}`),
};

/** What a typed parameter value means: a number or a boolean when it reads as one, else the text. */
export function parseParameterValue(text: string): ParameterValue {
  const trimmed = text.trim();
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  if (trimmed !== '' && /^-?\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  return text;
}

export function parameterText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
