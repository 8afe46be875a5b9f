/**
 * Standalone start of the example ERP.
 *
 *   ERP_PORT=8081 node dist/examples/erp/main.js
 *
 * Environment: ERP_PORT (default 8081), ERP_HOST (default 127.0.0.1),
 * ERP_EXTRA_ORDERS (generated load-test orders, default 0), ERP_PUSH_URL and ERP_PUSH_SECRET (where
 * and how it pushes to the engine, e.g. http://localhost:8080/push; unset: nothing is pushed).
 */
import http from 'node:http';
import { listen, runAsProcess } from '../listen';
import { BASE_PATH, createErpApp } from './app';
import { pushesUnder, type PushTarget } from './pushes';
import type { ErpState } from './types';

export interface StartErpOptions {
  /** default 0 = random free port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
  extraOrders?: number;
  push?: PushTarget;
}

export interface RunningErp {
  /** e.g. `http://127.0.0.1:8081/api/v1` */
  url: string;
  port: number;
  state: ErpState;
  /** Stops listening and drops open (keep-alive) connections. */
  close(): Promise<void>;
}

/** Starts an independent ERP instance on its own HTTP server. */
export async function startErp(options: StartErpOptions = {}): Promise<RunningErp> {
  const host = options.host ?? '127.0.0.1';
  const { app, state } = createErpApp({ extraOrders: options.extraOrders, push: options.push });
  const listening = await listen(http.createServer(app.callback()), options.port ?? 0, host);
  return { url: `http://${listening.urlHost}:${listening.port}${BASE_PATH}`, port: listening.port, state, close: listening.close };
}

if (require.main === module) {
  const port = Number(process.env.ERP_PORT ?? 8081);
  const extraOrders = Number(process.env.ERP_EXTRA_ORDERS ?? 0);
  const { ERP_PUSH_URL: url, ERP_PUSH_SECRET: secret } = process.env;
  runAsProcess('example ERP', () => startErp({ port, host: process.env.ERP_HOST, extraOrders, push: url && secret ? { url: pushesUnder(url), secret } : undefined }));
}
