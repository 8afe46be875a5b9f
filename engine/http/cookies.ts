import { CookieJar } from 'tough-cookie';
import type { HttpClient, OutboundRequest } from './client';

/**
 * `system.cookies: session`: the cookies an ERP sets are kept, per ERP connection, and sent back with
 * every later call, the way a browser keeps a session (SAP Gateway keeps the login and the CSRF token's
 * session in SAP_SESSIONID / MYSAPSSO2). tough-cookie applies the RFC 6265 rules: domain and path
 * matching, expiry, Secure cookies only over https.
 */
export function withCookies(http: HttpClient): HttpClient {
  const jar = new CookieJar();
  return {
    async send(request) {
      const stored = await jar.getCookieString(request.url.href);
      let sent: OutboundRequest = request;
      if (stored !== '') {
        const name = Object.keys(request.headers).find((key) => key.toLowerCase() === 'cookie');
        const own = name === undefined ? undefined : request.headers[name];
        const headers = Object.fromEntries(Object.entries(request.headers).filter(([key]) => key !== name));
        sent = { ...request, headers: { ...headers, cookie: own ? `${own}; ${stored}` : stored } };
      }
      const response = await http.send(sent);
      const set = response.headers['set-cookie'];
      // A cookie the jar refuses (another domain, malformed) is not kept; the answer itself stands.
      if (set) for (const line of set.split('\n')) await jar.setCookie(line, request.url.href, { ignoreError: true });
      return response;
    },
    // The shared client underneath belongs to the engine, which closes it.
    close: () => undefined,
  };
}
