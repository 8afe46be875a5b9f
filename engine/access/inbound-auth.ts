import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundAuthSpec, PushAuthSpec } from '../mapping/model';

/**
 * Checks the platform's credentials before a request reaches a mapping. Every comparison runs over
 * sha256 digests with timingSafeEqual, and every accepted key or user is compared (no early exit), so
 * neither a key's length nor its position in the list shows in the response time.
 */

/** stale: a signed push whose timestamp is outside the tolerance (a replay, or a clock far off). */
export type RefusalReason = 'missing' | 'invalid' | 'stale';

export type InboundVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: RefusalReason; readonly challenge: string; readonly message: string };

export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

function sameText(given: Buffer, expected: string): boolean {
  return timingSafeEqual(given, digest(expected));
}

/** Whether `given` is one of `accepted`: over digests, in constant time, every one compared. */
export function isOneOf(given: string, accepted: readonly string[]): boolean {
  const givenDigest = digest(given);
  let found = false;
  for (const candidate of accepted) found = sameText(givenDigest, candidate) || found;
  return found;
}

/** The one value of a header (names are lower-cased, as Node hands them over); a repeated header is not accepted. */
function headerValue(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return typeof value === 'string' ? value : undefined;
}

function basicPair(header: string | undefined): { username: string; password: string } | undefined {
  const match = header && /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function checkInbound(auth: InboundAuthSpec, headers: RequestHeaders, realm: string): InboundVerdict {
  switch (auth.type) {
    case 'none':
      return { ok: true };
    case 'apiKey': {
      const challenge = `ApiKey realm="${realm}", header="${auth.header}"`;
      const given = headerValue(headers, auth.header);
      if (given === undefined || given === '') return { ok: false, reason: 'missing', challenge, message: `send the key in the ${auth.header} header` };
      return isOneOf(given, auth.keys.map((key) => key.reveal())) ? { ok: true } : { ok: false, reason: 'invalid', challenge, message: `the key in the ${auth.header} header is not accepted` };
    }
    case 'basic': {
      const challenge = `Basic realm="${realm}", charset="UTF-8"`;
      const pair = basicPair(headerValue(headers, 'authorization'));
      if (!pair) return { ok: false, reason: 'missing', challenge, message: 'send a user name and password with HTTP Basic authentication' };
      const username = digest(pair.username);
      const password = digest(pair.password);
      let accepted = false;
      for (const user of auth.users) {
        // Both compared every time: a known user name must not answer faster or slower than an unknown one.
        const nameMatches = sameText(username, user.username);
        const passwordMatches = sameText(password, user.password.reveal());
        accepted = (nameMatches && passwordMatches) || accepted;
      }
      return accepted ? { ok: true } : { ok: false, reason: 'invalid', challenge, message: 'the user name or password is not accepted' };
    }
  }
}

type HmacSpec = Extract<PushAuthSpec, { type: 'hmac' }>;

const signatureChallenge = (auth: HmacSpec): string => `Signature header="${auth.header}", algorithm="hmac-${auth.algorithm}"`;

/** What a signature's headers say before the body is read: a refusal, or the signature and its signing time. */
function signatureHeaders(auth: HmacSpec, headers: RequestHeaders, nowMs: number): Extract<InboundVerdict, { ok: false }> | { readonly ok: true; readonly given: string; readonly stamp?: string } {
  const refuse = (reason: RefusalReason, message: string) => ({ ok: false as const, reason, challenge: signatureChallenge(auth), message });
  const given = headerValue(headers, auth.header);
  if (given === undefined || given === '') return refuse('missing', `sign the body and send the signature in the ${auth.header} header`);
  if (auth.timestampHeader === undefined) return { ok: true, given };
  const stamp = headerValue(headers, auth.timestampHeader);
  if (stamp === undefined || !/^\d{1,12}$/.test(stamp)) return refuse('missing', `send the signing time (Unix seconds) in the ${auth.timestampHeader} header`);
  if (Math.abs(nowMs / 1000 - Number(stamp)) > auth.toleranceSeconds) {
    return refuse('stale', `the ${auth.timestampHeader} time is more than ${auth.toleranceSeconds} seconds from the engine's clock; sign again when sending (a replayed request is refused)`);
  }
  return { ok: true, given, stamp };
}

/**
 * An HMAC signature of the raw body, with the timestamp in front ("<timestamp>.<body>") when the mapping
 * names a timestamp header: a captured request replayed after the tolerance is refused, and changing its
 * timestamp breaks the signature. Every secret is tried (no early exit), over digests, in constant time.
 */
function checkSignature(auth: HmacSpec, headers: RequestHeaders, rawBody: Buffer, nowMs: number): InboundVerdict {
  const read = signatureHeaders(auth, headers, nowMs);
  if (!read.ok) return read;
  const { given, stamp } = read;
  const signed = stamp === undefined ? rawBody : Buffer.concat([Buffer.from(`${stamp}.`, 'utf8'), rawBody]);
  const text = given.startsWith(auth.prefix) ? given.slice(auth.prefix.length).trim() : '';
  const givenDigest = digest(auth.encoding === 'hex' ? text.toLowerCase() : text);
  let accepted = false;
  for (const secret of auth.secrets) {
    const expected = createHmac(auth.algorithm, secret.reveal()).update(signed).digest(auth.encoding);
    accepted = sameText(givenDigest, expected) || accepted;
  }
  return accepted ? { ok: true } : { ok: false, reason: 'invalid', challenge: signatureChallenge(auth), message: `the signature in the ${auth.header} header does not match the body` };
}

/** A push's credentials: the platform's kinds (API key, Basic) or a signature of the raw body. */
export function checkPush(auth: PushAuthSpec, headers: RequestHeaders, rawBody: Buffer, nowMs: number, realm: string): InboundVerdict {
  return auth.type === 'hmac' ? checkSignature(auth, headers, rawBody, nowMs) : checkInbound(auth, headers, realm);
}

/**
 * A push's credentials as far as the headers tell, before its body is read: an API key or Basic in full; of
 * a signature, that it is there and (with a timestamp header) fresh. `ok` for a signature means only that
 * the body must be read to tell (checkPush then checks it over the bytes).
 */
export function checkPushHeaders(auth: PushAuthSpec, headers: RequestHeaders, nowMs: number, realm: string): InboundVerdict {
  if (auth.type !== 'hmac') return checkInbound(auth, headers, realm);
  const read = signatureHeaders(auth, headers, nowMs);
  return read.ok ? { ok: true } : read;
}
