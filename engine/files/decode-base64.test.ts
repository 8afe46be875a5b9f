import { describe, expect, it } from 'vitest';
import { OperationFailure } from '../errors';
import { readBase64 } from './decode-base64';

/** The bytes as the file route reads them: checked, then decoded piece by piece. */
async function decodeBase64Strict(text: string, maxBytes: number): Promise<Buffer> {
  const file = await readBase64(text, maxBytes);
  const bytes = Buffer.concat([...file.pieces()]);
  expect(bytes.length).toBe(file.size);
  expect(file.whole()).toEqual(bytes);
  return bytes;
}

async function failure(run: () => Promise<unknown>): Promise<OperationFailure> {
  try {
    await run();
  } catch (error) {
    if (error instanceof OperationFailure) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('readBase64', () => {
  it('decodes canonical Base64, including both paddings and the empty text', async () => {
    expect((await decodeBase64Strict(Buffer.from('a;b\n1;2').toString('base64'), 100)).toString()).toBe('a;b\n1;2');
    expect((await decodeBase64Strict('QQ==', 10)).toString()).toBe('A');
    expect((await decodeBase64Strict('QUI=', 10)).toString()).toBe('AB');
    expect((await decodeBase64Strict('', 10)).length).toBe(0);
  });

  it('refuses characters outside the alphabet, naming the first one and its position', async () => {
    const error = await failure(() => decodeBase64Strict('QUJD!EVG', 100));
    expect(error.kind).toBe('FILE_INVALID');
    expect(error.problems[0]).toEqual({ path: 'fileContent', message: 'fileContent: is not valid Base64: character "!" at position 5 is not part of the Base64 alphabet' });
    expect((await failure(() => decodeBase64Strict('QUJD\nREVG', 100))).problems[0].message).toContain('"\\n" at position 5');
    expect((await failure(() => decodeBase64Strict('QUJD-_VG', 100))).problems[0].message).toContain('"-"');
  });

  it('refuses a wrong length, padding in the middle, and stray bits in the last group', async () => {
    expect((await failure(() => decodeBase64Strict('QUJDR', 100))).problems[0].message).toContain('not a multiple of 4');
    expect((await failure(() => decodeBase64Strict('QQ==QUJD', 100))).problems[0].message).toContain('padding at position 3');
    expect((await failure(() => decodeBase64Strict('QR==', 100))).problems[0].message).toContain('stray bits');
  });

  it('refuses a file larger than the limit before decoding it', async () => {
    const message = (await failure(() => decodeBase64Strict(Buffer.alloc(300).toString('base64'), 299))).problems[0].message;
    expect(message).toBe('fileContent: the file is 300 bytes; this adapter accepts files up to 299 bytes (file.maxFileBytes)');
    expect((await decodeBase64Strict(Buffer.alloc(300).toString('base64'), 300)).length).toBe(300);
  });

  it('decodes a file of many pieces as one, and finds a bad character in a later piece', async () => {
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256));
    const text = bytes.toString('base64');
    expect((await decodeBase64Strict(text, bytes.length)).equals(bytes)).toBe(true);
    const broken = `${text.slice(0, 200_001)}!${text.slice(200_002)}`;
    expect((await failure(() => decodeBase64Strict(broken, bytes.length))).problems[0].message).toContain('"!" at position 200002 ');
  });
});
