import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { formatIssue } from '../../engine/errors';
import { createHttpClient } from '../../engine/http/client';
import type { Logger } from '../../engine/log';
import { checkMappingText } from '../../engine/mapping/load';
import type { Mapping } from '../../engine/mapping/model';
import { createApp } from '../../engine/server/app';

/** The engine with a mapping written in the test, on 127.0.0.1:0, talking through the real HTTP client. */
export interface RunningEngine {
  readonly mapping: Mapping;
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export function mappingFrom(yaml: string, env: Record<string, string> = {}, baseDir?: string): Mapping {
  const result = checkMappingText(yaml, 'test.yaml', env, baseDir);
  if (!result.mapping) throw new Error(result.issues.map(formatIssue).join('\n'));
  return result.mapping;
}

export async function startEngine(yaml: string, env: Record<string, string> = {}, options: { log?: Logger; baseDir?: string } = {}): Promise<RunningEngine> {
  const mapping = mappingFrom(yaml, env, options.baseDir);
  const app = createApp({ mapping, http: createHttpClient(), log: options.log });
  const server: Server = await new Promise((resolve) => {
    const s = app.koa.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    mapping,
    async call(method, path, body) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await response.json()) as Record<string, unknown>;
    },
    close: () =>
      new Promise<void>((resolve) => {
        app.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A mapping head for the misbehaving ERP at `url`, with test-sized retry delays. */
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
