/**
 * A fake SAP Gateway for the CSRF and session tests: a real HTTP server on 127.0.0.1 that behaves as
 * Gateway does. A request without a known session cookie opens a session (Set-Cookie SAP_SESSIONID and
 * sap-usercontext); a request with `X-CSRF-Token: Fetch` gets the session's token; a write (POST, PUT,
 * PATCH, DELETE) without the session's cookie and token is refused with 403 and `X-CSRF-Token: Required`.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatewayRequest {
  readonly method: string;
  readonly path: string;
  readonly cookie?: string;
  readonly csrf?: string;
  readonly status: number;
}

export interface FakeGateway {
  /** The OData service root, e.g. http://127.0.0.1:PORT/sap/opu/odata/sap/ZWM_SRV. */
  readonly serviceUrl: string;
  readonly requests: GatewayRequest[];
  /** Ends every session, as a Gateway restart or the session timeout does. */
  expireSessions(): void;
  /** Refuses every write as if its token were wrong. */
  refuseWrites: boolean;
  close(): Promise<void>;
}

export const SERVICE_PATH = '/sap/opu/odata/sap/ZWM_SRV';

export async function startFakeGateway(): Promise<FakeGateway> {
  const sessions = new Map<string, string | undefined>(); // session id → its CSRF token, once fetched
  const requests: GatewayRequest[] = [];
  const gateway = { refuseWrites: false };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const cookie = req.headers.cookie;
      const csrf = req.headers['x-csrf-token'] as string | undefined;
      let session = /SAP_SESSIONID_ZWM_100=([^;]+)/.exec(cookie ?? '')?.[1];
      const headers: Record<string, string | string[]> = { 'content-type': 'application/json' };
      if (session === undefined || !sessions.has(session)) {
        session = randomUUID();
        sessions.set(session, undefined);
        // Two cookies, one with an Expires date (its comma must not split it).
        headers['set-cookie'] = [`SAP_SESSIONID_ZWM_100=${session}; path=/; HttpOnly`, 'sap-usercontext=sap-client=100; path=/; expires=Fri, 31 Dec 2100 23:59:59 GMT'];
      }
      const answer = (status: number, body: unknown) => {
        requests.push({ method: req.method ?? '', path: req.url ?? '', cookie, csrf, status });
        res.writeHead(status, headers).end(JSON.stringify(body));
      };
      if (csrf?.toLowerCase() === 'fetch') {
        const token = sessions.get(session) ?? randomUUID();
        sessions.set(session, token);
        headers['x-csrf-token'] = token;
      }
      const write = !['GET', 'HEAD'].includes(req.method ?? '');
      if (write && (gateway.refuseWrites || csrf === undefined || csrf !== sessions.get(session))) {
        headers['x-csrf-token'] = 'Required';
        answer(403, { error: { code: '/IWFND/CM/403', message: { value: 'CSRF token validation failed' } } });
        return;
      }
      answer(write ? 201 : 200, { d: { results: [{ Label: 'ERP order id' }] } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(gateway, {
    serviceUrl: `http://127.0.0.1:${port}${SERVICE_PATH}`,
    requests,
    expireSessions: () => sessions.clear(),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  });
}
