import type { AddressInfo } from 'node:net';
import type { Logger } from '../log';

/**
 * The start-up lines of `serve` (what loaded, where it listens, what is missing) are log lines like the
 * rest: JSON on standard output, with the values as fields for scripts and log stacks. They are written
 * at level info or warn whatever --log-level says: a supervisor, a script or a test reads the address
 * from them, and --log-level is about the traffic (one line per request). When standard error is a
 * terminal, each is also written there as a plain line for the person who started the command.
 */
export type Announce = (level: 'info' | 'warn', fields: Record<string, unknown>, message: string) => void;

export function createAnnounce(log: Logger, human?: (line: string) => void): Announce {
  const startup = log.child({}, { level: 'info' });
  return (level, fields, message) => {
    startup[level](fields, message);
    human?.(level === 'warn' ? `warning: ${message}` : message);
  };
}

/** The host of a URL people can click, from the address actually bound: all interfaces as localhost, IPv6 in brackets. */
function urlHost(address: string): string {
  if (address === '0.0.0.0' || address === '::') return 'localhost';
  return address.includes(':') ? `[${address}]` : address;
}

/** The URL of a listener as bound (--port 0: the port picked; --host localhost: the address it resolved to). */
export function boundUrl(bound: AddressInfo, tls: boolean): string {
  return `${tls ? 'https' : 'http'}://${urlHost(bound.address)}:${bound.port}`;
}

/** One line per mapping served: its base URL, and the address and port bound. */
export function announceListening(announce: Announce, bound: AddressInfo, options: { readonly tls: boolean; readonly prefixed: boolean; readonly mappings: readonly string[] }): void {
  const base = boundUrl(bound, options.tls);
  for (const mapping of options.mappings) {
    const url = options.prefixed ? `${base}/${encodeURIComponent(mapping)}` : base;
    announce('info', { mapping, url, address: bound.address, port: bound.port }, `adapter engine listening on ${url} (mapping "${mapping}")`);
  }
}
