import { OperationFailure } from '../errors';
import type { HttpClient, OutboundRequest, OutboundResponse } from './client';

/**
 * A call's url (system.assetHosts): an absolute URL an answer gave, such as a product image on a CDN.
 * Sent straight to the client, below the connection's credentials, cookies and CSRF token: they belong
 * to the ERP, not to its CDN. A redirect is followed only to another listed host, a few times at most.
 */

const MAX_REDIRECTS = 5;

/** Whether a URL's host is one of system.assetHosts (written as host, or host:port). */
export function isAssetHost(url: URL, hosts: readonly string[]): boolean {
  return (url.protocol === 'https:' || url.protocol === 'http:') && (hosts.includes(url.host.toLowerCase()) || hosts.includes(url.hostname.toLowerCase()));
}

export async function fetchAsset(http: HttpClient, request: OutboundRequest, hosts: readonly string[]): Promise<OutboundResponse> {
  let current = request;
  for (let redirects = 0; ; redirects += 1) {
    const response = await http.send(current);
    const location = response.headers.location;
    if (response.status < 300 || response.status >= 400 || location === undefined || redirects >= MAX_REDIRECTS) return response;
    let next: URL | undefined;
    try {
      next = new URL(location, current.url);
    } catch {
      next = undefined;
    }
    if (!next || !isAssetHost(next, hosts)) {
      const message = `calls.${request.callName}: ${current.url.host} redirected to ${next?.host ?? JSON.stringify(location.slice(0, 80))}, which is not in system.assetHosts; the redirect is not followed`;
      throw new OperationFailure('ERP_BODY_UNREADABLE', message, [{ path: `calls.${request.callName}`, message }]);
    }
    // A redirect is a GET for the new place, whatever the first request was (the body stays behind).
    current = { ...current, method: 'GET', body: undefined, url: next };
  }
}
