import type http from 'node:http';
import type https from 'node:https';
import net from 'node:net';

/**
 * A graceful stop: no new connections; every request that arrives on an open connection is answered with
 * `Connection: close` (its client then opens a new connection, to another replica); a keep-alive connection
 * that stays idle for IDLE_GRACE_MS is closed; after `timeoutMs` whatever is left is cut.
 *
 * Idle keep-alive connections are not closed at once: a client (a load balancer) may be writing its next
 * request on one at that very moment, and it would see a reset (9 of 30 busy connections were). Answering
 * that request with `Connection: close` ends the connection cleanly. Only a client that stays silent for
 * the grace and then sends exactly as the connection closes can still meet a closed connection.
 */
const IDLE_GRACE_MS = 1000;

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
  /** Connections open now (TLS handshakes included). */
  readonly connections: number;
  /** Resolves when no connection is open. */
  allClosed(): Promise<void>;
}

/** Call right after creating the server, before it listens, so that every connection is seen. */
export function trackRequests(server: http.Server | https.Server): RequestTracker {
  const open = new Set<http.ServerResponse>();
  // Raw sockets, not only HTTP connections: Node's closeAllConnections() does not reach an HTTPS socket
  // still in its TLS handshake (a silent TCP probe), and server.close() would wait for it for minutes.
  const sockets = new Set<net.Socket>();
  const waiters: (() => void)[] = [];
  const closedWaiters: (() => void)[] = [];
  let closing = false;
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) for (const wake of closedWaiters.splice(0)) wake();
    });
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
    get connections() {
      return sockets.size;
    },
    allClosed: () => (sockets.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => closedWaiters.push(resolve))),
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
export async function drain(server: http.Server | https.Server, tracker: RequestTracker, options: { readonly timeoutMs: number; readonly idleGraceMs?: number }): Promise<DrainResult> {
  const started = performance.now();
  const inFlightAtStart = tracker.inFlight;
  tracker.closing();
  // Stops accepting at once: a new connection is refused. net.Server's close, not http.Server's, which
  // would also close every idle keep-alive connection at once (see IDLE_GRACE_MS).
  // (Not listening: already closed, nothing to await.)
  const closed = server.listening ? new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve())) : Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
    // A stop must never be what keeps the process alive.
    timer.unref();
  });
  if (tracker.connections > 0) {
    const grace = new Promise<void>((resolve) => setTimeout(resolve, Math.min(options.idleGraceMs ?? IDLE_GRACE_MS, options.timeoutMs)).unref());
    await Promise.race([grace, tracker.allClosed()]);
  }
  // Whatever is idle now was idle for the grace: closed; a connection still answering closes after its answer.
  server.closeIdleConnections();
  const finished = (await Promise.race([tracker.idle().then(() => 'idle' as const), deadline])) === 'idle';
  // Nothing is being answered now (or the time is up): what remains is idle keep-alive connections,
  // requests that began arriving during the drain, and TLS handshakes. Cut them rather than wait.
  const forcedConnections = tracker.cut();
  await Promise.race([closed, deadline]);
  clearTimeout(timer);
  return { finished, inFlightAtStart, forcedConnections, ms: Math.round(performance.now() - started) };
}
