import { describe, expect, it } from 'vitest';
import { formPairs, signatureBaseString, signatureOf, signRequest, type OAuth1Credentials } from './oauth1';

describe('OAuth 1.0a signing (RFC 5849)', () => {
  it("writes RFC 5849 section 3.4.1's signature base string, query and form body together", () => {
    // POST /request?b5=%3D%253D&a3=a&c%40=&a2=r%20b with the form body c2&a3=2+q (RFC 5849 3.4.1.1).
    const request = { method: 'POST', url: new URL('http://EXAMPLE.COM:80/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b'), form: formPairs('c2&a3=2+q') };
    const protocol: [string, string][] = [
      ['oauth_consumer_key', '9djdj82h48djs9d2'], ['oauth_token', 'kkk9d7dh3k39sjv7'], ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_timestamp', '137131201'], ['oauth_nonce', '7d8f3e4a'],
    ];
    expect(signatureBaseString(request, protocol)).toBe(
      'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7',
    );
  });

  it("gives RFC 5849 section 1.2's signature (HMAC-SHA1) for its photos request", () => {
    const credentials: OAuth1Credentials = { consumerKey: 'dpf43f3p2l4k3l03', consumerSecret: 'kd94hf93k423kf44', token: 'nnch734d00sl2jdk', tokenSecret: 'pfkkdhi9sl3r4s00', signatureMethod: 'HMAC-SHA1' };
    const protocol: [string, string][] = [
      ['oauth_consumer_key', 'dpf43f3p2l4k3l03'], ['oauth_token', 'nnch734d00sl2jdk'], ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_timestamp', '137131202'], ['oauth_nonce', 'chapoH'],
    ];
    const base = signatureBaseString({ method: 'GET', url: new URL('http://photos.example.net/photos?file=vacation.jpg&size=original') }, protocol);
    expect(signatureOf(credentials, base)).toBe('MdpQcU8iPSUjWoN/UDMsK2sui9I=');
  });

  it("gives the signature of X's (Twitter's) \"Creating a signature\" example, a form body and a query parameter", () => {
    const credentials: OAuth1Credentials = {
      consumerKey: 'xvz1evFS4wEEPTGEFPHBog', consumerSecret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
      token: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb', tokenSecret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE', signatureMethod: 'HMAC-SHA1',
    };
    const request = {
      method: 'POST', url: new URL('https://api.twitter.com/1.1/statuses/update.json?include_entities=true'),
      form: formPairs('status=Hello%20Ladies%20%2b%20Gentlemen%2c%20a%20signed%20OAuth%20request%21'),
    };
    const signed = signRequest(credentials, request, 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg', 1318622958);
    expect(signed.authorization).toContain('oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D"');
    expect(signed.authorization).toBe(
      'OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1318622958", oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", oauth_version="1.0", oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D"',
    );
    expect(signed.shown).not.toContain('oauth_signature=');
  });

  it('puts the realm first, outside the signature; PLAINTEXT is the two secrets; a fresh nonce each time', () => {
    const credentials: OAuth1Credentials = { realm: '123456_SB1', consumerKey: 'ck', consumerSecret: 'c s', token: 'tk', tokenSecret: 't&s', signatureMethod: 'PLAINTEXT' };
    const request = { method: 'GET', url: new URL('https://erp.test/record') };
    const signed = signRequest(credentials, request, 'n1', 1);
    expect(signed.authorization).toMatch(/^OAuth realm="123456_SB1", oauth_consumer_key="ck"/);
    expect(signed.authorization).toContain('oauth_signature="c%2520s%26t%2526s"');
    const sha256 = { ...credentials, signatureMethod: 'HMAC-SHA256' as const };
    expect(signRequest(sha256, request, 'n1', 1).authorization).toBe(signRequest({ ...sha256, realm: 'other' }, request, 'n1', 1).authorization.replace('realm="other"', 'realm="123456_SB1"'));
    const nonces = new Set(Array.from({ length: 5 }, () => /oauth_nonce="([^"]+)"/.exec(signRequest(sha256, request).authorization)?.[1]));
    expect(nonces.size).toBe(5);
  });
});
