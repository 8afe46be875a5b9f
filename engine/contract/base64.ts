/**
 * Standard Base64 with correct padding: the one definition of "Base64" the contract's image answer
 * and the expression helpers check against. Checked by a loop, not a regular expression: V8 matched
 * `^(?:[A-Za-z0-9+/]{4})*…$` by backtracking, one stack frame per group, and a ~3.5 MB image failed
 * with "Maximum call stack size exceeded".
 */

const ALPHABET = new Uint8Array(128);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') ALPHABET[char.charCodeAt(0)] = 1;
const PAD = 61; // '='

function isStrictBase64(text: string): boolean {
  const { length } = text;
  if (length % 4 !== 0) return false;
  const padding = length > 0 && text.charCodeAt(length - 1) === PAD ? (text.charCodeAt(length - 2) === PAD ? 2 : 1) : 0;
  const end = length - padding;
  for (let index = 0; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 128 || ALPHABET[code] === 0) return false;
  }
  return true;
}

/** Kept with the shape of the regular expression it replaced: `STRICT_BASE64.test(text)`. */
export const STRICT_BASE64 = { test: isStrictBase64 } as const;

/** Image formats the contract's image answer may carry, by their first bytes. */
const IMAGE_SIGNATURES: readonly (readonly [string, (head: Buffer) => boolean])[] = [
  ['PNG', (head) => head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['JPEG', (head) => head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff],
  ['GIF', (head) => /^GIF8[79]a/.test(head.toString('latin1', 0, 6))],
  ['WebP', (head) => head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP'],
  ['BMP', (head) => head.toString('latin1', 0, 2) === 'BM'],
  ['TIFF', (head) => ['II*\0', 'MM\0*'].includes(head.toString('latin1', 0, 4))],
  ['ICO', (head) => head.readUInt32BE(0) === 0x00000100],
  ['AVIF/HEIC', (head) => head.toString('latin1', 4, 8) === 'ftyp' && /^(avi[fs]|hei[cx]|mif1|msf1)$/.test(head.toString('latin1', 8, 12))],
  ['SVG', (head) => /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head.toString('utf8'))],
];

/**
 * The image format of Base64 text, by its first bytes; undefined when it is no image the engine knows
 * (an HTML error page or a JSON error body the ERP sent instead of the picture).
 */
function imageFormatOf(base64: string): string | undefined {
  const head = Buffer.from(base64.slice(0, 1024), 'base64');
  if (head.length < 4) return undefined;
  return IMAGE_SIGNATURES.find(([, matches]) => matches(head))?.[0];
}

/** The contract's image answer: strict Base64 of an image (format `image-base64` of the schema registry). */
export function isBase64Image(text: string): boolean {
  return isStrictBase64(text) && imageFormatOf(text) !== undefined;
}

export const IMAGE_FORMAT_NAMES = IMAGE_SIGNATURES.map(([name]) => name);
