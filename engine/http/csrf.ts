import type { CsrfSpec } from '../mapping/model';
import { TransportError, type HttpClient, type OutboundRequest, type OutboundResponse } from './client';
import { TokenUnavailable } from './faults';

/**
 * SAP Gateway's CSRF protection, declared by `system.csrf`: a write (POST, PUT, PATCH, DELETE) must carry
 * the token the session was given, which a read hands out when asked with `X-CSRF-Token: Fetch`. The
 * token is kept per ERP connection and shared by all requests: reads ask for one while none is held,
 * a write before any read fetches one with a GET of `fetchPath` first (one fetch at a time, the others
 * wait for it), and a `403` answered with `X-CSRF-Token: Required` (the session or token expired) fetches
 * a new token and sends the write once more. Sits below the credentials (the fetch carries them, as
 * SAP wants) and above the cookies (the token belongs to the session cookie).
 */

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The call name of token fetches, as traces, logs and recorded-answer clients see them. */
export const CSRF_TOKEN_CALL = 'csrf-token';

function withHeader(request: OutboundRequest, name: string, value: string): OutboundRequest {
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([key]) => key.toLowerCase() !== name.toLowerCase()));
  return { ...request, headers: { ...headers, [name]: value } };
}

function under(url: URL, base: URL): boolean {
  const basePath = base.pathname.replace(/\/+$/, '');
  return url.origin === base.origin && (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`));
}

export function withCsrf(http: HttpClient, spec: CsrfSpec, base: URL): HttpClient {
  const header = spec.header.toLowerCase();
  let token: string | undefined;
  let fetching: Promise<string> | undefined;
  /** A token handed out in an answer: anything but the "Required" of a refusal. */
  const learn = (response: OutboundResponse) => {
    const given = response.headers[header];
    if (given && given.toLowerCase() !== 'required' && given.toLowerCase() !== 'fetch') token = given;
  };

  const fetchToken = (write: OutboundRequest): Promise<string> => {
    fetching ??= (async () => {
      const url = new URL(base.origin + base.pathname.replace(/\/+$/, '') + spec.fetchPath);
      // The write's own headers (credentials, request id) without its body's; text: a service root may answer XML.
      const headers = Object.fromEntries(Object.entries(write.headers).filter(([key]) => !/^content-|^idempotency-key$/i.test(key)));
      let response: OutboundResponse;
      try {
        response = await http.send(withHeader({ ...write, callName: CSRF_TOKEN_CALL, method: 'GET', url, headers, body: undefined, form: undefined, responseType: 'text' }, spec.header, 'Fetch'));
      } catch (error) {
        if (error instanceof TransportError) throw new TokenUnavailable(`the CSRF token could not be fetched from GET ${url.pathname} (${error.code}); system.csrf`, `the CSRF token could not be fetched (${error.code}); system.csrf`);
        throw error;
      }
      learn(response);
      if (token === undefined) throw new TokenUnavailable(`the ERP answered ${response.status} to GET ${url.pathname} without a ${spec.header} token; check system.csrf.fetchPath and the credentials`, `the ERP answered ${response.status} without a ${spec.header} token; check system.csrf.fetchPath and the credentials`);
      return token;
    })().finally(() => {
      fetching = undefined;
    });
    return fetching;
  };

  return {
    async send(request) {
      if (!under(request.url, base)) return http.send(request); // the OAuth2 token endpoint, for one
      if (READS.has(request.method)) {
        const response = await http.send(token === undefined ? withHeader(request, spec.header, 'Fetch') : request);
        learn(response);
        return response;
      }
      const used = token ?? (await fetchToken(request));
      const first = await http.send(withHeader(request, spec.header, used));
      if (first.status !== 403 || first.headers[header]?.toLowerCase() !== 'required') return first;
      // Expired: forget the token unless a newer one replaced it meanwhile, fetch one, send once more.
      if (token === used) token = undefined;
      const renewed = token ?? (await fetchToken(request));
      return http.send(withHeader(request, spec.header, renewed));
    },
    // The shared client underneath belongs to the engine, which closes it.
    close: () => undefined,
  };
}
