import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { checkMappingText, loadMapping } from '../../engine/mapping/load';
import type { Mapping } from '../../engine/mapping/model';
import { MAPPINGS_DIR, PROJECT_ROOT } from '../../engine/paths';
import { createApp } from '../../engine/server/app';

/** An engine on 127.0.0.1:0 for HTTP tests of the file routes; no ERP is needed in file mode. */
export interface RunningEngine {
  readonly url: string;
  post(route: string, body: unknown): Promise<{ status: number; body: Envelope }>;
  close(): Promise<void>;
}

export interface Envelope {
  isResultSuccess: boolean;
  result: number;
  validationStatus: { path: string; message: string }[] | null;
  externalMessage: string | null;
  data?: unknown;
}

export const EXAMPLE_FILES = path.join(PROJECT_ROOT, 'examples', 'files');

export function exampleMapping(): Mapping {
  return loadMapping(path.join(MAPPINGS_DIR, 'example.yaml'), { env: { ERP_URL: 'http://127.0.0.1:9' } }).mapping;
}

/** A mapping from YAML text; throws with the issues when it does not load. */
export function mappingFromText(text: string): Mapping {
  const result = checkMappingText(text, 'test.yaml', {});
  if (!result.mapping) throw new Error(result.issues.map((issue) => `${issue.line}:${issue.col} ${issue.message}`).join('\n'));
  return result.mapping;
}

export async function serve(mapping: Mapping, bodyLimit?: string): Promise<RunningEngine> {
  const app = createApp({ mapping, bodyLimit });
  const server = http.createServer(app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async post(route, body) {
      const response = await fetch(url + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Envelope };
    },
    close: () => new Promise<void>((resolve) => {
      app.close();
      server.close(() => resolve());
    }),
  };
}

export const base64 = (content: string | Buffer) => Buffer.from(content).toString('base64');
export const CSV = 1;
export const JSON_FILE = 0;
