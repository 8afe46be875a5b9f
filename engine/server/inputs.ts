import type { Context } from 'koa';
import type { RouteSpec } from '../contract/routes';
import type { Problem } from '../errors';

/**
 * Collects a route's input from where the contract puts it. Query names match case-insensitively, as
 * the platform's own web framework does, and are handed to the mapping in the contract's spelling.
 */
export function readInput(route: RouteSpec, ctx: Context & { params?: Record<string, string> }): { input: unknown; problems: Problem[] } {
  switch (route.inputSource) {
    case 'none':
      return { input: {}, problems: [] };
    case 'query': {
      const input: Record<string, unknown> = {};
      const canonical = new Map(route.params.map((name) => [name.toLowerCase(), name]));
      for (const [name, value] of Object.entries(ctx.query)) {
        input[canonical.get(name.toLowerCase()) ?? name] = value;
      }
      return { input, problems: [] };
    }
    case 'path':
      return { input: Object.fromEntries(route.params.map((name) => [name, ctx.params?.[name]])), problems: [] };
    case 'body': {
      const parseError = ctx.state.bodyError as (Error & { status?: number; type?: string }) | undefined;
      if (parseError) {
        const message = parseError.status === 413
          ? 'the request body is larger than the engine accepts'
          : `the request body is not valid JSON: ${parseError.message}`;
        return { input: undefined, problems: [{ path: 'body', message }] };
      }
      const empty = ctx.request.rawBody === undefined || String(ctx.request.rawBody).trim() === '';
      // The raw text is as large as the body (tens of MB for a file upload) and nothing reads it again.
      ctx.request.rawBody = '';
      if (empty) return { input: undefined, problems: [{ path: 'body', message: 'the request body is empty; a JSON body is expected' }] };
      return { input: ctx.request.body, problems: [] };
    }
  }
}
