import { TimeSlices } from '../time-slices';
import { fileInvalid } from './problems';

/**
 * fileContent → bytes, strictly. Node's Base64 decoder skips characters it does not know, so garbage
 * would reach the parser as garbage bytes; here anything but the standard alphabet with correct padding
 * is refused, with the position of the first bad character. No whitespace or line breaks either: the
 * contract says "Base64 of the raw file bytes", and a wrapped or URL-safe text is a different encoding.
 *
 * The whole text is checked first (in time slices: scanning 27 MB is tens of milliseconds), then
 * decoded piece by piece as the reader asks, so the file's bytes never exist in memory all at once.
 */

const ALPHABET = /[^A-Za-z0-9+/=]/;
/** Characters checked or decoded at a time: a multiple of 4, so every piece is whole Base64 groups. */
const PIECE_CHARS = 64 * 1024;

function bad(what: string): never {
  throw fileInvalid('fileContent', what);
}

export interface Base64File {
  /** The decoded length in bytes. */
  readonly size: number;
  /** The decoded bytes, in order, a piece at a time. */
  pieces(): Generator<Buffer>;
  /** All of it at once: only for error messages that need the whole file. */
  whole(): Buffer;
}

export async function readBase64(text: string, maxBytes: number): Promise<Base64File> {
  // Checked before decoding, so an oversized upload is refused without allocating it again.
  const size = Math.floor((text.length * 3) / 4) - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
  if (size > maxBytes) {
    bad(`the file is ${size} bytes; this adapter accepts files up to ${maxBytes} bytes (file.maxFileBytes)`);
  }
  const slices = new TimeSlices();
  for (let start = 0; start < text.length; start += PIECE_CHARS) {
    const stray = ALPHABET.exec(text.slice(start, start + PIECE_CHARS));
    if (stray) {
      bad(`is not valid Base64: character ${JSON.stringify(stray[0])} at position ${start + stray.index + 1} is not part of the Base64 alphabet`);
    }
    if (slices.due()) await slices.turn();
  }
  if (text.length % 4 !== 0) bad(`is not valid Base64: its length (${text.length}) is not a multiple of 4`);
  const firstPad = text.indexOf('=');
  if (firstPad !== -1 && firstPad < text.length - 2) bad(`is not valid Base64: "=" padding at position ${firstPad + 1} is not at the end`);
  // The last character may carry bits that the decoder silently drops ("QR==" decodes like "QQ=="); a
  // canonical Base64 text re-encodes to itself. Groups decode independently, so the last one suffices.
  const tail = text.slice(-4);
  if (tail !== '' && Buffer.from(tail, 'base64').toString('base64') !== tail) {
    bad('is not valid Base64: the last group has stray bits (is the text cut off or altered?)');
  }
  return {
    size,
    *pieces() {
      for (let start = 0; start < text.length; start += PIECE_CHARS) yield Buffer.from(text.slice(start, start + PIECE_CHARS), 'base64');
    },
    whole: () => Buffer.from(text, 'base64'),
  };
}
