import { TransportError, type HttpClient } from '../http/client';
import type { Mapping } from '../mapping/model';

/**
 * The readiness check's question to an ERP whose mapping declares `system.healthCheck`: does it answer?
 * Any HTTP answer below 500 counts (a 401 still proves the ERP is up; credentials are the calls' concern).
 * Answers are kept a few seconds, so a probe every second from several load balancers asks the ERP rarely.
 */
export interface ErpProbe {
  readonly reachable: boolean;
  readonly status?: number;
  readonly error?: string;
  /** ISO time the ERP was asked. */
  readonly checkedAt: string;
}

const KEEP_MS = 5000;

export function createErpProber(http: HttpClient, now: () => number = Date.now) {
  const recent = new Map<string, { readonly at: number; readonly probe: Promise<ErpProbe> }>();
  return async function probe(mapping: Mapping): Promise<ErpProbe | undefined> {
    const check = mapping.system.healthCheck;
    if (!check) return undefined;
    const url = new URL(mapping.system.baseUrl.href.replace(/\/$/, '') + check.path);
    const key = `${url.href} ${mapping.name}`;
    const kept = recent.get(key);
    if (kept && now() - kept.at < KEEP_MS) return kept.probe;
    const asked = (async (): Promise<ErpProbe> => {
      const checkedAt = new Date().toISOString();
      try {
        const response = await http.send({
          callName: 'health-check', method: 'GET', url, headers: {}, tls: mapping.system.tls,
          timeoutMs: check.timeoutMs, responseType: 'text', maxResponseBytes: 64 * 1024,
        });
        return { reachable: response.status < 500, status: response.status, checkedAt };
      } catch (error) {
        return { reachable: false, error: error instanceof TransportError ? error.message : 'the check failed', checkedAt };
      }
    })();
    recent.set(key, { at: now(), probe: asked });
    return asked;
  };
}
