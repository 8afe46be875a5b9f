import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { OperationFailure } from '../errors';
import { decodeText } from './decode-text';

const TEXT = 'name;city\nMüller;Köln\n';
const utf8Bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT)]);
const utf16le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')]);
const utf16be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(TEXT, 'utf16le').swap16()]);
const cp1252 = iconv.encode(TEXT, 'windows-1252');

function message(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof OperationFailure) return error.problems[0].message;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('decodeText', () => {
  it('auto: UTF-8 with or without a byte order mark, UTF-16 LE and BE by their mark', () => {
    expect(decodeText(Buffer.from(TEXT), 'auto')).toBe(TEXT);
    expect(decodeText(utf8Bom, 'auto')).toBe(TEXT);
    expect(decodeText(utf16le, 'auto')).toBe(TEXT);
    expect(decodeText(utf16be, 'auto')).toBe(TEXT);
  });

  it('utf-8 removes the mark and refuses invalid bytes, pointing at the first one and suggesting windows-1252', () => {
    expect(decodeText(utf8Bom, 'utf-8')).toBe(TEXT);
    expect(message(() => decodeText(cp1252, 'utf-8'))).toBe(
      'file: is not UTF-8 text (invalid byte 0xfc near byte 12); if the file comes from a Windows program, the mapping should declare encoding: windows-1252',
    );
    // A genuine U+FFFD earlier in the file is not mistaken for the bad byte.
    const withReplacementChar = Buffer.concat([Buffer.from('a\uFFFDb;'), Buffer.from([0xe9])]);
    expect(message(() => decodeText(withReplacementChar, 'auto'))).toContain('invalid byte 0xe9 near byte 7');
  });

  it('utf-16 needs the mark and an even number of bytes', () => {
    expect(decodeText(utf16be, 'utf-16')).toBe(TEXT);
    expect(decodeText(Buffer.alloc(0), 'utf-16')).toBe('');
    expect(message(() => decodeText(Buffer.from(TEXT, 'utf16le'), 'utf-16'))).toContain('needs the mark');
    expect(message(() => decodeText(utf16le.subarray(0, 7), 'auto'))).toContain('odd number of bytes');
  });

  it('windows-1252 decodes umlauts and the euro sign, and refuses a UTF-8 mark', () => {
    expect(decodeText(cp1252, 'windows-1252')).toBe(TEXT);
    expect(decodeText(Buffer.from([0x80, 0x20, 0x35]), 'windows-1252')).toBe('€ 5');
    expect(message(() => decodeText(utf8Bom, 'windows-1252'))).toContain('UTF-8 byte order mark');
  });
});
