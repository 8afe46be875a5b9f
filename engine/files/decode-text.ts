import iconv from 'iconv-lite';
import { fileInvalid } from './problems';

/**
 * Bytes → text in the encoding the mapping declares. `auto` looks for a byte order mark (UTF-8,
 * UTF-16 LE/BE) and otherwise reads UTF-8; it never guesses Windows-1252, because a wrong guess turns
 * "Müller" into "MÃ¼ller" without anyone noticing. UTF-8 is decoded strictly (Node's TextDecoder with
 * fatal) so a Windows-1252 file sent as UTF-8 is refused with a hint; iconv-lite does UTF-16 and
 * Windows-1252, which have no invalid byte sequences to speak of.
 */

export { TEXT_ENCODINGS, type TextEncoding } from '../mapping/file-settings';
import type { TextEncoding } from '../mapping/file-settings';

const UTF8_BOM = [0xef, 0xbb, 0xbf];

function startsWith(bytes: Buffer, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, index) => bytes[index] === byte);
}

function utf16Bom(bytes: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  if (startsWith(bytes, [0xff, 0xfe])) return 'utf-16le';
  if (startsWith(bytes, [0xfe, 0xff])) return 'utf-16be';
  return undefined;
}

/**
 * Offset of the first byte that is not valid UTF-8 (error path only): where the lenient decoder put its
 * first replacement character that the file did not itself contain.
 */
function firstInvalidUtf8(bytes: Buffer): number {
  const lenient = bytes.toString('utf8');
  for (let index = lenient.indexOf('\uFFFD'); index !== -1; index = lenient.indexOf('\uFFFD', index + 1)) {
    const offset = Buffer.byteLength(lenient.slice(0, index), 'utf8');
    if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset;
  }
  return 0;
}

function decodeUtf8(bytes: Buffer): string {
  try {
    // ignoreBOM false (the default): a UTF-8 byte order mark is removed, with or without it reads the same.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw fileInvalid('file', `is not UTF-8 text (invalid byte 0x${bytes[at]?.toString(16).padStart(2, '0') ?? '??'} near byte ${at + 1}); if the file comes from a Windows program, the mapping should declare encoding: windows-1252`);
  }
}

function decodeUtf16(bytes: Buffer, variant: 'utf-16le' | 'utf-16be'): string {
  const body = bytes.subarray(2);
  if (body.length % 2 !== 0) throw fileInvalid('file', 'is not UTF-16 text: it has an odd number of bytes (cut off?)');
  return iconv.decode(body, variant);
}

export function decodeText(bytes: Buffer, encoding: TextEncoding): string {
  switch (encoding) {
    case 'auto': {
      const utf16 = utf16Bom(bytes);
      return utf16 ? decodeUtf16(bytes, utf16) : decodeUtf8(bytes);
    }
    case 'utf-8':
      return decodeUtf8(bytes);
    case 'utf-16': {
      const utf16 = utf16Bom(bytes);
      if (!utf16) {
        if (bytes.length === 0) return '';
        throw fileInvalid('file', 'is not UTF-16 text with a byte order mark; the mapping declares encoding: utf-16, which needs the mark to know the byte order');
      }
      return decodeUtf16(bytes, utf16);
    }
    case 'windows-1252':
      // A UTF-8 mark in a file declared Windows-1252 would show up as "ï»¿" in the first column name.
      if (startsWith(bytes, UTF8_BOM)) throw fileInvalid('file', 'starts with a UTF-8 byte order mark but the mapping declares encoding: windows-1252; send it as Windows-1252 or change the mapping to utf-8');
      return iconv.decode(bytes, 'windows-1252');
  }
}
