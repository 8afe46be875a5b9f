import { describe, expect, it } from 'vitest';
import { outgoingHeaders, wireBody, type OutboundRequest } from './client';

function request(extra: Partial<OutboundRequest>): OutboundRequest {
  return { callName: 'order', method: 'POST', url: new URL('http://erp.test/orders'), headers: {}, timeoutMs: 1000, responseType: 'json', maxResponseBytes: 1024, ...extra };
}

const CASES: Record<string, OutboundRequest> = {
  'no body': request({ method: 'GET' }),
  'a JSON body': request({ body: { docNo: 'SO-1001', quantity: 12 } }),
  'a null body': request({ body: null }),
  'a text body under text/xml': request({ body: '<a/>', headers: { 'Content-Type': 'text/xml' } }),
  'a JSON body under the mapping\'s own JSON type': request({ body: { a: 1 }, headers: { 'content-type': 'application/vnd.erp+json' } }),
  'a form': request({ form: { grant_type: 'client_credentials' } }),
  'a form under a declared type': request({ form: { a: 'b' }, headers: { 'CONTENT-TYPE': 'application/x-www-form-urlencoded; charset=utf-8' } }),
};

describe('the headers that go on the wire', () => {
  for (const [name, sent] of Object.entries(CASES)) {
    it(`carry the mapping's Content-Type, else the body's as the wire writes it, once: ${name}`, () => {
      const typesOf = (headers: Readonly<Record<string, string>>) => Object.entries(headers).filter(([key]) => key.toLowerCase() === 'content-type').map(([, value]) => value);
      const declared = typesOf(sent.headers);
      const { contentType } = wireBody(sent);
      expect(typesOf(outgoingHeaders(sent))).toEqual(declared.length > 0 ? declared : contentType === undefined ? [] : [contentType]);
      const headers = outgoingHeaders(sent);
      for (const [key, value] of Object.entries(sent.headers)) expect(headers[key]).toBe(value);
    });
  }

  it('are told without writing the body (the client and the trace both ask for them)', () => {
    let written = 0;
    const body = { docNo: 'SO-1001', toJSON() { written += 1; return { docNo: this.docNo }; } };
    expect(outgoingHeaders(request({ body }))).toEqual({ 'content-type': 'application/json' });
    expect(written).toBe(0);
  });
});
