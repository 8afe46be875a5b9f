import type http from 'node:http';
import type https from 'node:https';
import type net from 'node:net';

/**
 * A graceful stop: no new connections, idle keep-alive connections closed at once, every request in
 * flight answered (its connection then closes), and after `timeoutMs` whatever is left is cut.
 */
export interface DrainResult {
  /** Every request in flight was answered before the timeout. */
  readonly finished: boolean;
  readonly inFlightAtStart: number;
  /** Connections cut at the timeout while a request on them was still unanswered. */
  readonly forcedConnections: number;
  readonly ms: number;
}

export interface RequestTracker {
  readonly inFlight: number;
  /** Resolves when no request is in flight. */
  idle(): Promise<void>;
  /** From now on every response asks its client to close the connection. */
  closing(): void;
  /** Destroys every connection; returns how many still carried an unanswered request. */
  cut(): number;
}

/** Call right after creating the server, before it listens, so that every connection is seen. */
export function trackRequests(server: http.Server | https.Server): RequestTracker {
  const open = new Set<http.ServerResponse>();
  // Raw sockets, not only HTTP connections: Node's closeAllConnections() does not reach an HTTPS socket
  // still in its TLS handshake (a silent TCP probe), and server.close() would wait for it for minutes.
  const sockets = new Set<net.Socket>();
  const waiters: (() => void)[] = [];
  let closing = false;
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
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
    cut() {
      const busy = new Set([...open].map((response) => response.socket)).size;
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      return busy;
    },
  };
}

/** Never rejects, and never outlives `timeoutMs` by more than the time sockets take to close. */
export async function drain(server: http.Server | https.Server, tracker: RequestTracker, options: { readonly timeoutMs: number }): Promise<DrainResult> {
  const started = performance.now();
  const inFlightAtStart = tracker.inFlight;
  tracker.closing();
  // Stops accepting at once: a new connection is refused. (Not listening: already closed, nothing to await.)
  const closed = server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
    // A stop must never be what keeps the process alive.
    timer.unref();
  });
  const finished = (await Promise.race([tracker.idle().then(() => 'idle' as const), deadline])) === 'idle';
  // Nothing is being answered now (or the time is up): what remains is idle keep-alive connections,
  // requests that began arriving during the drain, and TLS handshakes. Cut them rather than wait.
  const forcedConnections = tracker.cut();
  await Promise.race([closed, deadline]);
  clearTimeout(timer);
  return { finished, inFlightAtStart, forcedConnections, ms: Math.round(performance.now() - started) };
}
