import iconv from 'iconv-lite';
import { fileInvalid } from './problems';

/**
 * Bytes → text in the encoding the mapping declares. `auto` looks for a byte order mark (UTF-8,
 * UTF-16 LE/BE) and otherwise reads UTF-8; it never guesses Windows-1252, because a wrong guess turns
 * "Müller" into "MÃ¼ller" without anyone noticing. UTF-8 is decoded strictly (Node's TextDecoder with
 * fatal) so a Windows-1252 file sent as UTF-8 is refused with a hint; iconv-lite does UTF-16 and
 * Windows-1252, which have no invalid byte sequences to speak of.
 */

export {  type TextEncoding } from '../mapping/file-settings';
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

/** Bytes → text a piece at a time; `end()` gives what the last pieces held back (a split character). */
export interface TextDecoding {
  write(bytes: Buffer): string;
  end(): string;
}

/** The whole file for an error message: it is decoded again only when the message needs it. */
type Whole = () => Buffer;

function utf8Decoding(whole: Whole): TextDecoding {
  // ignoreBOM false (the default): a UTF-8 byte order mark is removed, with or without it reads the same.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const strictly = (decode: () => string): string => {
    try {
      return decode();
    } catch {
      const bytes = whole();
      const at = firstInvalidUtf8(bytes);
      throw fileInvalid('file', `is not UTF-8 text (invalid byte 0x${bytes[at]?.toString(16).padStart(2, '0') ?? '??'} near byte ${at + 1}); if the file comes from a Windows program, the mapping should declare encoding: windows-1252`);
    }
  };
  return {
    write: (bytes) => strictly(() => decoder.decode(bytes, { stream: true })),
    end: () => strictly(() => decoder.decode()),
  };
}

/** iconv-lite's decoder, after the first `skip` bytes of the stream (a byte order mark). */
function iconvDecoding(encoding: string, skip: number): TextDecoding {
  const decoder = iconv.getDecoder(encoding);
  let toSkip = skip;
  return {
    write: (bytes) => {
      const rest = toSkip > 0 ? bytes.subarray(toSkip) : bytes;
      toSkip = Math.max(0, toSkip - bytes.length);
      return decoder.write(rest);
    },
    end: () => decoder.end() ?? '',
  };
}

function utf16Decoding(size: number, variant: 'utf-16le' | 'utf-16be'): TextDecoding {
  if ((size - 2) % 2 !== 0) throw fileInvalid('file', 'is not UTF-16 text: it has an odd number of bytes (cut off?)');
  return iconvDecoding(variant, 2);
}

const NOTHING: TextDecoding = { write: () => '', end: () => '' };

/**
 * How a file of `size` bytes that starts with `head` (its first 3 bytes, or all of a shorter file) is
 * decoded in the encoding the mapping declares. Problems the start of the file shows are thrown here;
 * invalid UTF-8 is thrown by the piece that holds it.
 */
export function textDecoding(head: Buffer, size: number, encoding: TextEncoding, whole: Whole): TextDecoding {
  switch (encoding) {
    case 'auto': {
      const utf16 = utf16Bom(head);
      return utf16 ? utf16Decoding(size, utf16) : utf8Decoding(whole);
    }
    case 'utf-8':
      return utf8Decoding(whole);
    case 'utf-16': {
      const utf16 = utf16Bom(head);
      if (!utf16) {
        if (size === 0) return NOTHING;
        throw fileInvalid('file', 'is not UTF-16 text with a byte order mark; the mapping declares encoding: utf-16, which needs the mark to know the byte order');
      }
      return utf16Decoding(size, utf16);
    }
    case 'windows-1252':
      // A UTF-8 mark in a file declared Windows-1252 would show up as "ï»¿" in the first column name.
      if (startsWith(head, UTF8_BOM)) throw fileInvalid('file', 'starts with a UTF-8 byte order mark but the mapping declares encoding: windows-1252; send it as Windows-1252 or change the mapping to utf-8');
      return iconvDecoding('windows-1252', 0);
  }
}

/** All of `bytes` at once (a JSON file, which is parsed whole). */
export function decodeText(bytes: Buffer, encoding: TextEncoding): string {
  const decoding = textDecoding(bytes.subarray(0, 3), bytes.length, encoding, () => bytes);
  return decoding.write(bytes) + decoding.end();
}
