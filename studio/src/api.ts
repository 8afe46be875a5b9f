/**
 * The page's one way to the server: JSON under /studio/api. Requests that change something carry the
 * session token the server put in the page (meta studio-token); the browser adds the Origin.
 */
const token = document.querySelector<HTMLMetaElement>('meta[name="studio-token"]')?.content ?? '';
/** The nonce the page's Content-Security-Policy allows for <style> elements (CodeMirror's theme). */
export const styleNonce = document.querySelector<HTMLMetaElement>('meta[name="studio-style-nonce"]')?.content ?? '';
/** The local studio edits, runs and tests; serve's admin port shows mappings, requests and the outbox. */
export const canEdit = document.querySelector<HTMLMetaElement>('meta[name="studio-edit"]')?.content === 'true';
/** Whether dead letters may be retried and dropped here (serve: --studio-write). */
export const canSettle = document.querySelector<HTMLMetaElement>('meta[name="studio-settle"]')?.content === 'true';

/** On serve's admin port the API needs the admin token; the person types it once per browser tab. */
const ADMIN_TOKEN_KEY = 'adapter-engine-admin-token';

export function setAdminToken(value: string): void {
  sessionStorage.setItem(ADMIN_TOKEN_KEY, value);
}

function authorization(): Record<string, string> {
  const admin = sessionStorage.getItem(ADMIN_TOKEN_KEY);
  return admin ? { authorization: `Bearer ${admin}` } : {};
}

/** Raised on 401: the page asks for the admin token (the event), so whoever called need not say more. */
export class NeedsAdminToken extends Error {}

/** A refusal of the API: its reason, and what it names beside it (the load problems, the calls a run would send). */
export class ApiError extends Error {
  constructor(message: string, readonly status: number, readonly details: { issues?: Issue[]; calls?: string[] }) {
    super(message);
  }
}

export async function api<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...authorization() };
  if (method !== 'GET') {
    headers['x-studio-token'] = token;
    headers['content-type'] = 'application/json';
  }
  const answer = await fetch(`/studio/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (answer.status === 401) {
    window.dispatchEvent(new Event('studio-needs-admin-token'));
    throw new NeedsAdminToken('this studio is behind the admin port\'s authentication: give an admin token');
  }
  const json = (await answer.json()) as T & { error?: string };
  if (!answer.ok) throw new ApiError(json.error ?? `${answer.status} ${answer.statusText}`, answer.status, json as { issues?: Issue[]; calls?: string[] });
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

interface RouteRow {
  operation: string;
  method: string;
  path: string;
  kind: string;
  status: string;
  calls: string[];
  /** The calls that can change the ERP: `name (METHOD path)`. */
  changes: string[];
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
  recordedCase?: { name: string; at: string };
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

/**
 * New journal entries as they are served (server-sent events, read with fetch so that the admin token
 * goes along); returns the stop.
 */
export function onNewRequests(seen: () => void): () => void {
  const stop = new AbortController();
  void (async () => {
    const answer = await fetch('/studio/api/events', { headers: authorization(), signal: stop.signal });
    const reader = answer.body?.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) return;
      if (chunk.value.includes('event: request')) seen();
    }
  })().catch(() => undefined);
  return () => stop.abort();
}
