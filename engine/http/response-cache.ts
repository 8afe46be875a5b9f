import { LRUCache } from 'lru-cache';
import type { CacheSpec } from '../mapping/model';
import type { OutboundRequest, OutboundResponse } from './client';

/**
 * The answers of one call, kept for `ttlMs`, at most `maxEntries` (least recently used go first;
 * lru-cache does both). Keyed by everything the mapping put into the request; credentials are added
 * later and are the same for every request, so they are not part of the key. Only successful,
 * readable answers are kept: an error must be asked again.
 */
export class ResponseCache {
  private readonly entries: LRUCache<string, OutboundResponse>;

  constructor(spec: CacheSpec) {
    this.entries = new LRUCache({ max: spec.maxEntries, ttl: spec.ttlMs });
  }

  /** `ignored`: the request id and idempotency headers differ on every request and say nothing about the answer. */
  static keyOf(request: OutboundRequest, ignored: readonly (string | undefined)[] = []): string {
    const skip = new Set(ignored.filter((name) => name !== undefined).map((name) => name.toLowerCase()));
    const headers = Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]).filter(([name]) => !skip.has(name)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return JSON.stringify([request.method, request.url.href, headers, request.body ?? null, request.responseType]);
  }

  get(key: string): OutboundResponse | undefined {
    return this.entries.get(key);
  }

  /** Keeps the answer if it is a success (2xx) that could be read; returns whether it did. */
  offer(key: string, response: OutboundResponse): boolean {
    if (response.status < 200 || response.status >= 300 || response.bodyError !== undefined) return false;
    this.entries.set(key, response);
    return true;
  }

  get size(): number {
    return this.entries.size;
  }
}
