import type { AuthSpec, TlsSpec } from '../mapping/model';
import { wireBody, type HttpClient, type OutboundRequest, type OutboundResponse } from './client';
import { formPairs, signRequest } from './oauth1';
import { withQueryParams } from './query-encoding';
import { TokenSource } from './token-source';

/**
 * Puts the mapping's credentials on an outbound request, as the last step before the wire: the
 * request the pipeline built, traced and logged never carries them. With OAuth2, a 401 from the ERP
 * renews the token once and sends the request once more.
 */
export interface Authenticator {
  /**
   * `sends` is 2 when a 401 made it renew the token and send again. `shown`: the credentials' header as
   * the trace may show it (OAuth 1.0a's parameters without the signature), when it is worth showing.
   */
  send(request: OutboundRequest): Promise<{ response: OutboundResponse; sends: number; shown?: string }>;
}

const FORM = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

/** The fields of a form body as they go on the wire (RFC 5849 3.4.1.3.1 signs them); none for any other body. */
function formFields(request: OutboundRequest): [string, string][] | undefined {
  const wire = wireBody(request);
  return wire.text !== undefined && wire.contentType !== undefined && FORM.test(wire.contentType) ? formPairs(wire.text) : undefined;
}

function withHeader(request: OutboundRequest, name: string, value: string): OutboundRequest {
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([key]) => key.toLowerCase() !== name.toLowerCase()));
  return { ...request, headers: { ...headers, [name]: value } };
}

export function createAuthenticator(auth: AuthSpec, http: HttpClient, tls: TlsSpec | undefined, onTokenFetch?: (ok: boolean, token?: string) => void): Authenticator {
  switch (auth.type) {
    case 'none':
      return { send: async (request) => ({ response: await http.send(request), sends: 1 }) };
    case 'basic': {
      const value = `Basic ${Buffer.from(`${auth.username}:${auth.password.reveal()}`).toString('base64')}`;
      return { send: async (request) => ({ response: await http.send(withHeader(request, 'authorization', value)), sends: 1 }) };
    }
    case 'bearer':
      return { send: async (request) => ({ response: await http.send(withHeader(request, 'authorization', `Bearer ${auth.token.reveal()}`)), sends: 1 }) };
    case 'apiKey':
      return {
        async send(request) {
          if (auth.in === 'header') return { response: await http.send(withHeader(request, auth.name, auth.value.reveal())), sends: 1 };
          // Set without rewriting the rest of the query (URLSearchParams would re-encode it as a form).
          const url = withQueryParams(request.url, { [auth.name]: auth.value.reveal() }, 'percent');
          return { response: await http.send({ ...request, url }), sends: 1 };
        },
      };
    case 'oauth1': {
      const credentials = { ...auth, consumerSecret: auth.consumerSecret.reveal(), tokenSecret: auth.tokenSecret.reveal() };
      return {
        // Signed here, per attempt and per page, over the URL as it is sent: a nonce is never sent twice.
        async send(request) {
          const signed = signRequest(credentials, { method: request.method, url: request.url, form: formFields(request) });
          return { response: await http.send(withHeader(request, 'authorization', signed.authorization)), sends: 1, shown: signed.shown };
        },
      };
    }
    case 'oauth2ClientCredentials': {
      const tokens = new TokenSource(auth, http, tls, Date.now, onTokenFetch);
      return {
        async send(request) {
          const token = await tokens.get(request.timeoutMs);
          const first = await http.send(withHeader(request, 'authorization', `Bearer ${token}`));
          if (first.status !== 401) return { response: first, sends: 1 };
          tokens.invalidate(token);
          const renewed = await tokens.get(request.timeoutMs);
          return { response: await http.send(withHeader(request, 'authorization', `Bearer ${renewed}`)), sends: 2 };
        },
      };
    }
  }
}
