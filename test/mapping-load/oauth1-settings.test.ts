/**
 * system.auth type oauth1 at load: the two secrets come from variables, the consumer key and the token
 * id are plain settings, the signature method is one of three words and defaults to HMAC-SHA256.
 */
import { describe, expect, it } from 'vitest';
import { checkMappingText } from '../../engine/mapping/load';
import { errorsOf, expectOnlyError, HEADER } from '../support/mapping-issues';

const ENV = { NS_CONSUMER_SECRET: 'consumer-secret-1', NS_TOKEN_SECRET: 'token-secret-1' };
const auth = (lines: string) => `${HEADER}  auth:\n    type: oauth1\n${lines}operations: {}\n`;

describe('system.auth: type oauth1', () => {
  it('loads with its secrets from variables; the consumer key and token id may be written out; HMAC-SHA256 by default', () => {
    const text = auth('    realm: "1234567_SB1"\n    consumerKey: ck-1\n    consumerSecret: ${NS_CONSUMER_SECRET}\n    token: token-id-1\n    tokenSecret: ${NS_TOKEN_SECRET}\n');
    const { mapping } = checkMappingText(text, 'customer.yaml', ENV);
    expect(mapping?.system.auth).toMatchObject({ type: 'oauth1', realm: '1234567_SB1', consumerKey: 'ck-1', token: 'token-id-1', signatureMethod: 'HMAC-SHA256' });
    const values = mapping?.secretValues.map((secret) => secret.reveal()) ?? [];
    expect(values).toEqual(expect.arrayContaining(['consumer-secret-1', 'token-secret-1']));
  });

  it('a token secret written into the file is refused, at its line', () => {
    const text = auth('    consumerKey: ck-1\n    consumerSecret: ${NS_CONSUMER_SECRET}\n    token: token-id-1\n    tokenSecret: plain-secret\n');
    expectOnlyError(text, { code: 'SECRET_INLINE', line: 10, col: 18, mentions: ['system.auth.tokenSecret'] }, ENV);
  });

  it('an unknown signature method lists the three', () => {
    const text = auth('    consumerKey: ck-1\n    consumerSecret: ${NS_CONSUMER_SECRET}\n    token: t\n    tokenSecret: ${NS_TOKEN_SECRET}\n    signatureMethod: RSA-SHA1\n');
    const errors = errorsOf(text, ENV);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain('HMAC-SHA256');
    expect(errors[0]!.message).toContain('PLAINTEXT');
  });
});
