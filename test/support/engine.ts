/**
 * The one engine harness for HTTP tests: an Engine (the same object `serve` runs) behind the Koa
 * translation layer on 127.0.0.1:0, called with fetch. Every helper returns the status and the parsed
 * answer so tests assert on the whole envelope.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Envelope } from '../../engine/contract/envelope';
import { createEngine, type Engine } from '../../engine/core/engine';
import { MappingLoadError } from '../../engine/errors';
import type { Meter } from '../../engine/metrics/meter';
import type { OutboxStore } from '../../engine/outbox/store';
import type { HttpClient } from '../../engine/http/client';
import type { Logger } from '../../engine/log';
import { checkMappingText, loadMapping } from '../../engine/mapping/load';
import type { Mapping } from '../../engine/mapping/model';
import { PROJECT_ROOT } from '../../engine/paths';
import { exampleEnv } from '../../examples/example-env';
import { createHttpApp } from '../../engine/server/app';

export const EXAMPLE_MAPPING = path.join(PROJECT_ROOT, 'mappings', 'example.yaml');

/** What came back: an envelope for contract routes, `{ error }` for 404/405. Tests read fields freely. */
export type ReplyBody = Partial<Envelope> & Record<string, unknown>;

export interface Reply {
  readonly status: number;
  readonly body: ReplyBody;
}

export interface RunningEngine {
  readonly url: string;
  readonly engine: Engine;
  readonly mapping: Mapping;
  get(pathAndQuery: string): Promise<Reply>;
  post(pathAndQuery: string, body: unknown): Promise<Reply>;
  /** Sends the text as it is, with a JSON content type (for malformed and empty bodies). */
  postRaw(pathAndQuery: string, raw: string): Promise<Reply>;
  /** GET with the request target sent byte for byte: fetch would resolve `%2E%2E` before sending. */
  getVerbatim(pathAndQuery: string): Promise<Reply>;
  /** The envelope alone, for tests that only look at the answer. */
  call(method: 'GET' | 'POST', pathAndQuery: string, body?: unknown): Promise<ReplyBody>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Variables for `${VAR}` when the mapping is given as text. */
  readonly env?: Record<string, string>;
  /** Where relative files (TLS) of a mapping given as text are found. */
  readonly baseDir?: string;
  readonly log?: Logger;
  readonly bodyLimit?: string | number;
  readonly largeBodyConcurrency?: number;
  /** A fake outbound client instead of the real one. */
  readonly http?: HttpClient;
  readonly meter?: Meter;
  /** Where outbox events go; by default they are delivered inline (the answer is what the platform gets). */
  readonly outbox?: OutboxStore | 'inline';
}

/** A mapping from YAML text; throws with every issue listed when the text is not a valid mapping. */
export function mappingFromText(text: string, env: NodeJS.ProcessEnv = {}, baseDir?: string): Mapping {
  const result = checkMappingText(text, 'test-mapping.yaml', env, baseDir);
  if (!result.mapping) throw new MappingLoadError(result.issues);
  return result.mapping;
}

export function loadExampleMapping(erpUrl: string): Mapping {
  return loadMapping(EXAMPLE_MAPPING, { env: exampleEnv(erpUrl) }).mapping;
}

/** A mapping head for an ERP at `url`, with test-sized timeouts; operations follow. */
export function head(url: string, extraSystem = ''): string {
  return `version: 1
name: connectivity-test
system:
  baseUrl: ${url}
  timeoutMs: 2000
${extraSystem.replace(/^/gm, '  ').trimEnd()}
operations:
`;
}

function parse(status: number, text: string): Reply {
  return { status, body: text === '' ? {} : (JSON.parse(text) as ReplyBody) };
}

function getVerbatim(base: string, pathAndQuery: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request(base, { method: 'GET', path: pathAndQuery }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(parse(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
    });
    request.on('error', reject);
    request.end();
  });
}

export async function startEngine(source: Mapping | string, options: StartOptions = {}): Promise<RunningEngine> {
  const mapping = typeof source === 'string' ? mappingFromText(source, options.env, options.baseDir) : source;
  const engine = createEngine({ mappings: [mapping], http: options.http, log: options.log, meter: options.meter, outbox: options.outbox ?? 'inline' });
  const server = http.createServer(createHttpApp(engine, { bodyLimit: options.bodyLimit, largeBodyConcurrency: options.largeBodyConcurrency }).callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const send = async (method: string, pathAndQuery: string, raw?: string) => {
    const response = await fetch(url + pathAndQuery, { method, headers: raw === undefined ? {} : { 'content-type': 'application/json' }, body: raw });
    return parse(response.status, await response.text());
  };
  return {
    url,
    engine,
    mapping,
    get: (pathAndQuery) => send('GET', pathAndQuery),
    post: (pathAndQuery, body) => send('POST', pathAndQuery, JSON.stringify(body)),
    postRaw: (pathAndQuery, raw) => send('POST', pathAndQuery, raw),
    getVerbatim: (pathAndQuery) => getVerbatim(url, pathAndQuery),
    call: async (method, pathAndQuery, body) => (await send(method, pathAndQuery, body === undefined ? undefined : JSON.stringify(body))).body,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }).finally(() => engine.close()),
  };
}

/**
 * After each test, closes the servers `open()` names now, in that order (the engine before the ERP it
 * calls); one left over from an earlier test is not closed twice.
 */
export function closeAfterEach(hook: (run: () => Promise<void>) => void, open: () => readonly ({ close(): Promise<unknown> } | undefined)[]): void {
  const closed = new WeakSet<object>();
  hook(async () => {
    for (const server of open()) {
      if (!server || closed.has(server)) continue;
      closed.add(server);
      await server.close();
    }
  });
}
