import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../engine/core/body-limit';
import { mappingFromText, startEngine, type RunningEngine } from '../support/engine';

/**
 * The server's body limit follows the mappings: a file route that accepts 96 MiB files must not be
 * refused by the server's default limit (64 MiB) when the platform sends such a file as Base64.
 */
const MIB = 1024 * 1024;
const mappingWith = (maxFileBytes: number) => `
version: 1
name: large-files
system: { baseUrl: "http://127.0.0.1:9" }
operations:
  ParseItemFile:
    file:
      maxFileBytes: ${maxFileBytes}
      csv:
        output: "$.{ 'number': number }"
`;

let engine: RunningEngine;
beforeAll(async () => {
  engine = await startEngine(mappingFromText(mappingWith(96 * MIB)));
});
afterAll(async () => {
  await engine.close();
});

describe('the request body limit', () => {
  it('is the default without file routes, and 4/3 of the largest file a mapping accepts (plus the envelope) above it', async () => {
    const small = await startEngine(mappingFromText(mappingWith(1 * MIB)));
    try {
      expect(small.engine.bodyLimitBytes).toBe(DEFAULT_BODY_LIMIT_BYTES);
    } finally {
      await small.close();
    }
    expect(engine.engine.bodyLimitBytes).toBeGreaterThanOrEqual((96 * MIB * 4) / 3);
    expect(engine.engine.bodyLimitBytes).toBeLessThan((97 * MIB * 4) / 3);
  });

  it('lets through a file the mapping allows whose Base64 form is above the default limit', async () => {
    const row = `A-1,${'x'.repeat(2000)}\n`;
    const rows = 'number,name\n' + row.repeat(Math.ceil((50 * MIB) / row.length));
    const fileContent = Buffer.from(rows).toString('base64'); // about 67 MiB of Base64
    expect(fileContent.length).toBeGreaterThan(DEFAULT_BODY_LIMIT_BYTES);
    const { status, body } = await engine.post('/Items/File', { fileContent, fileType: 1 });
    expect(status).toBe(200);
    expect(body).toMatchObject({ isResultSuccess: true });
    expect((body.data as unknown[]).length).toBe(Math.ceil((50 * MIB) / row.length));
  }, 60_000);
});
