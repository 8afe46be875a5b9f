import type { Logger } from '../log';
import type { CallSpec, SystemSpec } from '../mapping/model';
import { TransportError, type HttpClient, type OutboundRequest, type OutboundResponse } from './client';
import type { Deadline } from './deadline';
import { withCookies } from './cookies';
import { withCsrf } from './csrf';
import { fetchAsset } from './asset';
import { ResponseCache } from './response-cache';
import { SessionSlot } from './session-slot';
import { Slots } from './slots';
import { TokenBucket } from './token-bucket';
import { createAuthenticator, type Authenticator } from './with-auth';
import { withRetry, type AttemptReport, type WaitAsked } from './with-retry';

/**
 * Everything the engine keeps per ERP between contract requests: the concurrency limit, the
 * credentials (with the OAuth2 token cache), the session (cookies, CSRF token) and the answer caches of
 * the calls. Layers, outside in: cache → retry → limit → auth → CSRF → cookies → HttpClient. The limit
 * sits inside the retry so a request waiting to retry holds no slot; auth sits inside the limit so every
 * attempt carries a valid token.
 */

export interface SendContext {
  /** The call as named in messages: `orders`, or `report[2]` for one element of a fan-out. */
  readonly label: string;
  readonly deadline: Deadline;
  readonly onAttempt?: (label: string, report: AttemptReport) => void;
  readonly log?: Logger;
  /** The points of system.rateLimit one attempt takes (its cost expression, worked out by the pipeline); default 1. */
  readonly cost?: number;
  /** The level of system.rateLimit an answer reports (its observe expression), if it reports one. */
  readonly levelOf?: (response: OutboundResponse) => Promise<number | undefined>;
  /** Whether an answer asks to be asked again later (the mapping's refusal rule): it is then repeated as a 429 would be. */
  readonly asksToWait?: (response: OutboundResponse) => Promise<WaitAsked | undefined>;
  /** The request as a later attempt sends it: the headers that change per attempt computed again (call.attemptHeaders). */
  readonly renew?: (request: OutboundRequest) => Promise<OutboundRequest>;
}

export interface SendResult {
  readonly response: OutboundResponse;
  /** Requests that went to the ERP for this answer: 0 for a cache hit, more with retries or a token renewal. */
  readonly attempts: number;
  readonly cached: boolean;
  /**
   * Puts this answer into the call's cache. The caller calls it once the answer is judged a success: an
   * ERP's refusal inside a 200 looks like any other readable 2xx here, and must be asked again.
   */
  readonly keep?: () => void;
  /** The answer still asked to wait when no further attempt was possible: why (the attempts, the deadline, how long it asked). */
  readonly waitRefused?: string;
}

export class ErpConnection {
  private readonly slots: Slots;
  private readonly auth: Authenticator;
  /** Keyed by the call's name and cache settings, so a reloaded mapping keeps the answers of an unchanged call. */
  private readonly caches = new Map<string, ResponseCache>();
  /** The system's login answer (system.session), shared by every request to it. */
  readonly session = new SessionSlot();
  /** system.rateLimit's bucket, shared by every request to the system. */
  readonly bucket?: TokenBucket;

  constructor(readonly system: SystemSpec, private readonly http: HttpClient, onTokenFetch?: (ok: boolean, token?: string) => void) {
    this.slots = new Slots(system.maxConcurrency);
    if (system.rateLimit) this.bucket = new TokenBucket(system.rateLimit.capacity, system.rateLimit.refillPerSecond);
    // Per connection, below the credentials: the ERP's session cookies, and SAP's CSRF token over them.
    const session = system.cookies === 'session' ? withCookies(http) : http;
    this.auth = createAuthenticator(system.auth, system.csrf ? withCsrf(session, system.csrf, system.baseUrl) : session, system.tls, onTokenFetch);
  }

  /** Requests in flight and waiting for a slot, for tests and diagnostics. */
  get load(): { active: number; pending: number } {
    return { active: this.slots.activeCount, pending: this.slots.pendingCount };
  }

