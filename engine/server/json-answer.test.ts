import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerJson } from './json-answer';

// The answer written in pieces must be the bytes Koa's JSON.stringify would send, with the same headers.

const long = {
  isResultSuccess: true,
  result: 1,
  validationStatus: null,
  externalMessage: 'Grüße "quoted" \u2028',
  data: Array.from({ length: 5000 }, (_, i) => (i % 997 === 0 ? undefined : { n: i, text: `ä\n${i}`, list: [i, null, { deep: true }], none: undefined })),
};
const bodies: Record<string, object> = {
  long,
  short: { ...long, data: long.data.slice(0, 10) },
  'no data': { isResultSuccess: true, result: 1, validationStatus: null, externalMessage: null },
  'data not last': { data: long.data, isResultSuccess: true },
};

let server: http.Server;
let base = '';
beforeAll(async () => {
  const koa = new Koa();
  koa.use(async (ctx) => {
    await answerJson(ctx, bodies[decodeURIComponent(ctx.path.slice(1))]);
  });
  server = http.createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('answerJson', () => {
  it.each(Object.keys(bodies))('%s: the bytes and headers of JSON.stringify', async (name) => {
    const response = await fetch(`${base}/${encodeURIComponent(name)}`);
    const text = await response.text();
    expect(text).toBe(JSON.stringify(bodies[name]));
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
  });
});
