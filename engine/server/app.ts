import Router from '@koa/router';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { toEnvelope, type Outcome } from '../contract/envelope';
import { ROUTES, type RouteSpec } from '../contract/routes';
import { contractSchemas, type SchemaRegistry } from '../contract/schema-registry';
import { OperationFailure } from '../errors';
import { createHttpClient, type HttpClient } from '../http/client';
import { silentLogger, type Logger } from '../log';
import type { Mapping } from '../mapping/model';
import { failureOutcome, handleRequest, type PreparedRoute } from '../pipeline/handle';
import { readInput } from './inputs';

export interface AppDeps {
  readonly mapping: Mapping;
  /** Outbound client; tests inject a fake. Defaults to the real keep-alive client. */
  readonly http?: HttpClient;
  readonly log?: Logger;
  readonly schemas?: SchemaRegistry;
  /** Largest JSON body accepted from the platform (export ranges and files are big). */
  readonly bodyLimit?: string;
}

export interface EngineApp {
  readonly koa: Koa;
  readonly http: HttpClient;
  readonly mapping: Mapping;
  close(): void;
}

/** koa-router path syntax for a contract path: `/Items/{number}` → `/Items/:number`. */
function routerPath(route: RouteSpec): string {
  return route.path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * The HTTP server only translates: request → input → pipeline → envelope. It is the one error funnel:
 * whatever happens inside, the platform gets the route's envelope, and faults are logged, never shown.
 */
export function createApp(deps: AppDeps): EngineApp {
  const schemas = deps.schemas ?? contractSchemas();
  const http = deps.http ?? createHttpClient();
  const log = deps.log ?? silentLogger;
  const { mapping } = deps;
  if (mapping.system.tls?.insecureSkipVerify) {
    log.warn({ mapping: mapping.name, setting: 'system.tls.insecureSkipVerify' }, 'TLS certificate checking toward the ERP is OFF: anyone on the network path can read and change the traffic, credentials included');
  }
  const koa = new Koa();
  const router = new Router();
  const parseBody = bodyParser({
    enableTypes: ['json'],
    jsonLimit: deps.bodyLimit ?? '64mb',
    // The platform may omit or misstate the content type; every contract body is JSON.
    detectJSON: () => true,
    onerror: (error, ctx) => {
      ctx.state.bodyError = error;
    },
  });

  for (const route of ROUTES) {
    const prepared: PreparedRoute = {
      route,
      checkInput: route.inputSchema ? schemas.lazy(route.inputSchema) : undefined,
      checkData: route.dataSchema ? schemas.lazy(route.dataSchema) : undefined,
    };
    const handler = async (ctx: Koa.Context) => {
      const started = performance.now();
      let outcome: Outcome;
      try {
        const { input, problems } = readInput(route, ctx);
        outcome = await handleRequest(mapping, prepared, input, problems, { http, log });
      } catch (error) {
        const failure = error instanceof OperationFailure ? error : new OperationFailure('INTERNAL', 'internal engine error; see the adapter log');
        if (!(error instanceof OperationFailure)) log.error({ err: error, operation: route.operationId }, 'engine fault while serving a request');
        outcome = failureOutcome(route, failure);
        if (failure.kind !== 'INTERNAL') log.warn({ operation: route.operationId, failure: failure.kind, problems: failure.problems }, failure.message);
      }
      ctx.status = 200;
      ctx.body = toEnvelope(route, outcome);
      log.info({ operation: route.operationId, method: route.method, path: ctx.path, result: outcome.resultName, ms: Math.round(performance.now() - started) }, 'request');
    };
    if (route.method === 'GET') router.get(routerPath(route), handler);
    else router.post(routerPath(route), parseBody, handler);
  }

  koa.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      // Only reachable for faults outside a route handler (routing itself); no stack trace leaves.
      log.error({ err: error, path: ctx.path }, 'engine fault outside a route');
      ctx.status = 500;
      ctx.body = { error: 'internal error' };
    }
    if (ctx.status === 404 && ctx.body === undefined) {
      ctx.body = { error: `no contract route ${ctx.method} ${ctx.path}` };
      ctx.status = 404; // Koa turns an implicit 404 into 200 when a body is assigned
    } else if (ctx.status === 405) {
      ctx.body = { error: `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}` };
    }
  });
  koa.use(router.routes());
  koa.use(router.allowedMethods());
  koa.silent = true;

  return { koa, http, mapping, close: () => http.close() };
}
