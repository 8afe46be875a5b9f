import { describe, expect, it } from 'vitest';
import { OperationFailure } from '../errors';
import { decodeBase64Strict } from './decode-base64';

function failure(run: () => unknown): OperationFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof OperationFailure) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('decodeBase64Strict', () => {
  it('decodes canonical Base64, including both paddings and the empty text', () => {
    expect(decodeBase64Strict(Buffer.from('a;b\n1;2').toString('base64'), 100).toString()).toBe('a;b\n1;2');
    expect(decodeBase64Strict('QQ==', 10).toString()).toBe('A');
    expect(decodeBase64Strict('QUI=', 10).toString()).toBe('AB');
    expect(decodeBase64Strict('', 10).length).toBe(0);
  });

  it('refuses characters outside the alphabet, naming the first one and its position', () => {
    const error = failure(() => decodeBase64Strict('QUJD!EVG', 100));
    expect(error.kind).toBe('FILE_INVALID');
    expect(error.problems[0]).toEqual({ path: 'fileContent', message: 'fileContent: is not valid Base64: character "!" at position 5 is not part of the Base64 alphabet' });
    expect(failure(() => decodeBase64Strict('QUJD\nREVG', 100)).problems[0].message).toContain('"\\n" at position 5');
    expect(failure(() => decodeBase64Strict('QUJD-_VG', 100)).problems[0].message).toContain('"-"');
  });

  it('refuses a wrong length, padding in the middle, and stray bits in the last group', () => {
    expect(failure(() => decodeBase64Strict('QUJDR', 100)).problems[0].message).toContain('not a multiple of 4');
    expect(failure(() => decodeBase64Strict('QQ==QUJD', 100)).problems[0].message).toContain('padding at position 3');
    expect(failure(() => decodeBase64Strict('QR==', 100)).problems[0].message).toContain('stray bits');
  });

  it('refuses a file larger than the limit before decoding it', () => {
    const message = failure(() => decodeBase64Strict(Buffer.alloc(300).toString('base64'), 299)).problems[0].message;
    expect(message).toBe('fileContent: the file is 300 bytes; this adapter accepts files up to 299 bytes (file.maxFileBytes)');
    expect(decodeBase64Strict(Buffer.alloc(300).toString('base64'), 300).length).toBe(300);
  });
});
