/**
 * Getting data in: connection profiles, the Kafka topic browser, the file browser and uploads,
 * typed from the generated schema (schema.gen.ts, `make api-types`).
 */
import { ApiError, csrfToken, request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];
export type ConnectionProfile = Schemas['ConnectionProfile'];
export type ConnectionProfileRequest = Schemas['ConnectionProfileRequest'];
export type ConnectionKind = Schemas['ConnectionKindEnum'];
export type ConnectionShare = Schemas['ConnectionShare'];
export type ConnectionTestResult = Schemas['ConnectionTestResult'];
export type KafkaTopic = Schemas['KafkaTopic'];
export type KafkaSample = Schemas['KafkaSample'];
export type InferredField = Schemas['InferredField'];
export type FilePlace = Schemas['FilePlace'];
export type FileListing = Schemas['FileListing'];
export type FileEntry = Schemas['FileEntry'];
export type FilePreview = Schemas['FilePreview'];
export type UploadedFile = Schemas['UploadedFile'];

function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export interface SampleOptions {
  limit?: number;
  value_format?: string;
  columns?: string;
  emit?: string;
}

export const dataIn = {
  listConnections: () => request<ConnectionProfile[]>('GET', '/api/connections'),
  createConnection: (body: ConnectionProfileRequest) => request<ConnectionProfile>('POST', '/api/connections', body),
  updateConnection: (id: number, body: Partial<ConnectionProfileRequest>) =>
    request<ConnectionProfile>('PATCH', `/api/connections/${id}`, body),
  deleteConnection: (id: number) => request<void>('DELETE', `/api/connections/${id}`),
  testConnection: (id: number) => request<ConnectionTestResult>('POST', `/api/connections/${id}/test`),
  testUnsaved: (body: { kind: ConnectionKind; address: string; password?: string }) =>
    request<ConnectionTestResult>('POST', '/api/connections/test', body),
  shareConnection: (id: number, body: { user?: string; group?: string }) =>
    request<ConnectionShare>('POST', `/api/connections/${id}/shares`, body),
  unshareConnection: (id: number, shareId: number) => request<void>('DELETE', `/api/connections/${id}/shares/${shareId}`),

  kafkaTopics: (bootstrap: string) => request<KafkaTopic[]>('GET', `/api/kafka/topics${query({ bootstrap_servers: bootstrap })}`),
  kafkaSample: (bootstrap: string, topic: string, options: SampleOptions = {}) =>
    request<KafkaSample>('GET', `/api/kafka/sample${query({ bootstrap_servers: bootstrap, topic, ...options })}`),

  listPlaces: () => request<FilePlace[]>('GET', '/api/files'),
  listDirectory: (location: string, path = '') =>
    request<FileListing>('GET', `/api/files/${encodeURIComponent(location)}${query({ path })}`),
  previewFile: (location: string, path: string) =>
    request<FilePreview>('GET', `/api/files/${encodeURIComponent(location)}/preview${query({ path })}`),

  /** The file as the request's body: the browser streams it, the studio streams it to disk. */
  uploadFile: async (location: string, directory: string, file: File, overwrite = false): Promise<UploadedFile> => {
    const headers: Record<string, string> = { Accept: 'application/json', 'Content-Type': 'application/octet-stream' };
    const token = csrfToken();
    if (token) headers['X-CSRFToken'] = token;
    const response = await fetch(`/api/uploads${query({ location, directory, name: file.name, overwrite })}`, {
      method: 'POST',
      headers,
      credentials: 'same-origin',
      body: file,
    });
    const body = (await response.json().catch(() => null)) as { detail?: string } | null;
    if (!response.ok) throw new ApiError(response.status, body?.detail ?? `${response.status} upload failed`);
    return body as UploadedFile;
  },
};

/** "12.3 KiB": a size for people. */
export function formatBytes(size: number | null | undefined): string {
  if (size === null || size === undefined) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = size;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
