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
