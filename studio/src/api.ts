/**
 * The page's one way to the server: JSON under /studio/api. Requests that change something carry the
 * session token the server put in the page (meta studio-token); the browser adds the Origin.
 */
const token = document.querySelector<HTMLMetaElement>('meta[name="studio-token"]')?.content ?? '';
/** The nonce the page's Content-Security-Policy allows for <style> elements (CodeMirror's theme). */
export const styleNonce = document.querySelector<HTMLMetaElement>('meta[name="studio-style-nonce"]')?.content ?? '';
export const canWrite = document.querySelector<HTMLMetaElement>('meta[name="studio-write"]')?.content === 'true';

export class ApiError extends Error {}

export async function api<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') {
    headers['x-studio-token'] = token;
    headers['content-type'] = 'application/json';
  }
  const answer = await fetch(`/studio/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await answer.json()) as T & { error?: string };
  if (!answer.ok) throw new ApiError(json.error ?? `${answer.status} ${answer.statusText}`);
  return json;
}

export interface Issue {
  file: string;
  line: number;
  col: number;
  severity: 'error' | 'warning';
  message: string;
  code: string;
  text?: string;
  around?: { line: number; text: string }[];
}

export interface RouteRow {
  operation: string;
  method: string;
  path: string;
  kind: string;
  status: string;
  calls: string[];
  answers?: string;
}

export interface MappingView {
  file: string;
  name?: string;
  loads: boolean;
  serving: boolean;
  baseUrl?: string;
  auth?: string;
  routes: RouteRow[];
  pushes: { push: string; path: string; auth: string; records: string }[];
  issues: Issue[];
  testFile: string;
}

export interface Step {
  step: string;
  [field: string]: unknown;
}

export interface Envelope {
  result: number;
  isResultSuccess: boolean;
  externalMessage: string | null;
  data?: unknown;
}

export interface TryAnswer {
  operation: string;
  route: string;
  source: string;
  steps: Step[];
  resultName: string;
  failure?: { kind: string; message: string };
  envelope: Envelope;
  requestId?: string;
}

export interface RequestSummary {
  id: string;
  requestId: string;
  /** Milliseconds since the epoch in a summary, ISO 8601 in an entry. */
  at: number | string;
  mapping: string;
  operation: string;
  method: string;
  path: string;
  result: string;
  success: boolean;
  durationMs: number;
}

export interface RequestEntry extends RequestSummary {
  route: string;
  steps: Step[];
  envelope?: Envelope;
  failure?: { kind: string; message: string };
}

export function mappingsOf(): Promise<{ mappings: MappingView[] }> {
  return api('GET', '/mappings');
}
