/**
 * Runs the engine in-process for HTTP tests: a Koa app built by `createApp` on 127.0.0.1:0, called
 * with fetch. Every helper returns the parsed envelope so tests can assert on the whole answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { MappingLoadError } from '../../engine/errors';
import { checkMappingText, loadMapping } from '../../engine/mapping/load';
import type { Mapping } from '../../engine/mapping/model';
import { createApp } from '../../engine/server/app';

export const EXAMPLE_MAPPING = path.resolve(__dirname, '../../mappings/example.yaml');

export interface Reply {
  readonly status: number;
  /** Parsed JSON answer; tests read fields of it freely. */
  readonly body: Record<string, unknown>;
}

export interface RunningEngine {
  readonly url: string;
  get(pathAndQuery: string): Promise<Reply>;
  post(pathAndQuery: string, body: unknown): Promise<Reply>;
  /** Sends the text as it is, with a JSON content type (for malformed and empty bodies). */
  postRaw(pathAndQuery: string, raw: string): Promise<Reply>;
  /** GET with the request target sent byte for byte: fetch would resolve `%2E%2E` before sending. */
  getVerbatim(pathAndQuery: string): Promise<Reply>;
  close(): Promise<void>;
}

export function loadExampleMapping(erpUrl: string): Mapping {
  return loadMapping(EXAMPLE_MAPPING, { env: { ERP_URL: erpUrl } }).mapping;
}

/** A mapping from YAML text; throws with every issue listed when the text is not a valid mapping. */
export function mappingFromText(text: string, env: NodeJS.ProcessEnv = {}): Mapping {
  const result = checkMappingText(text, 'test-mapping.yaml', env);
  if (!result.mapping) throw new MappingLoadError(result.issues);
  return result.mapping;
}

async function parse(response: Response): Promise<Reply> {
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

function getVerbatim(base: string, pathAndQuery: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request(base, { method: 'GET', path: pathAndQuery }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

export async function startEngine(mapping: Mapping, options: { bodyLimit?: string } = {}): Promise<RunningEngine> {
  const app = createApp({ mapping, bodyLimit: options.bodyLimit });
  const server = http.createServer(app.koa.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const send = async (method: string, pathAndQuery: string, raw?: string) =>
    parse(await fetch(url + pathAndQuery, { method, headers: raw === undefined ? {} : { 'content-type': 'application/json' }, body: raw }));
  return {
    url,
    get: (pathAndQuery) => send('GET', pathAndQuery),
    post: (pathAndQuery, body) => send('POST', pathAndQuery, JSON.stringify(body)),
    postRaw: (pathAndQuery, raw) => send('POST', pathAndQuery, raw),
    getVerbatim: (pathAndQuery) => getVerbatim(url, pathAndQuery),
    close: () =>
      new Promise<void>((resolve, reject) => {
        app.close();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
