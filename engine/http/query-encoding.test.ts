import { describe, expect, it } from 'vitest';
import { encodeQueryValue, encodeRawLiteral, withQueryParams } from './query-encoding';

describe('query encoding', () => {
  it('percent, form and raw write the same value differently', () => {
    const value = "a b+c&d=e/f'g(h)$i#j%k ü";
    expect(encodeQueryValue(value, 'percent')).toBe('a%20b%2Bc%26d%3De%2Ff%27g%28h%29%24i%23j%25k%20%C3%BC');
    expect(encodeQueryValue(value, 'form')).toBe('a+b%2Bc%26d%3De%2Ff%27g%28h%29%24i%23j%25k+%C3%BC');
    expect(encodeQueryValue(value, 'raw')).toBe("a%20b%2Bc%26d=e/f'g(h)$i%23j%25k%20%C3%BC");
  });

  it("keeps a %XX the mapping's own text writes in a raw value", () => {
    expect(encodeRawLiteral('Date ge 2026-01-01T00:00:00%2B01:00 and x eq 50%')).toBe('Date%20ge%202026-01-01T00:00:00%2B01:00%20and%20x%20eq%2050%25');
  });

  it('setting a parameter leaves the others as they were written and keeps its place', () => {
    const url = new URL("http://erp.test/x?$filter=a%20eq%20'b'&page=1&$top=5&page=9");
    expect(withQueryParams(url, { page: 2, cursor: 'c/d=' }, 'percent').search).toBe('?$filter=a%20eq%20%27b%27&page=2&$top=5&cursor=c%2Fd%3D');
  });
});
