import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server of the examples listening: its port, its host as a URL writes it, and a close that drops keep-alive connections. */
export interface Listening {
  readonly port: number;
  /** `127.0.0.1`, or `[::1]` for an IPv6 address. */
  readonly urlHost: string;
  close(): Promise<void>;
}

export async function listen(server: http.Server, port: number, host: string): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    urlHost: host.includes(':') ? `[${host}]` : host,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/**
 * Runs an example server as a process of its own (`node dist/examples/.../main.js`): says where it
 * listens, stops on SIGINT or SIGTERM, and exits 1 with the reason when it cannot start.
 */
export function runAsProcess(what: string, start: () => Promise<{ readonly url: string; close(): Promise<void> }>): void {
  start()
    .then((server) => {
      console.log(`${what} listening on ${server.url}`);
      const stop = () => void server.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((error: unknown) => {
      console.error(`${what} failed to start:`, error);
      process.exit(1);
    });
}
