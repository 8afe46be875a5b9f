import type { AuthSpec, TlsSpec } from '../mapping/model';
import { TransportError, type HttpClient } from './client';
import { TokenUnavailable } from './faults';

/** The call name of token requests, as traces, logs and recorded-answer clients see them. */
export const OAUTH2_TOKEN_CALL = 'oauth2-token';

type OAuth2Spec = Extract<AuthSpec, { type: 'oauth2ClientCredentials' }>;

/** A token is renewed this long before it expires, so it cannot expire between check and use. */
const MAX_EARLY_RENEWAL_MS = 30_000;

/**
 * OAuth2 client-credentials tokens: fetched once, cached until shortly before they expire, and shared
 * by concurrent requests: while one fetch is under way every caller waits for it (single flight).
 */
export class TokenSource {
  private cached?: { readonly token: string; readonly renewAt: number };
  private inflight?: Promise<string>;

  constructor(
    private readonly spec: OAuth2Spec,
    private readonly http: HttpClient,
    private readonly tls: TlsSpec | undefined,
    private readonly now: () => number = Date.now,
    /** Told of every fetch and the token it gave (the engine counts them, and masks the token wherever it shows). */
    private readonly onFetch: (ok: boolean, token?: string) => void = () => undefined,
  ) {}

  async get(timeoutMs: number): Promise<string> {
    if (this.cached && this.now() < this.cached.renewAt) return this.cached.token;
    this.inflight ??= this.fetch(timeoutMs).then(
      (token) => {
        this.onFetch(true, token);
        return token;
      },
      (error: unknown) => {
        this.onFetch(false);
        throw error;
      },
    ).finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  /** The ERP refused `token`: forget it, unless a newer one has replaced it meanwhile. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  /** The endpoint's URL goes to the log only: it is often an internal address (issue 18, item 7). */
  private failure(message: string): TokenUnavailable {
    return new TokenUnavailable(`the OAuth2 token endpoint ${this.spec.tokenUrl.origin}${this.spec.tokenUrl.pathname} ${message}`, `the OAuth2 token endpoint ${message}`);
  }

  private async fetch(timeoutMs: number): Promise<string> {
    const { spec } = this;
    const form: Record<string, string> = { grant_type: 'client_credentials' };
    if (spec.scope) form.scope = spec.scope;
    if (spec.audience) form.audience = spec.audience;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (spec.clientAuth === 'body') {
      form.client_id = spec.clientId;
      form.client_secret = spec.clientSecret.reveal();
    } else {
      // RFC 6749 2.3.1: id and secret are form-encoded before they go into the Basic header.
      const pair = `${encodeURIComponent(spec.clientId)}:${encodeURIComponent(spec.clientSecret.reveal())}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    }
    const started = this.now();
    let response;
    try {
      response = await this.http.send({
        callName: OAUTH2_TOKEN_CALL, method: 'POST', url: spec.tokenUrl, headers, form, tls: this.tls,
        timeoutMs, responseType: 'json', maxResponseBytes: 1024 * 1024,
      });
    } catch (error) {
      if (error instanceof TransportError) throw this.failure(`could not be reached (${error.code})`);
      throw error;
    }
    const body = response.body as { access_token?: unknown; expires_in?: unknown; error?: unknown } | undefined;
    if (response.status < 200 || response.status >= 300) {
      // Only the OAuth2 error code is repeated: an identity provider's description may echo the request.
      const code = typeof body?.error === 'string' ? ` (${body.error.slice(0, 60)})` : '';
      throw this.failure(`answered ${response.status}${code}`);
    }
    if (typeof body?.access_token !== 'string' || body.access_token === '') throw this.failure('answered without an access_token');
    const lifetimeMs = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000 : undefined;
    // Without expires_in the token is kept until the ERP refuses it (401), which triggers one renewal.
    const renewAt = lifetimeMs === undefined ? Infinity : started + lifetimeMs - Math.min(MAX_EARLY_RENEWAL_MS, lifetimeMs / 10);
    this.cached = { token: body.access_token, renewAt };
    return body.access_token;
  }
}
