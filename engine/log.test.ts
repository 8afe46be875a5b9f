import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { childLogger, createLogger, silentLogger } from './log';

function capture(): { lines: string[]; destination: Writable } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return { lines, destination };
}

describe('childLogger', () => {
  it('writes its bindings on every line of a logger that logs', async () => {
    const { lines, destination } = capture();
    const log = createLogger({ level: 'info', destination });
    const child = childLogger(log, { requestId: 'r-1', mapping: 'example' });
    expect(child).not.toBe(log);
    child.info({ ms: 3 }, 'request');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ requestId: 'r-1', mapping: 'example', ms: 3, msg: 'request' });
  });

  it('makes no child of a silent logger: nothing it would bind is ever written', () => {
    expect(childLogger(silentLogger, { requestId: 'r-1' })).toBe(silentLogger);
    const { destination } = capture();
    const silent = createLogger({ level: 'silent', destination });
    expect(childLogger(silent, { requestId: 'r-1' })).toBe(silent);
  });
});