  cacheOf(call: CallSpec): ResponseCache | undefined {
    if (!call.cache) return undefined;
    const key = JSON.stringify([call.name, call.cache]);
    let cache = this.caches.get(key);
    if (!cache) {
      cache = new ResponseCache(call.cache);
      this.caches.set(key, cache);
    }
    return cache;
  }

  /** One attempt under system.rateLimit: its points taken before it goes, the level the answer reports learned after. */
  private async paced(bucket: TokenBucket, context: SendContext, sendOnce: () => Promise<OutboundResponse>): Promise<OutboundResponse> {
    const settle = await bucket.take(context.cost ?? 1, context.deadline, context.label);
    let response: OutboundResponse;
    try {
      response = await sendOnce();
    } finally {
      settle();
    }
    const level = await context.levelOf?.(response);
    if (level !== undefined) bucket.observe(level);
    return response;
  }

  async send(call: CallSpec, request: OutboundRequest, context: SendContext): Promise<SendResult> {
    const { label, deadline, log } = context;
    const target = { call: label, method: request.method, url: `${request.url.origin}${request.url.pathname}` };
    const cache = this.cacheOf(call);
    // What changes per attempt (a nonce, a timestamp, a signature of the mapping's own) says nothing about the answer.
    const key = cache ? ResponseCache.keyOf(request, [this.system.requestIdHeader, this.system.idempotencyHeader, ...call.attemptHeaders]) : undefined;
    const hit = key !== undefined ? cache?.get(key) : undefined;
    if (hit) {
      log?.debug({ ...target, status: hit.status, attempts: 0, cached: true }, 'erp call answered from cache');
      return { response: hit, attempts: 0, cached: true };
    }

    let renewals = 0;
    let sent = 0;
    /** The credentials' header of the latest attempt as the trace may show it (OAuth 1.0a's parameters, no signature). */
    let shown: string | undefined;
    const sendOnce = async () => {
      sent += 1;
      const attempt = sent > 1 && context.renew ? await context.renew(request) : request;
      return this.slots.run(deadline, label, async () => {
        const timeoutMs = deadline.timeoutFor(attempt.timeoutMs, label);
        const outbound = { ...attempt, timeoutMs, tls: this.system.tls, signal: deadline.abandoned };
        // A url taken from an answer (system.assetHosts) goes without the ERP's credentials and session.
        if (call.absolute) return fetchAsset(this.http, outbound, this.system.assetHosts);
        const result = await this.auth.send(outbound);
        shown = result.shown;
        if (result.sends > 1) {
          renewals += result.sends - 1;
          log?.info({ ...target }, 'the ERP answered 401; renewed the OAuth2 token and sent the request again');
        }
        return result.response;
      });
    };
    const attemptOnce = this.bucket && !call.absolute ? () => this.paced(this.bucket as TokenBucket, context, sendOnce) : sendOnce;
    let lastAttempt = 0;
    const report = (attempt: AttemptReport) => {
      lastAttempt = attempt.attempt;
      context.onAttempt?.(label, shown === undefined ? attempt : { ...attempt, signed: shown });
      if (attempt.retryInMs !== undefined) log?.warn({ ...target, ...attempt }, `erp call attempt ${attempt.attempt} of ${attempt.of} failed; retrying`);
      else if (attempt.gaveUp) log?.warn({ ...target, ...attempt }, `erp call not retried: ${attempt.gaveUp}`);
    };
    const started = performance.now();
    let outcome;
    try {
      outcome = await withRetry(call.retry, deadline, label, attemptOnce, report, context.asksToWait);
    } catch (error) {
      if (error instanceof TransportError) log?.warn({ ...target, error: error.code, attempts: lastAttempt + renewals }, 'erp call got no answer');
      throw error;
    }
    const { response, attempts, waitRefused } = outcome;
    log?.info({ ...target, status: response.status, attempts: attempts + renewals, ms: Math.round(performance.now() - started) }, 'erp call');
    const keep = cache && key !== undefined ? () => void cache.offer(key, response) : undefined;
    return { response, attempts: attempts + renewals, cached: false, keep, ...(waitRefused === undefined ? {} : { waitRefused }) };
  }
}
