import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The guards of a serving process, tried in a real child process (vitest would report a stray
 * rejection as its own failure): the built engine from dist/, a fake ERP client that misbehaves in a
 * way no engine code catches, and the log lines the process wrote.
 */
const DIST = path.resolve(__dirname, '../../dist/engine/index.js');

const SCRIPT = `
const { createEngine, installProcessGuards, checkMappingText, createLogger } = require(${JSON.stringify(DIST)});
const mapping = checkMappingText(\`version: 1
name: guarded
system: { baseUrl: "http://erp.test/api" }
operations:
  GetItem:
    calls: [{ name: article, method: GET, path: "/articles/{input.number}" }]
    output: '{ "number": calls.article.body.no }'
\`, 'guarded.yaml', {}).mapping;
const mode = process.argv[1];
const http = {
  async send(request) {
    const number = request.url.pathname.split('/').pop();
    if (number === 'STRAY') Promise.reject(new Error('a stray rejection inside the request'));
    if (number === 'THROW') setTimeout(() => { throw new Error('an uncaught exception inside the request'); }, 1);
    return { status: 200, headers: {}, body: { no: number }, durationMs: 1 };
  },
  close() {},
};
const log = createLogger({ level: 'info' });
const engine = createEngine({ mappings: [mapping], http, log });
installProcessGuards(engine, log);
(async () => {
  const first = await engine.handle({ method: 'GET', path: '/Items/' + mode });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const second = await engine.handle({ method: 'GET', path: '/Items/A-1' });
  process.stdout.write(JSON.stringify({ done: true, first: first.envelope.isResultSuccess, second: second.envelope.data }) + '\\n');
})();
`;

function run(mode: string) {
  const child = spawnSync(process.execPath, ['-e', SCRIPT, mode], { encoding: 'utf8', timeout: 15000 });
  const lines = child.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  return { status: child.status, lines };
}

describe('process guards of serve', () => {
  it('an unhandled rejection is logged as an engine fault with its request, and the process keeps serving', () => {
    const { status, lines } = run('STRAY');
    expect(status).toBe(0);
    const fault = lines.find((line) => line.fault === 'unhandledRejection');
    expect(fault).toMatchObject({ level: 50, request: { mapping: 'guarded', operation: 'GetItem', path: '/Items/STRAY' } });
    expect((fault?.request as { requestId: string }).requestId).toMatch(/^[0-9a-f-]{36}$/);
    // The request whose work leaked the rejection was answered, and so is the next one.
    expect(lines.find((line) => line.done === true)).toEqual({ done: true, first: true, second: { number: 'A-1' } });
  });

  it('an uncaught exception is logged with its request and ends the process non-zero for the supervisor', () => {
    const { status, lines } = run('THROW');
    expect(status).toBe(70);
    expect(lines.find((line) => line.fault === 'uncaughtException')).toMatchObject({ level: 60, request: { operation: 'GetItem' } });
    expect(lines.some((line) => line.done === true)).toBe(false);
  });
});
