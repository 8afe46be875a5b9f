import { adminTokensFrom } from '../server/admin-tokens';
import { usageError } from './usage';

/**
 * How the commands that read a running server (`requests`, `outbox --admin`) reach its admin listener: where it is
 * (--admin, ADMIN_URL or ADMIN_PORT) and the bearer token it asks for: ADMIN_TOKEN, else the first of the
 * server's own variables (ADMIN_TOKENS, ADMIN_TOKENS_FILE) when the command runs beside it.
 */
export interface AdminOptions {
  admin?: string;
  json?: boolean;
}

function adminUrl(options: AdminOptions): string {
  const given = options.admin ?? process.env.ADMIN_URL ?? (process.env.ADMIN_PORT ? `http://127.0.0.1:${process.env.ADMIN_PORT}` : undefined);
  if (!given) usageError('name the server\'s admin listener: --admin http://host:port (serve --admin-port), or set ADMIN_URL');
  return given.replace(/\/+$/, '');
}

function adminToken(): string | undefined {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  try {
    return adminTokensFrom(process.env).current()[0];
  } catch (error) {
    return usageError((error as Error).message);
  }
}

/** GET, or POST with a JSON body (the outbox's actions). */
export async function fetchAdmin(options: AdminOptions, pathAndQuery: string, post?: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const url = `${adminUrl(options)}${pathAndQuery}`;
  const token = adminToken();
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...(post ? { 'content-type': 'application/json' } : {}) },
      ...(post ? { method: 'POST', body: JSON.stringify(post) } : {}),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return usageError(`cannot reach the admin listener at ${adminUrl(options)}: ${cause}`);
  }
  if (response.status === 401) {
    await response.body?.cancel();
    usageError(token === undefined
      ? `the admin listener at ${adminUrl(options)} asks for a token: set ADMIN_TOKEN to one of the server's ADMIN_TOKENS`
      : `the admin listener at ${adminUrl(options)} does not accept the token of ADMIN_TOKEN (or ADMIN_TOKENS); it takes one of the server's ADMIN_TOKENS`);
  }
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    return usageError(`${url} did not answer JSON (HTTP ${response.status}); is it the admin listener of adapter-engine serve?`);
  }
}
