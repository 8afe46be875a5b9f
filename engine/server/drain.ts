import type http from 'node:http';
import type https from 'node:https';

/**
 * A graceful stop: no new connections, idle keep-alive connections closed at once, every request in
 * flight answered (its connection then closes), and after `timeoutMs` whatever is left is cut.
 */
export interface DrainResult {
  readonly finished: boolean;
  readonly inFlightAtStart: number;
  readonly forcedConnections: number;
  readonly ms: number;
}

export interface RequestTracker {
  readonly inFlight: number;
  /** Resolves when no request is in flight. */
  idle(): Promise<void>;
  /** From now on every response asks its client to close the connection. */
  closing(): void;
}

export function trackRequests(server: http.Server | https.Server): RequestTracker {
  const open = new Set<http.ServerResponse>();
  const waiters: (() => void)[] = [];
  let closing = false;
  server.on('request', (_request: http.IncomingMessage, response: http.ServerResponse) => {
    open.add(response);
    if (closing) response.shouldKeepAlive = false;
    response.once('close', () => {
      open.delete(response);
      if (open.size === 0) for (const wake of waiters.splice(0)) wake();
    });
  });
  return {
    get inFlight() {
      return open.size;
    },
    idle: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    closing() {
      closing = true;
      // Responses already under way: their keep-alive connection ends once they are answered.
      for (const response of open) if (!response.headersSent) response.shouldKeepAlive = false;
    },
  };
}

export async function drain(server: http.Server | https.Server, tracker: RequestTracker, options: { readonly timeoutMs: number }): Promise<DrainResult> {
  const started = performance.now();
  const inFlightAtStart = tracker.inFlight;
  tracker.closing();
  const closed = new Promise<void>((resolve) => {
    if (!server.listening) resolve();
    else server.close(() => resolve());
  });
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
    timer.unref();
  });
  const outcome = await Promise.race([tracker.idle().then(() => 'idle' as const), timedOut]);
  clearTimeout(timer);
  let forcedConnections = 0;
  if (outcome === 'timeout') {
    forcedConnections = tracker.inFlight;
    server.closeAllConnections();
  } else {
    // Idle keep-alive connections opened meanwhile (a response that finished) close now.
    server.closeIdleConnections();
  }
  await closed;
  return { finished: outcome === 'idle', inFlightAtStart, forcedConnections, ms: Math.round(performance.now() - started) };
}
