import { randomBytes, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';

/**
 * The studio's guards. The page gets a per-session token in its HTML (a meta tag) and sends it in
 * `x-studio-token` with every request that changes something; such a request must also come from the
 * page's own origin (`Origin`), so another site open in the same browser can neither read nor change
 * anything. The Content-Security-Policy lets the page run only its own script: no inline script, no CDN.
 */
const TOKEN_HEADER = 'x-studio-token';

/**
 * The policy of every answer. The page's own answer adds a nonce for styles: CodeMirror writes its
 * theme into a <style> element, which it marks with the nonce the page hands it (EditorView.cspNonce).
 */
export function contentSecurityPolicy(styleNonce?: string): string {
  const styles = styleNonce === undefined ? "'self'" : `'self' 'nonce-${styleNonce}'`;
  // style-src-attr: CodeMirror sizes and places its parts with style attributes, which run no script.
  return `default-src 'self'; script-src 'self'; style-src ${styles}; style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

function same(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Why a changing request is refused (403), or undefined when its token and origin are the page's. */
export function refusal(ctx: Koa.Context, token: string): string | undefined {
  const origin = ctx.get('origin');
  // Koa's ctx.origin is the Origin header itself; the page's own origin is the scheme and Host it was served on.
  const own = `${ctx.protocol}://${ctx.host}`;
  if (origin !== own) return `a request that changes something must come from the studio's page (Origin ${own}), not ${origin || 'without an Origin'}`;
  if (!same(ctx.get(TOKEN_HEADER), token)) return `a request that changes something needs the session's token in ${TOKEN_HEADER} (reload the page)`;
  return undefined;
}

/**
 * The local studio answers only requests addressed to the loopback interface by name or number: a web
 * page whose name an attacker points at 127.0.0.1 (DNS rebinding) sends its own name as Host and is refused.
 */
export function loopbackHost(ctx: Koa.Context): boolean {
  return /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?$/i.test(ctx.host);
}

/** Headers of every studio answer: the policy, no sniffing, no framing, nothing cached. */
export function guardHeaders(ctx: Koa.Context): void {
  ctx.set('content-security-policy', contentSecurityPolicy());
  ctx.set('x-content-type-options', 'nosniff');
  ctx.set('referrer-policy', 'no-referrer');
  ctx.set('cache-control', 'no-store');
}
