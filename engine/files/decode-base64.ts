import { fileInvalid } from './problems';

/**
 * fileContent → bytes, strictly. Node's Base64 decoder skips characters it does not know, so garbage
 * would reach the parser as garbage bytes; here anything but the standard alphabet with correct padding
 * is refused, with the position of the first bad character. No whitespace or line breaks either: the
 * contract says "Base64 of the raw file bytes", and a wrapped or URL-safe text is a different encoding.
 */

const ALPHABET = /[^A-Za-z0-9+/=]/;

function bad(what: string): never {
  throw fileInvalid('fileContent', what);
}

export function decodeBase64Strict(text: string, maxBytes: number): Buffer {
  // Checked before decoding, so an oversized upload is refused without allocating it again.
  const decodedLength = Math.floor((text.length * 3) / 4) - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
  if (decodedLength > maxBytes) {
    bad(`the file is ${decodedLength} bytes; this adapter accepts files up to ${maxBytes} bytes (file.maxFileBytes)`);
  }
  const stray = ALPHABET.exec(text);
  if (stray) {
    bad(`is not valid Base64: character ${JSON.stringify(stray[0])} at position ${stray.index + 1} is not part of the Base64 alphabet`);
  }
  if (text.length % 4 !== 0) bad(`is not valid Base64: its length (${text.length}) is not a multiple of 4`);
  const firstPad = text.indexOf('=');
  if (firstPad !== -1 && firstPad < text.length - 2) bad(`is not valid Base64: "=" padding at position ${firstPad + 1} is not at the end`);
  const bytes = Buffer.from(text, 'base64');
  // The last character may carry bits that the decoder silently drops ("QR==" decodes like "QQ=="); a
  // canonical Base64 text re-encodes to itself.
  const tail = text.slice(-4);
  if (tail !== '' && bytes.subarray(bytes.length - (tail.endsWith('==') ? 1 : tail.endsWith('=') ? 2 : 3)).toString('base64') !== tail) {
    bad('is not valid Base64: the last group has stray bits (is the text cut off or altered?)');
  }
  return bytes;
}
